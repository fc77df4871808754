//! `Coworkkit`, the class a web app constructs: it converts JavaScript input, hands it to the
//! [`Engine`](crate::core::engine::Engine), and performs the effects the engine asks for (call
//! `run`, draw or close the card, resolve promises, deliver records and events).
//!
//! Re-entrancy: `run`, record sinks and event listeners are app code and may call back into
//! the instance (even `invoke` or `dispose`). So effects are drained one at a time and no
//! `RefCell` borrow is held while JavaScript runs.

use alloc::borrow::ToOwned;
use alloc::boxed::Box;
use alloc::rc::{Rc, Weak};
use alloc::string::String;
use alloc::vec::Vec;
use core::cell::{Cell, RefCell};

use js_sys::{Array, Function, Object, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{AbortController, Element};

use super::card::{CardLayer, Decision};
use super::cells::Borrows;
use super::convert::{
    call_id_js, get, key, name, read_call, seed_call_id, set, write_frozen, Field,
};
use super::hand::{read_element_spec, ElementTarget, HandUi};
use super::interop::{read_input, thrown_error, verdict, ActionInput, Check};
use super::js;
use super::listener::EventListener;
use super::timer::Timer;
use super::watch::WatchPanels;
use crate::core::card::{approver_notice, summary_text, title_from_name, CardModel, Labels};
use crate::core::control::Control;
use crate::core::engine::{
    ActionDef, ActionId, CallRef, CancelReason, Config, Effect, Engine, Entropy, InvokeRequest,
    ProposalId, ProposalInfo, Ticket,
};
use crate::core::error::Error;
use crate::core::record::{ActionRecord, Approver, Outcome, RecordOutcome};
use crate::core::value::Value;

#[wasm_bindgen]
extern "C" {
    /// The constructor's options object, typed as `CoworkkitOptions` in the `.d.ts` (so the
    /// parameter reads `options?: CoworkkitOptions | null`).
    #[wasm_bindgen(typescript_type = "CoworkkitOptions")]
    pub type OptionsObject;
}

/// The SDK instance: actions, the call engine, the card and the events of one page.
#[wasm_bindgen]
pub struct Coworkkit {
    pub(crate) inner: Rc<Inner>,
}

/// What the web layer keeps per registered action, beside the engine's [`ActionDef`].
pub(crate) struct JsAction {
    run: Option<Function>,
    summary: Option<Function>,
    description: String,
    /// Element actions: the target and operation, performed instead of `run`.
    pub(crate) element: Option<ElementTarget>,
    /// A Standard Schema `input` and the manifest's JSON Schema.
    pub(crate) input: ActionInput,
}

/// The registered actions' web-side halves. A list: lookups scan it, which at the sizes an
/// app registers costs less than a hash map's code in the wasm.
#[derive(Default)]
pub(crate) struct ActionTable(Vec<(ActionId, JsAction)>);

impl ActionTable {
    pub(crate) fn get(&self, id: &ActionId) -> Option<&JsAction> {
        self.0
            .iter()
            .find(|(a, _)| a == id)
            .map(|(_, action)| action)
    }

    fn insert(&mut self, id: ActionId, action: JsAction) {
        self.0.push((id, action));
    }

    fn remove(&mut self, id: &ActionId) -> Option<JsAction> {
        let at = self.0.iter().position(|(a, _)| a == id)?;
        Some(self.0.swap_remove(at).1)
    }

    fn find_raw(&self, raw: f64) -> Option<ActionId> {
        self.0
            .iter()
            .map(|(a, _)| *a)
            .find(|a| a.as_u64() as f64 == raw)
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum EventKind {
    Proposal,
    Resolved,
    Record,
    HandMode,
}

impl EventKind {
    fn parse(name: &str) -> Option<EventKind> {
        Some(match name {
            "proposal" => EventKind::Proposal,
            "resolved" => EventKind::Resolved,
            "record" => EventKind::Record,
            "handmode" => EventKind::HandMode,
            _ => return None,
        })
    }
}

struct Subscriber {
    id: u32,
    kind: EventKind,
    callback: Function,
}

pub(crate) struct Inner {
    pub(crate) me: Weak<Inner>,
    pub(crate) engine: RefCell<Engine<JsValue>>,
    on_record: Option<Function>,
    approver: Option<Function>,
    arm_delay_ms: f64,
    pub(crate) container: Option<Element>,
    labels: Labels,
    pub(crate) actions: RefCell<ActionTable>,
    /// Resolvers of the calls that did not answer while `submit` drained (hard and async
    /// ones): few at a time, so a list beats a hash map's code size.
    waiters: RefCell<Vec<(Ticket, Function)>>,
    /// Answers that arrived while `submit` was still draining, before it made a promise.
    early: RefCell<Vec<(Ticket, JsValue)>>,
    /// The frozen JS snapshot of each live call's arguments, keyed by the engine's `Rc<Value>`:
    /// made once (by `invoke`'s reading pass, or from the `Value` when first needed), so the
    /// summary, `run`, events and the record all see the same object.
    snapshots: RefCell<Vec<(Rc<Value>, JsValue)>>,
    subscribers: RefCell<Vec<Subscriber>>,
    next_subscriber: Cell<u32>,
    card: RefCell<Option<CardLayer>>,
    timer: RefCell<Option<(f64, Timer)>>,
    abort: AbortController,
    /// `abort.signal`, read once: every `ctx` carries it.
    signal: JsValue,
    page_hide: RefCell<Option<EventListener>>,
    pub(crate) disposed: Cell<bool>,
    /// One JS function per instance, `(kind, id) => void`, that disposers and unsubscribe
    /// functions are bound to (`Function.prototype.bind`). Allocating a Rust closure per
    /// registration would leave it alive until JS happens to collect the handle.
    release: Function,
    /// Hand mode's badge, switches and `visibilitychange` listener.
    pub(crate) hand: RefCell<HandUi>,
    /// Mounted Watch panels, fed every record.
    pub(crate) watch: RefCell<WatchPanels>,
    /// The instance itself while calls wait or run (see [`Inner::hold_while_busy`]).
    held: RefCell<Option<Rc<Inner>>>,
}

const RELEASE_ACTION: u32 = 0;
const RELEASE_SUBSCRIBER: u32 = 1;

/// `crypto.getRandomValues`, the engine's source of tokens and ids.
/// Bytes are drawn 256 at a time and handed out in order: one `getRandomValues` crossing per
/// sixteen call ids rather than one per call. Each byte is used once.
struct WebCrypto {
    crypto: web_sys::Crypto,
    pool: [u8; 256],
    used: usize,
}

impl Entropy for WebCrypto {
    fn fill(&mut self, buf: &mut [u8]) {
        for byte in buf {
            if self.used == self.pool.len() {
                let _ = self.crypto.get_random_values_with_u8_array(&mut self.pool);
                self.used = 0;
            }
            *byte = self.pool[self.used];
            self.used += 1;
        }
    }
}

fn now() -> f64 {
    js_sys::Date::now()
}

/// Builds the JS `Error` with a `code` that every throw of the SDK uses.
pub fn js_error(error: &Error) -> JsValue {
    let err = js_sys::Error::new(&error.message());
    set(&err, "code", error.code());
    err.into()
}

fn invalid_options(message: &str) -> JsValue {
    js_error(&invalid(&["options: ", message]))
}

/// An `invalid_spec` error whose message is `parts` joined (no `format!`: its argument
/// machinery costs more wasm than the messages themselves).
pub(crate) fn invalid(parts: &[&str]) -> Error {
    Error::InvalidSpec(parts.concat())
}

fn opt_number(
    options: &JsValue,
    key: &'static str,
    default: f64,
    min: f64,
) -> Result<f64, JsValue> {
    let v = get(options, key);
    if v.is_undefined() {
        return Ok(default);
    }
    match v.as_f64() {
        Some(n) if n.is_finite() && n >= min => Ok(n),
        _ => {
            let mut message = String::from(key);
            message.push_str(if min > 0.0 {
                " must be a positive finite number"
            } else {
                " must be a finite number ≥ 0"
            });
            Err(invalid_options(&message))
        }
    }
}

fn opt_function(object: &JsValue, key: &'static str) -> Result<Option<Function>, JsValue> {
    let v = get(object, key);
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    v.dyn_into::<Function>()
        .map(Some)
        .map_err(|_| js_error(&invalid(&[key, " must be a function"])))
}

fn parse_control(v: &JsValue, what: &str) -> Result<Option<Control>, Error> {
    if v.is_undefined() {
        return Ok(None);
    }
    v.as_string()
        .and_then(|s| Control::parse(&s))
        .map(Some)
        .ok_or_else(|| invalid(&[what, " must be \"open\", \"soft\" or \"hard\""]))
}

#[wasm_bindgen]
impl Coworkkit {
    /// Creates an instance. Every option is optional; see `CoworkkitOptions`.
    #[wasm_bindgen(constructor)]
    pub fn new(options: Option<OptionsObject>) -> Result<Coworkkit, JsValue> {
        let options: JsValue = options
            .map(Into::into)
            .unwrap_or_else(|| Object::new().into());
        let window =
            js::window().ok_or_else(|| invalid_options("no window: coworkkit runs in a page"))?;
        let crypto = window.crypto()?;
        let default_control = parse_control(&get(&options, "defaultControl"), "defaultControl")
            .map_err(|e| js_error(&e))?;
        let config = Config {
            default_control: default_control.unwrap_or(Control::Open),
            confirm_timeout_ms: opt_number(&options, "confirmTimeoutMs", 120_000.0, 1.0)?,
            max_pending: opt_number(&options, "maxPending", 16.0, 1.0)? as usize,
            max_args_bytes: opt_number(&options, "maxArgsBytes", 65_536.0, 2.0)? as usize,
        };
        let arm_delay_ms = opt_number(&options, "armDelayMs", 500.0, 0.0)?;
        let on_record = opt_function(&options, "onActionRecord")?;
        let approver = opt_function(&options, "approver")?;
        let container = get(&options, "container");
        let container = if container.is_undefined() || container.is_null() {
            None
        } else {
            Some(
                container
                    .dyn_into::<Element>()
                    .map_err(|_| invalid_options("container must be an Element"))?,
            )
        };
        let mut labels = Labels::default();
        let given = get(&options, "labels");
        if given.is_object() {
            if let Some(s) = get(&given, "confirm").as_string() {
                labels.confirm = s;
            }
            if let Some(s) = get(&given, "cancel").as_string() {
                labels.cancel = s;
            }
        }

        let mut session = [0u8; 16];
        let mut entropy = WebCrypto {
            crypto,
            pool: [0; 256],
            used: 256,
        };
        entropy.fill(&mut session);
        let session_id = hex(&session);
        let engine = Engine::new(config, session_id, Box::new(entropy));

        let abort = AbortController::new()?;
        let inner = Rc::new_cyclic(|me| Inner {
            me: me.clone(),
            engine: RefCell::new(engine),
            on_record,
            approver,
            arm_delay_ms,
            container,
            labels,
            actions: RefCell::default(),
            waiters: RefCell::default(),
            early: RefCell::default(),
            snapshots: RefCell::default(),
            subscribers: RefCell::default(),
            next_subscriber: Cell::new(0),
            card: RefCell::new(None),
            timer: RefCell::new(None),
            signal: abort.signal().into(),
            abort,
            page_hide: RefCell::new(None),
            disposed: Cell::new(false),
            release: {
                let weak = me.clone();
                Closure::<dyn Fn(u32, f64)>::new(move |kind, id| {
                    if let Some(inner) = weak.upgrade() {
                        inner.release(kind, id);
                    }
                })
                .into_js_value()
                .unchecked_into()
            },
            hand: RefCell::default(),
            watch: RefCell::default(),
            held: RefCell::new(None),
        });
        // Leaving the page settles what waits (SPEC §3.4): a card must not outlive its page.
        let weak = Rc::downgrade(&inner);
        *inner.page_hide.write() = Some(EventListener::new(&window, "pagehide", move |_| {
            if let Some(inner) = weak.upgrade() {
                inner.dispose();
            }
        }));
        Ok(Coworkkit { inner })
    }

    /// The session id carried by every record of this instance.
    #[wasm_bindgen(getter, js_name = sessionId)]
    pub fn session_id(&self) -> String {
        self.inner.engine.read().session_id().to_owned()
    }

    /// Registers an action; returns a handle whose `dispose()` unregisters it.
    #[wasm_bindgen(js_name = defineAction, unchecked_return_type = "ActionHandle")]
    pub fn define_action(
        &self,
        #[wasm_bindgen(unchecked_param_type = "ActionSpec")] spec: JsValue,
    ) -> Result<JsValue, JsValue> {
        let (id, name) = self.inner.define(&spec)?;
        let handle = Object::new();
        set(&handle, "name", name);
        set(&handle, "dispose", self.inner.disposer(id));
        Ok(Object::freeze(&handle).into())
    }

    /// Registers an action for a component's lifetime; returns its disposer.
    #[wasm_bindgen(js_name = useAction, unchecked_return_type = "() => void")]
    pub fn use_action(
        &self,
        #[wasm_bindgen(unchecked_param_type = "ActionSpec")] spec: JsValue,
    ) -> Result<JsValue, JsValue> {
        let (id, _) = self.inner.define(&spec)?;
        Ok(self.inner.disposer(id))
    }

    /// The agent's door (SPEC §3). Never throws: bad input is a `rejected` outcome.
    #[wasm_bindgen(unchecked_return_type = "Promise<Outcome>")]
    pub fn invoke(
        &self,
        #[wasm_bindgen(unchecked_param_type = "InvokeCall")] call: JsValue,
    ) -> Promise {
        self.inner.invoke(&call)
    }

    /// The hard proposals waiting, the visible card's first.
    #[wasm_bindgen(unchecked_return_type = "Proposal[]")]
    pub fn pending(&self) -> Array {
        let list = self.inner.engine.read().pending();
        list.iter().map(|p| self.inner.proposal_js(p)).collect()
    }

    /// Cancels a waiting proposal by id; `true` when it was waiting. The app may always cancel,
    /// never confirm.
    pub fn cancel(&self, id: &str) -> bool {
        let inner = &self.inner;
        let Some(proposal) = inner.engine.read().proposal_by_str(id) else {
            return false;
        };
        let done = inner
            .engine
            .write()
            .cancel(proposal, CancelReason::App, now());
        inner.drain();
        done
    }

    /// Subscribes to `"proposal" | "resolved" | "record" | "handmode"`; returns the unsubscribe
    /// function. A `proposal` listener also receives, in a microtask, every proposal already
    /// waiting.
    #[wasm_bindgen(unchecked_return_type = "() => void")]
    pub fn on(
        &self,
        #[wasm_bindgen(unchecked_param_type = "CoworkkitEvent")] event: &str,
        #[wasm_bindgen(
            unchecked_param_type = "(payload: Proposal & Resolution & ActionRecord & boolean) => void"
        )]
        listener: Function,
    ) -> Result<JsValue, JsValue> {
        let kind = EventKind::parse(event).ok_or_else(|| {
            js_error(&invalid(&[
                "unknown event \"",
                event,
                "\": use proposal, resolved, record or handmode",
            ]))
        })?;
        let inner = &self.inner;
        let id = inner.next_subscriber.get();
        inner.next_subscriber.set(id + 1);
        inner.subscribers.write().push(Subscriber {
            id,
            kind,
            callback: listener.clone(),
        });
        if kind == EventKind::Proposal {
            let waiting: Array = self.pending();
            if waiting.length() > 0 {
                let weak = inner.me.clone();
                js::when_settled(
                    &JsValue::UNDEFINED,
                    Box::new(move |_, _| {
                        let Some(inner) = weak.upgrade() else { return };
                        // Only if still subscribed by the time the microtask runs.
                        if inner.subscribers.read().iter().any(|s| s.id == id) {
                            for p in waiting.iter() {
                                inner.call_listener(&listener, &p);
                            }
                        }
                    }),
                );
            }
        }
        Ok(inner
            .release
            .bind2(&JsValue::NULL, &RELEASE_SUBSCRIBER.into(), &id.into())
            .into())
    }

    /// Settles everything pending as cancelled (`disposed`), aborts `ctx.signal`, removes the
    /// SDK's DOM. Later calls answer `cancelled` at once.
    pub fn dispose(&self) {
        self.inner.dispose();
    }
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(DIGITS[(b >> 4) as usize] as char);
        s.push(DIGITS[(b & 15) as usize] as char);
    }
    s
}

