//! One `Coworkkit` instance: the call [`Engine`] and the parts that serve it, and the only
//! code that holds them all. The parts each have one job and never take the instance back:
//! the action [`registry`](super::registry), the [`events`](super::events) bus, the
//! [`answers`](super::answers) owed to `invoke` callers, the card, Hand mode's UI, the Watch
//! panels and the WebMCP exposures (these two get callbacks made here).
//!
//! This file: building and disposing the instance, the three doors a call comes in by (each
//! reads its input once and goes through [`request::prepare`]), defining actions, Hand mode,
//! and the handles handed to JavaScript. [`perform`] is the loop that carries out what the
//! engine asks for; [`passkey`] the passkey check of a call and its card's prompt.
//! engine asks for; [`grants`] the remembered grants of SPEC §12.
//!
//! Re-entrancy: `run`, record sinks, listeners and a Standard Schema's `validate` are app or
//! library code and may call back into the instance (even `invoke` or `dispose`). So effects
//! are performed one at a time and no `RefCell` borrow is held while JavaScript runs.

mod grants;
mod passkey;
mod perform;

use std::cell::{Cell, Ref, RefCell, RefMut};
use std::rc::{Rc, Weak};

use gloo_timers::callback::Timeout;
use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{future_to_promise, JsFuture};
use web_sys::{AbortController, Element};

use super::answers::Answers;
use super::card::CardLayer;
use super::events::{EventBus, EventKind};
use super::hand::{page_hidden, user_activation_active, HandInput, HandMode};
use super::js;
use super::listener::EventListener;
use super::manifest;
use super::objects::{outcome_js, read_approver};
use super::passkey::{ArrivalCheck, OpenPrompt};
use super::read::{read_call, read_tool_call, read_value};
use super::registry::ActionRegistry;
use super::request::{prepare, Arrival, Prepared};
use super::spec::{read_spec, read_tool_call_options, Options};
use super::standard::{self, Check};
use super::time::now;
use super::watch::WatchPanels;
use super::webmcp::{Execute, ModelContexts, Tool};
use crate::core::control::Control;
use crate::core::engine::{ActionId, CancelReason, Engine, Entropy, InvokeRequest};
use crate::core::error::{summary_unseen, Error};
use crate::core::ids::random_id;
use crate::core::record::{Approver, Gate, Outcome};
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

/// Something handed to JavaScript that its handle's `dispose()` (or an unsubscribe function)
/// releases. Each release is idempotent.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Handle {
    /// A registered action (`defineAction`, `useAction`).
    Action(ActionId),
    /// An event listener (`on`).
    Subscription(u32),
    /// A Hand mode switch (`mountHandModeSwitch`).
    Switch(u32),
    /// A Watch panel (`mountWatchPanel`).
    Panel(u32),
    /// A WebMCP exposure (`exposeToModelContext`).
    Exposure(u32),
}

/// One JS function per kind of [`Handle`], made once per instance: a handle's `dispose()` is its
/// kind's function bound to the handle's id (`Function.prototype.bind`). Handing out a handle then allocates nothing in wasm memory; a Rust
/// closure per handle would stay there until JavaScript happened to collect the handle (10,000
/// `useAction` calls in a loop grew the memory by 850 KB for good).
struct HandleFunctions {
    action: Function,
    subscription: Function,
    switch: Function,
    panel: Function,
    exposure: Function,
}

impl HandleFunctions {
    fn new(me: &Weak<Instance>) -> HandleFunctions {
        let release = |handle: fn(&Instance, f64) -> Option<Handle>| -> Function {
            let weak = me.clone();
            let release = Closure::<dyn Fn(f64)>::new(move |id| {
                if let Some(inst) = weak.upgrade() {
                    if let Some(handle) = handle(&inst, id) {
                        inst.release(handle);
                    }
                }
            });
            release.into_js_value().unchecked_into()
        };
        HandleFunctions {
            action: release(|inst, id| inst.registry.find_raw(id).map(Handle::Action)),
            subscription: release(|_, id| Some(Handle::Subscription(id as u32))),
            switch: release(|_, id| Some(Handle::Switch(id as u32))),
            panel: release(|_, id| Some(Handle::Panel(id as u32))),
            exposure: release(|_, id| Some(Handle::Exposure(id as u32))),
        }
    }
}

