//! How a call ends: it runs, it settles (the one place that records it, answers its tickets
//! and hands it to the memory of settled calls), or, as a request, it is refused on arrival.

use std::rc::Rc;

use super::call::{failed, CallState, End};
use super::invoke::Arrival;
use super::memory::Remembered;
use super::{CancelReason, Effect, Engine};
use crate::core::error::Error;
use crate::core::ids::{ActionId, CallRef, Ticket, CALL_ID_PREFIX};
use crate::core::passkey::Verification;
use crate::core::record::{ActionRecord, Approver, Assurance, Gate, Outcome, RecordOutcome};

impl<R: Clone> Engine<R> {
    /// The call runs: the host is asked to call its `run`. Only a waiting or just-admitted
    /// call gets here, so each call runs at most once. `assurance` is what let it run (SPEC §6),
    /// named by the caller that decided it.
    pub(super) fn start_run(
        &mut self,
        call_ref: CallRef,
        gate: Gate,
        assurance: Assurance,
        approver: Option<Approver>,
        verification: Option<Verification<R>>,
    ) {
        let Some(index) = self.live_index(call_ref) else {
            return;
        };
        let call = &mut self.live[index];
        let receipt = verification.as_ref().map(|v| v.receipt.clone());
        call.state = CallState::Running {
            gate,
            assurance,
            approver: approver.clone(),
            verification,
        };
        self.effects.push_back(Effect::Run {
            call: call_ref,
            action: call.action,
            call_id: call.call_id.clone(),
            control: call.control,
            args: call.args.clone(),
            snapshot: call.snapshot.clone(),
            approver,
            receipt,
        });
    }

    /// The one place a call ends: record, `resolved`, answers, then remembered.
    pub(super) fn settle(&mut self, call_ref: CallRef, end: End<R>, now: f64) {
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
        let (ran_gate, ran_assurance, ran_approver, ran_verification) = match call.state {
            CallState::Running {
                gate,
                assurance,
                approver,
                verification,
            } => (gate, assurance, approver, verification),
            _ => (Gate::Fired, Assurance::None, None, None),
        };
        let ran = matches!(end, End::Ran(_));
        let mut note = None;
        let (outcome, record_outcome, gate, reason, approver) = match end {
            End::Ran(Ok(value)) => {
                let approver = ran_approver;
                let outcome = Outcome {
                    call_id: call.call_id.clone(),
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
                let approver = ran_approver;
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
                code,
                message,
                approver,
                note: said,
            } => {
                note = said;
                let outcome = failed(call.call_id.clone(), gate, code, message);
                (outcome, RecordOutcome::NotRun, gate, Some(reason), approver)
            }
        };
        let outcome = Rc::new(outcome);
        let record = ActionRecord {
            v: 1,
            seq: self.record_seq(),
            session_id: self.session_id.clone(),
            call_id: call.call_id,
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
            verification: ran_verification.filter(|_| ran),
            // A call that never ran was decided by nobody, whatever was under way (a passkey
            // prompt, a card someone was reading); one that ran and failed keeps what let it run.
            assurance: if ran { ran_assurance } else { Assurance::None },
            started_at: call.started_at,
            settled_at: now,
            note,
            grant: call.grant,
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
        for ticket in &call.waiters {
            self.answer(*ticket, outcome.clone());
        }
        self.memory.remember(
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

    /// Cancels every waiting call (of one action, or all), oldest first.
    pub(super) fn cancel_waiting(
        &mut self,
        action: Option<ActionId>,
        reason: CancelReason,
        now: f64,
    ) {
        // Settling takes the call out of `live` and changes no other call, so each pass finds
        // the next one still waiting (as `tick` does with the next one due).
        while let Some(call_ref) = self
            .live
            .iter()
            .find(|c| {
                !matches!(c.state, CallState::Running { .. })
                    && action.is_none_or(|a| c.action == a)
            })
            .map(|c| c.call_ref)
        {
            self.settle(call_ref, End::cancelled(reason, None), now);
        }
    }

    /// Cancels every waiting hard proposal (of the action named `action`, or all), oldest
    /// first, each with `note` (SPEC §12's "Cancel all"); how many it cancelled.
    pub(super) fn cancel_cards(
        &mut self,
        action: Option<&str>,
        reason: CancelReason,
        note: Option<String>,
        now: f64,
    ) -> usize {
        let mut cancelled = 0;
        while let Some(call_ref) = self
            .live
            .iter()
            .find(|c| {
                matches!(c.state, CallState::HardPending { .. })
                    && action.is_none_or(|name| c.name == name)
            })
            .map(|c| c.call_ref)
        {
            self.settle(call_ref, End::cancelled(reason, note.clone()), now);
            cancelled += 1;
        }
        cancelled
    }

    /// Answers a request refused on arrival and records it; it is not remembered, so a
    /// corrected retry with the same `callId` is judged afresh.
    pub(super) fn refuse(&mut self, req: Arrival<R>, gate: Gate, error: Error, now: f64) {
        let code = error.code();
        let message = error.message();
        self.refuse_with(req, gate, code, message, now);
    }

    /// Answers a request that arrived after [`dispose`](Engine::dispose) as cancelled, and
    /// records it.
    pub(super) fn refuse_disposed(&mut self, req: Arrival<R>, now: f64) {
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
        req: Arrival<R>,
        gate: Gate,
        code: &'static str,
        message: String,
        now: f64,
    ) {
        let call_id = match req.call_id {
            Some(id) => id,
            None => self.random_id(CALL_ID_PREFIX),
        };
        let outcome = failed(call_id.clone(), gate, code, message);
        let outcome = Rc::new(outcome);
        let record = ActionRecord {
            v: 1,
            seq: self.record_seq(),
            session_id: self.session_id.clone(),
            call_id,
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
            verification: None,
            assurance: Assurance::None,
            started_at: now,
            settled_at: now,
            note: None,
            grant: None,
            call: None,
        };
        self.effects.push_back(Effect::Record(record));
        self.answer(req.ticket, outcome);
    }

    /// Queues the answer to one `invoke`.
    pub(super) fn answer(&mut self, ticket: Ticket, outcome: Rc<Outcome<R>>) {
        self.effects.push_back(Effect::Answer { ticket, outcome });
    }
}
