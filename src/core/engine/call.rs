//! A live call: what the engine keeps of a call from the moment it is admitted until it
//! settles, and the ways it can end.

use std::rc::Rc;

use super::types::CancelReason;
use crate::core::control::{Control, ControlSource};
use crate::core::error::Error;
use crate::core::ids::{ActionId, CallRef, GrantId, ProposalId, Ticket};
use crate::core::passkey::Verification;
use crate::core::record::{Approver, Assurance, Gate, Outcome, Via};
use crate::core::value::Value;

/// Where a live call stands.
pub(super) enum CallState<R> {
    /// A soft call waiting for its token (which is also kept in `Call::token`).
    SoftWaiting { expires_at: f64 },
    /// A hard call whose card waits in the card queue. `nonce`: for a passkey action, the
    /// nonce of the last statement made for it (the one an assertion must have signed).
    HardPending {
        expires_at: f64,
        nonce: Option<String>,
    },
    /// `Run` was emitted; waiting for `run_finished`. `assurance`: what let it run, which its
    /// record carries however the run ends.
    Running {
        gate: Gate,
        assurance: Assurance,
        approver: Option<Approver>,
        verification: Option<Verification<R>>,
    },
}

/// A call that was admitted and has not settled.
pub(super) struct Call<R> {
    pub(super) call_ref: CallRef,
    pub(super) call_id: String,
    /// Other `callId`s that joined it (confirming calls, token replays).
    pub(super) aliases: Vec<String>,
    pub(super) action: ActionId,
    pub(super) name: String,
    pub(super) control: Control,
    pub(super) source: ControlSource,
    pub(super) args: Rc<Value>,
    pub(super) snapshot: Option<R>,
    pub(super) via: Via,
    pub(super) started_at: f64,
    pub(super) share_result: bool,
    pub(super) record_result: bool,
    pub(super) element: bool,
    pub(super) token: Option<String>,
    /// The grant that let it fire without a token (a soft call).
    pub(super) grant: Option<GrantId>,
    pub(super) proposal: Option<ProposalId>,
    pub(super) state: CallState<R>,
    /// The tickets waiting for its outcome, in arrival order.
    pub(super) waiters: Vec<Ticket>,
}

impl<R> Call<R> {
    /// When a waiting call expires; `None` once it runs.
    pub(super) fn deadline(&self) -> Option<f64> {
        match self.state {
            CallState::SoftWaiting { expires_at } | CallState::HardPending { expires_at, .. } => {
                Some(expires_at)
            }
            CallState::Running { .. } => None,
        }
    }

    /// The nonce of the last passkey statement made for this waiting hard call.
    pub(super) fn statement_nonce(&self) -> Option<&str> {
        match &self.state {
            CallState::HardPending { nonce, .. } => nonce.as_deref(),
            _ => None,
        }
    }
}

/// How a call ended.
pub(super) enum End<R> {
    /// Its `run` finished with this.
    Ran(Result<R, Error>),
    /// It settled without running.
    NotRun {
        gate: Gate,
        /// The record's `reason`.
        reason: &'static str,
        /// The outcome's error code: `reason`, or `declined` when the person said why.
        code: &'static str,
        message: String,
        approver: Option<Approver>,
        /// The person's reason, for the record's `note`.
        note: Option<String>,
    },
}

impl<R> End<R> {
    /// Cancelled before it ran; with `note`, the person's reason (already cleaned).
    pub(super) fn cancelled(reason: CancelReason, note: Option<String>) -> Self {
        Self::said_no(Gate::Cancelled, reason.as_str(), reason.message(), note)
    }

    /// Nobody confirmed it in time.
    pub(super) fn expired() -> Self {
        Self::said_no(
            Gate::Timeout,
            "expired",
            "nobody confirmed this call before it expired",
            None,
        )
    }

    /// The user said no to a soft call; with `note`, why (already cleaned).
    pub(super) fn declined(note: Option<String>) -> Self {
        Self::said_no(
            Gate::Cancelled,
            "declined",
            "the user declined this call",
            note,
        )
    }

    /// Settled without running for `reason`; a `note` makes the outcome `declined`, its
    /// message quoting the person's words.
    fn said_no(gate: Gate, reason: &'static str, message: &str, note: Option<String>) -> Self {
        let (code, message) = match &note {
            Some(note) => ("declined", format!("{message}, saying: \"{note}\"")),
            None => (reason, message.into()),
        };
        End::NotRun {
            gate,
            reason,
            code,
            message,
            approver: None,
            note,
        }
    }

    /// An element action confirmed while Hand mode is off: it settles without touching the
    /// page.
    pub(super) fn hand_mode_off(approver: Option<Approver>) -> Self {
        let code = Error::HandModeOff.code();
        End::NotRun {
            gate: Gate::NeedsHandMode,
            reason: code,
            code,
            message: Error::HandModeOff.message(),
            approver,
            note: None,
        }
    }
}

/// The outcome of a call that did not succeed.
pub(super) fn failed<R>(
    call_id: String,
    gate: Gate,
    code: &'static str,
    message: String,
) -> Outcome<R> {
    Outcome {
        call_id,
        gate,
        ok: false,
        result: None,
        error: Some((code, message)),
        confirm_token: None,
        expires_at: None,
    }
}

/// The answer to a soft call: confirm with this token before `expires_at`.
pub(super) fn needs_confirmation<R>(call_id: String, token: String, expires_at: f64) -> Outcome<R> {
    Outcome {
        call_id,
        gate: Gate::NeedsConfirmation,
        ok: false,
        result: None,
        error: None,
        confirm_token: Some(token),
        expires_at: Some(expires_at),
    }
}
