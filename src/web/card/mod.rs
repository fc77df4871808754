//! The hard confirmation card, drawn by the SDK (SPEC §4).
//!
//! [`CardLayer`] owns one host element (`<coworkkit-card data-coworkkit="card">`) appended to the
//! SDK's container, a **closed** shadow root, one `<style>` and one reusable native `<dialog>`
//! opened with [`showModal()`](https://developer.mozilla.org/en-US/docs/Web/API/HTMLDialogElement/showModal)
//! (top layer; the page behind is inert). [`CardLayer::show`] fills it from a plain
//! [`CardModel`]; every string goes in through `textContent`, never `innerHTML`.
//!
//! # Who can decide
//! - **Confirm** counts only for a click whose
//!   [`isTrusted`](https://developer.mozilla.org/en-US/docs/Web/API/Event/isTrusted) is true,
//!   whose event time is at least `arm_delay_ms` after the card was shown (both on the
//!   `performance.now()` clock), on a card that allows confirming and has not expired.
//!   `element.click()` and `dispatchEvent` produce untrusted events and do nothing.
//! - **Covered, it does not count.** Only another top-layer element (a popover, a modal dialog
//!   opened after the card, fullscreen) can be drawn above the card, and a click passes through
//!   one with `pointer-events: none` to Confirm beneath it. Where the browser can tell
//!   ([IntersectionObserver v2](https://github.com/w3c/IntersectionObserver/blob/main/explainer.md)'s
//!   `isVisible`, Chromium), Confirm is watched: while the browser reports it covered (or
//!   transformed, filtered, faded), a click on it counts for nothing, and once uncovered the arm
//!   delay starts again from the moment the browser saw it whole. The browser reports a change
//!   within about 100 ms; other engines have no such report (SECURITY.md says what that leaves).
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
//!   trusted, armed click is delivered as [`Decision::Confirm`] without ending the card: it now
//!   waits for the browser's passkey prompt (the `status` line says so) and ignores Confirm
//!   until the caller reports how the prompt went ([`CardLayer::passkey_failed`] re-arms it).
//!   Cancel and Escape still decide.
//!
//! One decision per shown card (but for a passkey card's Confirm, above): after it, the card
//! ignores input until the caller shows the next card or closes the layer. The decision
//! callback runs in a microtask, after the DOM listener has returned, so it may call [`CardLayer::close`], [`CardLayer::show`] or drop the
//! layer; a decision is dropped if another card was shown (or the layer closed) in between.
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
//! `reason-label` and `reason` (the reason field), `cancel-all`.
//! Confirm carries `data-armed="false"` during the arm delay (drawn darker, never at lower
//! contrast) and `"true"` after.

use std::cell::Cell;
use std::rc::Rc;

use gloo_timers::callback::{Interval, Timeout};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{
    Document, Element, Event, EventTarget, HtmlButtonElement, HtmlDialogElement, HtmlElement,
    HtmlInputElement, IntersectionObserver, IntersectionObserverEntry, IntersectionObserverInit,
    Performance, ShadowRoot,
};

use super::convert::{get, set};
use super::dom::{el, set_hidden, shadow_host};
use super::js;
use super::listener::EventListener;
use super::time::{now, timeout};
use crate::core::card::{
    cancel_all_text, countdown_text, position_text, CardModel, Labels, PasskeyStatus,
    REASON_MAX_CHARS,
};

/// What the person decided on the card.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// A trusted, armed click on Confirm.
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
    shown_at: Cell<f64>,
    arm_delay_ms: Cell<f64>,
    expires_at: Cell<f64>,
    confirm_allowed: Cell<bool>,
    /// A passkey card: Confirm starts a prompt rather than ending the card.
    passkey: Cell<bool>,
    /// A passkey card's prompt is open: Confirm is ignored until it is reported.
    waiting: Cell<bool>,
    /// The browser reports Confirm covered (only where it can tell: see the module docs).
    covered: Cell<bool>,
    /// When the browser last saw Confirm become whole again, on the `performance.now()` clock:
    /// the arm delay counts from here when that is later than `shown_at`.
    uncovered_at: Cell<f64>,
}

/// The card's elements and state, shared by the layer and its listeners.
struct Parts {
    root: ShadowRoot,
    dialog: HtmlDialogElement,
    position: Element,
    title: Element,
    summary: Element,
    notice: Element,
    status: Element,
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
    /// A click on "Cancel all N".
    CancelAll,
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

