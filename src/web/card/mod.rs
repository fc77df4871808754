//! The hard confirmation card, drawn by the SDK (SPEC §4).
//!
//! [`CardLayer`] owns one host element (`<coworkkit-card data-coworkkit="card">`) appended to the
//! SDK's container, a **closed** shadow root styled by an adopted stylesheet (`src/js/page.js`)
//! and one reusable native `<dialog>` opened with
//! [`showModal()`](https://developer.mozilla.org/en-US/docs/Web/API/HTMLDialogElement/showModal)
//! (top layer; the page behind is inert). [`CardLayer::show`] fills it from a plain
//! [`CardModel`]; every string goes in through `textContent`, never `innerHTML`.
//!
//! # Who can decide
//! - **Confirm** counts only for trusted input that [`Arming`](crate::core::arming) accepts
//!   (SPEC §4.2; the rules are host-tested there): armed from the first frame painted after the
//!   card's current content was set, with the document visible, the window focused, the summary
//!   read to its end and Confirm uncovered; every change of content, of the "1 of N" row, of a
//!   label or notice, of the card's size or of Confirm's place starts the delay again; a pointer
//!   needs its press and its single click on Confirm after arming, a key needs focus brought to
//!   Confirm inside the armed card; an ignored press, key or click starts the delay again.
//!   `guard.rs` feeds it what the browser reports. `element.click()` and `dispatchEvent` make
//!   untrusted events, which do nothing; nor does any input while the SDK performs an element
//!   action (the flag the instance shares), even one the browser marks trusted.
//! - **Covered, it does not count.** Only another top-layer element (a popover, a modal dialog
//!   opened after the card, fullscreen) can be drawn above the card, and a click passes through
//!   one with `pointer-events: none` to Confirm beneath it. Where the browser can tell
//!   ([IntersectionObserver v2](https://github.com/w3c/IntersectionObserver/blob/main/explainer.md)'s
//!   `isVisible`, Chromium), Confirm is watched: while the browser reports it covered (or
//!   transformed, filtered, faded), nothing arms it, and once uncovered the delay starts again.
//!   The browser reports a change within about 100 ms; other engines have no such report
//!   (SECURITY.md says what that leaves).
//! - **Cancel** counts for any click on Cancel (trusted or not: cancelling is always safe, and the
//!   card lives in a closed shadow root the agent's element actions never reach), for Escape
//!   (the dialog's `cancel` event), and for the dialog being closed by anything other than
//!   [`CardLayer::close`].
//! - **The reason** (SPEC §12): the optional one-line field "Tell the assistant why (optional)"
//!   (at most 200 characters), emptied for every card shown. A trusted Cancel (a click on it,
//!   Escape, or Enter in the field) sends what it holds with the decision; an untrusted one
//!   cancels without it, so nothing but a person's own input carries words to the agent.
//! - **Cancel all** (SPEC §12): while more than one card waits, "Cancel all N" beside Cancel
//!   cancels every waiting card, with the reason. Only a trusted click counts: one click of a
//!   person ends them all. There is no "Confirm all": every Confirm is one card's.
//!
//! - **A passkey card** (`verify: "passkey"`): Confirm reads `labels.confirmPasskey`, and its
//!   accepted input is delivered as [`Decision::Confirm`] without ending the card: it now
//!   waits for the browser's passkey prompt (the `status` line says so) and ignores Confirm
//!   until the caller reports how the prompt went ([`CardLayer::passkey_failed`] shows why and
//!   starts the delay again). Cancel and Escape still decide.
//!
//! One decision per shown card (but for a passkey card's Confirm, above): after it, the card
//! ignores input until the caller shows the next card or closes the layer. The decision
//! callback runs in a microtask, after the DOM listener has returned, so it may call
//! [`CardLayer::close`], [`CardLayer::show`] or drop the layer; a decision is dropped if another
//! card was shown (or the layer closed) in between.
//!
//! # Page code runs inside `show` and `close`
//! Opening the dialog and moving focus into it fire `blur` and `focusout` on the page's focused
//! element, synchronously; closing it and returning focus fire `focus` and `focusin`. Page
//! listeners there may call the instance, which may show, update or close this very layer. So
//! every method takes `&self` (the state is in cells, each read or replaced whole, none
//! borrowed across a DOM call), the instance holds the layer in an `Rc` it clones out before
//! calling it, and after each DOM call that runs page code `show` and `close` check whether the
//! card is still theirs (the generation) before going on.
//!
//! # Theming
//! Set these CSS custom properties on the host (`[data-coworkkit="card"]`) or any ancestor:
//!
//! | property | default (light / dark) |
//! |---|---|
//! | `--ck-accent` | `#d70015` / `#ff453a`: Confirm's warning colour, focus rings, notice bar |
//! | `--ck-accent-text` | `#fff`: text on Confirm |
//! | `--ck-bg` | `#fff` / `#1f1f22`: card background |
//! | `--ck-fg` | `#1d1d1f` / `#f5f5f7`: text |
//! | `--ck-muted` | `#6e6e73` / `#a1a1a6`: countdown, position, notice |
//! | `--ck-radius` | `14px` (buttons use 60% of it) |
//! | `--ck-font` | the system UI font stack |
//! | `--ck-shadow` | a soft two-layer drop shadow |
//!
//! Parts for `::part()`: `card` (the dialog), `title`, `summary`, `countdown`, `cancel`,
//! `confirm`, `position` ("1 of N"), `notice` (who may confirm), `status` (a passkey card's
//! line while it waits and after a prompt that did not confirm), `actions` (the button row),
//! `reason-label` and `reason` (the reason field), `cancel-all`, `hint` (why Confirm is not ready:
//! a summary to read to its end, Confirm covered).
//! Confirm carries `data-armed="false"` and `aria-disabled="true"` while it is not armed (drawn
//! darker, never at lower contrast) and `"true"` after.

