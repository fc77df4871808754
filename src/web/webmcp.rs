//! The actions as tools of the browser's own agent: WebMCP (SPEC §7.2).
//!
//! WebMCP (`document.modelContext.registerTool(tool, { signal, exposedTo })`) carries hints
//! only; coworkkit puts its gates behind each tool's `execute`, so a soft tool asks for the
//! token and a hard tool waits for a person's click on the card, exactly as `handleToolCall`
//! does. Only the standard surface is used, so a polyfill's `modelContext` works the same.
//!
//! An exposure registers every action (or the ones it names) now, and each action defined
//! later; each registration owns an `AbortController`, aborted when its action is disposed,
//! when the exposure is disposed, or with the instance.

use std::cell::{Cell, RefCell};
use std::rc::Weak;

use js_sys::{Array, Function, Object, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortController, AbortSignal};

use super::convert::{get, set};
use super::effects::outcome_js;
use super::instance::Instance;
use super::interop::{future_promise, webmcp_request, webmcp_tool_js};
use super::js::{self, compact};
use crate::core::engine::ActionId;
use crate::core::error::Error;
use crate::core::record::{Gate, Outcome};

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
#[derive(Default)]
pub(crate) struct ModelContexts {
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
    /// Registers the actions with the model context of `options`; returns the exposure's id
    /// and its `ready` promise (resolved once every registration made now was accepted).
    pub(crate) fn expose(
        &self,
        inst: &Instance,
        options: &JsValue,
    ) -> Result<(u32, Promise), Error> {
        if inst.disposed.get() {
            return Err(Error::Disposed);
        }
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
        let mut actions = Vec::new();
        for (action, def, ..) in inst.engine().actions() {
            actions.push((action, def.name.clone()));
        }
        let mut registrations = Vec::new();
        for (action, name) in &actions {
            registrations.extend(self.add(inst, id, *action, name));
        }
        Ok((id, settle(registrations, true)))
    }

    /// Registers an action defined after the exposures were made, in each that admits it.
    pub(crate) fn action_defined(&self, inst: &Instance, action: ActionId, name: &str) {
        let mut ids = Vec::new();
        for exposure in self.list.borrow().iter() {
            ids.push(exposure.id);
        }
        for id in ids {
            if let Some(registration) = self.add(inst, id, action, name) {
                // No `ready` waits for it: a refusal is logged, and the tool is simply absent.
                drop(settle(vec![registration], false));
            }
        }
    }

    /// Registers `action`'s tool with exposure `id`, if that exposure is live and admits it.
    fn add(&self, inst: &Instance, id: u32, action: ActionId, name: &str) -> Option<Registration> {
        let target = {
            let list = self.list.borrow();
            let exposure = list.iter().find(|e| e.id == id && e.admits(name))?;
            exposure.target.clone()
        };
        // No borrow is held while `registerTool` (a polyfill's, perhaps) runs.
        let (controller, accepted) = register(inst, &target, action, name)?;
        let signal = controller.signal();
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

/// Registers one action's tool; returns the registration's controller and the promise of its
/// acceptance (a refusal thrown at once is a rejected promise too), or `None` when the action
/// is gone.
fn register(
    inst: &Instance,
    target: &Target,
    action: ActionId,
    name: &str,
) -> Option<(AbortController, Promise)> {
    let tool = webmcp_tool_js(inst, action)?;
    set(
        tool.unchecked_ref::<Object>(),
        "execute",
        executor(&inst.me, name),
    );
    let controller = AbortController::new().ok()?;
    // `{ signal, exposedTo }`, `exposedTo` only when given.
    let options = Object::new();
    set(&options, "signal", controller.signal());
    if !target.exposed_to.is_undefined() {
        set(&options, "exposedTo", &target.exposed_to);
    }
    let accepted = match target.register.call2(&target.context, &tool, &options) {
        Ok(returned) => Promise::resolve(&returned),
        Err(thrown) => Promise::reject(&thrown),
    };
    Some((controller, accepted))
}

/// The tool's `execute(input)`: a fresh call of `name` through the tool-call door, resolved
/// with the compact outcome. It never rejects (a rejection would reach the agent only as a
/// bare `UnknownError`), and holds the instance weakly: the browser keeps the tool object.
fn executor(inst: &Weak<Instance>, name: &str) -> JsValue {
    let (inst, name) = (inst.clone(), name.to_owned());
    Closure::<dyn Fn(JsValue) -> Promise>::new(move |input: JsValue| {
        let outcome = match inst.upgrade() {
            Some(inst) => inst.invoke_request(webmcp_request(&inst, &name, &input)),
            None => Promise::resolve(&outcome_js(&collected())),
        };
        compact(&outcome, &name)
    })
    .into_js_value()
}

/// The outcome of a call to an instance that JavaScript has already collected: as for one
/// that was disposed.
fn collected() -> Outcome<JsValue> {
    let error = Error::Disposed;
    Outcome {
        call_id: String::new(),
        host_call_id: None,
        gate: Gate::Cancelled,
        ok: false,
        result: None,
        error: Some((error.code(), error.message())),
        confirm_token: None,
        expires_at: None,
    }
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
    future_promise(async move {
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