/// The state of one instance, shared (weakly) with every closure the browser holds.
pub(crate) struct Instance {
    me: Weak<Instance>,
    engine: RefCell<Engine<JsValue>>,
    options: Options,
    registry: ActionRegistry,
    events: EventBus,
    answers: Answers,
    /// The card's DOM, made when the first hard call needs it. Cloned out of the cell before
    /// any of its methods runs: they run page code (focus moves), which may call back in.
    card: RefCell<Option<Rc<CardLayer>>>,
    /// True while the SDK performs an element action (SPEC §4.2): the events the browser fires
    /// for it, trusted or not, are nobody's gesture (no grant, no Hand mode, no confirm).
    acting: Rc<Cell<bool>>,
    /// The passkey prompt open for the visible card, if any.
    prompt: RefCell<Option<OpenPrompt>>,
    /// `defineAction` has warned that a `verify: "passkey"` action has no `passkey` option.
    warned_no_passkey: Cell<bool>,
    /// The actions warned about a `confirmationSummary` no card shows.
    warned_summary: RefCell<Vec<String>>,
    /// The timer for the engine's next deadline, with that deadline.
    tick: RefCell<Option<(f64, Timeout)>>,
    hand: HandMode,
    watch: WatchPanels,
    model_contexts: ModelContexts,
    abort: AbortController,
    /// `abort.signal`, read once: every `ctx` carries it.
    signal: JsValue,
    /// The session id's JS string, made once: every record carries it.
    session_js: JsValue,
    /// The last call id written to or read from JavaScript, with its JS string: a call's `ctx`,
    /// outcome and record carry the same string, written (or read) once.
    call_id_js: RefCell<(String, JsValue)>,
    page_hide: RefCell<Option<EventListener>>,
    disposed: Cell<bool>,
    /// Itself, while it owes something: a call waits for its answer or a deadline, or a model
    /// context may call its tools. JavaScript may drop `ck` meanwhile (an engine collects a
    /// `const ck` that no later code reads), and the finalizer of the `Coworkkit` wrapper would
    /// then drop the instance, its card and its timers with it.
    held: RefCell<Option<Rc<Instance>>>,
    handles: HandleFunctions,
}

impl Instance {
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
            let on_hand_input = Rc::new(move |input| {
                if let Some(inst) = weak.upgrade() {
                    inst.hand_input(input);
                }
            });
            let weak = me.clone();
            let on_revoke = Closure::<dyn Fn(String)>::new(move |id: String| {
                if let Some(inst) = weak.upgrade() {
                    inst.revoke_grant(&id);
                }
            });
            let weak = me.clone();
            let execute: Execute = Rc::new(move |tool: &Tool, input: JsValue| {
                match weak.upgrade() {
                    Some(inst) => inst.execute(tool, &input),
                    // Collected by JavaScript: answered as a disposed instance would be.
                    None => js::compact(&Promise::resolve(&disposed_outcome()), &tool.name),
                }
            });
            Instance {
                me: me.clone(),
                engine: RefCell::new(engine),
                events: EventBus::new(options.on_record.clone()),
                options,
                registry: ActionRegistry::default(),
                answers: Answers::default(),
                card: RefCell::new(None),
                acting: Rc::new(Cell::new(false)),
                prompt: RefCell::new(None),
                warned_no_passkey: Cell::new(false),
                warned_summary: RefCell::new(Vec::new()),
                tick: RefCell::new(None),
                hand: HandMode::new(on_hand_input),
                watch: WatchPanels::new(on_revoke.into_js_value().unchecked_into()),
                model_contexts: ModelContexts::new(execute),
                signal: abort.signal().into(),
                session_js,
                call_id_js: RefCell::new((String::new(), JsValue::UNDEFINED)),
                abort,
                page_hide: RefCell::new(None),
                disposed: Cell::new(false),
                held: RefCell::new(None),
                handles: HandleFunctions::new(me),
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

    /// The engine, borrowed. No borrow is held while JavaScript runs.
    pub(crate) fn engine(&self) -> Ref<'_, Engine<JsValue>> {
        self.engine.borrow()
    }

