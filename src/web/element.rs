//! Element actions (SPEC §5): an action whose `element` (an `Element`, or a selector run with
//! `document.querySelector` at call time) takes an `operation` instead of `run`. Whether the
//! agent may touch the page at all is Hand mode's (the engine gates on it; [`hand`](super::hand)
//! draws its UI); this module checks the element and performs the operation.
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
//! either way. The checks themselves are `src/js/page.js`'s, unit-tested there.
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

use wasm_bindgen::prelude::*;

use super::convert::get;
use super::js;
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

impl ElementTarget {
    /// A target as a spec declared it (checked by the spec reader).
    pub(crate) fn new(element: JsValue, operation: Operation) -> Self {
        ElementTarget { element, operation }
    }

    /// The input schema `fill` and `select` get when the spec declares none:
    /// `{type: "object", properties: {value: {type: "string"}}, required: ["value"]}`.
    pub(crate) fn default_schema(&self) -> Option<Schema> {
        if self.operation == Operation::Click {
            return None;
        }
        let text = |s: &str| Value::String(s.into());
        let value = Value::Object(vec![("type".into(), text("string"))]);
        let schema = Value::Object(vec![
            ("type".into(), text("object")),
            (
                "properties".into(),
                Value::Object(vec![("value".into(), value)]),
            ),
            ("required".into(), Value::Array(vec![text("value")])),
        ]);
        Schema::parse(&schema).ok()
    }
}

fn unavailable(what: &str) -> Error {
    let mut message = String::from("the element ");
    message.push_str(what);
    Error::ElementUnavailable(message)
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
/// call per step would cost a crossing each.
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

/// Why the element action cannot take its operation now (`None` when it can): checked when a
/// call arrives while Hand mode is armed, with the args when they could be read.
pub(crate) fn rejection(target: &ElementTarget, args: Option<&Value>) -> Option<Error> {
    perform(target, args, false).err()
}

/// Performs the operation on the element, checking the element again first.
pub(crate) fn act(target: &ElementTarget, args: &Value) -> Result<JsValue, Error> {
    perform(target, Some(args), true)
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
