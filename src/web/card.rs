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

use std::cell::RefCell;
use std::rc::Rc;

use gloo_timers::callback::{Interval, Timeout};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{
    Document, Element, Event, HtmlButtonElement, HtmlDialogElement, HtmlElement, KeyboardEvent,
    Performance, ShadowRoot,
};

use super::dom::{el, set_hidden, shadow_host};
use super::js;
use super::listener::EventListener;
use super::time::{now, timeout};
use crate::core::card::{countdown_text, position_text, CardModel};

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
    "dialog[open]{animation:ck .18s ease-out}",
    "@keyframes ck{from{opacity:0;transform:translateY(8px) scale(.98)}}",
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
    "@media(prefers-reduced-motion:reduce){dialog[open]{animation:none}button{transition:none}}",
);

/// What the listeners need to judge a decision, shared with the layer.
struct CurrentCard {
    /// Bumped by every `show` and `close`, so a queued decision cannot land on another card.
    generation: u32,
    /// `Some` while a card is shown and undecided.
    on_decision: Option<Rc<dyn Fn(Decision)>>,
    shown_at: f64,
    arm_delay_ms: f64,
    expires_at: f64,
    confirm_allowed: bool,
}

type Shared = Rc<RefCell<CurrentCard>>;

/// Takes the card's one decision and delivers it in a microtask, after the DOM listener that
/// made it has returned (the callback may close, re-show or drop the layer).
fn decide(shared: &Shared, decision: Decision) {
    let (handler, generation) = {
        let mut card = shared.borrow_mut();
        match card.on_decision.take() {
            Some(handler) => (handler, card.generation),
            None => return,
        }
    };
    let shared = shared.clone();
    wasm_bindgen_futures::spawn_local(async move {
        let still_current = shared.borrow().generation == generation;
        if still_current {
            handler(decision);
        }
    });
}

/// The SDK's hard confirmation card: one host element, a closed shadow root, one reusable
/// `<dialog>`. See the [module docs](self) for the decision rules and theming.
pub struct CardLayer {
    host: Element,
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
    shared: Shared,
    /// Where focus was before the card opened; restored by `close`.
    return_focus: Option<HtmlElement>,
    ticker: Option<Interval>,
    arming: Option<Timeout>,
    _listeners: [EventListener; 5],
}

/// The focused element, looking inside open shadow roots (a closed one yields its host).
fn focused_element(document: &Document) -> Option<HtmlElement> {
    let mut element = document.active_element()?;
    while let Some(inner) = element.shadow_root().and_then(|root| root.active_element()) {
        element = inner;
    }
    element.dyn_into().ok()
}

impl CardLayer {
    /// Builds the card's DOM (closed) and appends its host element to `container`.
    ///
    /// Listeners are installed once here, on elements the layer keeps for its whole life.
    pub fn new(container: &Element) -> Result<CardLayer, JsValue> {
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
            None,
        )?;
        let position = el(&dialog, "p", &[("part", "position"), ("hidden", "")], None)?;
        let title = el(
            &dialog,
            "h2",
            &[("part", "title"), ("id", "ck-title")],
            None,
        )?;
        let summary = el(
            &dialog,
            "p",
            &[("part", "summary"), ("id", "ck-summary")],
            None,
        )?;
        let notice = el(
            &dialog,
            "p",
            &[("part", "notice"), ("id", "ck-notice"), ("hidden", "")],
            None,
        )?;
        let actions = el(&dialog, "div", &[("part", "actions")], None)?;
        // Announcing every second would drown the card out for screen-reader users.
        let countdown = el(
            &actions,
            "span",
            &[("part", "countdown"), ("aria-live", "off")],
            None,
        )?;
        let button = |part| {
            el(
                &actions,
                "button",
                &[("part", part), ("type", "button")],
                None,
            )
        };
        let cancel: HtmlButtonElement = button("cancel")?.unchecked_into();
        let confirm: HtmlButtonElement = button("confirm")?.unchecked_into();
        let dialog: HtmlDialogElement = dialog.unchecked_into();

        let shared: Shared = Rc::new(RefCell::new(CurrentCard {
            generation: 0,
            on_decision: None,
            shown_at: 0.0,
            arm_delay_ms: 0.0,
            expires_at: 0.0,
            confirm_allowed: false,
        }));