    fn engine_mut(&self) -> RefMut<'_, Engine<JsValue>> {
        self.engine.borrow_mut()
    }

    /// A weak reference, for work that finishes later (a microtask, a timer).
    pub(crate) fn weak(&self) -> Weak<Instance> {
        self.me.clone()
    }

    // ---- Actions --------------------------------------------------------------------------

    /// Registers an action; returns its name and its disposer.
    pub(crate) fn define(&self, spec: &JsValue) -> Result<(String, JsValue), JsValue> {
        if self.disposed.get() {
            return Err(Error::Disposed.into());
        }
        let (def, action) = read_spec(spec)?;
        let name = def.name.clone();
        let verified = def.verify.is_some();
        let summarised = action.summary.is_some();
        let id = self.engine_mut().register(def)?;
        self.registry.insert(id, action);
        if summarised {
            self.warn_unseen_summary(&name);
        }
        if verified && self.options.passkey.is_none() && !self.warned_no_passkey.replace(true) {
            let message = format!(
                "coworkkit: action \"{name}\" has verify: \"passkey\", but this instance has no \
                 passkey option, so its calls are rejected (passkey_unavailable). Pass \
                 new Coworkkit({{ passkey: {{ credentials: (approver) => [...] }} }})."
            );
            web_sys::console::warn_1(&message.into());
        }
        self.drain();
        self.model_contexts
            .action_defined(id, &name, &|id| self.webmcp_tool(id));
        Ok((name, self.disposer(Handle::Action(id))))
    }

    /// Warns once per action name and instance when an action with a `confirmationSummary` is
    /// not gated hard: only a hard action's card shows the summary.
    fn warn_unseen_summary(&self, name: &str) {
        let control = match self.engine().action(name) {
            Some((_, _, control, _)) if control != Control::Hard => control,
            _ => return,
        };
        if self.warned_summary.borrow().iter().any(|n| n == name) {
            return;
        }
        self.warned_summary.borrow_mut().push(name.to_owned());
        web_sys::console::warn_1(&summary_unseen(name, control.as_str()).into());
    }

    fn undefine(&self, id: ActionId) {
        if self.registry.remove(id) {
            self.model_contexts.action_disposed(id);
            self.engine_mut().unregister(id, now());
            self.drain();
        }
    }

    /// The manifest of every registered action in `format` (SPEC §7).
    pub(crate) fn tools(&self, format: &JsValue) -> Result<JsValue, Error> {
        manifest::tools(&self.engine(), &self.registry, format)
    }

    fn webmcp_tool(&self, id: ActionId) -> Option<JsValue> {
        manifest::webmcp_tool_js(&self.engine(), &self.registry, id)
    }

    // ---- The three doors ------------------------------------------------------------------

    /// `invoke(call)` (SPEC §3): reads the call in one crossing; resolves with the outcome.
    pub(crate) fn invoke(&self, call: &JsValue) -> Promise {
        let max = self.engine().config().max_args_bytes;
        self.enter(Arrival::invoke(read_call(call, max)))
    }

    /// `handleToolCall(call, options)` (SPEC §7, §14): resolves with the tool-result message in
    /// the call's own shape (AG-UI's when `options` say so). The answer is shaped in JS once the
    /// outcome settles, from the call's own data only: a hard call may wait minutes for a
    /// person, and must not keep the instance alive.
    pub(crate) fn handle_tool_call(
        &self,
        call: &JsValue,
        options: &JsValue,
    ) -> Result<Promise, Error> {
        let ag_ui = read_tool_call_options(options)?;
        let max = self.engine().config().max_args_bytes;
        let call = read_tool_call(call, max, ag_ui);
        let (shape, id, name) = (call.kind, call.id.clone(), call.name.clone());
        let outcome = self.enter(Arrival::tool_call(call));
        Ok(js::answer(&outcome, shape, id, &name))
    }

    /// A WebMCP tool's `execute(input)` (SPEC §7.2): resolves with the compact outcome. A tool
    /// withdrawn from its model context fires nothing: its call is refused as unknown.
    fn execute(&self, tool: &Tool, input: &JsValue) -> Promise {
        let max = self.engine().config().max_args_bytes;
        let input = if input.is_undefined() || input.is_null() {
            Ok(Value::Object(Vec::new()))
        } else {
            read_value(input, max)
        };
        let mut arrival = Arrival::webmcp(&tool.name, input);
        if tool.withdrawn() {
            arrival.refused = Some(Error::UnknownAction(tool.name.clone()));
        }
        let outcome = self.enter(arrival);
        js::compact(&outcome, &tool.name)
    }

    /// Where every door's call goes: the shared rules ([`prepare`], with the action's name
    /// looked up once), then the action's Standard Schema (an async `validate` is awaited), then,
    /// for a `verify: "passkey"` action, whether a passkey can confirm it here (the app's
    /// credential ids may be a promise), then the engine.
    fn enter(&self, arrival: Arrival) -> Promise {
        let (action, hand_mode) = {
            let engine = self.engine();
            let action = engine
                .action(&arrival.name)
                .map(|(id, def, control, _)| (id, control, def.verify.is_some()));
            (action, engine.hand_mode())
        };
        let needs_passkey = action.is_some_and(|(.., verified)| verified) && !self.disposed.get();
        let action = action.map(|(id, control, _)| (id, control));
        let Prepared {
            mut request,
            call_id_js,
            standard,
        } = prepare(arrival, action, hand_mode, &self.registry);
        if let (Some(id), Some(js)) = (&request.call_id, call_id_js) {
            *self.call_id_js.borrow_mut() = (id.clone(), js);
        }
        let mut validation = None;
        if let (Some(schema), Ok(args)) = (standard, &request.args) {
            match standard::check(&schema, args) {
                Check::Pass => {}
                Check::Fail(error) => request.host_rejection = Some(error),
                Check::Later(later) => validation = Some(later),
            }
        }
        let passkey_check = move |request: &InvokeRequest<JsValue>| {
            needs_passkey && request.host_rejection.is_none()
        };
        let mut ids = None;
        if validation.is_none() && passkey_check(&request) {
            match self.passkey_on_arrival() {
                ArrivalCheck::Refused(error) => request.host_rejection = Some(error),
                ArrivalCheck::Later(later) => ids = Some(later),
            }
        }
        if validation.is_none() && ids.is_none() {
            return self.submit(request);
        }
        // Held strongly while the library or the app decides: the call must be answered.
        let Some(inst) = self.me.upgrade() else {
            return Promise::resolve(&disposed_outcome());
        };
        future_to_promise(async move {
            if let Some(validation) = validation {
                request.host_rejection = match JsFuture::from(validation).await {
                    Ok(result) => standard::verdict(&result),
                    Err(thrown) => Some(standard::thrown_error(&thrown)),
                };
                if passkey_check(&request) {
                    match inst.passkey_on_arrival() {
                        ArrivalCheck::Refused(error) => request.host_rejection = Some(error),
                        ArrivalCheck::Later(later) => ids = Some(later),
                    }
                }
            }
            if let Some(ids) = ids {
                request.host_rejection = inst.ids_on_arrival(JsFuture::from(ids).await);
            }
            JsFuture::from(inst.submit(request)).await
        })
    }

    /// Hands the call to the engine and drains what it asks for; the promise of its outcome.
    fn submit(&self, request: InvokeRequest<JsValue>) -> Promise {
        let ticket = self.engine_mut().invoke(request, now());
        self.drain();
        let promise = self.answers.promise_for(ticket);
        // An answer that is still to come is owed: see `held`.
        self.hold_while_owing();
        promise
    }

    /// The JS string of a call id: the one last written or read when it is this id, else
    /// written now (and remembered).
    fn call_id_js(&self, id: &str) -> JsValue {
        let mut memo = self.call_id_js.borrow_mut();
        if memo.0 != id {
            *memo = (id.to_owned(), js::ascii(id));
        }
        memo.1.clone()
    }

    // ---- Proposals ------------------------------------------------------------------------

    /// Cancels a waiting proposal by id, with the person's `reason` if the app relays one;
    /// `true` when it was waiting (the app may always cancel, never confirm).
    pub(crate) fn cancel(&self, id: &str, reason: Option<String>) -> bool {
        let Some(proposal) = self.engine().proposal_by_str(id) else {
            return false;
        };
        let done =
            self.engine_mut()
                .cancel_saying(proposal, CancelReason::App, reason.as_deref(), now());
        self.drain();
        done
    }

    /// Cancels every waiting card (of the action named `action`, or all), each with `reason`;
    /// how many it cancelled.
    pub(crate) fn cancel_all(&self, action: Option<String>, reason: Option<String>) -> usize {
        let n = self.engine_mut().cancel_all(
            action.as_deref(),
            CancelReason::App,
            reason.as_deref(),
            now(),
        );
        self.drain();
        n
    }

    // ---- Hand mode ------------------------------------------------------------------------

    /// Arms Hand mode: only during transient user activation in a visible page, not while the
    /// SDK performs an element action, never after `dispose()`.
    pub(crate) fn arm_hand_mode(&self) -> Result<(), Error> {
        if self.disposed.get() {
            return Err(Error::Disposed);
        }
        if !user_activation_active() || page_hidden() || self.acting.get() {
            return Err(Error::NeedsUserActivation);
        }
        self.set_hand_mode(true);
        Ok(())
    }

    /// Sets Hand mode, shows it, and emits `handmode` on a change.
    pub(crate) fn set_hand_mode(&self, armed: bool) {
        if self.engine().hand_mode() == armed {
            return;
        }
        self.engine_mut().set_hand_mode(armed);
        let parent = if armed { self.sdk_parent(None) } else { None };
        self.hand.show(armed, parent);
        self.events
            .emit(EventKind::HandMode, &JsValue::from_bool(armed));
    }

    /// What Hand mode's UI heard.
    fn hand_input(&self, input: HandInput) {
        match input {
            HandInput::Stop => self.set_hand_mode(false),
            HandInput::Switch { trusted } => {
                if self.engine().hand_mode() {
                    self.set_hand_mode(false);
                } else if trusted {
                    let _ = self.arm_hand_mode();
                }
            }
            HandInput::VisibilityChange => {
                if page_hidden() {
                    self.set_hand_mode(false);
                }
            }
        }
    }

    /// Draws a Hand mode switch into `element` (default: the SDK's parent); its disposer.
    pub(crate) fn mount_switch(&self, element: Option<Element>) -> Result<JsValue, JsValue> {
        if self.disposed.get() {
            return Err(Error::Disposed.into());
        }
        let parent = self
            .sdk_parent(element)
            .ok_or_else(|| JsValue::from_str("coworkkit: no element to mount the switch in"))?;
        let armed = self.engine().hand_mode();
        let id = self.hand.mount_switch(&parent, armed)?;
        Ok(self.disposer(Handle::Switch(id)))
    }

    // ---- Watch, WebMCP, events ------------------------------------------------------------

    /// Draws a Watch panel into `element` (default: the SDK's parent); its disposer and its
    /// `jsonLines()`.
    pub(crate) fn mount_panel(
        &self,
        element: Option<Element>,
    ) -> Result<(JsValue, JsValue), JsValue> {
        if self.disposed.get() {
            return Err(Error::Disposed.into());
        }
        let parent = self
            .sdk_parent(element)
            .ok_or_else(|| JsValue::from_str("coworkkit: no element to mount the panel in"))?;
        let (id, json_lines) = self.watch.mount(&parent)?;
        self.show_grants();
        Ok((self.disposer(Handle::Panel(id)), json_lines.into()))
    }

    /// Hands the actions to the page's model context (SPEC §7.2); the exposure's `ready` and
    /// its disposer.
    pub(crate) fn expose(&self, options: &JsValue) -> Result<(Promise, JsValue), Error> {
        if self.disposed.get() {
            return Err(Error::Disposed);
        }
        let actions: Vec<(ActionId, String)> = self
            .engine()
            .actions()
            .map(|(id, def, ..)| (id, def.name.clone()))
            .collect();
        let (id, ready) = self
            .model_contexts
            .expose(options, &actions, &|id| self.webmcp_tool(id))?;
        // The browser's agent may call the tools whenever: see `held`.
        self.hold_while_owing();
        Ok((ready, self.disposer(Handle::Exposure(id))))
    }

    /// Subscribes `listener` to `kind`; its unsubscribe function.
    pub(crate) fn subscribe(&self, kind: EventKind, listener: Function) -> (u32, JsValue) {
        let id = self.events.subscribe(kind, listener);
        (id, self.disposer(Handle::Subscription(id)))
    }

    pub(crate) fn is_subscribed(&self, id: u32) -> bool {
        self.events.is_subscribed(id)
    }

    // ---- Handles --------------------------------------------------------------------------

    /// The JS function that releases `handle` (idempotent; see [`HandleFunctions`]). It holds
    /// the instance weakly: a handle kept after the instance is gone releases nothing.
    fn disposer(&self, handle: Handle) -> JsValue {
        let h = &self.handles;
        match handle {
            Handle::Action(id) => bind(&h.action, id.as_u64() as f64),
            Handle::Subscription(id) => bind(&h.subscription, f64::from(id)),
            Handle::Switch(id) => bind(&h.switch, f64::from(id)),
            Handle::Panel(id) => bind(&h.panel, f64::from(id)),
            Handle::Exposure(id) => bind(&h.exposure, f64::from(id)),
        }
    }

    fn release(&self, handle: Handle) {
        match handle {
            Handle::Action(id) => self.undefine(id),
            Handle::Subscription(id) => self.events.unsubscribe(id),
            Handle::Switch(id) => self.hand.unmount_switch(id),
            Handle::Panel(id) => self.watch.unmount(id),
            Handle::Exposure(id) => {
                self.model_contexts.dispose_exposure(id);
                self.hold_while_owing();
            }
        }
    }

    // ---- The end --------------------------------------------------------------------------

    /// Settles everything pending as cancelled (`disposed`), aborts `ctx.signal`, removes the
    /// SDK's DOM. Later calls answer `cancelled` at once.
    pub(crate) fn dispose(&self) {
        if self.disposed.replace(true) {
            return;
        }
        self.abort.abort();
        self.end_prompt(None);
        self.engine_mut().dispose(now());
        self.drain();
        self.page_hide.borrow_mut().take();
        self.tick.borrow_mut().take();
        // Taken out first: closing it returns focus, which runs page code.
        let card = self.card.borrow_mut().take();
        drop(card);
        let was_armed = self.engine().hand_mode();
        self.engine_mut().set_hand_mode(false);
        self.hand.clear();
        if was_armed {
            self.events.emit(EventKind::HandMode, &JsValue::FALSE);
        }
        self.watch.clear();
        self.model_contexts.clear();
        self.hold_while_owing();
    }

    /// Holds the instance while it owes an answer, a deadline or a tool (see `held`); lets go
    /// in a microtask, so the last reference never goes inside one of its own methods.
    fn hold_while_owing(&self) {
        let owing = !self.disposed.get()
            && (self.answers.owed()
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

    /// The card layer, if made: cloned out, so that no borrow is held while it runs page code.
    fn card(&self) -> Option<Rc<CardLayer>> {
        self.card.borrow().clone()
    }

    /// Who is at the keyboard, from the `approver` option; `None` when absent or malformed.
    fn approver(&self) -> Option<Approver> {
        let f = self.options.approver.as_ref()?;
        read_approver(&f.call0(&JsValue::UNDEFINED).ok()?)
    }

    /// Where the SDK's own DOM goes: `element`, else the `container` option, else
    /// `document.body`.
    fn sdk_parent(&self, element: Option<Element>) -> Option<Element> {
        element
            .or_else(|| self.options.container.clone())
            .or_else(|| js::window()?.document()?.body().map(Into::into))
    }
}

/// `f` bound to `id`: `f.bind(null, id)`.
fn bind(f: &Function, id: f64) -> JsValue {
    f.bind1(&JsValue::NULL, &id.into()).into()
}

/// The outcome of a call to an instance that JavaScript has already collected: as for one
/// that was disposed.
fn disposed_outcome() -> JsValue {
    let error = Error::Disposed;
    let outcome = Outcome::<JsValue> {
        call_id: String::new(),
        gate: Gate::Cancelled,
        ok: false,
        result: None,
        error: Some((error.code(), error.message())),
        confirm_token: None,
        expires_at: None,
    };
    outcome_js(&outcome, &JsValue::from_str(""))
}