mod guard;

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use gloo_timers::callback::{Interval, Timeout};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{
    Document, Element, Event, EventTarget, HtmlButtonElement, HtmlDialogElement, HtmlElement,
    HtmlInputElement, IntersectionObserver, IntersectionObserverEntry, IntersectionObserverInit,
    Performance, ShadowRoot, Window,
};

use super::convert::{get, set};
use super::dom::{el, set_hidden, shadow_host};
use super::frame::AfterPaint;
use super::js;
use super::listener::EventListener;
use super::time::now;
use crate::core::arming::Arming;
use crate::core::card::{
    cancel_all_text, countdown_text, position_text, CardModel, Labels, PasskeyStatus,
    REASON_MAX_CHARS,
};

/// What the person decided on the card.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// An armed, trusted Confirm (see the module docs).
    Confirm,
    /// Cancel, Escape, or the dialog closed by something other than [`CardLayer::close`];
    /// `reason`: what the reason field held, for a trusted Cancel, Escape or Enter in it.
    Cancel {
        /// The field's text as typed (the engine cleans it); `None` when empty or untrusted.
        reason: Option<String>,
    },
    /// A trusted click on "Cancel all N": every waiting card, with the field's text.
    CancelAll {
        /// As for [`Decision::Cancel`].
        reason: Option<String>,
    },
}

/// Who receives a card's decision.
type OnDecision = Rc<dyn Fn(Decision)>;

/// What the listeners need to judge a decision, shared with the layer. Cells: each is read
/// or replaced whole, never borrowed.
#[derive(Default)]
struct CurrentCard {
    /// Bumped by every `show` and `close`, so a queued decision cannot land on another card.
    generation: Cell<u32>,
    /// `Some` while a card is shown and undecided.
    on_decision: Cell<Option<OnDecision>>,
    /// When the current content was set, on the `performance.now()` clock: a visibility
    /// report about an earlier card is not about this one.
    shown_at: Cell<f64>,
    expires_at: Cell<f64>,
    confirm_allowed: Cell<bool>,
    /// A passkey card: Confirm starts a prompt rather than ending the card.
    passkey: Cell<bool>,
    /// A passkey card's prompt is open: Confirm is ignored until it is reported.
    waiting: Cell<bool>,
    /// The person has scrolled this card's summary to its end (or it fits its box).
    read_to_end: Cell<bool>,
}

