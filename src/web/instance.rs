//! One `Coworkkit` instance: the call [`Engine`] and the parts that serve it, each with one job
//! (the action [`registry`](super::registry), the [`events`](super::events) bus, the
//! [`effects`](super::effects) performer, Hand mode and the Watch panels), plus the few things
//! that belong to the instance as a whole: reading a call, handing it to the engine, and
//! disposing.

use std::cell::{Cell, Ref, RefCell, RefMut};
use std::rc::{Rc, Weak};

use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortController, Element};

use super::convert::get;
use super::effects::Effects;
use super::events::EventBus;
use super::hand::HandMode;
use super::interop::{future_promise, standard_check, thrown_error, verdict, Check};
use super::js;
use super::listener::EventListener;
use super::options::Options;
use super::read::{given_call_id, read_call, Field};
use super::registry::{read_spec, ActionRegistry};
use super::time::now;
use super::watch::WatchPanels;
use super::webmcp::ModelContexts;
use crate::core::engine::{ActionId, Engine, Entropy, InvokeRequest};
use crate::core::error::Error;
use crate::core::ids::{hex_id, random_id, CALL_ID_PREFIX};
use crate::core::record::{Approver, Via};
use crate::core::value::Value;

/// `crypto.getRandomValues`, the engine's source of tokens and ids. Bytes are drawn 4 KiB at
/// a time and handed out in order, each used once: one crossing per 256 ids.
struct WebCrypto {
    crypto: web_sys::Crypto,
    pool: Box<[u8; 4096]>,
    used: usize,
}

impl Entropy for WebCrypto {
    fn fill(&mut self, buf: &mut [u8]) {
        for byte in buf {
            if self.used == self.pool.len() {
                let _ = self
                    .crypto
                    .get_random_values_with_u8_array(&mut self.pool[..]);
                self.used = 0;
            }
            *byte = self.pool[self.used];
            self.used += 1;
        }
    }
}

/// What a released handle was: the argument of the instance's one `release` function.
const RELEASE_ACTION: u32 = 0;
const RELEASE_SUBSCRIBER: u32 = 1;
pub(crate) const RELEASE_SWITCH: u32 = 2;
pub(crate) const RELEASE_PANEL: u32 = 3;
pub(crate) const RELEASE_EXPOSURE: u32 = 4;
/// Not a release: a Watch panel's JSON Lines (its handle's `jsonLines()`), through the same
/// function.
pub(crate) const PANEL_JSON_LINES: u32 = 5;

/// The state of one instance, shared (weakly) with every closure the browser holds.
pub(crate) struct Instance {
    pub(crate) me: Weak<Instance>,
    engine: RefCell<Engine<JsValue>>,
    pub(crate) options: Options,
    pub(crate) registry: ActionRegistry,
    pub(crate) events: EventBus,
    pub(crate) effects: Effects,
    pub(crate) hand: HandMode,
    pub(crate) watch: WatchPanels,
    pub(crate) model_contexts: ModelContexts,
    abort: AbortController,
    /// `abort.signal`, read once: every `ctx` carries it.
    pub(crate) signal: JsValue,
    /// The session id's JS string, made once: every record carries it.
    pub(crate) session_js: JsValue,
    page_hide: RefCell<Option<EventListener>>,
    pub(crate) disposed: Cell<bool>,
    /// Itself, while it owes something: a call waits for its answer or a deadline, or a model
    /// context may call its tools. JavaScript may drop `ck` meanwhile (an engine collects a
    /// `const ck` that no later code reads), and the finalizer of the `Coworkkit` wrapper would
    /// then drop the instance, its card and its timers with it.
    held: RefCell<Option<Rc<Instance>>>,
    /// One JS function per instance, `(kind, id) => value`, that action disposers, unsubscribe
    /// functions and the methods of the switch's, the Watch panel's and a WebMCP exposure's
    /// handles are bound to
    /// (`Function.prototype.bind`): a Rust closure per registration would stay alive until
    /// JavaScript happened to collect the handle.
    release: Function,
}