fn message_of(thrown: &JsValue) -> String {
    if let Some(s) = thrown.as_string() {
        return s;
    }
    let m = get(thrown, "message");
    m.as_string()
        .unwrap_or_else(|| "run threw a non-Error value".into())
}

impl Inner {
    fn define(&self, spec: &JsValue) -> Result<(ActionId, String), JsValue> {
        if self.disposed.get() {
            return Err(js_error(&Error::Disposed));
        }
        let (def, action) = read_spec(spec).map_err(|e| js_error(&e))?;
        let name = def.name.clone();
        let id = self
            .engine
            .write()
            .register(def)
            .map_err(|e| js_error(&e))?;
        self.actions.write().insert(id, action);
        self.drain();
        Ok((id, name))
    }

    fn undefine(&self, id: ActionId) {
        if self.actions.write().remove(&id).is_some() {
            self.engine.write().unregister(id, now());
            self.drain();
        }
    }

    /// An action's disposer: the instance's one `release` function bound to the action's id,
    /// so registering allocates no closure on the Rust side.
    fn disposer(&self, id: ActionId) -> JsValue {
        let id = id.as_u64() as f64;
        self.release
            .bind2(&JsValue::NULL, &RELEASE_ACTION.into(), &id.into())
            .into()
    }

    /// What `release` does: unregister an action or drop a subscriber. Idempotent.
    fn release(&self, kind: u32, id: f64) {
        if kind == RELEASE_SUBSCRIBER {
            self.subscribers.write().retain(|s| f64::from(s.id) != id);
            return;
        }
        let action = self.actions.read().find_raw(id);
        if let Some(action) = action {
            self.undefine(action);
        }
    }

