//! Hand mode's UI (SPEC §5): the badge and the switch, and what a person does with them.
//!
//! Hand mode answers *may the agent touch the UI at all*; it is off by default, and the engine
//! settles every element action as `needs_hand_mode` while it is off. Whether it is armed is the
//! engine's; the instance arms it only during [transient user
//! activation](https://developer.mozilla.org/en-US/docs/Web/API/UserActivation/isActive) and
//! disarms it on `disarmHandMode()`, on the badge's Stop, on the SDK's switch, on the tab
//! becoming hidden and on `dispose()`. This module draws, and reports what it hears:
//! - while armed, a badge "The agent may use this page — Stop" (`<coworkkit-hand
//!   data-coworkkit="hand">`, closed shadow root, fixed to the bottom-right corner; parts `badge`,
//!   `stop`), and on request the switch (`<coworkkit-switch data-coworkkit="switch">`, a real
//!   `<button role="switch" aria-checked>`; parts `switch`, `track`, `label`). Both use the card's
//!   CSS custom properties (`--ck-accent`, `--ck-bg`, `--ck-fg`, `--ck-radius`, `--ck-font`);
//! - a click on Stop or on a switch (with whether it was trusted), and the page becoming hidden
//!   ([`visibilitychange`](https://developer.mozilla.org/en-US/docs/Web/API/Document/visibilitychange_event)),
//!   each handed to the instance's callback as a [`HandInput`], in the microtask after the event.
//!
//! Element actions themselves (which element, the operation) are [`element`](super::element)'s.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Element, Event, EventTarget, HtmlButtonElement};

use super::convert::get;
use super::dom::{el, shadow_host};
use super::js;
use super::listener::EventListener;

/// What a person did to Hand mode's UI, or what the page did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HandInput {
    /// A click on the badge's Stop (any click: stopping is always safe).
    Stop,
    /// A click on a switch; arming needs it `trusted`.
    Switch { trusted: bool },
    /// The page's `visibilitychange`.
    VisibilityChange,
}

/// The instance's callback for what Hand mode's UI heard.
pub(crate) type OnHandInput = Rc<dyn Fn(HandInput)>;

/// A host element with a closed shadow root holding the shared stylesheet, in the page until
/// dropped.
struct Host(Element);

impl Drop for Host {
    fn drop(&mut self) {
        self.0.remove();
    }
}

/// The "agent may use this page — Stop" badge, present while armed.
struct Badge {
    _host: Host,
    _stop: EventListener,
}

/// One mounted switch.
struct Switch {
    id: u32,
    button: HtmlButtonElement,
    _host: Host,
    _click: EventListener,
}

/// Hand mode's DOM: the badge while armed, the mounted switches, the `visibilitychange`
/// listener.
pub(crate) struct HandMode {
    on_input: OnHandInput,
    badge: Cell<Option<Badge>>,
    switches: RefCell<Vec<Switch>>,
    next_switch: Cell<u32>,
    visibility: Cell<Option<EventListener>>,
}

/// `navigator.userActivation.isActive`; false (fail closed) where the browser lacks it.
pub(crate) fn user_activation_active() -> bool {
    js::window()
        .map(|w| get(&get(&w.navigator(), "userActivation"), "isActive"))
        .is_some_and(|v| v.is_truthy())
}

/// A person's gesture is under way: transient user activation in a visible page, and the event
/// being handled, if any (`window.event`), is one the browser made for real input. An event a
/// script dispatched (`dispatchEvent`, or `click()` as an agent's element action does) runs its
/// handlers under the activation a person's earlier click left, for about five seconds; it is
/// not that person's gesture.
pub(crate) fn person_gesture() -> bool {
    let Some(window) = js::window() else {
        return false;
    };
    let event = get(&window, "event");
    user_activation_active()
        && !page_hidden()
        && (!event.is_object() || get(&event, "isTrusted").is_truthy())
}

/// Whether the page is hidden (or has no document).
pub(crate) fn page_hidden() -> bool {
    js::window()
        .and_then(|w| w.document())
        .is_none_or(|d| d.hidden())
}

impl HandMode {
    /// Hand mode's UI, reporting what it hears to `on_input`.
    pub(crate) fn new(on_input: OnHandInput) -> HandMode {
        HandMode {
            on_input,
            badge: Cell::new(None),
            switches: RefCell::new(Vec::new()),
            next_switch: Cell::new(0),
            visibility: Cell::new(None),
        }
    }

