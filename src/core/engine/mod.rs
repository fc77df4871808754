//! The call engine: every rule of SPEC §1 and §3 as a sans-I/O state machine.
//!
//! # Reading guide
//!
//! **Inputs.** The host hands the [`Engine`] what happened, each with the time it happened:
//! the agent's [`invoke`](Engine::invoke) (an [`InvokeRequest`]), a trusted click on a card's
//! [`confirm`](Engine::confirm), a [`cancel`](Engine::cancel), a `run` that
//! [finished](Engine::run_finished), a [`tick`](Engine::tick) of its one timer, and the app's
//! [`register`](Engine::register), [`unregister`](Engine::unregister) and
//! [`dispose`](Engine::dispose). Randomness comes in through [`Entropy`], once, at
//! [`Engine::new`].
//!
//! **Effects.** Nothing is done by the engine itself: each input queues [`Effect`]s (answer a
//! ticket, call `run`, show, update or close a card, deliver a record, emit a proposal event),
//! which the host drains with [`poll_effect`](Engine::poll_effect) in order, and
//! [`poll_timeout`](Engine::poll_timeout) says when to call `tick` next.
//!
//! **Invariants.**
//! - Every ticket [`invoke`](Engine::invoke) returns is answered exactly once: at once, or
//!   when the call it waits for settles.
//! - A call runs at most once and settles once, in `settle` (settle.rs), which records it,
//!   answers every ticket waiting for it and hands it to the memory of settled calls. A
//!   request refused on arrival is answered and recorded but never remembered, so a corrected
//!   retry with the same `callId` is judged afresh.
//! - Every input that carries `now` first expires what is due, so no result depends on
//!   whether the host's timer fired on time.
//! - Live calls are kept in creation order; the card queue holds exactly the hard calls whose
//!   cards wait, and only its front card is visible and gets count updates.
//!
//! # Where things are
//!
//! - `types.rs`: the public types the host hands in and gets back.
//! - `call.rs`: a live call, its states, and the ways it ends.
//! - `invoke.rs`: what happens to a request, from arrival to admission, a re-send or a token.
//! - `settle.rs`: running, settling, refusing and cancelling.
//! - `memory.rs`: the ids an agent chose and the memory of settled calls (idempotency).
//! - `queue.rs`: the hard-card queue.

mod call;
mod invoke;
mod memory;
mod queue;
mod settle;
mod types;

use std::collections::VecDeque;
use std::rc::Rc;

use self::call::{Call, CallState, End};
use self::memory::CallMemory;
pub use self::memory::REMEMBERED_CALLS;
use self::queue::{CardChange, CardQueue};
pub use self::types::{ActionDef, CancelReason, Config, Effect, InvokeRequest, ProposalInfo};
use crate::core::control::{resolve_control, Control, ControlSource};
use crate::core::error::Error;
use crate::core::ids::{random_id, IdHasher};
pub use crate::core::ids::{ActionId, CallRef, Entropy, ProposalId, Ticket};
use crate::core::record::{Approver, Gate};
use crate::core::value::Value;

/// Soft calls that may wait for their token at once; more are `too_many_pending`. (`maxPending`
/// bounds hard proposals; this bounds the memory an agent can pin with first soft calls.)
pub const MAX_SOFT_WAITING: usize = 1024;

/// A live registration.
struct Entry {
    id: ActionId,
    def: ActionDef,
    control: Control,
    source: ControlSource,
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
    queue: CardQueue,
    soft_waiting: usize,
    /// Where every id an agent chose points, and the last settled calls.
    memory: CallMemory<R>,
    hand_mode: bool,
    disposed: bool,
    effects: VecDeque<Effect<R>>,
    /// The args of a request refused before its args are known. Every request starts out with
    /// these until its own pass the checks; sharing one keeps that from allocating per call.
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
            queue: CardQueue::default(),
            soft_waiting: 0,
            memory: CallMemory::new(hasher),
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
            .calls()
            .filter_map(|c| self.live(c).and_then(|call| self.info(call)))
            .collect()
    }

    /// The waiting proposal whose string form is `s`.
    pub fn proposal_by_str(&self, s: &str) -> Option<ProposalId> {
        let id = ProposalId::parse(s)?;
        self.queue.find(id).map(|_| id)
    }

    /// Could someone with `role` confirm this proposal now? (It must be the visible card and
    /// the role must be listed in the action's `approvers`, if it has any.)
    pub fn may_confirm(&self, proposal: ProposalId, role: Option<&str>) -> bool {
        if self.disposed {
            return false;
        }
        match self.queue.find(proposal) {
            Some((0, call_ref)) => self
                .live(call_ref)
                .is_some_and(|call| self.role_allowed(call.action, role)),
            _ => false,
        }
    }

    /// Is `proposal` the visible card (waiting, first in the queue) of an engine not disposed?
    /// A host that ran app code between [`Effect::ShowCard`] and drawing the card (a summary, an
    /// approver callback) asks before it draws: that code may have settled or disposed it.
    pub fn is_visible(&self, proposal: ProposalId) -> bool {
        !self.disposed && matches!(self.queue.find(proposal), Some((0, _)))
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
        let call_ref = match self.queue.find(proposal) {
            None => return Err(Error::UnknownProposal),
            Some((0, call_ref)) => call_ref,
            Some(_) => return Err(Error::ProposalNotVisible),
        };
        let Some(call) = self.live(call_ref) else {
            return Err(Error::UnknownProposal);
        };
        let role = approver.as_ref().and_then(|a| a.role.as_deref());
        if !self.role_allowed(call.action, role) {
            return Err(Error::NotAdmin);
        }
        if call.element && !self.hand_mode {
            self.settle(call_ref, End::hand_mode_off(approver), now);
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
        let Some((_, call_ref)) = self.queue.find(proposal) else {
            return false;
        };
        self.settle(call_ref, End::cancelled(reason), now);
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
            self.settle(call_ref, End::expired(), now);
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

    // ---- the visible card -----------------------------------------------------------------

    /// Turns a change of the card queue into the card effects.
    fn card_changed(&mut self, change: CardChange) {
        match change {
            CardChange::Show(call_ref) => self.show_card(call_ref),
            CardChange::Count { proposal, total } => {
                self.effects.push_back(Effect::UpdateCard {
                    proposal,
                    position: 1,
                    total,
                });
            }
            CardChange::Replace { closed, next } => {
                self.effects
                    .push_back(Effect::CloseCard { proposal: closed });
                if let Some(next) = next {
                    self.show_card(next);
                }
            }
        }
    }

    /// Takes a proposal out of the queue, with the card effects that follows.
    fn unqueue(&mut self, call_ref: CallRef) {
        if let Some(change) = self.queue.remove(call_ref) {
            self.card_changed(change);
        }
    }

    fn show_card(&mut self, call_ref: CallRef) {
        let Some(call) = self.live(call_ref) else {
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

/// SPEC §2: 1–64 chars, `^[A-Za-z][A-Za-z0-9_-]*$`.
fn valid_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    (1..=64).contains(&bytes.len())
        && bytes[0].is_ascii_alphabetic()
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'-')
}
