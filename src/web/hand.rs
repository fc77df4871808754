//! Hand mode and element actions (SPEC §5).
//!
//! Hand mode answers *may the agent touch the UI at all*; it is off by default, and the engine
//! settles every element action as `needs_hand_mode` while it is off. This module:
//! - arms it only during [transient user activation](https://developer.mozilla.org/en-US/docs/Web/API/UserActivation/isActive)
//!   (`armHandMode()` otherwise throws `needs_user_activation`), and disarms it on
//!   `disarmHandMode()`, on the badge's Stop, on the SDK's switch, on the tab becoming hidden
//!   ([`visibilitychange`](https://developer.mozilla.org/en-US/docs/Web/API/Document/visibilitychange_event))
//!   and on `dispose()`;
//! - draws, while armed, a badge "The agent may use this page — Stop" (`<coworkkit-hand
//!   data-coworkkit="hand">`, closed shadow root, fixed to the bottom-right corner; parts `badge`,
//!   `stop`), and on request the switch (`<coworkkit-switch data-coworkkit="switch">`, a real
//!   `<button role="switch" aria-checked>`; parts `switch`, `track`, `label`). Both use the card's
//!   CSS custom properties (`--ck-accent`, `--ck-bg`, `--ck-fg`, `--ck-radius`, `--ck-font`);
//! - resolves an element action's `element` (an `Element`, or a selector run with
//!   `document.querySelector` at call time), checks it is available, and performs `click`,
//!   `fill` or `select`.
//!
//! # Element availability
//! An element is unavailable (`element_unavailable`) when it is missing (no match, or not in
//! the document), inside the SDK's own DOM (any ancestor — across shadow roots — with a
//! `data-coworkkit` attribute), inert or hidden (an `inert` or `hidden` attribute on it or an
//! ancestor), disabled (`:disabled` or `aria-disabled="true"`), not rendered (`display:none`
//! on it or an ancestor, `visibility` other than `visible`), or zero-size; for `fill` when it is
//! not an editable `<input>` / `<textarea>` (`:read-write`), for `select` when it is not a
//! `<select>`. It is checked at `invoke` (the call is `rejected`) and again right before the
//! operation (the run then fails with code `element_unavailable`); the page is untouched
//! either way.
//!
//! # Operations
//! - `click`: `HTMLElement.click()` (an untrusted click: the SDK's card ignores it). No result.
//! - `fill`: `args.value` (a string) is set through the *native* `value` setter of
//!   `HTMLInputElement.prototype` / `HTMLTextAreaElement.prototype` (so the value trackers of
//!   React's controlled inputs see the change), then `input` and `change` are dispatched
//!   (bubbling). The result is the new value.
//! - `select`: `args.value` names an enabled `<option>` by its value or, failing that, by its
//!   label (trimmed text); no match is `invalid_args`. The option is chosen through the native
//!   `selectedIndex` setter, then `input` and `change` are dispatched. The result is the
//!   option's value.
//!
//! Without a declared `input`, `fill` and `select` actions get the schema
//! `{type:"object", properties:{value:{type:"string"}}, required:["value"]}`.

use std::cell::{Cell, RefCell};

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Document, Element, Event, EventTarget, HtmlButtonElement};

use super::convert::get;
use super::dom::{el, shadow_host};
use super::events::EventKind;
use super::instance::Instance;
use super::js;
use super::listener::EventListener;
use super::read::read_value;
use crate::core::error::Error;
use crate::core::schema::Schema;
use crate::core::value::Value;

/// What an element action does to its element (its code is what [`js::hand`] takes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Operation {
    Click = js::OP_CLICK,
    Fill = js::OP_FILL,
    Select = js::OP_SELECT,
}

/// An element action's target and operation, as declared.
#[derive(Clone)]
pub(crate) struct ElementTarget {
    /// An `Element`, or a selector string resolved at call time.
    element: JsValue,
    operation: Operation,
}

/// The input schema of `fill` and `select` actions that declare none.
const VALUE_SCHEMA: &str =
    r#"{"type":"object","properties":{"value":{"type":"string"}},"required":["value"]}"#;

impl ElementTarget {
    /// The input schema `fill` and `select` get when the spec declares none.
    pub(crate) fn default_schema(&self) -> Option<Schema> {
        if self.operation == Operation::Click {
            return None;
        }
        // Read as JSON through the reader every spec's input goes through: a text costs less
        // than code that builds the same value.
        let spec = js_sys::JSON::parse(VALUE_SCHEMA).ok()?;
        let spec = read_value(&spec, usize::MAX).ok()?;
        Schema::parse(&spec).ok()
    }
}