    /// Listens for `kind` on `target`; what it hears goes to the callback in a microtask, so
    /// that whatever that triggers (app listeners of `handmode`, `dispose()`) may drop the
    /// listener that heard it.
    fn listen(
        &self,
        target: &EventTarget,
        kind: &'static str,
        input: impl Fn(&Event) -> HandInput + 'static,
    ) -> EventListener {
        let on_input = self.on_input.clone();
        EventListener::new(target, kind, move |event: Event| {
            let (on_input, heard) = (on_input.clone(), input(&event));
            wasm_bindgen_futures::spawn_local(async move { on_input(heard) });
        })
    }

    /// Shows Hand mode as `armed`: the badge (drawn into `parent`) while armed, each switch's
    /// `aria-checked`; once first armed, it listens for the page becoming hidden.
    pub(crate) fn show(&self, armed: bool, parent: Option<Element>) {
        let badge = match (armed, parent) {
            (true, Some(parent)) => self.badge(&parent),
            _ => None,
        };
        let old = self.badge.replace(badge);
        drop(old);
        if armed {
            // Made on the first arming, kept until `clear()`.
            let listener = self.visibility.take().or_else(|| {
                let document = js::window()?.document()?;
                Some(self.listen(&document, "visibilitychange", |_| {
                    HandInput::VisibilityChange
                }))
            });
            self.visibility.set(listener);
        }
        for switch in self.switches.borrow().iter() {
            let _ = switch.button.set_attribute("aria-checked", checked(armed));
        }
    }

    /// Draws a switch into `parent`, showing `armed`; returns its id for
    /// [`unmount_switch`](Self::unmount_switch).
    pub(crate) fn mount_switch(&self, parent: &Element, armed: bool) -> Result<u32, JsValue> {
        let (host, root) = shadow_host(parent, "coworkkit-switch", "switch")?;
        let host = Host(host);
        let attrs = [
            ("part", "switch"),
            ("type", "button"),
            ("role", "switch"),
            ("aria-checked", checked(armed)),
        ];
        let button: HtmlButtonElement = el(&root, "button", &attrs, "").unchecked_into();
        el(&button, "span", &[("part", "track")], "");
        el(
            &button,
            "span",
            &[("part", "label")],
            "Let the agent use this page",
        );
        // Arming needs a real person: a trusted click, whose activation the instance checks.
        let click = self.listen(&button, "click", |event| HandInput::Switch {
            trusted: event.is_trusted(),
        });
        let id = self.next_switch.get();
        self.next_switch.set(id.wrapping_add(1));
        self.switches.borrow_mut().push(Switch {
            id,
            button,
            _host: host,
            _click: click,
        });
        Ok(id)
    }

    /// Removes a mounted switch; a second call does nothing.
    pub(crate) fn unmount_switch(&self, id: u32) {
        // Taken out under the borrow, dropped (removing its DOM) after it.
        let gone = {
            let mut switches = self.switches.borrow_mut();
            let at = switches.iter().position(|s| s.id == id);
            at.map(|i| switches.remove(i))
        };
        drop(gone);
    }

    /// Removes the badge, the switches and the listener (from `dispose()`).
    pub(crate) fn clear(&self) {
        let badge = self.badge.take();
        let switches = self.switches.take();
        let visibility = self.visibility.take();
        drop((badge, switches, visibility));
    }

    /// The badge, drawn into `parent`; `None` (logged) when it cannot be.
    fn badge(&self, parent: &Element) -> Option<Badge> {
        let draw = || -> Result<Badge, JsValue> {
            let (host, root) = shadow_host(parent, "coworkkit-hand", "hand")?;
            let host = Host(host);
            let badge = el(&root, "div", &[("part", "badge"), ("role", "status")], "");
            el(
                &badge,
                "span",
                &[("part", "label")],
                "The agent may use this page",
            );
            let stop = el(
                &badge,
                "button",
                &[("part", "stop"), ("type", "button")],
                "Stop",
            );
            Ok(Badge {
                _host: host,
                _stop: self.listen(&stop, "click", |_| HandInput::Stop),
            })
        };
        draw()
            .map_err(|e| {
                web_sys::console::error_2(&"coworkkit: could not draw the badge".into(), &e)
            })
            .ok()
    }
}

/// `aria-checked` of a switch.
fn checked(armed: bool) -> &'static str {
    if armed {
        "true"
    } else {
        "false"
    }
}
