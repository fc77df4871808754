//! The actions as tools of the browser's own agent: WebMCP (SPEC §7.2).
//!
//! WebMCP (`document.modelContext.registerTool(tool, { signal, exposedTo })`) carries hints
//! only; coworkkit puts its gates behind each tool's `execute`, so a soft tool asks for the
//! token and a hard tool waits for a person's click on the card, exactly as `handleToolCall`
//! does. Only the standard surface is used, so a polyfill's `modelContext` works the same.
//!
//! An exposure registers every action (or the ones it names) now, and each action defined
//! later; each registration owns an `AbortController`, aborted when its action is disposed,
//! when the exposure is disposed, or with the instance; a withdrawn tool's `execute`, called
//! anyway (an agent that kept the tool object, a model context that ignores the abort), fires
//! nothing and answers `rejected` with `unknown_action`. The instance hands in each tool object
//! (everything but `execute`) and the one callback every `execute` goes through.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use js_sys::{Array, Function, Object, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{future_to_promise, JsFuture};
use web_sys::{AbortController, AbortSignal};

use super::convert::{get, set};
use super::js;
use crate::core::engine::ActionId;
use crate::core::error::Error;

/// What every tool's `execute(input)` calls: the instance's WebMCP door, given the tool and the
/// input; resolves with the compact outcome and never rejects.
pub(crate) type Execute = Rc<dyn Fn(&Tool, JsValue) -> Promise>;

/// One registered tool, as its `execute` knows it.
pub(crate) struct Tool {
    /// The action's name.
    pub(crate) name: String,
    /// Aborted when the tool is withdrawn (its action or exposure disposed, or the instance).
    signal: AbortSignal,
}

impl Tool {
    /// Whether the tool was withdrawn from its model context: an agent that kept the tool
    /// object (or a model context that ignored the abort) may still call its `execute`.
    pub(crate) fn withdrawn(&self) -> bool {
        self.signal.aborted()
    }
}

/// The tool object of an action (everything but `execute`), `None` when it is not registered.
pub(crate) type ToolOf<'a> = &'a dyn Fn(ActionId) -> Option<JsValue>;

/// One `exposeToModelContext()`: where its tools go and which it registered.
struct Exposure {
    id: u32,
    target: Target,
    /// `actions`: only these names, a copy of the array given (`None`: every action).
    only: Option<Array>,
    tools: Vec<(ActionId, AbortController)>,
}

/// Where an exposure's tools are registered: the model context, its `registerTool`, and
/// `exposedTo`, handed to `registerTool` as it is.
#[derive(Clone)]
struct Target {
    context: JsValue,
    register: Function,
    exposed_to: JsValue,
}

impl Exposure {
    fn admits(&self, name: &str) -> bool {
        self.only
            .as_ref()
            .is_none_or(|names| names.includes(&name.into(), 0))
    }
}

impl Drop for Exposure {
    fn drop(&mut self) {
        for (_, controller) in &self.tools {
            controller.abort();
        }
    }
}

/// The instance's exposures.
pub(crate) struct ModelContexts {
    execute: Execute,
    list: RefCell<Vec<Exposure>>,
    next: Cell<u32>,
}

/// `document.modelContext`, else `navigator.modelContext` (where a polyfill puts it).
fn default_context() -> Option<JsValue> {
    let window = js::window()?;
    if let Some(document) = window.document() {
        let context = get(&document, "modelContext");
        if context.is_object() {
            return Some(context);
        }
    }
    let context = get(&window.navigator(), "modelContext");
    context.is_object().then_some(context)
}

/// `actions`: only these names (`None`: every action), copied.
fn read_names(names: &JsValue) -> Result<Option<Array>, Error> {
    if names.is_undefined() || names.is_null() {
        return Ok(None);
    }
    if Array::is_array(names) {
        let list = Array::from(names);
        if list.iter().all(|name| name.is_string()) {
            return Ok(Some(list));
        }
    }
    Err(Error::InvalidSpec(
        "actions must be an array of action names".into(),
    ))
}

impl ModelContexts {
    /// No exposures yet; every tool's `execute` will call `execute`.
    pub(crate) fn new(execute: Execute) -> ModelContexts {
        ModelContexts {
            execute,
            list: RefCell::new(Vec::new()),
            next: Cell::new(0),
        }
    }

    /// Registers `actions` (id and name) with the model context of `options`; returns the
    /// exposure's id and its `ready` promise (resolved once every registration made now was
    /// accepted).
    pub(crate) fn expose(
        &self,
        options: &JsValue,
        actions: &[(ActionId, String)],
        tool_of: ToolOf<'_>,
    ) -> Result<(u32, Promise), Error> {
        let option = |key| {
            if options.is_object() {
                get(options, key)
            } else {
                JsValue::UNDEFINED
            }
        };
        let given = option("modelContext");
        let context = if given.is_undefined() || given.is_null() {
            default_context()
        } else {
            Some(given)
        }
        .ok_or(Error::ModelContextUnavailable)?;
        let register = get(&context, "registerTool")
            .dyn_into::<Function>()
            .map_err(|_| Error::ModelContextUnavailable)?;
        let only = read_names(&option("actions"))?;
        let id = self.next.get();
        self.next.set(id.wrapping_add(1));
        self.list.borrow_mut().push(Exposure {
            id,
            target: Target {
                context,
                register,
                exposed_to: option("exposedTo"),
            },
            only,
            tools: Vec::new(),
        });
        let mut registrations = Vec::new();
        for (action, name) in actions {
            registrations.extend(self.add(id, *action, name, tool_of));
        }
        Ok((id, settle(registrations, true)))
    }