fn unavailable(what: &str) -> Error {
    let mut message = String::from("the element ");
    message.push_str(what);
    Error::ElementUnavailable(message)
}

/// Reads `element` and `operation` from a spec: `None` for a `run` action. `has_run` says
/// whether the spec has a `run`, which an element action must not have. A bad spec is `Err`
/// with what is wrong, which the registry reports as `invalid_spec` naming the action.
pub(crate) fn read_element_spec(
    spec: &JsValue,
    has_run: bool,
) -> Result<Option<ElementTarget>, &'static str> {
    let element = get(spec, "element");
    let operation = get(spec, "operation");
    if element.is_undefined() && operation.is_undefined() {
        return Ok(None);
    }
    if has_run {
        return Err("an action has either run or element + operation, not both");
    }
    let operation = match operation.as_string().as_deref() {
        Some("click") => Operation::Click,
        Some("fill") => Operation::Fill,
        Some("select") => Operation::Select,
        _ => return Err("operation must be \"click\", \"fill\" or \"select\""),
    };
    if let Some(selector) = element.as_string() {
        // A malformed selector is the app's bug: say so now, not at every call.
        let document = document().ok_or("no document")?;
        if selector.is_empty() || document.query_selector(&selector).is_err() {
            return Err("element is not a valid CSS selector");
        }
    } else if !element.is_instance_of::<Element>() {
        return Err("element must be an Element or a selector string");
    }
    Ok(Some(ElementTarget { element, operation }))
}

fn document() -> Option<Document> {
    js::window()?.document()
}

/// What [`js::hand`] found wrong, by its `ELEMENT_*` code: "the element …"; `None` for
/// [`js::ELEMENT_NO_OPTION`], which is the args' fault, not the element's.
fn unavailable_what(code: u8) -> Option<&'static str> {
    Some(match code {
        js::ELEMENT_MISSING => "matches nothing in the document",
        js::ELEMENT_DETACHED => "is not in the document",
        js::ELEMENT_OWN_DOM => "belongs to the SDK itself",
        js::ELEMENT_INERT => "is inert",
        js::ELEMENT_HIDDEN => "is hidden",
        js::ELEMENT_DISABLED => "is disabled",
        js::ELEMENT_NOT_HTML => "is not an HTML element",
        js::ELEMENT_NOT_EDITABLE => "is not an editable input or textarea",
        js::ELEMENT_NOT_SELECT => "is not a <select>",
        _ => return None,
    })
}

/// Resolves the target now and checks it can take the operation (see the module docs), and
/// for `select` that `value` (when given) names an enabled option; with `act`, then performs
/// the operation. The checks and the operation run in one JS call ([`js::hand`]): a web-sys
/// call per step would cost a crossing and a glue function each.
fn check(target: &ElementTarget, value: Option<&str>, act: bool) -> Result<JsValue, Error> {
    let found = js::hand(&target.element, target.operation as u8, value, act)
        .map_err(|e| Error::RunFailed(get(&e, "message").as_string().unwrap_or_default()))?;
    let Some(failed) = found.as_f64() else {
        return Ok(found);
    };
    Err(match unavailable_what(failed as u8) {
        Some(what) => unavailable(what),
        None => {
            let mut message = String::from("args.value: no enabled option has the value or label ");
            message.push_str(value.unwrap_or_default());
            Error::InvalidArgs(message)
        }
    })
}

/// `args.value` for fill and select.
fn value_arg(args: &Value) -> Result<&str, Error> {
    args.get("value")
        .and_then(Value::as_str)
        .ok_or_else(|| Error::InvalidArgs("args.value: fill and select need a string value".into()))
}

/// Checks the element first, then `args.value` (for fill and select; `None` is not judged
/// yet), then performs the operation when both pass and `act` asks for it.
fn perform(target: &ElementTarget, args: Option<&Value>, act: bool) -> Result<JsValue, Error> {
    let value = match (target.operation, args) {
        (Operation::Click, _) | (_, None) => Ok(None),
        (_, Some(args)) => value_arg(args).map(Some),
    };
    let done = check(
        target,
        value.as_ref().ok().copied().flatten(),
        act && value.is_ok(),
    )?;
    value.map(|_| done)
}

