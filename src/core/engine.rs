//! The call engine: every rule of SPEC §1 and §3 as a sans-I/O state machine.

use std::collections::{HashMap, VecDeque};
use std::rc::Rc;

use super::control::{resolve_control, Control, ControlSource};
use super::error::Error;
use super::ids::{random_id, IdHasher, CALL_ID_PREFIX};
pub use super::ids::{ActionId, CallRef, Entropy, ProposalId, Ticket};
use super::record::{ActionRecord, Approver, Gate, Outcome, RecordOutcome, Via};
use super::schema::Schema;
use super::value::{Value, MAX_DEPTH};

/// How many settled calls are remembered for idempotency (SPEC §3.2).
pub const REMEMBERED_CALLS: usize = 1024;

/// Soft calls that may wait for their token at once; more are `too_many_pending`. (`maxPending`
/// bounds hard proposals; this bounds the memory an agent can pin with first soft calls.)
pub const MAX_SOFT_WAITING: usize = 1024;

/// Extra `callId`s (from confirming calls or token replays) kept per call; more still get the
/// outcome but are not remembered.
const MAX_ALIASES: usize = 8;

/// The instance options the engine needs.
#[derive(Clone, Debug)]
pub struct Config {
    /// Level of actions that declare none and whose name does not read destructive.
    pub default_control: Control,
    /// Lifetime of hard cards and soft tokens, in ms.
    pub confirm_timeout_ms: f64,
    /// Hard proposals that may wait at once.
    pub max_pending: usize,
    /// Largest accepted args, in UTF-8 bytes of JSON.
    pub max_args_bytes: usize,
    /// How a number in a message prints (a schema's bound: `must be at most 0.5`). The web
    /// layer passes the browser's own `String(n)`, so the wasm carries no float printing; the
    /// default is Rust's `Display`, which agrees with it for the numbers schemas hold.
    pub number_text: fn(f64) -> String,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            default_control: Control::Open,
            confirm_timeout_ms: 120_000.0,
            max_pending: 16,
            max_args_bytes: 65_536,
            number_text: |n| n.to_string(),
        }
    }
}

/// An action as the engine sees it (the web layer keeps `run`, the element and the summary).
#[derive(Clone, Debug)]
pub struct ActionDef {
    /// 1–64 chars, `^[A-Za-z][A-Za-z0-9_-]*$`.
    pub name: String,
    /// What the agent reads; non-empty.
    pub description: String,
    /// The declared level, if any.
    pub control: Option<Control>,
    /// The parsed JSON Schema subset, if the action has one.
    pub schema: Option<Schema>,
    /// Roles that may confirm its hard card (`None`: anyone). Ignored unless the level is hard.
    pub approvers: Option<Vec<String>>,
    /// An element action: it needs Hand mode.
    pub element: bool,
    /// `shareResult`: the agent's outcome carries the result.
    pub share_result: bool,
    /// `recordResult`: the record carries the result.
    pub record_result: bool,
    /// Manifest hint.
    pub read_only: bool,
    /// Manifest hint.
    pub idempotent: bool,
    /// Manifest hint (WebMCP `untrustedContentHint`): results carry text other people wrote.
    pub untrusted_content: bool,
}

impl ActionDef {
    /// A plain action with the SPEC's defaults (no level, no schema, results shared and
    /// recorded).
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        ActionDef {
            name: name.into(),
            description: description.into(),
            control: None,
            schema: None,
            approvers: None,
            element: false,
            share_result: true,
            record_result: true,
            read_only: false,
            idempotent: false,
            untrusted_content: false,
        }
    }
}

/// A waiting hard proposal, as `pending()` and the `proposal` event show it.
#[derive(Clone, Debug, PartialEq)]
pub struct ProposalInfo<R> {
    /// The proposal.
    pub id: ProposalId,
    /// The call's `callId`.
    pub call_id: String,
    /// Action name.
    pub action: String,
    /// Always [`Control::Hard`] today.
    pub control: Control,
    /// The argument snapshot.
    pub args: Rc<Value>,
    /// The host's own copy of the snapshot, as it handed it in.
    pub snapshot: Option<R>,
    /// Absolute expiry, epoch ms.
    pub expires_at: f64,
}

/// One `invoke` as the host read it.
#[derive(Clone, Debug)]
pub struct InvokeRequest<R> {
    /// Action name.
    pub name: String,
    /// The args, or why the host could not read them as plain JSON (function, cycle, NaN…).
    pub args: Result<Rc<Value>, Error>,
    /// The host's own copy of the args (in the browser, the frozen JS object that `run`, the
    /// card's summary, events and the record all receive). The engine keeps it with the call
    /// and hands it back with every effect that carries the args, so the host needs no table
    /// of its own; a request that does not become a call (a re-send, a confirming call)
    /// simply drops it.
    pub snapshot: Option<R>,
    /// The agent's `callId`; generated (`ck_` + 32 hex digits) when absent.
    pub call_id: Option<String>,
    /// The host's own copy of `call_id` (in the browser, its JS string), handed back with every
    /// effect that carries the id, so the host never writes it out again.
    pub host_call_id: Option<R>,
    /// The door it came through.
    pub via: Via,
    /// A soft token from an earlier `needs_confirmation`.
    pub confirm_token: Option<String>,
    /// With the token: the user said no.
    pub decline: bool,
    /// A reason the host found to reject (`element_unavailable`, a Standard Schema failure as
    /// `InvalidArgs`); applied after the unknown-action check, the idempotency lookup and the
    /// Hand-mode gate, so a re-sent settled call still gets its outcome.
    pub host_rejection: Option<Error>,
}

impl<R> InvokeRequest<R> {
    /// A first call: name and args, nothing else.
    pub fn new(name: impl Into<String>, args: Value) -> Self {
        InvokeRequest {
            name: name.into(),
            args: Ok(Rc::new(args)),
            snapshot: None,
            via: Via::Invoke,
            host_call_id: None,
            call_id: None,
            confirm_token: None,
            decline: false,
            host_rejection: None,
        }
    }
}

/// Why a waiting call was cancelled; its `as_str` is the record's `reason`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CancelReason {
    /// The card's Cancel button or Escape: `cancelled_by_user`.
    User,
    /// `ck.cancel(id)`: `cancelled_by_app`.
    App,
    /// The action was unregistered: `action_disposed`.
    ActionDisposed,
    /// The instance was disposed or the page left: `disposed`.
    Disposed,
}