    /// Registers an action defined after the exposures were made, in each that admits it.
    pub(crate) fn action_defined(&self, action: ActionId, name: &str, tool_of: ToolOf<'_>) {
        let mut ids = Vec::new();
        for exposure in self.list.borrow().iter() {
            ids.push(exposure.id);
        }
        for id in ids {
            if let Some(registration) = self.add(id, action, name, tool_of) {
                // No `ready` waits for it: a refusal is logged, and the tool is simply absent.
                drop(settle(vec![registration], false));
            }
        }
    }

    /// Registers `action`'s tool with exposure `id`, if that exposure is live and admits it.
    fn add(
        &self,
        id: u32,
        action: ActionId,
        name: &str,
        tool_of: ToolOf<'_>,
    ) -> Option<Registration> {
        let target = {
            let list = self.list.borrow();
            let exposure = list.iter().find(|e| e.id == id && e.admits(name))?;
            exposure.target.clone()
        };
        // No borrow is held while `registerTool` (a polyfill's, perhaps) runs.
        let tool = tool_of(action)?;
        let controller = AbortController::new().ok()?;
        let signal = controller.signal();
        let callee = Tool {
            name: name.to_owned(),
            signal: signal.clone(),
        };
        set(
            tool.unchecked_ref::<Object>(),
            "execute",
            executor(&self.execute, callee),
        );
        let accepted = register(&target, &tool, &signal);
        match self.list.borrow_mut().iter_mut().find(|e| e.id == id) {
            Some(exposure) => exposure.tools.push((action, controller)),
            // Disposed meanwhile: the tool goes at once.
            None => controller.abort(),
        }
        Some(Registration {
            name: name.to_owned(),
            accepted,
            signal,
        })
    }

    /// Whether any exposure is live (its tools may be called).
    pub(crate) fn exposed(&self) -> bool {
        !self.list.borrow().is_empty()
    }

    /// Removes a disposed action's tools.
    pub(crate) fn action_disposed(&self, action: ActionId) {
        let mut gone = Vec::new();
        for exposure in self.list.borrow_mut().iter_mut() {
            exposure.tools.retain(|(id, controller)| {
                let keep = *id != action;
                if !keep {
                    gone.push(controller.clone());
                }
                keep
            });
        }
        // Aborted after the borrow: the model context's own listeners run on `abort`.
        for controller in &gone {
            controller.abort();
        }
    }

    /// Removes every tool of one exposure; a second call does nothing.
    pub(crate) fn dispose_exposure(&self, id: u32) {
        let gone = {
            let mut list = self.list.borrow_mut();
            let at = list.iter().position(|e| e.id == id);
            at.map(|i| list.remove(i))
        };
        drop(gone);
    }

    /// Removes every tool of every exposure (from `ck.dispose()`).
    pub(crate) fn clear(&self) {
        let all = self.list.take();
        drop(all);
    }
}

/// Registers one tool with the registration's `signal`; returns the promise of its acceptance
/// (a refusal thrown at once is a rejected promise too).
fn register(target: &Target, tool: &JsValue, signal: &AbortSignal) -> Promise {
    // `{ signal, exposedTo }`, `exposedTo` only when given.
    let options = Object::new();
    set(&options, "signal", signal);
    if !target.exposed_to.is_undefined() {
        set(&options, "exposedTo", &target.exposed_to);
    }
    match target.register.call2(&target.context, tool, &options) {
        Ok(returned) => Promise::resolve(&returned),
        Err(thrown) => Promise::reject(&thrown),
    }
}

/// The tool's `execute(input)`: the instance's door for `tool`. The browser keeps the tool
/// object, so the closure holds only the callback (which holds the instance weakly).
fn executor(execute: &Execute, tool: Tool) -> JsValue {
    let execute = execute.clone();
    Closure::<dyn Fn(JsValue) -> Promise>::new(move |input: JsValue| execute(&tool, input))
        .into_js_value()
}

/// One `registerTool` call: the action's name, the promise of its acceptance and the signal
/// the registration owns.
struct Registration {
    name: String,
    accepted: Promise,
    signal: AbortSignal,
}

/// Waits for the browser's answer to each registration in turn, and logs each refusal. A
/// registration whose own signal was aborted before the answer (its action or exposure
/// disposed, as a component that mounts and unmounts at once does) was withdrawn, not refused:
/// whatever the browser says of it (Chromium rejects it with an `AbortError`) is no one's
/// concern. With `reject`, this is `ready`: the first refusal makes the promise reject with
/// `model_context_refused`; else it always resolves. Every promise is awaited, so no refusal is
/// left unhandled.
fn settle(registrations: Vec<Registration>, reject: bool) -> Promise {
    future_to_promise(async move {
        let mut first = None;
        for Registration {
            name,
            accepted,
            signal,
        } in &registrations
        {
            if let Err(reason) = JsFuture::from(accepted.clone()).await {
                if !signal.aborted() {
                    log_refusal(name, &reason);
                    first.get_or_insert(name);
                }
            }
        }
        match first {
            Some(name) if reject => Err(Error::ModelContextRefused(name.clone()).into()),
            _ => Ok(JsValue::UNDEFINED),
        }
    })
}

fn log_refusal(name: &str, reason: &JsValue) {
    let message = format!("coworkkit: the model context refused the tool \"{name}\":");
    web_sys::console::error_2(&message.into(), reason);
}