/// The card's elements and state, shared by the layer and its listeners.
struct Parts {
    window: Window,
    root: ShadowRoot,
    dialog: HtmlDialogElement,
    position: Element,
    title: Element,
    summary: HtmlElement,
    notice: Element,
    status: Element,
    /// Why Confirm is not ready, when the person can do something about it (SPEC §4.2).
    hint: Element,
    countdown: Element,
    cancel: HtmlButtonElement,
    confirm: HtmlButtonElement,
    /// The optional reason field (SPEC §12).
    reason: HtmlInputElement,
    /// "Cancel all N", shown while more than one card waits.
    cancel_all: HtmlButtonElement,
    performance: Performance,
    card: CurrentCard,
    /// The words on the buttons.
    labels: Labels,
    /// True while the SDK performs an element action or moves focus itself: no input is a
    /// person's then.
    acting: Rc<Cell<bool>>,
    /// When Confirm may count (SPEC §4.2). Borrowed only around its own pure methods.
    arming: RefCell<Arming>,
    /// The frames the arm delay waits for (made once, asked for again at every change).
    frame: RefCell<Option<AfterPaint>>,
    /// Shows Confirm armed once the delay has passed.
    arm_timer: RefCell<Option<Timeout>>,
    /// The countdown, and the card's place checked, four times a second.
    ticker: RefCell<Option<Interval>>,
    /// Where focus was before the card opened; restored by `close`.
    return_focus: RefCell<Option<Element>>,
}

/// What a listener of the card heard.
#[derive(Clone, Copy)]
enum Input {
    /// A click on Confirm.
    Confirm,
    /// A click on Cancel.
    Cancel,
    /// The dialog's `cancel` event (Escape and other close requests).
    Escape,
    /// The dialog's `close` event.
    Close,
    /// A key pressed inside the dialog.
    Key,
    /// A pointer pressed inside the dialog (or on its backdrop).
    Press,
    /// A click on "Cancel all N".
    CancelAll,
    /// The summary scrolled.
    Scroll,
    /// The window lost focus, gained it, or the document's visibility changed.
    Attention,
}

impl Parts {
    /// Drops the handler of the card shown so far: no decision reaches it after this.
    fn forget_decision(&self) {
        let card = &self.card;
        card.on_decision.set(None);
        card.generation.set(card.generation.get().wrapping_add(1));
    }

    /// The "2 of 3" line and "Cancel all 3", both hidden when `total` ≤ 1.
    fn show_position(&self, position: usize, total: usize) {
        let text = position_text(position, total);
        self.position.set_text_content(text.as_deref());
        set_hidden(&self.position, text.is_none());
        let all = cancel_all_text(&self.labels.cancel_all, total);
        self.cancel_all.set_text_content(all.as_deref());
        set_hidden(&self.cancel_all, all.is_none());
    }

    /// What the reason field holds, for a decision `event` a person made; `None` when it is
    /// empty or the event is not trusted.
    fn reason_for(&self, event: &Event) -> Option<String> {
        let text = self.reason.value();
        (event.is_trusted() && !text.is_empty()).then_some(text)
    }

    /// The elements Tab moves between, in order: the summary when it scrolls, the field,
    /// "Cancel all" when shown, Cancel, and Confirm when confirming is allowed (it is disabled
    /// exactly then).
    fn focus_ring(&self) -> Vec<&HtmlElement> {
        let mut ring: Vec<&HtmlElement> = Vec::with_capacity(5);
        // Read now, not from the last painted frame: a key may come before the first one.
        if self.summary_overflows() {
            let _ = self.summary.set_attribute("tabindex", "0");
            ring.push(&self.summary);
        }
        ring.push(&self.reason);
        if !self.cancel_all.hidden() {
            ring.push(&self.cancel_all);
        }
        ring.push(&self.cancel);
        if self.card.confirm_allowed.get() {
            ring.push(&self.confirm);
        }
        ring
    }

