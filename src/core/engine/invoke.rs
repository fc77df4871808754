//! What happens to one `invoke`, step by step: the arrival checks in the order SPEC §3 gives
//! them, then one of three paths — a new call is admitted at its level, a known `callId` is a
//! re-send, or a soft token confirms (or declines) the call it was issued to.

use std::rc::Rc;

use super::call::{needs_confirmation, Call, CallState, End};
use super::memory::{note_alias, Known};
use super::{Effect, Engine, InvokeRequest, MAX_SOFT_WAITING};
use crate::core::card::reason_text;
use crate::core::control::{resolve_control, Control, ControlSource};
use crate::core::error::Error;
use crate::core::ids::{ActionId, CallRef, GrantId, ProposalId, Ticket, CALL_ID_PREFIX};
use crate::core::record::{Assurance, Gate, Via};
use crate::core::value::{Value, MAX_DEPTH};

/// A request on its way in: everything the record of a arrival needs, so that any check can
/// refuse it. One that passes them all becomes a call.
pub(super) struct Arrival<R> {
    pub(super) ticket: Ticket,
    pub(super) name: String,
    pub(super) call_id: Option<String>,
    pub(super) control: Control,
    pub(super) source: ControlSource,
    pub(super) args: Rc<Value>,
    pub(super) snapshot: Option<R>,
    pub(super) via: Via,
}