impl CancelReason {
    /// The record's `reason`.
    pub fn as_str(self) -> &'static str {
        match self {
            CancelReason::User => "cancelled_by_user",
            CancelReason::App => "cancelled_by_app",
            CancelReason::ActionDisposed => "action_disposed",
            CancelReason::Disposed => "disposed",
        }
    }

    fn message(self) -> &'static str {
        match self {
            CancelReason::User => "the user cancelled this call",
            CancelReason::App => "the app cancelled this call",
            CancelReason::ActionDisposed => {
                "the action was unregistered before the call was confirmed"
            }
            CancelReason::Disposed => "this coworkkit instance was disposed",
        }
    }
}

/// What the host must do next, drained with [`Engine::poll_effect`] in order.
#[derive(Clone, Debug)]
pub enum Effect<R> {
    /// Resolve that `invoke()`'s promise with this outcome.
    Answer {
        /// The invoke being answered.
        ticket: Ticket,
        /// Its outcome (shared with the call's memory and its other answers).
        outcome: Rc<Outcome<R>>,
    },
    /// Call the action's `run` (or perform the element operation), then report back with
    /// [`Engine::run_finished`]. Emitted at most once per call.
    Run {
        /// The call, for `run_finished`.
        call: CallRef,
        /// The registration to run.
        action: ActionId,
        /// The original `callId` (`ctx.callId`).
        call_id: String,
        /// The host's copy of it.
        host_call_id: Option<R>,
        /// Effective level (`ctx.control`).
        control: Control,
        /// The frozen snapshot.
        args: Rc<Value>,
        /// The host's copy of it.
        snapshot: Option<R>,
        /// Who confirmed (`ctx.approver`), for hard calls.
        approver: Option<Approver>,
    },
    /// Draw this proposal's card; it is now the visible one (position 1).
    ShowCard {
        /// The proposal.
        proposal: ProposalId,
        /// Its action (for `confirmationSummary`).
        action: ActionId,
        /// Action name.
        name: String,
        /// The snapshot.
        args: Rc<Value>,
        /// The host's copy of it.
        snapshot: Option<R>,
        /// Absolute expiry, for the countdown.
        expires_at: f64,
        /// Roles that may confirm (`None`: anyone).
        approvers: Option<Vec<String>>,
        /// Always 1.
        position: usize,
        /// How many proposals wait, this one included.
        total: usize,
    },
    /// The visible card's "1 of N" changed (only the visible card gets these).
    UpdateCard {
        /// The visible proposal.
        proposal: ProposalId,
        /// Always 1.
        position: usize,
        /// How many proposals wait.
        total: usize,
    },
    /// Remove this card; it was claimed, cancelled or expired.
    CloseCard {
        /// The proposal whose card goes.
        proposal: ProposalId,
    },
    /// A hard proposal was created (the `proposal` event).
    Proposal(ProposalInfo<R>),
    /// A hard proposal settled (the `resolved` event).
    Resolved {
        /// The proposal.
        proposal: ProposalId,
        /// Action name.
        action: String,
        /// The terminal outcome (its `call_id` is the call's original `callId`).
        outcome: Rc<Outcome<R>>,
    },
    /// Deliver this record (`onActionRecord`, `record` event).
    Record(ActionRecord<R>),
    /// Dev warning: this action's name reads destructive, so its level was raised.
    /// Once per action name per engine.
    Nudge {
        /// Action name.
        action: String,
        /// The level it got.
        control: Control,
    },
}

/// A map from ids the agent chooses (`callId`s, tokens) to calls.
type IdMap = HashMap<String, Known, IdHasher>;

struct Entry {
    id: ActionId,
    def: ActionDef,
    control: Control,
    source: ControlSource,
}

enum CallState {
    /// A soft call waiting for its token (which is also kept in `Call::token`).
    SoftWaiting { expires_at: f64 },
    /// A hard call whose card waits in `queue`.
    HardPending { expires_at: f64 },
    /// `Run` was emitted; waiting for `run_finished`.
    Running {
        gate: Gate,
        approver: Option<Approver>,
    },
}

struct Call<R> {
    call_ref: CallRef,
    call_id: String,
    host_call_id: Option<R>,
    aliases: Vec<String>,
    action: ActionId,
    name: String,
    control: Control,
    source: ControlSource,
    args: Rc<Value>,
    snapshot: Option<R>,
    via: Via,
    started_at: f64,
    share_result: bool,
    record_result: bool,
    element: bool,
    token: Option<String>,
    proposal: Option<ProposalId>,
    state: CallState,
    waiters: Waiters,
}

/// The tickets waiting for a call's outcome, in arrival order. Nearly every call has one, its
/// own: it is kept inline, so that a call allocates nothing for it.
#[derive(Default)]
struct Waiters {
    first: Option<Ticket>,
    more: Vec<Ticket>,
}

impl Waiters {
    fn push(&mut self, ticket: Ticket) {
        match self.first {
            None => self.first = Some(ticket),
            Some(_) => self.more.push(ticket),
        }
    }

    fn iter(&self) -> impl Iterator<Item = &Ticket> {
        self.first.iter().chain(&self.more)
    }
}

impl<R> Call<R> {
    /// When a waiting call expires; `None` once it runs.
    fn deadline(&self) -> Option<f64> {
        match self.state {
            CallState::SoftWaiting { expires_at } | CallState::HardPending { expires_at } => {
                Some(expires_at)
            }
            CallState::Running { .. } => None,
        }
    }
}

/// Where a `callId`, alias or token points: a live call, or a remembered one by its settle
/// sequence number (see [`Engine::memory`]).
#[derive(Clone, Copy, PartialEq)]
enum Known {
    Live(CallRef),
    Settled(u64),
}

/// A settled call, kept for idempotency. Its `callId` is its outcome's.
struct Remembered<R> {
    aliases: Vec<String>,
    token: Option<String>,
    name: String,
    args: Rc<Value>,
    outcome: Rc<Outcome<R>>,
}

impl<R> Remembered<R> {
    /// Its `callId` and aliases: what the map of call ids has of it (its token is in the map
    /// of tokens).
    fn ids(&self) -> impl Iterator<Item = &String> {
        std::iter::once(&self.outcome.call_id).chain(&self.aliases)
    }
}

/// How a call ended.
enum End<R> {
    Ran(Result<R, Error>),
    NotRun {
        gate: Gate,
        reason: &'static str,
        message: String,
        approver: Option<Approver>,
    },
}

/// A request refused on arrival: answered and recorded at once, never remembered.
struct Refusal<R> {
    ticket: Ticket,
    name: String,
    call_id: Option<String>,
    host_call_id: Option<R>,
    control: Control,
    source: ControlSource,
    args: Rc<Value>,
    snapshot: Option<R>,
    via: Via,
}