    /// Whether the summary is taller than its box.
    fn summary_overflows(&self) -> bool {
        self.summary.scroll_height() > self.summary.client_height() + 1
    }

    /// The passkey card's line (hidden for `None`).
    fn show_status(&self, status: Option<PasskeyStatus>) {
        self.status
            .set_text_content(status.map(PasskeyStatus::text));
        set_hidden(&self.status, status.is_none());
        let waiting = status == Some(PasskeyStatus::Waiting);
        self.card.waiting.set(waiting);
        let _ = self
            .confirm
            .set_attribute("data-waiting", if waiting { "true" } else { "false" });
    }

    /// Takes the card's one decision and delivers it in a microtask, after the DOM listener
    /// that made it has returned (the callback may close, re-show or drop the layer).
    fn decide(self: &Rc<Self>, decision: Decision) {
        let Some(handler) = self.card.on_decision.take() else {
            return;
        };
        self.deliver(handler, decision);
    }

    /// An accepted Confirm: the decision, or for a passkey card the start of its prompt, which
    /// keeps the handler, so that Cancel (or, once the caller re-arms it, another Confirm)
    /// still counts.
    fn confirm_now(self: &Rc<Self>) {
        if !self.card.passkey.get() {
            return self.decide(Decision::Confirm);
        }
        let Some(handler) = self.card.on_decision.take() else {
            return;
        };
        self.card.on_decision.set(Some(handler.clone()));
        self.show_status(Some(PasskeyStatus::Waiting));
        self.deliver(handler, Decision::Confirm);
    }

    /// Delivers `decision` to `handler` in a microtask, unless another card was shown (or the
    /// layer closed) meanwhile.
    fn deliver(self: &Rc<Self>, handler: OnDecision, decision: Decision) {
        let generation = self.card.generation.get();
        let parts = self.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let still_current = parts.card.generation.get() == generation;
            if still_current {
                handler(decision);
            }
        });
    }

    /// Runs `f`, a DOM call of the SDK's own that fires events at the page (`showModal()`,
    /// `focus()`, `close()`), as the SDK: page code run by those events makes no gesture
    /// (SPEC §4.2: no grant, no Hand mode from the card's own focus moves).
    fn as_sdk<T>(&self, f: impl FnOnce() -> T) -> T {
        let was = self.acting.replace(true);
        let out = f();
        self.acting.set(was);
        out
    }

    /// Stops the countdown and the arming, for a card that closes.
    fn stop_timers(&self) {
        self.ticker.replace(None);
        self.arm_timer.replace(None);
        if let Some(frame) = self.frame.borrow().as_ref() {
            frame.cancel();
        }
    }
}

/// The SDK's hard confirmation card: one host element, a closed shadow root, one reusable
/// `<dialog>`. See the [module docs](self) for the decision rules and theming.
pub struct CardLayer {
    host: Element,
    parts: Rc<Parts>,
    _listeners: [EventListener; 11],
    /// Watches whether Confirm can be seen, where the browser can tell.
    visibility: Option<VisibilityWatch>,
}

/// An IntersectionObserver v2 on Confirm, disconnected on drop.
struct VisibilityWatch {
    observer: IntersectionObserver,
    _callback: Closure<dyn FnMut(js_sys::Array)>,
}

impl VisibilityWatch {
    /// Watches `parts.confirm`, if the browser reports visibility (`isVisible` on its entries);
    /// `None` where it does not.
    fn new(parts: &Rc<Parts>) -> Option<VisibilityWatch> {
        let window: JsValue = parts.window.clone().into();
        let prototype = get(&get(&window, "IntersectionObserverEntry"), "prototype");
        if !prototype.is_object() || !js_sys::Reflect::has(&prototype, &"isVisible".into()).ok()? {
            return None;
        }
        let watched = parts.clone();
        let callback = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
            for entry in entries.iter() {
                let entry: IntersectionObserverEntry = entry.unchecked_into();
                let visible = get(&entry, "isVisible").is_truthy();
                watched.seen(visible, entry.time());
            }
        });
        let options = IntersectionObserverInit::new();
        options.set_threshold_f64(1.0);
        // v2's options, not in web-sys's dictionary: visibility is tracked at most every
        // `delay` ms, 100 being the least the browser accepts.
        set(&options, "trackVisibility", true);
        set(&options, "delay", 100);
        let observer =
            IntersectionObserver::new_with_options(callback.as_ref().unchecked_ref(), &options)
                .ok()?;
        observer.observe(&parts.confirm);
        Some(VisibilityWatch {
            observer,
            _callback: callback,
        })
    }
}