impl Instance {
    /// The engine, borrowed (every borrow of it goes through here or
    /// [`engine_mut`](Self::engine_mut), so the wasm carries one borrow check, not one per
    /// call site).
    pub(crate) fn engine(&self) -> Ref<'_, Engine<JsValue>> {
        self.engine.borrow()
    }

    /// The engine, borrowed mutably. No borrow is held while JavaScript runs (see
    /// [`effects`](super::effects)).
    pub(crate) fn engine_mut(&self) -> RefMut<'_, Engine<JsValue>> {
        self.engine.borrow_mut()
    }

    /// Reads the options and builds the instance (SPEC §2).
    pub(crate) fn new(options: Option<JsValue>) -> Result<Rc<Instance>, JsValue> {
        let options = Options::read(options)?;
        let window = js::window().ok_or_else(|| {
            Error::InvalidSpec("options: no window: coworkkit runs in a page".into())
        })?;
        let mut entropy = WebCrypto {
            crypto: window.crypto()?,
            pool: Box::new([0; 4096]),
            used: 4096,
        };
        let session_id = random_id(&mut entropy, "");
        let session_js = JsValue::from_str(&session_id);
        let engine = Engine::new(options.config.clone(), session_id, Box::new(entropy));
        let abort = AbortController::new()?;
        let instance = Rc::new_cyclic(|me: &Weak<Instance>| {
            let weak = me.clone();
            let release = Closure::<dyn Fn(u32, f64) -> JsValue>::new(move |kind, id| {
                match weak.upgrade() {
                    Some(inst) => inst.release(kind, id),
                    // Once the instance is gone, so are its panels and their rows.
                    None if kind == PANEL_JSON_LINES => JsValue::from_str(""),
                    None => JsValue::UNDEFINED,
                }
            });
            Instance {
                me: me.clone(),
                engine: RefCell::new(engine),
                events: EventBus::new(options.on_record.clone()),
                options,
                registry: ActionRegistry::default(),
                effects: Effects::default(),
                hand: HandMode::default(),
                watch: WatchPanels::default(),
                model_contexts: ModelContexts::default(),
                signal: abort.signal().into(),
                session_js,
                abort,
                page_hide: RefCell::new(None),
                disposed: Cell::new(false),
                held: RefCell::new(None),
                // Freed with the instance's JS function objects: one per instance.
                release: release.into_js_value().unchecked_into(),
            }
        });
        // Leaving the page settles what waits (SPEC §3.4): a card must not outlive its page.
        let weak = Rc::downgrade(&instance);
        *instance.page_hide.borrow_mut() =
            Some(EventListener::new(&window, "pagehide", move |_| {
                if let Some(inst) = weak.upgrade() {
                    inst.dispose();
                }
            }));
        Ok(instance)
    }

    /// Registers an action; returns its id and name.
    pub(crate) fn define(&self, spec: &JsValue) -> Result<(ActionId, String), JsValue> {
        if self.disposed.get() {
            return Err(Error::Disposed.into());
        }
        let (def, action) = read_spec(spec)?;
        let name = def.name.clone();
        let id = self.engine_mut().register(def)?;
        self.registry.insert(id, action);
        self.drain();
        self.model_contexts.action_defined(self, id, &name);
        Ok((id, name))
    }

    /// An action's disposer: the instance's `release` bound to the action's id.
    pub(crate) fn disposer(&self, id: ActionId) -> JsValue {
        self.bound_release(RELEASE_ACTION, id.as_u64() as f64)
    }

    /// A listener's unsubscribe function.
    pub(crate) fn unsubscriber(&self, id: u32) -> JsValue {
        self.bound_release(RELEASE_SUBSCRIBER, f64::from(id))
    }

    pub(crate) fn bound_release(&self, kind: u32, id: f64) -> JsValue {
        self.release
            .bind2(&JsValue::NULL, &kind.into(), &id.into())
            .into()
    }

    /// What `release` does: unregister an action, drop a listener, remove a switch or a panel,
    /// withdraw an exposure's tools (each idempotent), or read a panel's JSON Lines.
    fn release(&self, kind: u32, id: f64) -> JsValue {
        match kind {
            RELEASE_SUBSCRIBER => self.events.unsubscribe(id as u32),
            RELEASE_SWITCH => self.hand.unmount_switch(id as u32),
            RELEASE_PANEL => self.watch.unmount(id as u32),
            RELEASE_EXPOSURE => {
                self.model_contexts.dispose_exposure(id as u32);
                self.hold_while_owing();
            }
            PANEL_JSON_LINES => return self.watch.json_lines(id as u32).into(),
            RELEASE_ACTION => {
                if let Some(action) = self.registry.find_raw(id) {
                    self.undefine(action);
                }
            }
            _ => {}
        }
        JsValue::UNDEFINED
    }

    fn undefine(&self, id: ActionId) {
        if self.registry.remove(id) {
            self.model_contexts.action_disposed(id);
            self.engine_mut().unregister(id, now());
            self.drain();
        }
    }

    /// The agent's door (SPEC §3): reads the call in one crossing and hands it on.
    pub(crate) fn invoke(&self, call: &JsValue) -> Promise {
        let request = self.read_call(call);
        self.invoke_request(request)
    }

    /// Hands a call to the engine once the action's Standard Schema (if any) has judged its
    /// args (a failure becomes the engine's `host_rejection`); an async `validate` is awaited
    /// first. Resolves with the outcome.
    pub(crate) fn invoke_request(&self, mut request: InvokeRequest<JsValue>) -> Promise {
        match standard_check(self, &request) {
            Check::Pass => self.submit(request),
            Check::Fail(error) => {
                request.host_rejection = Some(error);
                self.submit(request)
            }
            Check::Later(validation) => {
                // Held strongly while the library decides: the call must be answered.
                let inst = self.me.upgrade();
                future_promise(async move {
                    request.host_rejection = match JsFuture::from(validation).await {
                        Ok(result) => verdict(&result),
                        Err(thrown) => Some(thrown_error(&thrown)),
                    };
                    match inst {
                        Some(inst) => JsFuture::from(inst.submit(request)).await,
                        None => Ok(JsValue::UNDEFINED),
                    }
                })
            }
        }
    }

    /// Hands the call to the engine and drains what it asks for.
    fn submit(&self, request: InvokeRequest<JsValue>) -> Promise {
        let ticket = self.engine_mut().invoke(request, now());
        self.drain();
        let promise = self.effects.promise_for(ticket);
        // An answer that is still to come is owed: see `held`.
        self.hold_while_owing();
        promise
    }

    /// Reads an `invoke` call (one crossing) into the engine's request, with the frozen copy of
    /// its args as the call's snapshot.
    fn read_call(&self, call: &JsValue) -> InvokeRequest<JsValue> {
        let max = self.engine().config().max_args_bytes;
        let fields = read_call(call, max);
        let name = match fields.name {
            Field::Text(name) => name,
            _ => String::new(),
        };
        let (args, snapshot) = match fields.args {
            None => (Ok(Value::Object(Vec::new())), None),
            Some(Ok((value, copy))) => (Ok(value), Some(copy)),
            Some(Err(error)) => (Err(error), None),
        };
        let mut host_rejection = None;
        // The id's JS string goes along with the call, so the ctx, record and outcome that carry
        // it never decode it back from wasm memory.
        let (call_id, host_call_id) = match fields.call_id {
            Field::Absent => {
                let (text, js) = self.fresh_call_id();
                (Some(text), Some(js))
            }
            Field::Text(id) if !id.is_empty() && id.len() <= 256 => {
                // A lone surrogate was read as U+FFFD: the JS string is not the id's text then,
                // so every outcome and record carries the text, written out.
                let js = (!has_replacement_char(&id)).then(given_call_id);
                (Some(id), js)
            }
            _ => {
                host_rejection = Some(Error::InvalidArgs(
                    "callId must be a non-empty string of at most 256 bytes".into(),
                ));
                (None, None)
            }
        };
        let confirm_token = match fields.confirm_token {
            Field::Absent => None,
            Field::Text(token) => Some(token),
            Field::Other => {
                host_rejection.get_or_insert(Error::BadToken);
                None
            }
        };
        if host_rejection.is_none() {
            host_rejection = self.hand.rejection(self, &name, args.as_ref().ok());
        }
        InvokeRequest {
            name,
            args: args.map(Rc::new),
            snapshot,
            via: Via::Invoke,
            call_id,
            host_call_id,
            confirm_token,
            decline: fields.decline,
            host_rejection,
        }
    }

    /// A call id from the engine's randomness, and its JS string written in JS from the same
    /// bits.
    fn fresh_call_id(&self) -> (String, JsValue) {
        let bytes = self.engine_mut().draw_call_id();
        let word = |i: usize| u16::from_be_bytes([bytes[2 * i], bytes[2 * i + 1]]);
        let js = js::call_id_text(
            word(0),
            word(1),
            word(2),
            word(3),
            word(4),
            word(5),
            word(6),
            word(7),
        );
        (hex_id(CALL_ID_PREFIX, &bytes), js)
    }

    /// Settles everything pending as cancelled (`disposed`), aborts `ctx.signal`, removes the
    /// SDK's DOM. Later calls answer `cancelled` at once.
    pub(crate) fn dispose(&self) {
        if self.disposed.replace(true) {
            return;
        }
        self.abort.abort();
        self.engine_mut().dispose(now());
        self.drain();
        self.page_hide.borrow_mut().take();
        self.effects.close();
        self.hand.dispose(self);
        self.watch.clear();
        self.model_contexts.clear();
        self.hold_while_owing();
    }

    /// Performs what the engine asks for until it has nothing more.
    pub(crate) fn drain(&self) {
        self.effects.drain(self);
        self.hold_while_owing();
    }

    /// Holds the instance while it owes an answer, a deadline or a tool (see `held`); lets go
    /// in a microtask, so the last reference never goes inside one of its own methods.
    pub(crate) fn hold_while_owing(&self) {
        let owing = !self.disposed.get()
            && (self.effects.waiting()
                || self.engine().poll_timeout().is_some()
                || self.model_contexts.exposed());
        let mut held = self.held.borrow_mut();
        if owing {
            if held.is_none() {
                *held = self.me.upgrade();
            }
        } else if let Some(me) = held.take() {
            wasm_bindgen_futures::spawn_local(async move { drop(me) });
        }
    }

    /// Who is at the keyboard, from the `approver` option; `None` when absent or malformed.
    pub(crate) fn approver(&self) -> Option<Approver> {
        let f = self.options.approver.as_ref()?;
        let v = f.call0(&JsValue::UNDEFINED).ok()?;
        let id = get(&v, "id").as_string()?;
        let role = get(&v, "role").as_string();
        Some(Approver { id, role })
    }

    /// Where the SDK's own DOM goes: `element`, else the `container` option, else
    /// `document.body`.
    pub(crate) fn sdk_parent(&self, element: Option<Element>) -> Option<Element> {
        element
            .or_else(|| self.options.container.clone())
            .or_else(|| js::window()?.document()?.body().map(Into::into))
    }
}

/// Whether `id` holds U+FFFD. (`str::contains` with a non-ASCII `char` searches for its UTF-8
/// as a substring pattern, which brings a general string searcher into the wasm.)
fn has_replacement_char(id: &str) -> bool {
    id.as_bytes().windows(3).any(|w| w == "\u{FFFD}".as_bytes())
}