impl<R: Clone> Engine<R> {
    /// The arrival checks, in order; each arrival is answered and recorded at once.
    pub(super) fn handle_invoke(&mut self, ticket: Ticket, req: InvokeRequest<R>, now: f64) {
        let InvokeRequest {
            name,
            action,
            args,
            call_id,
            confirm_token,
            decline,
            reason,
            host_rejection,
            snapshot,
            via,
        } = req;
        let entry = match action {
            Some(id) => self.actions.iter().find(|e| e.id == id),
            None => self.actions.iter().find(|e| e.def.name == name),
        };
        let (action, control, source) = match entry {
            Some(e) => (Some(e.id), e.control, e.source),
            None => {
                let (control, source) = resolve_control(None, &name, self.config.default_control);
                (None, control, source)
            }
        };
        let mut arrival = Arrival {
            ticket,
            name,
            call_id,
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
                    return self.refuse_disposed(arrival, now);
                }
                return self.refuse(arrival, Gate::Rejected, error, now);
            }
        };
        if self.disposed {
            // A re-sent call the engine still knows gets its own answer, as before `dispose`:
            // "cancelled" for a call that fired would tell the agent it did not happen.
            if let Some(known) = arrival
                .call_id
                .as_deref()
                .and_then(|id| self.memory.call_id(id))
            {
                arrival.args = args;
                arrival.snapshot = snapshot;
                let confirm = (confirm_token, decline, reason);
                return self.resend(known, arrival, confirm, host_rejection, now);
            }
            // A snapshot of harmless size is kept for the record; a huge one is not worth it.
            if args
                .json_len_within(MAX_DEPTH, self.config.number_text)
                .is_some_and(|size| size <= self.config.max_args_bytes)
            {
                arrival.args = args;
                arrival.snapshot = snapshot;
            }
            return self.refuse_disposed(arrival, now);
        }
        let Some(action) = action else {
            let error = Error::UnknownAction(arrival.name.clone());
            return self.refuse(arrival, Gate::Rejected, error, now);
        };
        // Depth and size are measured once, in one walk, on the snapshot everything else sees.
        let Some(size) = args.json_len_within(MAX_DEPTH, self.config.number_text) else {
            let error = Error::InvalidArgs("args: nested too deeply".into());
            return self.refuse(arrival, Gate::Rejected, error, now);
        };
        if size > self.config.max_args_bytes {
            let max = self.config.max_args_bytes;
            return self.refuse(
                arrival,
                Gate::Rejected,
                Error::ArgsTooLarge { size, max },
                now,
            );
        }
        arrival.args = args;
        arrival.snapshot = snapshot;
        // A reason without `decline` is refused here; one with `decline` but no token is
        // refused as every such decline is (`bad_token`), below.
        if reason.is_some() && !decline {
            let error = Error::InvalidArgs(
                "reason goes only with confirmToken and decline: true, for the user's own words \
                 when they said no"
                    .into(),
            );
            return self.refuse(arrival, Gate::Rejected, error, now);
        }

        if let Some(known) = arrival
            .call_id
            .as_deref()
            .and_then(|id| self.memory.call_id(id))
        {
            let confirm = (confirm_token, decline, reason);
            return self.resend(known, arrival, confirm, host_rejection, now);
        }
        if let Some(token) = confirm_token {
            let note = reason.as_deref().and_then(reason_text);
            return self.redeem(&token, arrival, (decline, note), host_rejection, now);
        }
        if decline {
            return self.refuse(arrival, Gate::Rejected, Error::BadToken, now);
        }

        let entry = self.entry(action).expect("looked up above");
        if entry.def.element && !self.hand_mode {
            return self.refuse(arrival, Gate::NeedsHandMode, Error::HandModeOff, now);
        }
        if let Some(error) = host_rejection {
            return self.refuse(arrival, Gate::Rejected, error, now);
        }
        if let Some(schema) = &entry.def.schema {
            if let Err(error) = schema.validate(&arrival.args, self.config.number_text) {
                return self.refuse(arrival, Gate::Rejected, error, now);
            }
        }
        if control == Control::Soft {
            let hasher = self.memory.hasher();
            if let Some(grant) = self
                .grants
                .spend(&arrival.name, &arrival.args, now, &hasher)
            {
                self.effects.push_back(Effect::GrantsChanged);
                return self.admit(action, arrival, Some(grant), now);
            }
        }
        match control {
            Control::Soft if self.soft_waiting >= MAX_SOFT_WAITING => {
                self.refuse(arrival, Gate::Rejected, Error::TooManyPending, now)
            }
            Control::Hard if self.queue.len() >= self.config.max_pending => {
                self.refuse(arrival, Gate::Rejected, Error::TooManyPending, now)
            }
            _ => self.admit(action, arrival, None, now),
        }
    }

    /// A new call passed every arrival check: start it according to its level. A soft call
    /// with `grant` (a live grant that covers it, its use already counted) fires at once.
    fn admit(&mut self, action: ActionId, req: Arrival<R>, grant: Option<GrantId>, now: f64) {
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
        self.memory.add_call_id(call_id.clone(), call_ref);
        let mut call = Box::new(Call {
            call_ref,
            call_id,
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
            grant,
            proposal: None,
            state: CallState::Running {
                gate: Gate::Fired,
                assurance: Assurance::None,
                approver: None,
                verification: None,
            },
            waiters: Vec::new(),
        });
        match req.control {
            Control::Open => {
                call.waiters.push(req.ticket);
                self.live.push(call);
                self.start_run(call_ref, Gate::Fired, Assurance::None, None, None);
            }
            Control::Soft if grant.is_some() => {
                call.waiters.push(req.ticket);
                self.live.push(call);
                self.start_run(call_ref, Gate::Fired, Assurance::Grant, None, None);
            }
            Control::Soft => {
                let token = self.random_id("ckt_");
                self.memory.add_token(token.clone(), call_ref);
                call.token = Some(token.clone());
                call.state = CallState::SoftWaiting { expires_at };
                let outcome = needs_confirmation(call.call_id.clone(), token, expires_at);
                self.live.push(call);
                self.soft_waiting += 1;
                self.answer(req.ticket, Rc::new(outcome));
            }
            Control::Hard => {
                let proposal = ProposalId(self.next());
                call.proposal = Some(proposal);
                call.state = CallState::HardPending {
                    expires_at,
                    nonce: None,
                };
                call.waiters.push(req.ticket);
                let info = self.info(&call).expect("hard pending");
                self.live.push(call);
                self.effects.push_back(Effect::Proposal(info));
                let change = self.queue.push(call_ref, proposal);
                self.card_changed(change);
            }
        }
    }

    /// The `callId` is known (as an original id or an alias): same args → that call's answer;
    /// other args or action → `call_id_conflict`.
    fn resend(
        &mut self,
        known: Known,
        req: Arrival<R>,
        (token, decline, reason): (Option<String>, bool, Option<String>),
        host_rejection: Option<Error>,
        now: f64,
    ) {
        let hasher = self.memory.hasher();
        let known = match known {
            Known::Settled(seq) => {
                return match self.memory.settled(seq) {
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
                        let note = reason.as_deref().and_then(reason_text);
                        return self.redeem_live(known, req, (decline, note), host_rejection, now);
                    }
                    return self.refuse(req, Gate::Rejected, Error::BadToken, now);
                }
                let outcome = needs_confirmation(
                    call.call_id.clone(),
                    call.token.clone().unwrap_or_default(),
                    expires_at,
                );
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
        req: Arrival<R>,
        decline: (bool, Option<String>),
        host_rejection: Option<Error>,
        now: f64,
    ) {
        let hasher = self.memory.hasher();
        let call_ref = match self.memory.token(token) {
            Some(Known::Live(call_ref)) => call_ref,
            Some(Known::Settled(seq)) => return self.replay_token(seq, req, now),
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
    fn replay_token(&mut self, seq: u64, req: Arrival<R>, now: f64) {
        let hasher = self.memory.hasher();
        if let Some(m) = self.memory.settled(seq) {
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

    /// The token of a live call was presented for exactly its action and args; `decline`
    /// says whether the user said no, and why (already cleaned).
    fn redeem_live(
        &mut self,
        call_ref: CallRef,
        req: Arrival<R>,
        (decline, note): (bool, Option<String>),
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
                return self.settle(call_ref, End::hand_mode_off(None), now);
            }
            if let Some(error) = host_rejection {
                // This attempt is refused; the token stays valid for a corrected retry.
                return self.refuse(req, Gate::Rejected, error, now);
            }
        }
        self.adopt(call_ref, req.call_id, req.ticket);
        if decline {
            return self.settle(call_ref, End::declined(note), now);
        }
        self.soft_waiting -= 1;
        // The token proves only that this agent got it for exactly this call: its word that
        // the person said yes.
        self.start_run(call_ref, Gate::Confirmed, Assurance::Agent, None, None);
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

    /// `alias` joins the call `known` names (see [`note_alias`] for when it is not kept).
    fn add_alias(&mut self, known: Known, alias: String) {
        match known {
            Known::Live(call_ref) => {
                let noted = self
                    .live_mut(call_ref)
                    .is_some_and(|call| note_alias(&mut call.aliases, &call.call_id, &alias));
                if noted {
                    self.memory.link_alias(alias, known);
                }
            }
            Known::Settled(seq) => self.memory.alias_settled(seq, alias),
        }
    }
}