impl Drop for VisibilityWatch {
    fn drop(&mut self) {
        self.observer.disconnect();
    }
}

/// The focused element, looking inside open shadow roots (a closed one yields its host).
fn focused_element(document: &Document) -> Option<Element> {
    let mut element = document.active_element()?;
    while let Some(inner) = element.shadow_root().and_then(|root| root.active_element()) {
        element = inner;
    }
    Some(element)
}

impl CardLayer {
    /// Builds the card's DOM (closed) and appends its host element to `container`; the buttons
    /// say `labels`, and no input counts while `acting` is true.
    ///
    /// Listeners are installed once here, on elements the layer keeps for its whole life (and
    /// on the window and document, for whether the person can see the card).
    pub fn new(
        container: &Element,
        labels: &Labels,
        arm_delay_ms: f64,
        acting: Rc<Cell<bool>>,
    ) -> Result<CardLayer, JsValue> {
        let window = js::window().ok_or_else(|| JsValue::from_str("coworkkit: no window"))?;
        let document = window
            .document()
            .ok_or_else(|| JsValue::from_str("coworkkit: no document"))?;
        let performance = window
            .performance()
            .ok_or_else(|| JsValue::from_str("coworkkit: no performance clock"))?;

        let (host, root) = shadow_host(container, "coworkkit-card", "card")?;
        let dialog = el(
            &root,
            "dialog",
            &[
                ("part", "card"),
                ("role", "alertdialog"),
                ("aria-modal", "true"),
                ("aria-labelledby", "ck-title"),
                ("aria-describedby", "ck-summary"),
            ],
            "",
        );
        let position = el(&dialog, "p", &[("part", "position"), ("hidden", "")], "");
        let title = el(&dialog, "h2", &[("part", "title"), ("id", "ck-title")], "");
        let summary = el(
            &dialog,
            "p",
            &[("part", "summary"), ("id", "ck-summary")],
            "",
        );
        let notice = el(
            &dialog,
            "p",
            &[("part", "notice"), ("id", "ck-notice"), ("hidden", "")],
            "",
        );
        let status = el(
            &dialog,
            "p",
            &[("part", "status"), ("role", "status"), ("hidden", "")],
            "",
        );
        let reason_label = el(
            &dialog,
            "label",
            &[("part", "reason-label")],
            &labels.reason,
        );
        let max = REASON_MAX_CHARS.to_string();
        let reason = el(
            &reason_label,
            "input",
            &[
                ("part", "reason"),
                ("type", "text"),
                ("maxlength", &max),
                ("autocomplete", "off"),
                ("enterkeyhint", "send"),
            ],
            "",
        );
        let hint = el(
            &dialog,
            "p",
            &[("part", "hint"), ("id", "ck-hint"), ("hidden", "")],
            "",
        );
        let actions = el(&dialog, "div", &[("part", "actions")], "");
        // Announcing every second would drown the card out for screen-reader users.
        let countdown = el(
            &actions,
            "span",
            &[("part", "countdown"), ("aria-live", "off")],
            "",
        );
        let button = |part, text| {
            el(
                &actions,
                "button",
                &[("part", part), ("type", "button")],
                text,
            )
        };
        let cancel_all = button("cancel-all", "");
        set_hidden(&cancel_all, true);
        let cancel = button("cancel", &labels.cancel);
        let confirm = button("confirm", &labels.confirm);
        let parts = Rc::new(Parts {
            window: window.clone(),
            root,
            dialog: dialog.unchecked_into(),
            position,
            title,
            summary: summary.unchecked_into(),
            notice,
            status,
            hint,
            countdown,
            cancel: cancel.unchecked_into(),
            confirm: confirm.unchecked_into(),
            reason: reason.unchecked_into(),
            cancel_all: cancel_all.unchecked_into(),
            performance,
            card: CurrentCard::default(),
            labels: labels.clone(),
            acting,
            arming: RefCell::new(Arming::new(arm_delay_ms)),
            frame: RefCell::new(None),
            arm_timer: RefCell::new(None),
            ticker: RefCell::new(None),
            return_focus: RefCell::new(None),
        });

        // One closure type for every listener, told what it hears.
        let listen = |target: &EventTarget, kind, input| {
            let parts = parts.clone();
            EventListener::new(target, kind, move |event| parts.hear(input, event))
        };
        let (dialog, cancel, confirm) = (&parts.dialog, &parts.cancel, &parts.confirm);
        let listeners = [
            listen(confirm, "click", Input::Confirm),
            listen(cancel, "click", Input::Cancel),
            listen(dialog, "cancel", Input::Escape),
            listen(dialog, "close", Input::Close),
            listen(dialog, "keydown", Input::Key),
            listen(dialog, "pointerdown", Input::Press),
            listen(&parts.cancel_all, "click", Input::CancelAll),
            listen(&parts.summary, "scroll", Input::Scroll),
            listen(&window, "blur", Input::Attention),
            listen(&window, "focus", Input::Attention),
            listen(&document, "visibilitychange", Input::Attention),
        ];

        let weak = Rc::downgrade(&parts);
        let painted: Rc<dyn Fn(f64)> = Rc::new(move |at| {
            if let Some(parts) = weak.upgrade() {
                parts.painted(at);
            }
        });
        parts.frame.replace(AfterPaint::new(&window, painted));
        let visibility = VisibilityWatch::new(&parts);
        Ok(CardLayer {
            host,
            parts,
            _listeners: listeners,
            visibility,
        })
    }