    /// The buttons and field Tab moves between, in order: the field, "Cancel all" when shown,
    /// Cancel, and Confirm when confirming is allowed (it is disabled exactly then).
    fn focus_ring(&self) -> Vec<&HtmlElement> {
        let mut ring: Vec<&HtmlElement> = vec![&self.reason];
        if !self.cancel_all.hidden() {
            ring.push(&self.cancel_all);
        }
        ring.push(&self.cancel);
        if self.card.confirm_allowed.get() {
            ring.push(&self.confirm);
        }
        ring
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

    /// A passkey card's Confirm: delivered like a decision, but the card keeps its handler, so
    /// that Cancel (or, once the caller re-arms it, another Confirm) still counts.
    fn start_passkey(self: &Rc<Self>) {
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

    /// What the browser reports of Confirm's visibility (IntersectionObserver v2): covered, or
    /// whole again at `time`, from which the arm delay starts over.
    fn seen(&self, visible: bool, time: f64) {
        let card = &self.card;
        // Observed before this card was shown (the previous one closing): not about it.
        if time < card.shown_at.get() {
            return;
        }
        if visible && card.covered.replace(false) {
            card.uncovered_at.set(time);
        } else if !visible {
            card.covered.set(true);
        }
    }

    /// Every listener of the card: judges `event` by what was heard (see the module docs).
    fn hear(self: &Rc<Self>, input: Input, event: Event) {
        match input {
            Input::Confirm => {
                if !event.is_trusted() {
                    return;
                }
                // The event's own time (when the input happened) is stricter than "now"
                // when the main thread was busy; fall back to now if a browser gives none.
                let performance_now = self.performance.now();
                let stamp = event.time_stamp();
                let at = if stamp > 0.0 && stamp < performance_now {
                    stamp
                } else {
                    performance_now
                };
                let card = &self.card;
                let armed_from = card.shown_at.get().max(card.uncovered_at.get());
                let armed = card.confirm_allowed.get()
                    && !card.covered.get()
                    && !card.waiting.get()
                    && at - armed_from >= card.arm_delay_ms.get()
                    && now() < card.expires_at.get();
                if !armed {
                    return;
                }
                if card.passkey.get() {
                    self.start_passkey();
                } else {
                    self.decide(Decision::Confirm);
                }
            }
            Input::Cancel => {
                let reason = self.reason_for(&event);
                self.decide(Decision::Cancel { reason });
            }
            // Keep the dialog open and decide.
            Input::Escape => {
                event.prevent_default();
                let reason = self.reason_for(&event);
                self.decide(Decision::Cancel { reason });
            }
            // Closed by anything but `CardLayer::close` (which forgets the handler first): for
            // example a browser that ignores the prevented `cancel` on a repeated Escape.
            Input::Close => {
                if !self.dialog.open() {
                    self.decide(Decision::Cancel { reason: None });
                }
            }
            Input::CancelAll => {
                if event.is_trusted() {
                    let reason = self.reason_for(&event);
                    self.decide(Decision::CancelAll { reason });
                }
            }
            // Tab and Shift+Tab cycle through the field and the enabled buttons, so focus never
            // leaves the card for the browser's UI. The physical key counts too: WebKitGTK
            // reports Shift+Tab (GTK's ISO_Left_Tab) as key "Unidentified", code "Tab". Enter
            // in the reason field sends it: a Cancel, never a Confirm.
            Input::Key => {
                // Read as properties: `key` and `code` need no bindings of their own.
                let (key, code) = (get(&event, "key"), get(&event, "code"));
                let in_field = self.root.active_element().as_ref()
                    == Some(self.reason.unchecked_ref::<Element>());
                if in_field && key == "Enter" && !get(&event, "isComposing").is_truthy() {
                    event.prevent_default();
                    let reason = self.reason_for(&event);
                    return self.decide(Decision::Cancel { reason });
                }
                if key != "Tab" && code != "Tab" {
                    return;
                }
                event.prevent_default();
                let ring = self.focus_ring();
                let active = self.root.active_element();
                let at = ring
                    .iter()
                    .position(|e| active.as_ref() == Some(e.unchecked_ref::<Element>()));
                let back = get(&event, "shiftKey").is_truthy();
                let next = match (at, back) {
                    (Some(i), false) => (i + 1) % ring.len(),
                    (Some(i), true) => (i + ring.len() - 1) % ring.len(),
                    (None, _) => ring.len() - 1 - usize::from(self.card.confirm_allowed.get()),
                };
                let _ = ring[next].focus();
            }
        }
    }
}

/// The SDK's hard confirmation card: one host element, a closed shadow root, one reusable
/// `<dialog>`. See the [module docs](self) for the decision rules and theming.
pub struct CardLayer {
    host: Element,
    parts: Rc<Parts>,
    /// Where focus was before the card opened; restored by `close`.
    return_focus: Option<Element>,
    ticker: Option<Interval>,
    arming: Option<Timeout>,
    _listeners: [EventListener; 6],
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
        let window: JsValue = js::window()?.into();
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
    /// say `labels`.
    ///
    /// Listeners are installed once here, on elements the layer keeps for its whole life.
    pub fn new(container: &Element, labels: &Labels) -> Result<CardLayer, JsValue> {
        let performance = js::window()
            .and_then(|window| window.performance())
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
            root,
            dialog: dialog.unchecked_into(),
            position,
            title,
            summary,
            notice,
            status,
            countdown,
            cancel: cancel.unchecked_into(),
            confirm: confirm.unchecked_into(),
            reason: reason.unchecked_into(),
            cancel_all: cancel_all.unchecked_into(),
            performance,
            card: CurrentCard::default(),
            labels: labels.clone(),
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
            listen(&parts.cancel_all, "click", Input::CancelAll),
        ];

        let visibility = VisibilityWatch::new(&parts);
        Ok(CardLayer {
            host,
            parts,
            return_focus: None,
            ticker: None,
            arming: None,
            _listeners: listeners,
            visibility,
        })
    }

    /// Shows `model`, replacing the visible card if there is one, and focuses Cancel.
    ///
    /// `on_decision` receives this card's single [`Decision`] (see the module docs for what
    /// counts), in a microtask. Replacing a card restarts the arm delay and discards the old
    /// card's handler. Fails (with the card not shown) when `showModal()` throws, e.g. because
    /// the container is not in the document.
    pub fn show(
        &mut self,
        model: CardModel,
        arm_delay_ms: f64,
        on_decision: Rc<dyn Fn(Decision)>,
    ) -> Result<(), JsValue> {
        let parts = &*self.parts;
        let was_open = parts.dialog.open();
        // Until the new card is in place, nothing decides anything.
        parts.forget_decision();
        parts.title.set_text_content(Some(&model.title));
        parts.summary.set_text_content(Some(&model.summary));
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
        let _ = parts.confirm.set_attribute("data-armed", "false");

        if !was_open {
            let focused = parts
                .dialog
                .owner_document()
                .and_then(|document| focused_element(&document));
            parts.dialog.show_modal()?;
            self.return_focus = focused;
        }
        let _ = parts.cancel.focus();

        {
            let card = &parts.card;
            card.on_decision.set(Some(on_decision));
            card.expires_at.set(model.expires_at);
            card.confirm_allowed.set(model.confirm_allowed);
            card.passkey.set(model.passkey);
            // A new card starts uncovered: the browser reports a cover within ~100 ms of it
            // appearing, and a report of the previous card closing must not hold this one.
            card.covered.set(false);
            card.uncovered_at.set(0.0);
        }

        // A quarter-second tick, writing only when the text changes: the countdown follows the
        // clock rather than the timer, whose 1 s interval drifts in Firefox (it counts from
        // when each tick ran), so the card said "Expires in 0:01" after it had expired.
        let (countdown, expires_at) = (parts.countdown.clone(), model.expires_at);
        self.ticker = Some(Interval::new(250, move || {
            let text = countdown_text(expires_at - now());
            if text != shown {
                countdown.set_text_content(Some(&text));
                shown = text;
            }
        }));
        self.arm(arm_delay_ms);
        Ok(())
    }

    /// Starts the arm delay: Confirm counts once `arm_delay_ms` has passed from now.
    fn arm(&mut self, arm_delay_ms: f64) {
        let parts = &*self.parts;
        parts.card.shown_at.set(parts.performance.now());
        parts.card.arm_delay_ms.set(arm_delay_ms);
        let _ = parts.confirm.set_attribute("data-armed", "false");
        let confirm = parts.confirm.clone();
        self.arming = Some(timeout(arm_delay_ms, move || {
            let _ = confirm.set_attribute("data-armed", "true");
        }));
    }

    /// A passkey card's prompt ended without confirming: the card says why (`status`) and
    /// re-arms, so the person may try again after the arm delay, or cancel. Ignored unless the
    /// visible card is a passkey card whose prompt is open.
    pub fn passkey_failed(&mut self, status: PasskeyStatus, arm_delay_ms: f64) {
        if !self.parts.card.waiting.get() {
            return;
        }
        self.parts.show_status(Some(status));
        self.arm(arm_delay_ms);
    }

    /// Updates the "2 of 3" line (hidden when `total` ≤ 1); `position` is 1-based.
    pub fn update_position(&mut self, position: usize, total: usize) {
        self.parts.show_position(position, total);
    }

    /// Closes the card: forgets the pending handler (no decision is delivered after this),
    /// stops the countdown, closes the dialog and returns focus to the element that had it
    /// before the card opened, if that element is still in the document.
    pub fn close(&mut self) {
        self.parts.forget_decision();
        self.ticker = None;
        self.arming = None;
        if self.parts.dialog.open() {
            self.parts.dialog.close();
        }
        // An element that has left the document is not focusable: `focus()` does nothing.
        // web-sys binds `focus()` on HtmlElement, but the call is a plain method call: an SVG or
        // MathML element that had focus gets it back too.
        if let Some(element) = self.return_focus.take() {
            let _ = element.unchecked_into::<HtmlElement>().focus();
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
    /// the fields drop. No listener calls user code synchronously, so this is safe even from
    /// inside an `on_decision` callback.
    fn drop(&mut self) {
        self.visibility.take();
        self.close();
        self.host.remove();
    }
}
