//! Standard Schema (`input` with a `~standard` property, SPEC §3.6): running the library's
//! `validate` on a call's arguments and reading its verdict as `invalid_args` issues. A leaf: it
//! gets the schema and the args, and says pass, fail or later.

use js_sys::{Array, Function, Promise};
use wasm_bindgen::prelude::*;

use super::convert::{get, write_frozen};
use crate::core::error::Error;
use crate::core::interop::IssueList;
use crate::core::value::Value;

/// An action's Standard Schema: its `~standard` object and that object's `validate`.
#[derive(Clone)]
pub(crate) struct StandardSchema {
    pub(crate) props: JsValue,
    pub(crate) validate: Function,
}

/// What a Standard Schema said about a call's arguments.
pub(crate) enum Check {
    /// Valid.
    Pass,
    /// Invalid: the call is rejected with this error.
    Fail(Error),
    /// `validate` returned a promise; await it, then read it with [`verdict`] (a rejection with
    /// [`thrown_error`]).
    Later(Promise),
}

/// Runs `schema` on `args`. `validate` is library code and may call back into the SDK: the
/// caller holds no borrow. It gets a frozen copy of its own, so nothing it does can reach the
/// call's snapshot.
pub(crate) fn check(schema: &StandardSchema, args: &Value) -> Check {
    let copy = write_frozen(args);
    match schema.validate.call1(&schema.props, &copy) {
        Err(thrown) => Check::Fail(thrown_error(&thrown)),
        Ok(result) if result.is_object() && get(&result, "then").is_function() => {
            Check::Later(Promise::resolve(&result))
        }
        Ok(result) => verdict(&result).map_or(Check::Pass, Check::Fail),
    }
}

/// A settled `validate` result: `None` when valid, else the issues as `invalid_args`.
pub(crate) fn verdict(result: &JsValue) -> Option<Error> {
    let issues = get(result, "issues");
    if issues.is_undefined() || issues.is_null() {
        return None;
    }
    let mut list = IssueList::default();
    if Array::is_array(&issues) {
        for issue in Array::from(&issues).iter() {
            let message = get(&issue, "message").as_string();
            let path = get(&issue, "path");
            list.start();
            if Array::is_array(&path) {
                for segment in Array::from(&path).iter() {
                    path_step(&mut list, &segment);
                }
            }
            list.end(message.as_deref().unwrap_or("invalid"));
        }
    }
    Some(list.into_error())
}

/// A path segment: a property key, or `{ key }` (Standard Schema's `PathSegment`); an index
/// when it is a whole number that fits one.
fn path_step(list: &mut IssueList, segment: &JsValue) {
    let key = if segment.is_object() {
        get(segment, "key")
    } else {
        segment.clone()
    };
    match key.as_f64() {
        Some(n) if n >= 0.0 && n.fract() == 0.0 && n < 4_294_967_296.0 => list.index(n as u32),
        // Another number is no key: the step is left out.
        Some(_) => {}
        None => {
            if let Some(key) = key.as_string() {
                list.key(&key);
            }
        }
    }
}

/// A `validate` that threw or rejected: the call is refused, as a failed check would be.
pub(crate) fn thrown_error(thrown: &JsValue) -> Error {
    let message = thrown
        .as_string()
        .or_else(|| get(thrown, "message").as_string())
        .unwrap_or_default();
    Error::InvalidArgs(format!(
        "args: the input schema's validate threw: {message}"
    ))
}