/// The call engine of one coworkkit instance: every gate, token, proposal and record rule,
/// without I/O. Time and randomness come in as values, so every race is a host test.
///
/// Its methods come in four kinds (the reading guide of quinn-proto's `Connection`):
///
/// - **Getters** on `&self` ([`session_id`](Self::session_id), [`action`](Self::action),
///   [`actions`](Self::actions), [`pending`](Self::pending), [`may_confirm`](Self::may_confirm),
///   [`proposal_by_str`](Self::proposal_by_str), [`hand_mode`](Self::hand_mode)) answer
///   questions and change nothing.
/// - **Inputs from outside**, which the host reports as they happen: [`confirm`](Self::confirm)
///   (a trusted click on Confirm arrived; the web layer decides trust),
///   [`cancel`](Self::cancel), [`run_finished`](Self::run_finished) (a `run` the engine asked for
///   ended), [`set_hand_mode`](Self::set_hand_mode) and [`tick`](Self::tick) (time passed).
/// - **Commands from the application**: [`register`](Self::register),
///   [`unregister`](Self::unregister), [`invoke`](Self::invoke) (the agent's door; it never
///   fails, its answer comes as an effect) and [`dispose`](Self::dispose).
/// - **`poll_*`** for what the caller must do next: drain [`poll_effect`](Self::poll_effect)
///   after every input or command (show a card, call `run`, resolve a promise, deliver a
///   record), and arm one timer for [`poll_timeout`](Self::poll_timeout), calling `tick` when it
///   fires.
///
/// Every input that carries `now` first expires what is due, so the result never depends on
/// whether the host's timer fired on time. `R` is whatever the host's `run` returns: the
/// engine only stores and hands it back, so the web layer chooses its own representation.
pub struct Engine<R: Clone> {
    config: Config,
    /// Shared with every record.
    session_id: Rc<str>,
    entropy: Box<dyn Entropy>,
    actions: Vec<Entry>,
    nudged: Vec<String>,
    next_id: u64,
    next_record: u64,
    /// Calls not yet settled, in `CallRef` (creation) order, so lookups are a binary search
    /// and every walk over them (expiry, cancellation) goes oldest first. Boxed: removing one
    /// moves pointers, not calls.
    #[allow(clippy::vec_box)]
    live: Vec<Box<Call<R>>>,
    /// Hard proposals in FIFO order; the front one is the visible card.
    queue: VecDeque<CallRef>,
    soft_waiting: usize,
    /// The last settled calls, oldest first; the one with settle sequence number `s` sits at
    /// `s - remembered_base`.
    remembered: VecDeque<Remembered<R>>,
    remembered_base: u64,
    /// Every `callId` and alias of live and remembered calls.
    call_ids: IdMap,
    /// Outstanding and used soft tokens of live and remembered calls.
    tokens: IdMap,
    hand_mode: bool,
    disposed: bool,
    effects: VecDeque<Effect<R>>,
    /// The args of a request refused before its args are known: shared, so that no call
    /// allocates one.
    no_args: Rc<Value>,
}

impl<R: Clone> Engine<R> {
    /// A fresh engine for one session.
    pub fn new(config: Config, session_id: String, mut entropy: Box<dyn Entropy>) -> Self {
        let hasher = IdHasher::from_entropy(entropy.as_mut());
        Engine {
            config,
            session_id: session_id.into(),
            entropy,
            actions: Vec::new(),
            nudged: Vec::new(),
            next_id: 1,
            next_record: 1,
            live: Vec::new(),
            queue: VecDeque::new(),
            soft_waiting: 0,
            // Reserved up front so that wasm memory reaches its working size at once rather
            // than stepping up as the memory of settled calls first fills (SPEC §9).
            remembered: VecDeque::with_capacity(REMEMBERED_CALLS + 1),
            remembered_base: 0,
            call_ids: IdMap::with_capacity_and_hasher(2 * REMEMBERED_CALLS, hasher),
            tokens: IdMap::with_hasher(hasher),
            hand_mode: false,
            disposed: false,
            effects: VecDeque::new(),
            no_args: Rc::new(Value::Null),
        }
    }

    // ---- getters ----------------------------------------------------------------------

    /// The session id every record carries.
    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    /// The options.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The live registration of `name`: its id, definition, effective level and why.
    pub fn action(&self, name: &str) -> Option<(ActionId, &ActionDef, Control, ControlSource)> {
        self.actions
            .iter()
            .find(|e| e.def.name == name)
            .map(|e| (e.id, &e.def, e.control, e.source))
    }

    /// The live registration with this id.
    pub fn action_by_id(
        &self,
        id: ActionId,
    ) -> Option<(ActionId, &ActionDef, Control, ControlSource)> {
        self.entry(id).map(|e| (e.id, &e.def, e.control, e.source))
    }