        let on_confirm = {
            let (shared, performance) = (shared.clone(), performance.clone());
            EventListener::new(&confirm, "click", move |event: Event| {
                if !event.is_trusted() {
                    return;
                }
                // The event's own time (when the input happened) is stricter than "now"
                // when the main thread was busy; fall back to now if a browser gives none.
                let performance_now = performance.now();
                let stamp = event.time_stamp();
                let at = if stamp > 0.0 && stamp < performance_now {
                    stamp
                } else {
                    performance_now
                };
                let armed = {
                    let card = shared.borrow();
                    card.confirm_allowed
                        && at - card.shown_at >= card.arm_delay_ms
                        && now() < card.expires_at
                };
                if armed {
                    decide(&shared, Decision::Confirm);
                }
            })
        };
        let on_cancel = {
            let shared = shared.clone();
            EventListener::new(&cancel, "click", move |_| decide(&shared, Decision::Cancel))
        };
        // Escape (and other close requests) fire `cancel`; keep the dialog open and decide.
        let on_escape = {
            let shared = shared.clone();
            EventListener::new(&dialog, "cancel", move |event: Event| {
                event.prevent_default();
                decide(&shared, Decision::Cancel);
            })
        };
        // Closed by anything but `CardLayer::close` (which forgets the handler first): for
        // example a browser that ignores the prevented `cancel` on a repeated Escape.
        let on_close = {
            let (shared, dialog) = (shared.clone(), dialog.clone());
            EventListener::new(&dialog.clone(), "close", move |_| {
                if !dialog.open() {
                    decide(&shared, Decision::Cancel);
                }
            })
        };
        // Tab and Shift+Tab cycle between the enabled buttons (with two, both directions
        // alternate), so focus never leaves the card for the browser's UI. The physical key
        // counts too: WebKitGTK reports Shift+Tab (GTK's ISO_Left_Tab) as key "Unidentified",
        // code "Tab".
        let on_tab = {
            let (root, cancel, confirm) = (root.clone(), cancel.clone(), confirm.clone());
            EventListener::new(&dialog, "keydown", move |event: Event| {
                let is_tab = event
                    .dyn_ref::<KeyboardEvent>()
                    .is_some_and(|key| key.key() == "Tab" || key.code() == "Tab");
                if !is_tab {
                    return;
                }
                event.prevent_default();
                let cancel_element: &Element = &cancel;
                let on_cancel = root.active_element().as_ref() == Some(cancel_element);
                let next = if on_cancel && !confirm.disabled() {
                    &confirm
                } else {
                    &cancel
                };
                let _ = next.focus();
            })
        };

        container.append_child(&host)?;
        Ok(CardLayer {
            host,
            root,
            dialog,
            position,
            title,
            summary,
            notice,
            countdown,
            cancel,
            confirm,
            performance,
            shared,
            return_focus: None,
            ticker: None,
            arming: None,
            _listeners: [on_confirm, on_cancel, on_escape, on_close, on_tab],
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
        let was_open = self.dialog.open();
        {
            // Until the new card is in place, nothing decides anything.
            let mut card = self.shared.borrow_mut();
            card.on_decision = None;
            card.generation = card.generation.wrapping_add(1);
        }
        self.title.set_text_content(Some(&model.title));
        self.summary.set_text_content(Some(&model.summary));
        let describedby = match &model.notice {
            Some(text) => {
                self.notice.set_text_content(Some(text));
                "ck-summary ck-notice"
            }
            None => "ck-summary",
        };
        set_hidden(&self.notice, model.notice.is_none());
        self.dialog.set_attribute("aria-describedby", describedby)?;
        self.update_position(model.position, model.total);
        self.countdown
            .set_text_content(Some(&countdown_text(model.expires_at - now())));
        self.cancel.set_text_content(Some(&model.labels.cancel));
        self.confirm.set_text_content(Some(&model.labels.confirm));
        self.confirm.set_disabled(!model.confirm_allowed);
        self.confirm.set_attribute("data-armed", "false")?;

        if !was_open {
            let focused = self
                .dialog
                .owner_document()
                .and_then(|document| focused_element(&document));
            self.dialog.show_modal()?;
            self.return_focus = focused;
        }
        let _ = self.cancel.focus();

        {
            let mut card = self.shared.borrow_mut();
            card.on_decision = Some(on_decision);
            card.shown_at = self.performance.now();
            card.arm_delay_ms = arm_delay_ms;
            card.expires_at = model.expires_at;
            card.confirm_allowed = model.confirm_allowed;
        }

        // A quarter-second tick, writing only when the text changes: the countdown follows the
        // clock rather than the timer, whose 1 s interval drifts in Firefox (it counts from
        // when each tick ran), so the card said "Expires in 0:01" after it had expired.
        let (countdown, expires_at) = (self.countdown.clone(), model.expires_at);
        let mut shown = countdown.text_content().unwrap_or_default();
        self.ticker = Some(Interval::new(250, move || {
            let text = countdown_text(expires_at - now());
            if text != shown {
                countdown.set_text_content(Some(&text));
                shown = text;
            }
        }));
        let confirm = self.confirm.clone();
        self.arming = Some(timeout(arm_delay_ms, move || {
            let _ = confirm.set_attribute("data-armed", "true");
        }));
        Ok(())
    }

    /// Updates the "2 of 3" line (hidden when `total` ≤ 1); `position` is 1-based.
    pub fn update_position(&mut self, position: usize, total: usize) {
        let text = position_text(position, total);
        self.position.set_text_content(text.as_deref());
        set_hidden(&self.position, text.is_none());
    }

    /// Closes the card: forgets the pending handler (no decision is delivered after this),
    /// stops the countdown, closes the dialog and returns focus to the element that had it
    /// before the card opened, if that element is still in the document.
    pub fn close(&mut self) {
        {
            let mut card = self.shared.borrow_mut();
            card.on_decision = None;
            card.generation = card.generation.wrapping_add(1);
        }
        self.ticker = None;
        self.arming = None;
        if self.dialog.open() {
            self.dialog.close();
        }
        if let Some(element) = self.return_focus.take() {
            if element.is_connected() {
                let _ = element.focus();
            }
        }
    }

    /// Whether the card is showing.
    pub fn is_open(&self) -> bool {
        self.dialog.open()
    }

    /// The closed shadow root, for the crate's browser tests only.
    #[doc(hidden)]
    pub fn shadow_root_for_tests(&self) -> ShadowRoot {
        self.root.clone()
    }
}

impl Drop for CardLayer {
    /// Closes the card and removes the host element; the listeners and timers are released as
    /// the fields drop. No listener calls user code synchronously, so this is safe even from
    /// inside an `on_decision` callback.
    fn drop(&mut self) {
        self.close();
        self.host.remove();
    }
}
