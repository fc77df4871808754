//! The registered actions' JavaScript-side pieces, beside the engine's [`ActionDef`]: `run`,
//! `confirmationSummary`, the element target, the Standard Schema and the manifest's JSON
//! Schema. Also reading an action spec object into both halves.
//!
//! The engine owns the rules about actions (names, duplicates, levels); this registry only
//! keeps what the engine cannot hold, keyed by the engine's [`ActionId`].

use std::cell::RefCell;

use js_sys::{Array, Function};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::convert::get;
use super::hand::{read_element_spec, ElementTarget};
use super::interop::{read_input, ActionInput};
use crate::core::control::Control;
use crate::core::engine::{ActionDef, ActionId};
use crate::core::error::Error;

/// What the web layer keeps per registered action.
pub(crate) struct JsAction {
    /// The name, and its JS string as the spec gave it (records carry it without a decode).
    pub(crate) name: String,
    pub(crate) name_js: JsValue,
    /// The action's `run`; `None` for an element action.
    pub(crate) run: Option<Function>,
    /// `confirmationSummary`, for the hard card.
    pub(crate) summary: Option<Function>,
    /// The card's fallback text.
    pub(crate) description: String,
    /// Element actions: the target and operation, performed instead of `run`.
    pub(crate) element: Option<ElementTarget>,
    /// A Standard Schema `input` and the manifest's JSON Schema.
    pub(crate) input: ActionInput,
}

/// The registered actions' JS-side halves. A list: an app registers a handful of actions, and
/// the lookups that matter go through the engine's name lookup first.
#[derive(Default)]
pub(crate) struct ActionRegistry {
    actions: RefCell<Vec<(ActionId, JsAction)>>,
}

impl ActionRegistry {
    /// Keeps an action the engine has just registered.
    pub(crate) fn insert(&self, id: ActionId, action: JsAction) {
        self.actions.borrow_mut().push((id, action));
    }

    /// Forgets an action; false when it was not here (already disposed).
    pub(crate) fn remove(&self, id: ActionId) -> bool {
        let mut actions = self.actions.borrow_mut();
        let Some(at) = actions.iter().position(|(a, _)| *a == id) else {
            return false;
        };
        let removed = actions.swap_remove(at);
        drop(actions);
        // The spec's functions are released after the borrow: dropping a `JsValue` is not app
        // code, but nothing needs the borrow longer.
        drop(removed);
        true
    }

    /// The registration whose raw id is `raw` (a disposer carries the number).
    pub(crate) fn find_raw(&self, raw: f64) -> Option<ActionId> {
        self.actions
            .borrow()
            .iter()
            .map(|(a, _)| *a)
            .find(|a| a.as_u64() as f64 == raw)
    }

    /// The JS string of an action's name: the registered action's own, else decoded (a call
    /// of a name that is not registered).
    pub(crate) fn name_js(&self, name: &str) -> JsValue {
        let actions = self.actions.borrow();
        match actions.iter().find(|(_, a)| a.name == name) {
            Some((_, a)) => a.name_js.clone(),
            None => JsValue::from_str(name),
        }
    }

    /// Reads something from an action's pieces; `None` when it is not registered. The borrow
    /// ends before the caller calls any JavaScript.
    pub(crate) fn with<T>(&self, id: ActionId, f: impl FnOnce(&JsAction) -> T) -> Option<T> {
        let actions = self.actions.borrow();
        actions.iter().find(|(a, _)| *a == id).map(|(_, a)| f(a))
    }
}

/// An `invalid_spec` error naming the action: `"<name>: <what>"`.
pub(crate) fn spec_error(name: &str, what: &str) -> Error {
    Error::InvalidSpec(format!("{name}: {what}"))
}

/// Reads a control level option (`defaultControl`, a spec's `control`); undefined is `None`.
pub(crate) fn read_control(v: &JsValue, what: &str) -> Result<Option<Control>, Error> {
    if v.is_undefined() {
        return Ok(None);
    }
    v.as_string()
        .and_then(|s| Control::parse(&s))
        .map(Some)
        .ok_or_else(|| Error::InvalidSpec(format!("{what} must be \"open\", \"soft\" or \"hard\"")))
}

fn read_bool(spec: &JsValue, key: &'static str, default: bool) -> Result<bool, Error> {
    let v = get(spec, key);
    if v.is_undefined() {
        return Ok(default);
    }
    v.as_bool()
        .ok_or_else(|| Error::InvalidSpec(format!("{key} must be a boolean")))
}

fn read_function(spec: &JsValue, name: &str, key: &'static str) -> Result<Option<Function>, Error> {
    let v = get(spec, key);
    if v.is_undefined() {
        return Ok(None);
    }
    v.dyn_into::<Function>()
        .map(Some)
        .map_err(|_| spec_error(name, &format!("{key} must be a function")))
}

fn read_approvers(spec: &JsValue, name: &str) -> Result<Option<Vec<String>>, Error> {
    let v = get(spec, "approvers");
    if v.is_undefined() {
        return Ok(None);
    }
    if !Array::is_array(&v) {
        return Err(spec_error(
            name,
            "approvers must be an array of role strings",
        ));
    }
    let array = Array::from(&v);
    let list: Vec<String> = array.iter().filter_map(|r| r.as_string()).collect();
    if list.is_empty() || list.len() != array.length() as usize {
        return Err(spec_error(
            name,
            "approvers must be a non-empty array of role strings",
        ));
    }
    Ok(Some(list))
}

/// Reads an action spec object into the engine's definition and the web layer's pieces.
pub(crate) fn read_spec(spec: &JsValue) -> Result<(ActionDef, JsAction), Error> {
    if !spec.is_object() {
        return Err(Error::InvalidSpec(
            "the action spec must be an object".into(),
        ));
    }
    let name_js = get(spec, "name");
    let name = name_js
        .as_string()
        .ok_or_else(|| Error::InvalidSpec("name must be a string".into()))?;
    let description = get(spec, "description")
        .as_string()
        .ok_or_else(|| spec_error(&name, "description must be a non-empty string"))?;
    let control = read_control(&get(spec, "control"), "control")?;
    let (schema, input) = read_input(spec, &name)?;
    let run = read_function(spec, &name, "run")?;
    let summary = read_function(spec, &name, "confirmationSummary")?;
    let element = read_element_spec(spec, run.is_some()).map_err(|what| spec_error(&name, what))?;
    let schema = match (schema, &element) {
        (None, Some(target)) => target.default_schema(),
        (schema, _) => schema,
    };
    if run.is_none() && element.is_none() {
        return Err(spec_error(&name, "run must be a function"));
    }
    let def = ActionDef {
        name: name.clone(),
        description: description.clone(),
        control,
        schema,
        approvers: read_approvers(spec, &name)?,
        element: element.is_some(),
        share_result: read_bool(spec, "shareResult", true)?,
        record_result: read_bool(spec, "recordResult", true)?,
        read_only: read_bool(spec, "readOnly", false)?,
        idempotent: read_bool(spec, "idempotent", false)?,
        untrusted_content: read_bool(spec, "untrustedContent", false)?,
    };
    let action = JsAction {
        name,
        name_js,
        run,
        summary,
        description,
        element,
        input,
    };
    Ok((def, action))
}