    /// Every live registration, in registration order (for manifests).
    pub fn actions(
        &self,
    ) -> impl Iterator<Item = (ActionId, &ActionDef, Control, ControlSource)> + '_ {
        self.actions
            .iter()
            .map(|e| (e.id, &e.def, e.control, e.source))
    }

    /// Hard proposals waiting: the visible one first, then the queue in order.
    pub fn pending(&self) -> Vec<ProposalInfo<R>> {
        self.queue
            .iter()
            .filter_map(|c| self.live(*c).and_then(|call| self.info(call)))
            .collect()
    }

    /// The waiting proposal whose string form is `s`.
    pub fn proposal_by_str(&self, s: &str) -> Option<ProposalId> {
        let id = ProposalId::parse(s)?;
        self.queue_index(id).map(|_| id)
    }

    /// Could someone with `role` confirm this proposal now? (It must be the visible card and
    /// the role must be listed in the action's `approvers`, if it has any.)
    pub fn may_confirm(&self, proposal: ProposalId, role: Option<&str>) -> bool {
        !self.disposed
            && self.queue_index(proposal) == Some(0)
            && self
                .live(self.queue[0])
                .is_some_and(|call| self.role_allowed(call.action, role))
    }

    /// The random bits of a fresh call id (`CALL_ID_PREFIX` and these 16 bytes in hex, see
    /// [`hex_id`](super::ids::hex_id)): for a host that names a call before it hands it in,
    /// so that it can write the id's text its own way. The engine draws its ids the same way.
    pub fn draw_call_id(&mut self) -> [u8; 16] {
        let mut bytes = [0u8; 16];
        self.entropy.fill(&mut bytes);
        bytes
    }

    /// Is Hand mode armed?
    pub fn hand_mode(&self) -> bool {
        self.hand_mode
    }

    /// Was [`dispose`](Self::dispose) called?
    pub fn is_disposed(&self) -> bool {
        self.disposed
    }

    // ---- commands from the application ----------------------------------------------------

    /// Registers an action. Its name must match `^[A-Za-z][A-Za-z0-9_-]*$` (1–64 chars) and
    /// its description must not be blank, else [`Error::InvalidSpec`]; a live action with the
    /// same name is [`Error::DuplicateAction`]. A name that reads destructive without a declared
    /// level queues one [`Effect::Nudge`] (once per name per engine).
    pub fn register(&mut self, def: ActionDef) -> Result<ActionId, Error> {
        if self.disposed {
            return Err(Error::Disposed);
        }
        if !valid_name(&def.name) {
            return Err(Error::InvalidSpec(
                "name must be 1–64 characters matching ^[A-Za-z][A-Za-z0-9_-]*$".into(),
            ));
        }
        if def.description.trim().is_empty() {
            return Err(Error::InvalidSpec("description must not be empty".into()));
        }
        if def.approvers.as_ref().is_some_and(Vec::is_empty) {
            return Err(Error::InvalidSpec(
                "approvers must list at least one role (omit it to let anyone confirm)".into(),
            ));
        }
        if self.actions.iter().any(|e| e.def.name == def.name) {
            return Err(Error::DuplicateAction(def.name));
        }
        let (control, source) =
            resolve_control(def.control, &def.name, self.config.default_control);
        if source == ControlSource::DestructiveName && !self.nudged.contains(&def.name) {
            self.nudged.push(def.name.clone());
            self.effects.push_back(Effect::Nudge {
                action: def.name.clone(),
                control,
            });
        }
        let id = ActionId(self.next());
        self.actions.push(Entry {
            id,
            def,
            control,
            source,
        });
        Ok(id)
    }

    /// Unregisters an action and cancels its waiting calls (hard proposals and soft calls
    /// holding a token) with reason `action_disposed`. Running calls still finish. An unknown
    /// or stale id does nothing.
    pub fn unregister(&mut self, id: ActionId, now: f64) {
        self.tick(now);
        let Some(index) = self.actions.iter().position(|e| e.id == id) else {
            return;
        };
        self.actions.remove(index);
        self.cancel_waiting(Some(id), CancelReason::ActionDisposed, now);
    }

    /// The agent's door. Never fails: the answer comes as one [`Effect::Answer`] for the
    /// returned ticket — already queued for anything decided at once (rejections, soft
    /// `needs_confirmation`, settled replays), later for calls that run or wait on a card.
    pub fn invoke(&mut self, req: InvokeRequest<R>, now: f64) -> Ticket {
        self.tick(now);
        let ticket = Ticket(self.next());
        self.handle_invoke(ticket, req, now);
        ticket
    }

    /// Settles everything waiting as `cancelled` (reason `disposed`); later invokes are
    /// answered at once the same way (and recorded). Running calls still finish through
    /// [`run_finished`](Self::run_finished).
    pub fn dispose(&mut self, now: f64) {
        if self.disposed {
            return;
        }
        self.tick(now);
        self.cancel_waiting(None, CancelReason::Disposed, now);
        self.disposed = true;
    }

    // ---- inputs from outside --------------------------------------------------------------

    /// A trusted click on the visible card's Confirm arrived (the web layer decides trust).
    /// Claims the call and queues its [`Effect::Run`]; a second confirm finds nothing to claim.
    ///
    /// Errors, with no effect: [`Error::UnknownProposal`] (never existed, settled or claimed),
    /// [`Error::ProposalNotVisible`], [`Error::NotAdmin`] (the approver's role is not in
    /// `approvers`; the proposal stays pending), [`Error::Disposed`]. A hard element action
    /// confirmed while Hand mode is off settles `needs_hand_mode` without running.
    pub fn confirm(
        &mut self,
        proposal: ProposalId,
        approver: Option<Approver>,
        now: f64,
    ) -> Result<(), Error> {
        self.tick(now);
        if self.disposed {
            return Err(Error::Disposed);
        }
        match self.queue_index(proposal) {
            None => return Err(Error::UnknownProposal),
            Some(0) => {}
            Some(_) => return Err(Error::ProposalNotVisible),
        }
        let call_ref = self.queue[0];
        let Some(call) = self.live(call_ref) else {
            return Err(Error::UnknownProposal);
        };
        let role = approver.as_ref().and_then(|a| a.role.as_deref());
        if !self.role_allowed(call.action, role) {
            return Err(Error::NotAdmin);
        }
        if call.element && !self.hand_mode {
            let end = End::NotRun {
                gate: Gate::NeedsHandMode,
                reason: Error::HandModeOff.code(),
                message: Error::HandModeOff.message(),
                approver,
            };
            self.settle(call_ref, end, now);
            return Ok(());
        }
        self.unqueue(call_ref);
        self.start_run(call_ref, Gate::Confirmed, approver);
        Ok(())
    }

    /// Cancels a waiting hard proposal (Cancel, Escape, `ck.cancel`, …). False when it is not
    /// waiting (unknown, claimed, settled).
    pub fn cancel(&mut self, proposal: ProposalId, reason: CancelReason, now: f64) -> bool {
        self.tick(now);
        let Some(index) = self.queue_index(proposal) else {
            return false;
        };
        let call_ref = self.queue[index];
        self.settle(call_ref, cancelled(reason), now);
        true
    }

    /// A `run` asked for by [`Effect::Run`] ended. `Ok` → `ok: true`; `Err(e)` → `ok: false`
    /// with `e`'s code and message (normally [`Error::RunFailed`]); never retried. A call that
    /// is not running is ignored.
    pub fn run_finished(&mut self, call: CallRef, result: Result<R, Error>, now: f64) {
        self.tick(now);
        if matches!(
            self.live(call).map(|c| &c.state),
            Some(CallState::Running { .. })
        ) {
            self.settle(call, End::Ran(result), now);
        }
    }

    /// Hand mode was armed or disarmed (the web layer checks user activation).
    pub fn set_hand_mode(&mut self, armed: bool) {
        self.hand_mode = armed;
    }

    /// Time passed: soft tokens and hard proposals due at or before `now` settle as `timeout`
    /// (reason `expired`), earliest deadline first.
    pub fn tick(&mut self, now: f64) {
        // Settling never adds a deadline and takes the call out of `live`, so each pass finds
        // the next one due until none is.
        while let Some(call_ref) = self.next_due(now) {
            let end = End::NotRun {
                gate: Gate::Timeout,
                reason: "expired",
                message: "nobody confirmed this call before it expired".into(),
                approver: None,
            };
            self.settle(call_ref, end, now);
        }
    }

    // ---- poll -------------------------------------------------------------------------

    /// The next deadline (epoch ms) at which [`tick`](Self::tick) has something to expire.
    pub fn poll_timeout(&self) -> Option<f64> {
        self.live
            .iter()
            .filter_map(|c| c.deadline())
            .min_by(f64::total_cmp)
    }

    /// The next thing the host must do, in order.
    pub fn poll_effect(&mut self) -> Option<Effect<R>> {
        self.effects.pop_front()
    }

    // ---- invoke, step by step -------------------------------------------------------------

    fn handle_invoke(&mut self, ticket: Ticket, req: InvokeRequest<R>, now: f64) {
        let InvokeRequest {
            name,
            args,
            call_id,
            confirm_token,
            decline,
            host_rejection,
            snapshot,
            via,
            host_call_id,
        } = req;
        let entry = self.actions.iter().find(|e| e.def.name == name);
        let (action, control, source) = match entry {
            Some(e) => (Some(e.id), e.control, e.source),
            None => {
                let (control, source) = resolve_control(None, &name, self.config.default_control);
                (None, control, source)
            }
        };
        let mut refusal = Refusal {
            ticket,
            name,
            call_id,
            host_call_id,
            control,
            source,
            args: self.no_args.clone(),
            snapshot: None,
            via,
        };
        let args = match args {
            Ok(args) => args,
            Err(error) => {
                if self.disposed {
                    return self.refuse_disposed(refusal, now);
                }
                return self.refuse(refusal, Gate::Rejected, error, now);
            }
        };
        if self.disposed {
            // A snapshot of harmless size is kept for the record; a huge one is not worth it.
            if args
                .json_len_within(MAX_DEPTH, self.config.number_text)
                .is_some_and(|size| size <= self.config.max_args_bytes)
            {
                refusal.args = args;
                refusal.snapshot = snapshot;
            }
            return self.refuse_disposed(refusal, now);
        }
        let Some(action) = action else {
            let error = Error::UnknownAction(refusal.name.clone());
            return self.refuse(refusal, Gate::Rejected, error, now);
        };
        // Depth and size are measured once, in one walk, on the snapshot everything else sees.
        let Some(size) = args.json_len_within(MAX_DEPTH, self.config.number_text) else {
            let error = Error::InvalidArgs("args: nested too deeply".into());
            return self.refuse(refusal, Gate::Rejected, error, now);
        };
        if size > self.config.max_args_bytes {
            let max = self.config.max_args_bytes;
            return self.refuse(
                refusal,
                Gate::Rejected,
                Error::ArgsTooLarge { size, max },
                now,
            );
        }
        refusal.args = args;
        refusal.snapshot = snapshot;

        if let Some(&known) = refusal
            .call_id
            .as_ref()
            .and_then(|id| self.call_ids.get(id))
        {
            return self.resend(known, refusal, confirm_token, decline, host_rejection, now);
        }
        if let Some(token) = confirm_token {
            return self.redeem(&token, refusal, decline, host_rejection, now);
        }
        if decline {
            return self.refuse(refusal, Gate::Rejected, Error::BadToken, now);
        }

        let entry = self.entry(action).expect("looked up above");
        if entry.def.element && !self.hand_mode {
            return self.refuse(refusal, Gate::NeedsHandMode, Error::HandModeOff, now);
        }
        if let Some(error) = host_rejection {
            return self.refuse(refusal, Gate::Rejected, error, now);
        }
        if let Some(schema) = &entry.def.schema {
            if let Err(error) = schema.validate(&refusal.args, self.config.number_text) {
                return self.refuse(refusal, Gate::Rejected, error, now);
            }
        }
        match control {
            Control::Soft if self.soft_waiting >= MAX_SOFT_WAITING => {
                self.refuse(refusal, Gate::Rejected, Error::TooManyPending, now)
            }
            Control::Hard if self.queue.len() >= self.config.max_pending => {
                self.refuse(refusal, Gate::Rejected, Error::TooManyPending, now)
            }
            _ => self.admit(action, refusal, now),
        }
    }

    /// A new call passed every arrival check: start it according to its level.
    fn admit(&mut self, action: ActionId, req: Refusal<R>, now: f64) {
        let entry = self
            .entry(action)
            .expect("admitted calls have a live action");
        let (share_result, record_result, element) = (
            entry.def.share_result,
            entry.def.record_result,
            entry.def.element,
        );
        let call_id = match req.call_id {
            Some(id) => id,
            None => self.random_id(CALL_ID_PREFIX),
        };
        let call_ref = CallRef(self.next());
        let expires_at = now + self.config.confirm_timeout_ms;
        self.call_ids.insert(call_id.clone(), Known::Live(call_ref));
        let mut call = Box::new(Call {
            call_ref,
            call_id,
            host_call_id: req.host_call_id.clone(),
            aliases: Vec::new(),
            action,
            name: req.name,
            control: req.control,
            source: req.source,
            args: req.args,
            snapshot: req.snapshot,
            via: req.via,
            started_at: now,
            share_result,
            record_result,
            element,
            token: None,
            proposal: None,
            state: CallState::Running {
                gate: Gate::Fired,
                approver: None,
            },
            waiters: Waiters::default(),
        });
        match req.control {
            Control::Open => {
                call.waiters.push(req.ticket);
                self.live.push(call);
                self.start_run(call_ref, Gate::Fired, None);
            }
            Control::Soft => {
                let token = self.random_id("ckt_");
                self.tokens.insert(token.clone(), Known::Live(call_ref));
                call.token = Some(token.clone());
                call.state = CallState::SoftWaiting { expires_at };
                let mut outcome = needs_confirmation(call.call_id.clone(), token, expires_at);
                outcome.host_call_id = req.host_call_id;
                self.live.push(call);
                self.soft_waiting += 1;
                self.answer(req.ticket, Rc::new(outcome));
            }
            Control::Hard => {
                let proposal = ProposalId(self.next());
                call.proposal = Some(proposal);
                call.state = CallState::HardPending { expires_at };
                call.waiters.push(req.ticket);
                let info = self.info(&call).expect("hard pending");
                self.live.push(call);
                self.effects.push_back(Effect::Proposal(info));
                self.queue.push_back(call_ref);
                if self.queue.len() == 1 {
                    self.show_front();
                } else {
                    self.update_front();
                }
            }
        }
    }

    /// The `callId` is known (as an original id or an alias): same args → that call's answer;
    /// other args or action → `call_id_conflict`.
    fn resend(
        &mut self,
        known: Known,
        req: Refusal<R>,
        token: Option<String>,
        decline: bool,
        host_rejection: Option<Error>,
        now: f64,
    ) {
        let hasher = *self.call_ids.hasher();
        let known = match known {
            Known::Settled(seq) => {
                return match self.memory(seq) {
                    Some(m)
                        if m.name == req.name && m.args.canonical_eq_keyed(&req.args, &hasher) =>
                    {
                        let outcome = m.outcome.clone();
                        self.answer(req.ticket, outcome)
                    }
                    _ => self.refuse(req, Gate::Rejected, Error::CallIdConflict, now),
                };
            }
            Known::Live(call_ref) => call_ref,
        };
        let call = match self.live_mut(known) {
            Some(c) if c.name == req.name && c.args.canonical_eq_keyed(&req.args, &hasher) => c,
            _ => return self.refuse(req, Gate::Rejected, Error::CallIdConflict, now),
        };
        match call.state {
            CallState::SoftWaiting { expires_at } => {
                if token.is_some() || decline {
                    // The original call confirming itself: its token, and no other, is valid.
                    if token.is_some() && token == call.token {
                        return self.redeem_live(known, req, decline, host_rejection, now);
                    }
                    return self.refuse(req, Gate::Rejected, Error::BadToken, now);
                }
                let mut outcome = needs_confirmation(
                    call.call_id.clone(),
                    call.token.clone().unwrap_or_default(),
                    expires_at,
                );
                outcome.host_call_id = call.host_call_id.clone();
                self.answer(req.ticket, Rc::new(outcome));
            }
            CallState::HardPending { .. } | CallState::Running { .. } => {
                call.waiters.push(req.ticket)
            }
        }
    }

    /// A confirm token arrived with a `callId` that is new (or absent).
    fn redeem(
        &mut self,
        token: &str,
        req: Refusal<R>,
        decline: bool,
        host_rejection: Option<Error>,
        now: f64,
    ) {
        let hasher = *self.call_ids.hasher();
        let call_ref = match self.tokens.get(token) {
            Some(&Known::Live(call_ref)) => call_ref,
            Some(&Known::Settled(seq)) => return self.replay_token(seq, req, now),
            None => return self.refuse(req, Gate::Rejected, Error::BadToken, now),
        };
        let Some(call) = self.live(call_ref) else {
            return self.refuse(req, Gate::Rejected, Error::BadToken, now);
        };
        if call.name != req.name || !call.args.canonical_eq_keyed(&req.args, &hasher) {
            return self.refuse(req, Gate::Rejected, Error::BadToken, now);
        }
        self.redeem_live(call_ref, req, decline, host_rejection, now);
    }

    /// The token of a settled call was presented again.
    fn replay_token(&mut self, seq: u64, req: Refusal<R>, now: f64) {
        let hasher = *self.call_ids.hasher();
        if let Some(m) = self.memory(seq) {
            // A used (or expired, or declined) token: no second run, ever.
            if m.name != req.name || !m.args.canonical_eq_keyed(&req.args, &hasher) {
                return self.refuse(req, Gate::Rejected, Error::BadToken, now);
            }
            if m.outcome.gate == Gate::Timeout {
                return self.refuse(req, Gate::Rejected, Error::TokenExpired, now);
            }
            let outcome = m.outcome.clone();
            if let Some(alias) = req.call_id {
                self.add_alias(Known::Settled(seq), alias);
            }
            return self.answer(req.ticket, outcome);
        }
        self.refuse(req, Gate::Rejected, Error::BadToken, now);
    }

    /// The token of a live call was presented for exactly its action and args.
    fn redeem_live(
        &mut self,
        call_ref: CallRef,
        req: Refusal<R>,
        decline: bool,
        host_rejection: Option<Error>,
        now: f64,
    ) {
        let Some(call) = self.live(call_ref) else {
            return;
        };
        match call.state {
            CallState::SoftWaiting { .. } => {}
            // Replayed while it runs: wait for the same terminal outcome.
            _ => return self.adopt(call_ref, req.call_id, req.ticket),
        }
        let element = call.element;
        if !decline {
            if element && !self.hand_mode {
                // Same as a hard element card confirmed after Hand mode went off: settle
                // without touching the page.
                self.adopt(call_ref, req.call_id, req.ticket);
                let end = End::NotRun {
                    gate: Gate::NeedsHandMode,
                    reason: Error::HandModeOff.code(),
                    message: Error::HandModeOff.message(),
                    approver: None,
                };
                return self.settle(call_ref, end, now);
            }
            if let Some(error) = host_rejection {
                // This attempt is refused; the token stays valid for a corrected retry.
                return self.refuse(req, Gate::Rejected, error, now);
            }
        }
        self.adopt(call_ref, req.call_id, req.ticket);
        if decline {
            let end = End::NotRun {
                gate: Gate::Cancelled,
                reason: "declined",
                message: "the user declined this call".into(),
                approver: None,
            };
            return self.settle(call_ref, end, now);
        }
        self.soft_waiting -= 1;
        self.start_run(call_ref, Gate::Confirmed, None);
    }

    /// The confirming request joins the original call: its `callId` becomes an alias and its
    /// ticket waits for the call's outcome.
    fn adopt(&mut self, call_ref: CallRef, alias: Option<String>, ticket: Ticket) {
        if let Some(alias) = alias {
            self.add_alias(Known::Live(call_ref), alias);
        }
        if let Some(call) = self.live_mut(call_ref) {
            call.waiters.push(ticket);
        }
    }

    fn add_alias(&mut self, known: Known, alias: String) {
        let (call_id, aliases) = match known {
            Known::Live(call_ref) => match self.live_mut(call_ref) {
                Some(c) => (&c.call_id, &mut c.aliases),
                None => return,
            },
            Known::Settled(seq) => match self.memory_mut(seq) {
                Some(m) => (&m.outcome.call_id, &mut m.aliases),
                None => return,
            },
        };
        if *call_id == alias || aliases.len() >= MAX_ALIASES || aliases.contains(&alias) {
            return;
        }
        aliases.push(alias.clone());
        // An id that already names a call keeps naming it. Not the entry API: its own monomorph
        // for a path only aliases take, where these two lookups are linked anyway.
        #[allow(clippy::map_entry)]
        if !self.call_ids.contains_key(&alias) {
            self.call_ids.insert(alias, known);
        }
    }

    // ---- running and settling -------------------------------------------------------------

    fn start_run(&mut self, call_ref: CallRef, gate: Gate, approver: Option<Approver>) {
        let Some(index) = self.live_index(call_ref) else {
            return;
        };
        let call = &mut self.live[index];
        call.state = CallState::Running {
            gate,
            approver: approver.clone(),
        };
        self.effects.push_back(Effect::Run {
            call: call_ref,
            action: call.action,
            call_id: call.call_id.clone(),
            host_call_id: call.host_call_id.clone(),
            control: call.control,
            args: call.args.clone(),
            snapshot: call.snapshot.clone(),
            approver,
        });
    }

    /// The one place a call ends: record, `resolved`, answers, then remembered.
    fn settle(&mut self, call_ref: CallRef, end: End<R>, now: f64) {
        let Some(call) = self.live(call_ref) else {
            return;
        };
        match call.state {
            CallState::HardPending { .. } => self.unqueue(call_ref),
            CallState::SoftWaiting { .. } => self.soft_waiting -= 1,
            CallState::Running { .. } => {}
        }
        let Some(index) = self.live_index(call_ref) else {
            return;
        };
        let call = *self.live.remove(index);
        let ran_gate = match &call.state {
            CallState::Running { gate, .. } => *gate,
            _ => Gate::Fired,
        };
        let (mut outcome, record_outcome, gate, reason, approver) = match end {
            End::Ran(Ok(value)) => {
                let approver = running_approver(&call.state);
                let outcome = Outcome {
                    call_id: call.call_id.clone(),
                    host_call_id: None,
                    gate: ran_gate,
                    ok: true,
                    result: if call.share_result {
                        Some(value.clone())
                    } else {
                        None
                    },
                    error: None,
                    confirm_token: None,
                    expires_at: None,
                };
                let value = if call.record_result {
                    Some(value)
                } else {
                    None
                };
                (
                    outcome,
                    RecordOutcome::Ok { value },
                    ran_gate,
                    None,
                    approver,
                )
            }
            End::Ran(Err(error)) => {
                let approver = running_approver(&call.state);
                let (code, message) = (error.code(), error.message());
                let outcome = failed(call.call_id.clone(), ran_gate, code, message.clone());
                (
                    outcome,
                    RecordOutcome::Error { code, message },
                    ran_gate,
                    None,
                    approver,
                )
            }
            End::NotRun {
                gate,
                reason,
                message,
                approver,
            } => {
                let outcome = failed(call.call_id.clone(), gate, reason, message);
                (outcome, RecordOutcome::NotRun, gate, Some(reason), approver)
            }
        };
        outcome.host_call_id = call.host_call_id.clone();
        let outcome = Rc::new(outcome);
        let record = ActionRecord {
            v: 1,
            seq: self.record_seq(),
            session_id: self.session_id.clone(),
            call_id: call.call_id,
            host_call_id: call.host_call_id,
            action: call.name.clone(),
            control: call.control,
            control_source: call.source,
            gate,
            outcome: record_outcome,
            args: call.args.clone(),
            snapshot: call.snapshot,
            approver,
            reason,
            via: call.via,
            started_at: call.started_at,
            settled_at: now,
            call: Some(call_ref),
        };
        self.effects.push_back(Effect::Record(record));
        if let Some(proposal) = call.proposal {
            self.effects.push_back(Effect::Resolved {
                proposal,
                action: call.name.clone(),
                outcome: outcome.clone(),
            });
        }
        for ticket in call.waiters.iter() {
            self.answer(*ticket, outcome.clone());
        }
        self.remember(
            call_ref,
            Remembered {
                aliases: call.aliases,
                token: call.token,
                name: call.name,
                args: call.args,
                outcome,
            },
        );
    }

    /// Keeps a settled call for idempotency: its ids and token now point at the memory, and
    /// the oldest memory beyond [`REMEMBERED_CALLS`] is forgotten with its ids.
    fn remember(&mut self, call_ref: CallRef, memory: Remembered<R>) {
        let seq = self.remembered_base + self.remembered.len() as u64;
        let (live, settled) = (Known::Live(call_ref), Known::Settled(seq));
        self.repoint(&memory, live, Some(settled));
        self.remembered.push_back(memory);
        while self.remembered.len() > REMEMBERED_CALLS {
            let Some(old) = self.remembered.pop_front() else {
                break;
            };
            let oldest = Known::Settled(self.remembered_base);
            self.remembered_base += 1;
            self.repoint(&old, oldest, None);
        }
    }

    /// Each id of `memory` (its `callId` and aliases, its token) that points at `from` now
    /// points at `to`, or is dropped when `to` is `None`. Ids that point elsewhere are left
    /// alone.
    fn repoint(&mut self, memory: &Remembered<R>, from: Known, to: Option<Known>) {
        for id in memory.ids() {
            repoint(&mut self.call_ids, id, from, to);
        }
        if let Some(token) = &memory.token {
            repoint(&mut self.tokens, token, from, to);
        }
    }

    /// Cancels every waiting call (of one action, or all), oldest first.
    fn cancel_waiting(&mut self, action: Option<ActionId>, reason: CancelReason, now: f64) {
        // Settling takes the call out of `live`, so each pass finds the next one (as `tick`).
        while let Some(call_ref) = self
            .live
            .iter()
            .find(|c| {
                !matches!(c.state, CallState::Running { .. })
                    && action.is_none_or(|a| c.action == a)
            })
            .map(|c| c.call_ref)
        {
            self.settle(call_ref, cancelled(reason), now);
        }
    }

    /// Answers a request refused on arrival and records it; it is not remembered, so a
    /// corrected retry with the same `callId` is judged afresh.
    fn refuse(&mut self, req: Refusal<R>, gate: Gate, error: Error, now: f64) {
        let code = error.code();
        let message = error.message();
        self.refuse_with(req, gate, code, message, now);
    }

    fn refuse_disposed(&mut self, req: Refusal<R>, now: f64) {
        let reason = CancelReason::Disposed;
        self.refuse_with(
            req,
            Gate::Cancelled,
            reason.as_str(),
            reason.message().into(),
            now,
        );
    }

    fn refuse_with(
        &mut self,
        req: Refusal<R>,
        gate: Gate,
        code: &'static str,
        message: String,
        now: f64,
    ) {
        let (call_id, host_call_id) = match req.call_id {
            Some(id) => (id, req.host_call_id),
            None => (self.random_id(CALL_ID_PREFIX), None),
        };
        let mut outcome = failed(call_id.clone(), gate, code, message);
        outcome.host_call_id = host_call_id.clone();
        let outcome = Rc::new(outcome);
        let record = ActionRecord {
            v: 1,
            seq: self.record_seq(),
            session_id: self.session_id.clone(),
            call_id,
            host_call_id,
            action: req.name,
            control: req.control,
            control_source: req.source,
            gate,
            outcome: RecordOutcome::NotRun,
            args: req.args,
            snapshot: req.snapshot,
            approver: None,
            reason: Some(code),
            via: req.via,
            started_at: now,
            settled_at: now,
            call: None,
        };
        self.effects.push_back(Effect::Record(record));
        self.answer(req.ticket, outcome);
    }

    fn answer(&mut self, ticket: Ticket, outcome: Rc<Outcome<R>>) {
        self.effects.push_back(Effect::Answer { ticket, outcome });
    }

    // ---- the card queue -------------------------------------------------------------------

    fn queue_index(&self, proposal: ProposalId) -> Option<usize> {
        self.queue
            .iter()
            .position(|c| self.live(*c).and_then(|call| call.proposal) == Some(proposal))
    }

    /// Takes a proposal out of the queue: its card closes if it was visible and the next one
    /// shows; otherwise the visible card's total changes.
    fn unqueue(&mut self, call_ref: CallRef) {
        let Some(index) = self.queue.iter().position(|c| *c == call_ref) else {
            return;
        };
        self.queue.remove(index);
        if index == 0 {
            if let Some(proposal) = self.live(call_ref).and_then(|c| c.proposal) {
                self.effects.push_back(Effect::CloseCard { proposal });
            }
            self.show_front();
        } else {
            self.update_front();
        }
    }

    fn show_front(&mut self) {
        let Some(call) = self.queue.front().and_then(|c| self.live(*c)) else {
            return;
        };
        let (CallState::HardPending { expires_at }, Some(proposal)) = (&call.state, call.proposal)
        else {
            return;
        };
        let expires_at = *expires_at;
        let approvers = self
            .entry(call.action)
            .and_then(|e| e.def.approvers.clone());
        self.effects.push_back(Effect::ShowCard {
            proposal,
            action: call.action,
            name: call.name.clone(),
            args: call.args.clone(),
            snapshot: call.snapshot.clone(),
            expires_at,
            approvers,
            position: 1,
            total: self.queue.len(),
        });
    }

    fn update_front(&mut self) {
        if let Some(proposal) = self
            .queue
            .front()
            .and_then(|c| self.live(*c))
            .and_then(|c| c.proposal)
        {
            self.effects.push_back(Effect::UpdateCard {
                proposal,
                position: 1,
                total: self.queue.len(),
            });
        }
    }

    // ---- small helpers ------------------------------------------------------------------

    /// The waiting call whose deadline is earliest and at or before `now`; of equal deadlines,
    /// the oldest call (`live` is in creation order and `min_by` keeps the first minimum).
    fn next_due(&self, now: f64) -> Option<CallRef> {
        self.live
            .iter()
            .filter_map(|c| {
                c.deadline()
                    .filter(|at| *at <= now)
                    .map(|at| (at, c.call_ref))
            })
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, call_ref)| call_ref)
    }

    fn live_index(&self, call_ref: CallRef) -> Option<usize> {
        self.live
            .binary_search_by(|c| c.call_ref.cmp(&call_ref))
            .ok()
    }

    fn live(&self, call_ref: CallRef) -> Option<&Call<R>> {
        self.live_index(call_ref).map(|i| &*self.live[i])
    }

    fn live_mut(&mut self, call_ref: CallRef) -> Option<&mut Call<R>> {
        self.live_index(call_ref).map(|i| &mut *self.live[i])
    }

    /// The remembered call with settle sequence number `seq`, if not yet forgotten.
    fn memory(&self, seq: u64) -> Option<&Remembered<R>> {
        let index = usize::try_from(seq.checked_sub(self.remembered_base)?).ok()?;
        self.remembered.get(index)
    }

    fn memory_mut(&mut self, seq: u64) -> Option<&mut Remembered<R>> {
        let index = usize::try_from(seq.checked_sub(self.remembered_base)?).ok()?;
        self.remembered.get_mut(index)
    }

    fn next(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    fn entry(&self, id: ActionId) -> Option<&Entry> {
        self.actions.iter().find(|e| e.id == id)
    }

    fn role_allowed(&self, action: ActionId, role: Option<&str>) -> bool {
        match self.entry(action).and_then(|e| e.def.approvers.as_ref()) {
            None => true,
            Some(roles) => role.is_some_and(|role| roles.iter().any(|r| r == role)),
        }
    }

    fn info(&self, call: &Call<R>) -> Option<ProposalInfo<R>> {
        let CallState::HardPending { expires_at } = call.state else {
            return None;
        };
        Some(ProposalInfo {
            id: call.proposal?,
            call_id: call.call_id.clone(),
            action: call.name.clone(),
            control: call.control,
            args: call.args.clone(),
            snapshot: call.snapshot.clone(),
            expires_at,
        })
    }

    /// `prefix` + 128 random bits in hex.
    fn random_id(&mut self, prefix: &str) -> String {
        random_id(self.entropy.as_mut(), prefix)
    }

    fn record_seq(&mut self) -> u64 {
        let seq = self.next_record;
        self.next_record += 1;
        seq
    }
}