    fn invoke(&self, call: &JsValue) -> Promise {
        let (request, copy) = self.read_call(call);
        if let (Ok(args), Some(copy)) = (&request.args, copy) {
            self.snapshots.write().push((args.clone(), copy));
        }
        self.invoke_request(request)
    }

    /// Hands a call to the engine once the action's Standard Schema (if any) has judged its
    /// args (a failure becomes the engine's `host_rejection`); an async `validate` is awaited
    /// first. Resolves with the outcome.
    pub(crate) fn invoke_request(&self, mut request: InvokeRequest) -> Promise {
        match self.standard_check(&request) {
            Check::Pass => self.submit(request),
            Check::Fail(error) => {
                request.host_rejection = Some(error);
                self.submit(request)
            }
            Check::Later(validation) => {
                let promise = js::deferred();
                let resolve = js::take_resolve(&promise);
                let weak = self.me.clone();
                js::when_settled(
                    &validation,
                    Box::new(move |ok, settled| {
                        request.host_rejection = if ok {
                            verdict(&settled)
                        } else {
                            Some(thrown_error(&settled))
                        };
                        if let Some(inner) = weak.upgrade() {
                            // Resolving with a promise adopts its outcome.
                            let _ = resolve.call1(&JsValue::UNDEFINED, &inner.submit(request));
                        }
                    }),
                );
                promise
            }
        }
    }

