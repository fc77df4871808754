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
//!
//! One decision per shown card: after it, the card ignores input until the caller shows the
//! next card or closes the layer. The decision callback runs in a microtask, after the DOM
//! listener has returned, so it may call [`CardLayer::close`], [`CardLayer::show`] or drop the
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
//! `confirm`, `position` ("1 of N"), `notice` (who may confirm), `actions` (the button row).
//! Confirm carries `data-armed="false"` during the arm delay (drawn darker, never at lower
//! contrast) and `"true"` after.

use std::cell::Cell;
use std::rc::Rc;

use gloo_timers::callback::{Interval, Timeout};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{
    Document, Element, Event, EventTarget, HtmlButtonElement, HtmlDialogElement, HtmlElement,
    IntersectionObserver, IntersectionObserverEntry, IntersectionObserverInit, Performance,
    ShadowRoot,
};

use super::convert::{get, set};
use super::dom::{el, set_hidden, shadow_host};
use super::js;
use super::listener::EventListener;
use super::time::{now, timeout};
use crate::core::card::{countdown_text, position_text, CardModel, Labels};

/// What the person decided on the card.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// A trusted, armed click on Confirm.
    Confirm,
    /// Cancel, Escape, or the dialog closed by something other than [`CardLayer::close`].
    Cancel,
}

/// The card's stylesheet. Private `--bg`/`--fg`/… variables resolve the public `--ck-*` ones with
/// light or dark defaults, so an app's values win in both schemes.
///
/// The card appears without an entrance animation: starting one on every `showModal()` (a CSS
/// animation or an `@starting-style` transition alike) made the browser's style work for the
/// card about a fifth slower, on the path the person waits through (BENCHMARKS.md, "Where the
/// time goes"), and the card is legible from its first frame.
const CSS: &str = concat!(
    ":host{all:initial}",
    "dialog{--bg:var(--ck-bg,#fff);--fg:var(--ck-fg,#1d1d1f);--mu:var(--ck-muted,#6e6e73);",
    "--ac:var(--ck-accent,#d70015);--r:var(--ck-radius,14px);--ln:rgba(128,128,128,.3);",
    "box-sizing:border-box;width:min(28rem,calc(100vw - 2rem));max-height:calc(100vh - 2rem);",
    "overflow:auto;padding:24px;border:1px solid var(--ln);border-radius:var(--r);",
    "background:var(--bg);color:var(--fg);",
    "font:15px/1.5 var(--ck-font,system-ui,-apple-system,'Segoe UI',Roboto,sans-serif);",
    "box-shadow:var(--ck-shadow,0 1px 3px rgba(0,0,0,.12),0 24px 64px rgba(0,0,0,.32))}",
    "@media(prefers-color-scheme:dark){dialog{--bg:var(--ck-bg,#1f1f22);",
    "--fg:var(--ck-fg,#f5f5f7);--mu:var(--ck-muted,#a1a1a6);--ac:var(--ck-accent,#ff453a)}}",
    "dialog::backdrop{background:rgba(12,12,16,.5);backdrop-filter:blur(2px)}",
    "h2{margin:0 0 8px;font-size:18px;font-weight:650;line-height:1.3}",
    "p{margin:0}",
    "[part=position]{float:right;margin:2px 0 0 12px;font-size:12px;color:var(--mu)}",
    "[part=summary]{white-space:pre-wrap;overflow-wrap:anywhere;max-height:40vh;overflow:auto}",
    "[part=notice]{margin-top:12px;padding-left:10px;border-left:3px solid var(--ac);",
    "color:var(--mu);font-size:14px}",
    "div{display:flex;flex-wrap:wrap;align-items:center;gap:8px;margin-top:24px}",
    "[part=countdown]{margin-right:auto;font-size:13px;color:var(--mu);",
    "font-variant-numeric:tabular-nums}",
    "button{font:inherit;font-weight:600;min-width:96px;padding:8px 16px;",
    "border:1px solid var(--ln);border-radius:calc(var(--r)*.6);background:none;",
    "color:inherit;cursor:pointer;transition:opacity .2s}",
    "button:focus-visible{outline:2px solid var(--ac);outline-offset:2px}",
    "[part=cancel]:hover{background:var(--ln)}",
    "[part=confirm]{background:var(--ac);border-color:var(--ac);",
    "color:var(--ck-accent-text,#fff)}",
    "[data-armed=false]{cursor:progress;background-image:linear-gradient(#0003,#0003)}",
    "button:disabled{opacity:.35;cursor:not-allowed}",
    "@media(prefers-reduced-motion:reduce){button{transition:none}}",
);

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
    countdown: Element,
    cancel: HtmlButtonElement,
    confirm: HtmlButtonElement,
    performance: Performance,
    card: CurrentCard,
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
}