/// If `map` points `id` at `from`, it now points at `to`, or drops it when `to` is `None`.
fn repoint(map: &mut IdMap, id: &str, from: Known, to: Option<Known>) {
    match to {
        Some(to) => {
            if let Some(slot) = map.get_mut(id) {
                if *slot == from {
                    *slot = to;
                }
            }
        }
        // One lookup in the usual case; put back what turns out to point elsewhere.
        None => {
            if let Some(was) = map.remove(id) {
                if was != from {
                    map.insert(id.to_owned(), was);
                }
            }
        }
    }
}

fn running_approver(state: &CallState) -> Option<Approver> {
    match state {
        CallState::Running { approver, .. } => approver.clone(),
        _ => None,
    }
}

fn cancelled<R>(reason: CancelReason) -> End<R> {
    End::NotRun {
        gate: Gate::Cancelled,
        reason: reason.as_str(),
        message: reason.message().into(),
        approver: None,
    }
}

fn failed<R>(call_id: String, gate: Gate, code: &'static str, message: String) -> Outcome<R> {
    Outcome {
        call_id,
        host_call_id: None,
        gate,
        ok: false,
        result: None,
        error: Some((code, message)),
        confirm_token: None,
        expires_at: None,
    }
}

fn needs_confirmation<R>(call_id: String, token: String, expires_at: f64) -> Outcome<R> {
    Outcome {
        call_id,
        host_call_id: None,
        gate: Gate::NeedsConfirmation,
        ok: false,
        result: None,
        error: None,
        confirm_token: Some(token),
        expires_at: Some(expires_at),
    }
}

/// SPEC §2: 1–64 chars, `^[A-Za-z][A-Za-z0-9_-]*$`.
fn valid_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    (1..=64).contains(&bytes.len())
        && bytes[0].is_ascii_alphabetic()
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'-')
}