/// The CSS of the badge and the switch (one sheet: each host uses the rules it needs).
const CSS: &str = concat!(
    ":host{all:initial}",
    "div,button{--bg:var(--ck-bg,#fff);--fg:var(--ck-fg,#1d1d1f);--ac:var(--ck-accent,#d70015);",
    "font:14px/1.4 var(--ck-font,system-ui,-apple-system,'Segoe UI',Roboto,sans-serif);",
    "color:var(--fg)}",
    "@media(prefers-color-scheme:dark){div,button{--bg:var(--ck-bg,#1f1f22);",
    "--fg:var(--ck-fg,#f5f5f7);--ac:var(--ck-accent,#ff453a)}}",
    "div{position:fixed;right:16px;bottom:16px;z-index:2147483647;display:flex;",
    "align-items:center;gap:12px;padding:8px 8px 8px 14px;background:var(--bg);",
    "border:2px solid var(--ac);border-radius:var(--ck-radius,14px);",
    "box-shadow:0 8px 24px rgba(0,0,0,.25)}",
    "button{font-weight:600;cursor:pointer;border-radius:calc(var(--ck-radius,14px)*.6)}",
    "[part=stop]{padding:6px 14px;border:0;background:var(--ac);color:var(--ck-accent-text,#fff)}",
    "[part=switch]{display:inline-flex;align-items:center;gap:8px;padding:4px 8px;",
    "border:1px solid rgba(128,128,128,.4);background:var(--bg)}",
    "[part=track]{width:32px;height:18px;border-radius:9px;background:rgba(128,128,128,.5);",
    "position:relative;transition:background .15s}",
    "[part=track]::after{content:'';position:absolute;top:2px;left:2px;width:14px;height:14px;",
    "border-radius:50%;background:#fff;transition:left .15s}",
    "[aria-checked=true] [part=track]{background:var(--ac)}",
    "[aria-checked=true] [part=track]::after{left:16px}",
    "button:focus-visible{outline:2px solid var(--ac);outline-offset:2px}",
    "@media(prefers-reduced-motion:reduce){[part=track],[part=track]::after{transition:none}}",
);

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
/// listener. (Whether it is armed is the engine's: element actions are gated there.)
#[derive(Default)]
pub(crate) struct HandMode {
    badge: Cell<Option<Badge>>,
    switches: RefCell<Vec<Switch>>,
    next_switch: Cell<u32>,
    visibility: Cell<Option<EventListener>>,
}

/// What a Hand-mode listener heard.
#[derive(Clone, Copy)]
enum Heard {
    /// A click on the badge's Stop.
    Stop,
    /// A click on a switch.
    Switch,
    /// The page's `visibilitychange`.
    Visibility,
}

/// Listens for `kind` on `target` with the one closure type every Hand-mode listener shares.
/// The instance hears it in a microtask ([`HandMode::hear`]), so that whatever that triggers
/// (app listeners of `handmode`, `dispose()`) may drop the listener that called it.
fn listen(
    inst: &Instance,
    target: &EventTarget,
    kind: &'static str,
    heard: Heard,
) -> EventListener {
    let weak = inst.me.clone();
    EventListener::new(target, kind, move |event: Event| {
        let (weak, trusted) = (weak.clone(), event.is_trusted());
        wasm_bindgen_futures::spawn_local(async move {
            if let Some(inst) = weak.upgrade() {
                inst.hand.hear(&inst, heard, trusted);
            }
        });
    })
}

/// `navigator.userActivation.isActive`; false (fail closed) where the browser lacks it.
fn user_activation_active() -> bool {
    js::window()
        .map(|w| get(&get(&w.navigator(), "userActivation"), "isActive"))
        .is_some_and(|v| v.is_truthy())
}

impl HandMode {
    /// Arms Hand mode: only during transient user activation in a visible page, never after
    /// `dispose()`.
    pub(crate) fn arm(&self, inst: &Instance) -> Result<(), Error> {
        if inst.disposed.get() {
            return Err(Error::Disposed);
        }
        if !user_activation_active() || document().is_none_or(|d| d.hidden()) {
            return Err(Error::NeedsUserActivation);
        }
        self.set(inst, true);
        Ok(())
    }