    /// Shows `model`, replacing the visible card if there is one, and focuses Cancel.
    ///
    /// `on_decision` receives this card's single [`Decision`] (see the module docs for what
    /// counts), in a microtask. Replacing a card starts the arm delay again and discards the
    /// old card's handler. Fails (with the card not shown) when `showModal()` throws, e.g.
    /// because the container is not in the document.
    pub fn show(&self, model: CardModel, on_decision: OnDecision) -> Result<(), JsValue> {
        let parts = &self.parts;
        let was_open = parts.dialog.open();
        // Until the new card is in place, nothing decides anything.
        parts.forget_decision();
        let generation = parts.card.generation.get();
        parts.title.set_text_content(Some(&model.title));
        parts.summary.set_text_content(Some(&model.summary));
        // Each card opens with its summary at the top. A closed dialog is not rendered, and a
        // box that is not rendered keeps no scroll position: only a card that replaces another
        // in the open dialog needs the reset (which costs a layout on the path a person waits
        // through).
        if was_open {
            parts.summary.set_scroll_top(0);
        }
        let describedby = match &model.notice {
            Some(text) => {
                parts.notice.set_text_content(Some(text));
                "ck-summary ck-notice"
            }
            None => "ck-summary",
        };
        set_hidden(&parts.notice, model.notice.is_none());
        // Words typed for one card never travel with another's decision.
        parts.reason.set_value("");
        let _ = parts.dialog.set_attribute("aria-describedby", describedby);
        parts.show_position(model.position, model.total);
        let mut shown = countdown_text(model.expires_at - now());
        parts.countdown.set_text_content(Some(&shown));
        parts.confirm.set_disabled(!model.confirm_allowed);
        let label = if model.passkey {
            &parts.labels.confirm_passkey
        } else {
            &parts.labels.confirm
        };
        parts.confirm.set_text_content(Some(label));
        parts.show_status(None);

        let card = &parts.card;
        card.on_decision.set(Some(on_decision));
        card.expires_at.set(model.expires_at);
        card.confirm_allowed.set(model.confirm_allowed);
        card.passkey.set(model.passkey);
        card.read_to_end.set(false);
        card.shown_at.set(parts.performance.now());
        parts.content_changed();

        // A quarter-second tick, writing only when the text changes: the countdown follows the
        // clock rather than the timer, whose 1 s interval drifts in Firefox (it counts from
        // when each tick ran), so the card said "Expires in 0:01" after it had expired. It also
        // checks that the card has not moved since the delay started.
        let (ticking, expires_at) = (parts.clone(), model.expires_at);
        parts.ticker.replace(Some(Interval::new(250, move || {
            let text = countdown_text(expires_at - now());
            if text != shown {
                ticking.countdown.set_text_content(Some(&text));
                shown = text;
            }
            ticking.check_place();
        })));

        if !was_open {
            let focused = parts
                .dialog
                .owner_document()
                .and_then(|document| focused_element(&document));
            parts.return_focus.replace(focused);
            if let Err(e) = parts.as_sdk(|| parts.dialog.show_modal()) {
                parts.forget_decision();
                parts.stop_timers();
                parts.return_focus.replace(None);
                return Err(e);
            }
            // Page code ran (blur, focusout) and may have shown or closed a card meanwhile.
            if parts.card.generation.get() != generation {
                return Ok(());
            }
        }
        let _ = parts.as_sdk(|| parts.cancel.focus());
        Ok(())
    }

