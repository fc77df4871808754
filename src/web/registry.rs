//! The registered actions' JavaScript-side pieces, beside the engine's [`ActionDef`]: `run`,
//! `confirmationSummary`, the element target, the Standard Schema and the manifest's JSON
//! Schema, keyed by the engine's [`ActionId`].
//!
//! The engine owns the rules about actions (names, duplicates, levels); this registry only
//! keeps what the engine cannot hold. Reading a spec into both halves is [`spec`](super::spec)'s.
//!
//! [`ActionDef`]: crate::core::engine::ActionDef

use std::cell::RefCell;

use js_sys::Function;
use wasm_bindgen::prelude::*;

use super::element::ElementTarget;
use super::standard::StandardSchema;
use crate::core::engine::ActionId;
use crate::core::value::Value;

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

/// What the web layer keeps about an action's `input`, beside the engine's schema.
#[derive(Clone, Default)]
pub(crate) struct ActionInput {
    /// A Standard Schema `input`.
    pub(crate) standard: Option<StandardSchema>,
    /// The arguments' JSON Schema for manifests when it is not the engine's schema: a
    /// Standard Schema's export, or `inputJsonSchema`.
    pub(crate) json_schema: Option<Value>,
    /// The spec declares an `input` (or `inputJsonSchema`).
    pub(crate) declared: bool,
}

/// The registered actions' JS-side halves. A list: an app registers a handful of actions, and
/// every lookup is by the id the engine resolved the name to.
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
        let removed = {
            let mut actions = self.actions.borrow_mut();
            let Some(at) = actions.iter().position(|(a, _)| *a == id) else {
                return false;
            };
            actions.swap_remove(at)
        };
        // The spec's functions are released after the borrow ends.
        drop(removed);
        true
    }

    /// The registration whose raw id is `raw` (a disposer carries the number).
    pub(crate) fn find_raw(&self, raw: f64) -> Option<ActionId> {
        let actions = self.actions.borrow();
        actions
            .iter()
            .map(|(a, _)| *a)
            .find(|a| a.as_u64() as f64 == raw)
    }

    /// The JS string of an action's name: the registered action's own, else decoded (a record
    /// of a call whose name is not registered).
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