    /// Sets Hand mode, redraws the badge and switches, and emits `handmode` on a change.
    pub(crate) fn set(&self, inst: &Instance, armed: bool) {
        if inst.engine().hand_mode() == armed {
            return;
        }
        inst.engine_mut().set_hand_mode(armed);
        let badge = if armed { badge(inst) } else { None };
        let old = self.badge.replace(badge);
        drop(old);
        if armed {
            // Made on the first arming, kept until `dispose()`.
            let listener = self.visibility.take().or_else(|| {
                let document = document()?;
                Some(listen(
                    inst,
                    &document,
                    "visibilitychange",
                    Heard::Visibility,
                ))
            });
            self.visibility.set(listener);
        }
        for switch in self.switches.borrow().iter() {
            let _ = switch.button.set_attribute("aria-checked", checked(armed));
        }
        inst.events
            .emit(EventKind::HandMode, &JsValue::from_bool(armed));
    }

    /// Draws a switch into `element` (default: the SDK's parent); returns its id for
    /// [`unmount_switch`](Self::unmount_switch).
    pub(crate) fn mount_switch(
        &self,
        inst: &Instance,
        element: Option<Element>,
    ) -> Result<u32, JsValue> {
        if inst.disposed.get() {
            return Err(Error::Disposed.into());
        }
        let parent = inst
            .sdk_parent(element)
            .ok_or_else(|| JsValue::from_str("coworkkit: no element to mount the switch in"))?;
        let (host, root) = shadow_host(&parent, "coworkkit-switch", "switch", CSS)?;
        let host = Host(host);
        let attrs = [
            ("part", "switch"),
            ("type", "button"),
            ("role", "switch"),
            ("aria-checked", checked(inst.engine().hand_mode())),
        ];
        let button: HtmlButtonElement = el(&root, "button", &attrs, "").unchecked_into();
        el(&button, "span", &[("part", "track")], "");
        el(
            &button,
            "span",
            &[("part", "label")],
            "Let the agent use this page",
        );
        // Arming needs a real person: a trusted click, whose activation `arm` checks.
        let click = listen(inst, &button, "click", Heard::Switch);
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

    /// `Some(why)` when the element action `name` cannot take its operation now; checked at
    /// arrival only while armed (disarmed, the engine answers `needs_hand_mode` first).
    pub(crate) fn rejection(
        &self,
        inst: &Instance,
        name: &str,
        args: Option<&Value>,
    ) -> Option<Error> {
        let id = {
            let engine = inst.engine();
            if !engine.hand_mode() {
                return None;
            }
            engine.action(name)?.0
        };
        let target = inst.registry.with(id, |a| a.element.clone()).flatten()?;
        perform(&target, args, false).err()
    }

    /// Performs an element action's operation on its target, checking Hand mode and the
    /// element again.
    pub(crate) fn perform(
        &self,
        inst: &Instance,
        target: &ElementTarget,
        args: &Value,
    ) -> Result<JsValue, Error> {
        if !inst.engine().hand_mode() {
            return Err(Error::HandModeOff);
        }
        // No borrow is held: the events run the app's handlers, which may call back in.
        perform(target, Some(args), true)
    }

    /// What a listener of [`listen`] heard, in the microtask after it.
    fn hear(&self, inst: &Instance, heard: Heard, trusted: bool) {
        match heard {
            // Stopping is always safe, so any click counts.
            Heard::Stop => self.set(inst, false),
            Heard::Switch => {
                if inst.engine().hand_mode() {
                    self.set(inst, false);
                } else if trusted {
                    let _ = self.arm(inst);
                }
            }
            Heard::Visibility => {
                if document().is_some_and(|d| d.hidden()) {
                    self.set(inst, false);
                }
            }
        }
    }

    /// Removes the badge and the switches and disarms (from `dispose()`).
    pub(crate) fn dispose(&self, inst: &Instance) {
        let was_armed = inst.engine().hand_mode();
        inst.engine_mut().set_hand_mode(false);
        let badge = self.badge.take();
        let switches = self.switches.take();
        let visibility = self.visibility.take();
        drop((badge, switches, visibility));
        if was_armed {
            inst.events.emit(EventKind::HandMode, &JsValue::FALSE);
        }
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

/// The badge, drawn into the SDK's parent; `None` (logged) when it cannot be.
fn badge(inst: &Instance) -> Option<Badge> {
    let parent = inst.sdk_parent(None)?;
    let draw = || -> Result<Badge, JsValue> {
        let (host, root) = shadow_host(&parent, "coworkkit-hand", "hand", CSS)?;
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
            _stop: listen(inst, &stop, "click", Heard::Stop),
        })
    };
    draw()
        .map_err(|e| web_sys::console::error_2(&"coworkkit: could not draw the badge".into(), &e))
        .ok()
}