    /// A passkey card's prompt ended without confirming: the card says why (`status`) and
    /// starts the arm delay again, so the person may try again once it passes, or cancel.
    /// Ignored unless the visible card is a passkey card whose prompt is open.
    pub fn passkey_failed(&self, status: PasskeyStatus) {
        if !self.parts.card.waiting.get() {
            return;
        }
        self.parts.show_status(Some(status));
        self.parts.content_changed();
    }

    /// Updates the "2 of 3" line and "Cancel all N" (hidden when `total` ≤ 1); `position`
    /// is 1-based. A change starts the arm delay again.
    pub fn update_position(&self, position: usize, total: usize) {
        let before = (
            self.parts.position.text_content(),
            self.parts.cancel_all.hidden(),
        );
        self.parts.show_position(position, total);
        if before
            != (
                self.parts.position.text_content(),
                self.parts.cancel_all.hidden(),
            )
        {
            self.parts.content_changed();
        }
    }

    /// Closes the card: forgets the pending handler (no decision is delivered after this),
    /// stops the countdown, closes the dialog and returns focus to the element that had it
    /// before the card opened, if that element is still in the document.
    pub fn close(&self) {
        let parts = &self.parts;
        parts.forget_decision();
        let generation = parts.card.generation.get();
        parts.stop_timers();
        let return_focus = parts.return_focus.replace(None);
        if parts.dialog.open() {
            parts.as_sdk(|| parts.dialog.close());
        }
        // Closing returned focus already in some engines, running page code that may have
        // shown another card: focus then stays where that card put it.
        if parts.card.generation.get() != generation {
            return;
        }
        // An element that has left the document is not focusable: `focus()` does nothing.
        // web-sys binds `focus()` on HtmlElement, but the call is a plain method call: an SVG or
        // MathML element that had focus gets it back too.
        if let Some(element) = return_focus {
            let _ = parts.as_sdk(|| element.unchecked_into::<HtmlElement>().focus());
        }
    }

    /// Whether the card is showing.
    pub fn is_open(&self) -> bool {
        self.parts.dialog.open()
    }

    /// The closed shadow root, for the crate's browser tests only.
    #[doc(hidden)]
    pub fn shadow_root_for_tests(&self) -> ShadowRoot {
        self.parts.root.clone()
    }
}

impl Drop for CardLayer {
    /// Closes the card and removes the host element; the listeners and timers are released as
    /// the fields drop.
    fn drop(&mut self) {
        self.visibility.take();
        self.close();
        self.host.remove();
    }
}