impl Parts {
    /// Drops the handler of the card shown so far: no decision reaches it after this.
    fn forget_decision(&self) {
        let card = &self.card;
        card.on_decision.set(None);
        card.generation.set(card.generation.get().wrapping_add(1));
    }

    /// The "2 of 3" line, hidden when `total` ≤ 1.
    fn show_position(&self, position: usize, total: usize) {
        let text = position_text(position, total);
        self.position.set_text_content(text.as_deref());
        set_hidden(&self.position, text.is_none());
    }

    /// Takes the card's one decision and delivers it in a microtask, after the DOM listener
    /// that made it has returned (the callback may close, re-show or drop the layer).
    fn decide(self: &Rc<Self>, decision: Decision) {
        let Some(handler) = self.card.on_decision.take() else {
            return;
        };
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
                    && at - armed_from >= card.arm_delay_ms.get()
                    && now() < card.expires_at.get();
                if armed {
                    self.decide(Decision::Confirm);
                }
            }
            Input::Cancel => self.decide(Decision::Cancel),
            // Keep the dialog open and decide.
            Input::Escape => {
                event.prevent_default();
                self.decide(Decision::Cancel);
            }
            // Closed by anything but `CardLayer::close` (which forgets the handler first): for
            // example a browser that ignores the prevented `cancel` on a repeated Escape.
            Input::Close => {
                if !self.dialog.open() {
                    self.decide(Decision::Cancel);
                }
            }
            // Tab and Shift+Tab cycle between the enabled buttons (with two, both directions
            // alternate), so focus never leaves the card for the browser's UI. The physical
            // key counts too: WebKitGTK reports Shift+Tab (GTK's ISO_Left_Tab) as key
            // "Unidentified", code "Tab".
            Input::Key => {
                // Read as properties: `key` and `code` need no bindings of their own.
                let is_tab = get(&event, "key") == "Tab" || get(&event, "code") == "Tab";
                if !is_tab {
                    return;
                }
                event.prevent_default();
                let cancel: &Element = &self.cancel;
                let on_cancel = self.root.active_element().as_ref() == Some(cancel);
                // Confirm is disabled exactly when confirming is not allowed.
                let next = if on_cancel && self.card.confirm_allowed.get() {
                    &self.confirm
                } else {
                    &self.cancel
                };
                let _ = next.focus();
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
    _listeners: [EventListener; 5],
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

        let (host, root) = shadow_host(container, "coworkkit-card", "card", CSS)?;
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
        let cancel = button("cancel", &labels.cancel);
        let confirm = button("confirm", &labels.confirm);
        let parts = Rc::new(Parts {
            root,
            dialog: dialog.unchecked_into(),
            position,
            title,
            summary,
            notice,
            countdown,
            cancel: cancel.unchecked_into(),
            confirm: confirm.unchecked_into(),
            performance,
            card: CurrentCard::default(),
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
        let _ = parts.dialog.set_attribute("aria-describedby", describedby);
        parts.show_position(model.position, model.total);
        let mut shown = countdown_text(model.expires_at - now());
        parts.countdown.set_text_content(Some(&shown));
        parts.confirm.set_disabled(!model.confirm_allowed);
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
            card.shown_at.set(parts.performance.now());
            card.arm_delay_ms.set(arm_delay_ms);
            card.expires_at.set(model.expires_at);
            card.confirm_allowed.set(model.confirm_allowed);
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
        let confirm = parts.confirm.clone();
        self.arming = Some(timeout(arm_delay_ms, move || {
            let _ = confirm.set_attribute("data-armed", "true");
        }));
        Ok(())
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