    /// Hands the call to the engine. Most calls are answered while their effects drain (an
    /// open action with a synchronous `run`, every rejection): those resolve at once, with no
    /// resolver kept; the rest wait in `waiters` for their `Answer`.
    fn submit(&self, request: InvokeRequest) -> Promise {
        let ticket = self.engine.write().invoke(request, now());
        self.drain();
        // A snapshot whose args the engine no longer holds belongs to no call (one answered
        // from memory, a confirming call that continued another): drop it.
        self.snapshots
            .write()
            .retain(|(args, _)| Rc::strong_count(args) > 1);
        let early = {
            let mut early = self.early.write();
            let at = early.iter().position(|(t, _)| *t == ticket);
            at.map(|i| early.swap_remove(i).1)
        };
        if let Some(outcome) = early {
            return Promise::resolve(&outcome);
        }
        let promise = js::deferred();
        self.waiters
            .write()
            .push((ticket, js::take_resolve(&promise)));
        self.hold_while_busy();
        promise
    }

    /// While calls wait or run, the instance holds itself. JS may collect the object that
    /// `new Coworkkit()` returned as soon as no later code uses it (JavaScriptCore does, for a
    /// module or async function suspended on `await ck.invoke(...)`), and wasm-bindgen's
    /// `FinalizationRegistry` would then drop the instance from under its own card: the card
    /// vanished and the call never settled. Let go once nothing waits or runs, or on dispose,
    /// in a microtask (never inside a method of the instance, which the last reference could
    /// free).
    fn hold_while_busy(&self) {
        let busy = !self.disposed.get()
            && (!self.waiters.read().is_empty() || self.engine.read().poll_timeout().is_some());
        let mut held = self.held.write();
        if busy {
            if held.is_none() {
                *held = self.me.upgrade();
            }
        } else if let Some(me) = held.take() {
            js::when_settled(&JsValue::UNDEFINED, Box::new(move |_, _| drop(me)));
        }
    }

