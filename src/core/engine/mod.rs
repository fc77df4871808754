//! The call engine: every rule of SPEC §1 and §3 as a sans-I/O state machine.
//!
//! # Reading guide
//!
//! **Inputs.** The host hands the [`Engine`] what happened, each with the time it happened:
//! the agent's [`invoke`](Engine::invoke) (an [`InvokeRequest`]), a trusted click on a card's
//! [`confirm`](Engine::confirm), a [`cancel`](Engine::cancel), a `run` that
//! [finished](Engine::run_finished), a [`tick`](Engine::tick) of its one timer, and the app's
//! [`register`](Engine::register), [`unregister`](Engine::unregister),
//! [`grant`](Engine::grant) (told whether a person's gesture is under way) and
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
//! - A soft call runs only on its own token or on a live grant that covers it; grants are
//!   made only by [`grant`](Engine::grant), and no request changes one but by spending a use.
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
use crate::core::card::reason_text;
use crate::core::control::{resolve_control, Control, ControlSource};
use crate::core::error::Error;
use crate::core::grant::{Grant, GrantOptions, GrantTerms, Grants};
use crate::core::ids::{random_id, IdHasher};
pub use crate::core::ids::{ActionId, CallRef, Entropy, GrantId, ProposalId, Ticket};
use crate::core::passkey::{Statement, Verification, Verify};
use crate::core::record::{Approver, Assurance, Gate};
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
///   [`proposal_by_str`](Self::proposal_by_str), [`grants`](Self::grants),
///   [`grant_by_str`](Self::grant_by_str), [`hand_mode`](Self::hand_mode)) answer questions
///   and change nothing.
/// - **Inputs from outside**, which the host reports as they happen: [`confirm`](Self::confirm)
///   (a trusted click on Confirm arrived; the web layer decides trust),
///   [`cancel`](Self::cancel) and [`cancel_saying`](Self::cancel_saying) (with the person's
///   words), [`run_finished`](Self::run_finished) (a `run` the engine asked for
///   ended), [`set_hand_mode`](Self::set_hand_mode) and [`tick`](Self::tick) (time passed).
/// - **Commands from the application**: [`register`](Self::register),
///   [`unregister`](Self::unregister), [`invoke`](Self::invoke) (the agent's door; it never
///   fails, its answer comes as an effect), [`cancel_all`](Self::cancel_all),
///   [`grant`](Self::grant) and [`revoke_grant`](Self::revoke_grant), and
///   [`dispose`](Self::dispose).
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
    /// The remembered soft grants the app made (SPEC §12).
    grants: Grants,
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
            grants: Grants::default(),
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

    /// What the proposal's action asks beyond a trusted click (`verify`); `None` for a plain
    /// hard action or a proposal that is not waiting.
    pub fn proposal_verify(&self, proposal: ProposalId) -> Option<Verify> {
        let (_, call_ref) = self.queue.find(proposal)?;
        self.verify_of(self.live(call_ref)?.action)
    }

    /// The grants live at `now`, oldest first.
    pub fn grants(&self, now: f64) -> impl Iterator<Item = &Grant> {
        self.grants.live(now)
    }

    /// The live grant whose string form is `s`.
    pub fn grant_by_str(&self, s: &str, now: f64) -> Option<GrantId> {
        let id = GrantId::parse(s)?;
        self.grants.live(now).find(|g| g.id == id).map(|g| g.id)
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
            return Err(Error::InvalidSpec(format!(
                "the action name \"{}\" is not allowed: a name is the tool name the model \
                 calls, and model APIs accept only 1–64 characters matching \
                 ^[A-Za-z][A-Za-z0-9_-]*$. Rename it, e.g. \"{}\"",
                def.name,
                suggested_name(&def.name)
            )));
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
        if def.verify.is_some() && control != Control::Hard {
            return Err(Error::InvalidSpec(format!(
                "{}: verify: \"passkey\" is for hard actions: declare control: \"hard\"",
                def.name
            )));
        }
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

    /// Remembers a person's "yes, for a while" to the soft action `action` (SPEC §12): until
    /// it ends, a call it covers fires at once (gate `fired`, the record naming the grant)
    /// instead of answering `needs_confirmation`. `user_activation` is the host's answer to
    /// "is a person's gesture under way?".
    ///
    /// Errors, in this order, with nothing made: [`Error::Disposed`]; [`Error::InvalidGrant`]
    /// for a name that is no live action, an action that is not soft (open or hard: hard
    /// actions are never granted) or options [`GrantTerms::from_options`] refuses;
    /// [`Error::NeedsUserActivation`] without a gesture.
    pub fn grant(
        &mut self,
        action: &str,
        options: &GrantOptions,
        user_activation: bool,
        now: f64,
    ) -> Result<Grant, Error> {
        self.tick(now);
        if self.disposed {
            return Err(Error::Disposed);
        }
        let entry = self.actions.iter().find(|e| e.def.name == action);
        let Some(entry) = entry else {
            return Err(Error::InvalidGrant(format!(
                "no action named `{action}` is registered"
            )));
        };
        if entry.control != Control::Soft {
            return Err(Error::InvalidGrant(format!(
                "only soft actions can be granted; `{action}` is {}",
                entry.control.as_str()
            )));
        }
        let terms = GrantTerms::from_options(options)?;
        if !user_activation {
            return Err(Error::NeedsUserActivation);
        }
        let grant = Grant {
            id: GrantId(self.next()),
            action: action.to_owned(),
            created_at: now,
            expires_at: now + terms.ttl_ms,
            max_uses: terms.max_uses,
            uses: 0,
            match_args: terms.match_args,
        };
        self.grants.add(grant.clone());
        self.effects.push_back(Effect::GrantsChanged);
        Ok(grant)
    }

    /// Ends a grant before its time; false when it is not live.
    pub fn revoke_grant(&mut self, id: GrantId, now: f64) -> bool {
        self.tick(now);
        let revoked = self.grants.revoke(id);
        if revoked {
            self.effects.push_back(Effect::GrantsChanged);
        }
        revoked
    }

    /// Settles everything waiting as `cancelled` (reason `disposed`) and ends every grant;
    /// later invokes are answered at once the same way (and recorded). Running calls still
    /// finish through [`run_finished`](Self::run_finished).
    pub fn dispose(&mut self, now: f64) {
        if self.disposed {
            return;
        }
        self.tick(now);
        self.cancel_waiting(None, CancelReason::Disposed, now);
        if self.grants.clear() {
            self.effects.push_back(Effect::GrantsChanged);
        }
        self.disposed = true;
    }

    // ---- inputs from outside --------------------------------------------------------------

    /// A trusted click on the visible card's Confirm arrived (the web layer decides trust).
    /// Claims the call and queues its [`Effect::Run`]; a second confirm finds nothing to claim.
    ///
    /// Errors, with no effect: [`Error::UnknownProposal`] (never existed, settled or claimed),
    /// [`Error::ProposalNotVisible`], [`Error::NotAdmin`] (the approver's role is not in
    /// `approvers`; the proposal stays pending), [`Error::Disposed`], and
    /// [`Error::PasskeyRequired`] for a `verify: "passkey"` action, which only
    /// [`confirm_verified`](Self::confirm_verified) confirms. A hard element action confirmed
    /// while Hand mode is off settles `needs_hand_mode` without running.
    pub fn confirm(
        &mut self,
        proposal: ProposalId,
        approver: Option<Approver>,
        now: f64,
    ) -> Result<(), Error> {
        self.confirm_with(proposal, approver, None, now)
    }

    /// A passkey assertion over the call's statement was accepted (the web layer checked the
    /// trusted click, the UV flag and the credential id): confirms a `verify: "passkey"`
    /// proposal as [`confirm`](Self::confirm) does, and the record and `run` carry
    /// `verification`. Only an assertion over the statement [`begin_passkey`](Self::begin_passkey)
    /// made last for this call counts: an older one (a prompt that was retried) or one for
    /// another call is [`Error::PasskeyRequired`], with no effect.
    pub fn confirm_verified(
        &mut self,
        proposal: ProposalId,
        approver: Option<Approver>,
        verification: Verification<R>,
        now: f64,
    ) -> Result<(), Error> {
        self.confirm_with(proposal, approver, Some(verification), now)
    }

    fn confirm_with(
        &mut self,
        proposal: ProposalId,
        approver: Option<Approver>,
        verification: Option<Verification<R>>,
        now: f64,
    ) -> Result<(), Error> {
        self.tick(now);
        let call_ref = self.visible_call(proposal)?;
        let Some(call) = self.live(call_ref) else {
            return Err(Error::UnknownProposal);
        };
        let role = approver.as_ref().and_then(|a| a.role.as_deref());
        if !self.role_allowed(call.action, role) {
            return Err(Error::NotAdmin);
        }
        // A trusted click is all a plain hard card has (a verification handed in anyway is
        // dropped); a passkey action has, besides, the assertion over its last statement.
        let (verification, assurance) = match (self.verify_of(call.action), verification) {
            (None, _) => (None, Assurance::Input),
            (Some(Verify::Passkey), Some(v))
                if call.statement_nonce() == Some(v.nonce.as_str()) =>
            {
                (Some(v), Assurance::Passkey)
            }
            (Some(Verify::Passkey), _) => return Err(Error::PasskeyRequired),
        };
        if call.element && !self.hand_mode {
            self.settle(call_ref, End::hand_mode_off(approver), now);
            return Ok(());
        }
        self.unqueue(call_ref);
        self.start_run(call_ref, Gate::Confirmed, assurance, approver, verification);
        Ok(())
    }

    /// A trusted, armed click on a `verify: "passkey"` card's Confirm: the [`Statement`] the
    /// person's passkey must sign, with a fresh nonce. It replaces any statement made for this
    /// call before, so an assertion over an earlier one (a prompt that was retried, a late
    /// answer) no longer confirms it. Errors as [`confirm`](Self::confirm), plus
    /// [`Error::PasskeyRequired`] when the action has no `verify: "passkey"`.
    pub fn begin_passkey(
        &mut self,
        proposal: ProposalId,
        role: Option<&str>,
        now: f64,
    ) -> Result<Statement<R>, Error> {
        self.tick(now);
        let call_ref = self.visible_call(proposal)?;
        let Some(call) = self.live(call_ref) else {
            return Err(Error::UnknownProposal);
        };
        if self.verify_of(call.action) != Some(Verify::Passkey) {
            return Err(Error::PasskeyRequired);
        }
        if !self.role_allowed(call.action, role) {
            return Err(Error::NotAdmin);
        }
        let nonce = self.random_id("");
        let session_id = self.session_id.clone();
        let Some(call) = self.live_mut(call_ref) else {
            return Err(Error::UnknownProposal);
        };
        let CallState::HardPending {
            expires_at,
            nonce: slot,
        } = &mut call.state
        else {
            return Err(Error::UnknownProposal);
        };
        *slot = Some(nonce.clone());
        Ok(Statement {
            action: call.name.clone(),
            args: call.args.clone(),
            snapshot: call.snapshot.clone(),
            call_id: call.call_id.clone(),
            session_id,
            nonce,
            issued_at: now,
            expires_at: *expires_at,
        })
    }

    /// Cancels a waiting hard proposal (Cancel, Escape, `ck.cancel`, …). False when it is not
    /// waiting (unknown, claimed, settled).
    pub fn cancel(&mut self, proposal: ProposalId, reason: CancelReason, now: f64) -> bool {
        self.cancel_saying(proposal, reason, None, now)
    }

    /// [`cancel`](Self::cancel), with the person's reason for saying no (SPEC §12): cleaned by
    /// [`reason_text`], it is the record's `note`, and the outcome is `declined` with a message
    /// that quotes it (a blank reason is none).
    pub fn cancel_saying(
        &mut self,
        proposal: ProposalId,
        reason: CancelReason,
        note: Option<&str>,
        now: f64,
    ) -> bool {
        self.tick(now);
        let Some((_, call_ref)) = self.queue.find(proposal) else {
            return false;
        };
        let end = End::cancelled(reason, note.and_then(reason_text));
        self.settle(call_ref, end, now);
        true
    }

    /// Cancels every waiting hard proposal, or those of the action named `action`, oldest
    /// first, each settling with its own outcome and record (SPEC §12's "Cancel all"), with
    /// `note` as [`cancel_saying`](Self::cancel_saying) takes it. Never confirms anything.
    /// Returns how many it cancelled.
    pub fn cancel_all(
        &mut self,
        action: Option<&str>,
        reason: CancelReason,
        note: Option<&str>,
        now: f64,
    ) -> usize {
        self.tick(now);
        self.cancel_cards(action, reason, note.and_then(reason_text), now)
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
    /// (reason `expired`), earliest deadline first; grants due end.
    pub fn tick(&mut self, now: f64) {
        // Settling never adds a deadline and takes the call out of `live`, so each pass finds
        // the next one due until none is.
        while let Some(call_ref) = self.next_due(now) {
            self.settle(call_ref, End::expired(), now);
        }
        if self.grants.expire(now) {
            self.effects.push_back(Effect::GrantsChanged);
        }
    }

    // ---- poll -------------------------------------------------------------------------

    /// The next deadline (epoch ms) at which [`tick`](Self::tick) has something to expire.
    pub fn poll_timeout(&self) -> Option<f64> {
        self.live
            .iter()
            .filter_map(|c| c.deadline())
            .chain(self.grants.next_expiry())
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
        let (CallState::HardPending { expires_at, .. }, Some(proposal)) =
            (&call.state, call.proposal)
        else {
            return;
        };
        let expires_at = *expires_at;
        let approvers = self
            .entry(call.action)
            .and_then(|e| e.def.approvers.clone());
        let verify = self.verify_of(call.action);
        self.effects.push_back(Effect::ShowCard {
            proposal,
            action: call.action,
            name: call.name.clone(),
            args: call.args.clone(),
            snapshot: call.snapshot.clone(),
            expires_at,
            approvers,
            verify,
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

    /// The visible proposal's call, for a decision on its card.
    fn visible_call(&self, proposal: ProposalId) -> Result<CallRef, Error> {
        if self.disposed {
            return Err(Error::Disposed);
        }
        match self.queue.find(proposal) {
            None => Err(Error::UnknownProposal),
            Some((0, call_ref)) => Ok(call_ref),
            Some(_) => Err(Error::ProposalNotVisible),
        }
    }

    fn verify_of(&self, action: ActionId) -> Option<Verify> {
        self.entry(action).and_then(|e| e.def.verify)
    }

    fn role_allowed(&self, action: ActionId, role: Option<&str>) -> bool {
        match self.entry(action).and_then(|e| e.def.approvers.as_ref()) {
            None => true,
            Some(roles) => role.is_some_and(|role| roles.iter().any(|r| r == role)),
        }
    }

    fn info(&self, call: &Call<R>) -> Option<ProposalInfo<R>> {
        let CallState::HardPending { expires_at, .. } = call.state else {
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
/// A valid name close to `name`, for the error that refuses it: each character outside
/// `[A-Za-z0-9_-]` becomes `_`, a leading non-letter gets an `a` before it, at most 64 long.
pub fn suggested_name(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if !out.starts_with(|c: char| c.is_ascii_alphabetic()) {
        out.insert(0, 'a');
    }
    out.truncate(64);
    out
}

fn valid_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    (1..=64).contains(&bytes.len())
        && bytes[0].is_ascii_alphabetic()
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'-')
}