    /// Reads a call in one crossing. Beside the request comes the frozen JS copy of its args
    /// (when they were given and are plain JSON data), which [`invoke`](Self::invoke) keeps
    /// as the call's snapshot.
    fn read_call(&self, call: &JsValue) -> (InvokeRequest, Option<JsValue>) {
        let max = self.engine.read().config().max_args_bytes;
        let fields = read_call(call, max);
        let name = match fields.name {
            Field::Text(name) => name,
            _ => String::new(),
        };
        let (args, copy) = match fields.args {
            None => (Ok(Value::Object(Vec::new())), None),
            Some(Ok((value, copy))) => (Ok(value), Some(copy)),
            Some(Err(error)) => (Err(error), None),
        };
        let mut host_rejection = None;
        // The id's JS string is kept (`seed_call_id`), so the ctx, record and outcome that
        // carry it never decode it back from wasm memory. An absent id is the fresh one the
        // reading pass made, in the engine's own format.
        let call_id = match fields.call_id {
            Field::Absent => {
                let id = fields.fresh_id;
                if let Some(id) = &id {
                    seed_call_id(id, &call_id_js());
                }
                id
            }
            Field::Text(id) if !id.is_empty() && id.len() <= 256 => {
                // A lone surrogate was read as U+FFFD; such an id is not cached, so every
                // outcome and record carries the same (well-formed) text.
                if !id.as_bytes().windows(3).any(|w| w == "\u{FFFD}".as_bytes()) {
                    seed_call_id(&id, &call_id_js());
                }
                Some(id)
            }
            _ => {
                host_rejection = Some(Error::InvalidArgs(
                    "callId must be a non-empty string of at most 256 bytes".into(),
                ));
                None
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
            host_rejection = self.element_rejection(&name, args.as_ref().ok());
        }
        let request = InvokeRequest {
            name,
            args: args.map(Rc::new),
            call_id,
            confirm_token,
            decline: fields.decline,
            host_rejection,
        };
        (request, copy)
    }

    fn dispose(&self) {
        if self.disposed.replace(true) {
            return;
        }
        self.abort.abort();
        self.engine.write().dispose(now());
        self.drain();
        self.page_hide.write().take();
        self.timer.write().take();
        let card = self.card.write().take();
        drop(card);
        self.dispose_hand();
        self.dispose_watch();
        self.hold_while_busy();
    }

    /// Performs queued effects until the engine has none, then re-arms the expiry timer.
    fn drain(&self) {
        loop {
            let effect = self.engine.write().poll_effect();
            match effect {
                Some(effect) => self.perform(effect),
                None => break,
            }
        }
        self.schedule_tick();
        self.hold_while_busy();
    }

    fn schedule_tick(&self) {
        if self.disposed.get() {
            return;
        }
        let deadline = self.engine.read().poll_timeout();
        let mut timer = self.timer.write();
        match (deadline, timer.as_ref()) {
            (None, _) => *timer = None,
            (Some(at), Some((current, _))) if *current == at => {}
            (Some(at), _) => {
                let weak = self.me.clone();
                let wait = (at - now()).clamp(0.0, 2_147_483_000.0) as u32 + 1;
                *timer = Some((
                    at,
                    Timer::timeout(wait, move || {
                        if let Some(inner) = weak.upgrade() {
                            inner.timer.write().take();
                            inner.engine.write().tick(now());
                            inner.drain();
                        }
                    }),
                ));
            }
        }
    }

    /// Performs one effect. Each kind has its own function, kept out of line: one match doing
    /// them all inlined grew into the crate's largest function.
    fn perform(&self, effect: Effect<JsValue>) {
        match effect {
            Effect::Answer { ticket, outcome } => self.answer(ticket, &outcome),
            Effect::Run {
                call,
                action,
                call_id,
                control,
                args,
                approver,
                ..
            } => self.run(call, action, &call_id, control, &args, approver.as_ref()),
            Effect::ShowCard {
                proposal,
                action,
                name,
                args,
                expires_at,
                approvers,
                position,
                total,
            } => self.show_card(
                proposal, action, &name, &args, expires_at, approvers, position, total,
            ),
            Effect::UpdateCard {
                position, total, ..
            } => {
                if let Some(card) = self.card.write().as_mut() {
                    card.update_position(position, total);
                }
            }
            Effect::CloseCard { .. } => {
                if let Some(card) = self.card.write().as_mut() {
                    card.close();
                }
            }
            Effect::Proposal(info) => {
                let payload = self.proposal_js(&info);
                self.emit(EventKind::Proposal, &payload);
            }
            Effect::Resolved {
                proposal,
                call_id,
                action,
                outcome,
            } => self.resolved(proposal, call_id, action, &outcome),
            Effect::Record(record) => self.deliver_record(&record),
            Effect::Nudge { action, control } => nudge(&action, control),
            Effect::Settled { .. } => {}
        }
    }

    #[inline(never)]
    fn answer(&self, ticket: Ticket, outcome: &Outcome<JsValue>) {
        let resolve = {
            let mut waiters = self.waiters.write();
            let at = waiters.iter().position(|(t, _)| *t == ticket);
            at.map(|i| waiters.swap_remove(i).1)
        };
        match resolve {
            Some(resolve) => {
                let _ = resolve.call1(&JsValue::UNDEFINED, &outcome_js(outcome));
            }
            // Answered before `submit` made a promise: it picks this up.
            None => self.early.write().push((ticket, outcome_js(outcome))),
        }
    }

    #[inline(never)]
    fn run(
        &self,
        call: CallRef,
        action: ActionId,
        call_id: &str,
        control: Control,
        args: &Rc<Value>,
        approver: Option<&Approver>,
    ) {
        if let Some(result) = self.perform_element(action, args) {
            self.engine.write().run_finished(call, result, now());
            return;
        }
        let run = self.actions.read().get(&action).and_then(|a| a.run.clone());
        let Some(run) = run else {
            let e = Error::RunFailed("the action was disposed before it ran".into());
            self.engine.write().run_finished(call, Err(e), now());
            return;
        };
        let ctx = js::context(
            &name(call_id),
            &key(control.as_str()),
            &approver.map_or(JsValue::NULL, approver_js),
            &self.signal,
        );
        let snapshot = self.snapshot(args);
        match run.call2(&JsValue::UNDEFINED, &snapshot, &ctx) {
            Err(thrown) => {
                let e = Error::RunFailed(message_of(&thrown));
                self.engine.write().run_finished(call, Err(e), now());
            }
            Ok(value) if is_thenable(&value) => {
                let weak = self.me.clone();
                js::when_settled(
                    &value,
                    Box::new(move |ok, settled| {
                        if let Some(inner) = weak.upgrade() {
                            let result = if ok {
                                Ok(settled)
                            } else {
                                Err(Error::RunFailed(message_of(&settled)))
                            };
                            inner.engine.write().run_finished(call, result, now());
                            inner.drain();
                        }
                    }),
                );
            }
            Ok(value) => {
                self.engine.write().run_finished(call, Ok(value), now());
            }
        }
    }

    #[inline(never)]
    fn resolved(
        &self,
        proposal: ProposalId,
        call_id: String,
        action: String,
        outcome: &Outcome<JsValue>,
    ) {
        let payload = Object::new();
        set(&payload, "id", proposal.to_id_string());
        set(&payload, "callId", call_id);
        set(&payload, "action", action);
        set(&payload, "outcome", outcome_js(outcome));
        self.emit(EventKind::Resolved, &payload.into());
    }

    #[inline(never)]
    fn deliver_record(&self, record: &ActionRecord<JsValue>) {
        let js = self.record_js(record);
        self.snapshots
            .write()
            .retain(|(args, _)| !Rc::ptr_eq(args, &record.args));
        self.feed_watch(record, &js);
        if let Some(sink) = &self.on_record {
            if let Err(e) = sink.call1(&JsValue::UNDEFINED, &js) {
                web_sys::console::error_2(
                    &"coworkkit: onActionRecord threw; the call is unaffected".into(),
                    &e,
                );
            }
        }
        self.emit(EventKind::Record, &js);
    }

    #[allow(clippy::too_many_arguments)]
    fn show_card(
        &self,
        proposal: ProposalId,
        action: ActionId,
        name: &str,
        args: &Rc<Value>,
        expires_at: f64,
        approvers: Option<Vec<String>>,
        position: usize,
        total: usize,
    ) {
        let snapshot = self.snapshot(args);
        let (summary_fn, description) = match self.actions.read().get(&action) {
            Some(a) => (a.summary.clone(), a.description.clone()),
            None => (None, String::new()),
        };
        // The summary is the app's own words about this call: computed here, shown on the
        // card, and never passed anywhere else.
        let summary = summary_fn
            .and_then(|f| f.call1(&JsValue::UNDEFINED, &snapshot).ok())
            .and_then(|v| v.as_string());
        let approver = self.current_approver();
        let role = approver.as_ref().and_then(|a| a.role.as_deref());
        let confirm_allowed = self.engine.read().may_confirm(proposal, role);
        let notice = match (&approvers, confirm_allowed) {
            (Some(list), false) => Some(approver_notice(list)),
            _ => None,
        };
        let model = CardModel {
            title: title_from_name(name),
            summary: summary_text(summary, &description),
            expires_at,
            position,
            total,
            confirm_allowed,
            notice,
            labels: self.labels.clone(),
        };
        let mut slot = self.card.write();
        if slot.is_none() {
            let container = self.container.clone().or_else(|| {
                js::window()
                    .and_then(|w| w.document())
                    .and_then(|d| d.body())
                    .map(Into::into)
            });
            let Some(container) = container else { return };
            match CardLayer::new(&container) {
                Ok(layer) => *slot = Some(layer),
                Err(e) => {
                    web_sys::console::error_2(&"coworkkit: could not draw the card".into(), &e);
                    return;
                }
            }
        }
        let weak = self.me.clone();
        let on_decision: Rc<dyn Fn(Decision)> = Rc::new(move |decision| {
            if let Some(inner) = weak.upgrade() {
                inner.decide(proposal, decision);
            }
        });
        if let Some(card) = slot.as_mut() {
            if let Err(e) = card.show(model, self.arm_delay_ms, on_decision) {
                web_sys::console::error_2(&"coworkkit: could not show the card".into(), &e);
            }
        }
    }

    /// A decision from the card. The card has already checked that a Confirm came from a
    /// trusted click after the arm delay.
    fn decide(&self, proposal: ProposalId, decision: Decision) {
        match decision {
            Decision::Confirm => {
                let approver = self.current_approver();
                let _ = self.engine.write().confirm(proposal, approver, now());
            }
            Decision::Cancel => {
                self.engine
                    .write()
                    .cancel(proposal, CancelReason::User, now());
            }
        }
        self.drain();
    }

    /// Who is at the keyboard, from the `approver` option; `None` when absent or malformed.
    fn current_approver(&self) -> Option<Approver> {
        let f = self.approver.as_ref()?;
        let v = f.call0(&JsValue::UNDEFINED).ok()?;
        let id = get(&v, "id").as_string()?;
        let role = get(&v, "role").as_string();
        Some(Approver { id, role })
    }

    /// The frozen JS snapshot of a call's args. `invoke` registered the copy its reading pass
    /// made; args that came another way (a provider tool call, absent args) get theirs here,
    /// built from the `Value` the first time they are needed.
    fn snapshot(&self, args: &Rc<Value>) -> JsValue {
        if let Some((_, js)) = self
            .snapshots
            .read()
            .iter()
            .find(|(a, _)| Rc::ptr_eq(a, args))
        {
            return js.clone();
        }
        let js = write_frozen(args);
        self.snapshots.write().push((args.clone(), js.clone()));
        js
    }

    fn proposal_js(&self, p: &ProposalInfo) -> JsValue {
        let o = Object::new();
        set(&o, "id", p.id.to_id_string());
        set(&o, "callId", p.call_id.as_str());
        set(&o, "action", name(&p.action));
        set(&o, "control", key(p.control.as_str()));
        set(&o, "args", self.snapshot(&p.args));
        set(&o, "expiresAt", p.expires_at);
        Object::freeze(&o).into()
    }

    fn record_js(&self, r: &ActionRecord<JsValue>) -> JsValue {
        let u = JsValue::UNDEFINED;
        let outcome = match &r.outcome {
            RecordOutcome::Ok { value } => {
                js::record_outcome(&key("ok"), value.as_ref().unwrap_or(&u), &u, &u)
            }
            RecordOutcome::Error { code, message } => {
                js::record_outcome(&key("error"), &u, &key(code), &message.into())
            }
            RecordOutcome::NotRun => js::record_outcome(&key("not_run"), &u, &u, &u),
        };
        // Record ids are `<sessionId>.<n>`: hand over `n` and let JS join it to the cached
        // session id, rather than decode a fresh string per record.
        let id = match r
            .id
            .strip_prefix(r.session_id.as_str())
            .and_then(|n| n.strip_prefix('.'))
        {
            Some(n) if !n.is_empty() && n.len() < 16 && n.bytes().all(|b| b.is_ascii_digit()) => {
                JsValue::from_f64(
                    n.bytes()
                        .fold(0.0, |acc, b| acc * 10.0 + f64::from(b - b'0')),
                )
            }
            _ => JsValue::from_str(&r.id),
        };
        js::record(
            &id,
            &name(&r.session_id),
            &name(&r.call_id),
            &name(&r.action),
            &key(r.control.as_str()),
            &key(r.control_source.as_str()),
            &key(r.gate.as_str()),
            &outcome,
            &self.snapshot(&r.args),
            &r.approver.as_ref().map_or(u.clone(), approver_js),
            &r.reason.as_deref().map_or(u, JsValue::from_str),
            r.started_at,
            r.settled_at,
        )
    }

    pub(crate) fn emit(&self, kind: EventKind, payload: &JsValue) {
        let listeners: Vec<Function> = self
            .subscribers
            .read()
            .iter()
            .filter(|s| s.kind == kind)
            .map(|s| s.callback.clone())
            .collect();
        for f in listeners {
            self.call_listener(&f, payload);
        }
    }

    fn call_listener(&self, f: &Function, payload: &JsValue) {
        if let Err(e) = f.call1(&JsValue::UNDEFINED, payload) {
            web_sys::console::error_2(&"coworkkit: an event listener threw".into(), &e);
        }
    }
}

/// The console hint for an action that declares no control but reads destructive.
#[inline(never)]
fn nudge(action: &str, control: Control) {
    let message = [
        "coworkkit: action \"",
        action,
        "\" declares no control and its name reads destructive, so it is gated as \"",
        control.as_str(),
        "\". Declare control: \"open\", \"soft\" or \"hard\" to choose explicitly.",
    ]
    .concat();
    web_sys::console::warn_1(&message.into());
}

fn is_thenable(v: &JsValue) -> bool {
    v.is_object() && get(v, "then").is_function()
}

fn approver_js(a: &Approver) -> JsValue {
    let o = Object::new();
    set(&o, "id", a.id.as_str());
    if let Some(role) = &a.role {
        set(&o, "role", role.as_str());
    }
    Object::freeze(&o).into()
}

fn outcome_js(outcome: &Outcome<JsValue>) -> JsValue {
    let u = JsValue::UNDEFINED;
    let error = match &outcome.error {
        Some((code, message)) => js::error(&key(code), message),
        None => u.clone(),
    };
    js::outcome(
        &name(&outcome.call_id),
        &key(outcome.gate.as_str()),
        outcome.ok,
        outcome.result.as_ref().unwrap_or(&u),
        &error,
        outcome.confirm_token.clone(),
        outcome.expires_at,
    )
}

fn read_bool(spec: &JsValue, key: &'static str, default: bool) -> Result<bool, Error> {
    let v = get(spec, key);
    if v.is_undefined() {
        return Ok(default);
    }
    v.as_bool()
        .ok_or_else(|| invalid(&[key, " must be a boolean"]))
}

/// Reads an action spec object into the engine's definition and the web layer's functions.
fn read_spec(spec: &JsValue) -> Result<(ActionDef, JsAction), Error> {
    if !spec.is_object() {
        return Err(Error::InvalidSpec(
            "the action spec must be an object".into(),
        ));
    }
    let name = get(spec, "name")
        .as_string()
        .ok_or_else(|| Error::InvalidSpec("name must be a string".into()))?;
    let description = get(spec, "description")
        .as_string()
        .ok_or_else(|| invalid(&[&name, ": description must be a non-empty string"]))?;
    let control = parse_control(&get(spec, "control"), "control")?;
    let (schema, input) = read_input(spec, &name)?;
    let fn_of = |key: &'static str| -> Result<Option<Function>, Error> {
        let v = get(spec, key);
        if v.is_undefined() {
            return Ok(None);
        }
        v.dyn_into::<Function>()
            .map(Some)
            .map_err(|_| invalid(&[&name, ": ", key, " must be a function"]))
    };
    let run = fn_of("run")?;
    let summary = fn_of("confirmationSummary")?;
    let element = read_element_spec(spec, &name, run.is_some())?;
    let schema = match (schema, &element) {
        (None, Some(target)) => target.default_schema(),
        (schema, _) => schema,
    };
    if run.is_none() && element.is_none() {
        return Err(invalid(&[&name, ": run must be a function"]));
    }
    let approvers = match get(spec, "approvers") {
        v if v.is_undefined() => None,
        v if Array::is_array(&v) => {
            let list: Vec<String> = Array::from(&v)
                .iter()
                .filter_map(|r| r.as_string())
                .collect();
            if list.len() != Array::from(&v).length() as usize || list.is_empty() {
                return Err(invalid(&[
                    &name,
                    ": approvers must be a non-empty array of role strings",
                ]));
            }
            Some(list)
        }
        _ => {
            return Err(invalid(&[
                &name,
                ": approvers must be an array of role strings",
            ]))
        }
    };
    let def = ActionDef {
        name: name.clone(),
        description: description.clone(),
        control,
        schema,
        approvers,
        element: element.is_some(),
        share_result: read_bool(spec, "shareResult", true)?,
        record_result: read_bool(spec, "recordResult", true)?,
        read_only: read_bool(spec, "readOnly", false)?,
        idempotent: read_bool(spec, "idempotent", false)?,
    };
    Ok((
        def,
        JsAction {
            run,
            summary,
            description,
            element,
            input,
        },
    ))
}
