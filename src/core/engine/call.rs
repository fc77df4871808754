//! A live call: what the engine keeps of a call from the moment it is admitted until it
//! settles, and the ways it can end.

use std::rc::Rc;

use super::types::CancelReason;
use crate::core::control::{Control, ControlSource};
use crate::core::error::Error;
use crate::core::ids::{ActionId, CallRef, ProposalId, Ticket};
use crate::core::record::{Approver, Gate, Outcome, Via};
use crate::core::value::Value;

/// Where a live call stands.
pub(super) enum CallState {
    /// A soft call waiting for its token (which is also kept in `Call::token`).
    SoftWaiting { expires_at: f64 },
    /// A hard call whose card waits in the card queue.
    HardPending { expires_at: f64 },
    /// `Run` was emitted; waiting for `run_finished`.
    Running {
        gate: Gate,
        approver: Option<Approver>,
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
    pub(super) proposal: Option<ProposalId>,
    pub(super) state: CallState,
    /// The tickets waiting for its outcome, in arrival order.
    pub(super) waiters: Vec<Ticket>,
}

impl<R> Call<R> {
    /// When a waiting call expires; `None` once it runs.
    pub(super) fn deadline(&self) -> Option<f64> {
        match self.state {
            CallState::SoftWaiting { expires_at } | CallState::HardPending { expires_at } => {
                Some(expires_at)
            }
            CallState::Running { .. } => None,
        }
    }

    /// Who confirmed it, once it runs.
    pub(super) fn running_approver(&self) -> Option<Approver> {
        match &self.state {
            CallState::Running { approver, .. } => approver.clone(),
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
        reason: &'static str,
        message: String,
        approver: Option<Approver>,
    },
}

impl<R> End<R> {
    /// Cancelled before it ran.
    pub(super) fn cancelled(reason: CancelReason) -> Self {
        End::NotRun {
            gate: Gate::Cancelled,
            reason: reason.as_str(),
            message: reason.message().into(),
            approver: None,
        }
    }

    /// Nobody confirmed it in time.
    pub(super) fn expired() -> Self {
        End::NotRun {
            gate: Gate::Timeout,
            reason: "expired",
            message: "nobody confirmed this call before it expired".into(),
            approver: None,
        }
    }

    /// The user said no to a soft call.
    pub(super) fn declined() -> Self {
        End::NotRun {
            gate: Gate::Cancelled,
            reason: "declined",
            message: "the user declined this call".into(),
            approver: None,
        }
    }

    /// An element action confirmed while Hand mode is off: it settles without touching the
    /// page.
    pub(super) fn hand_mode_off(approver: Option<Approver>) -> Self {
        End::NotRun {
            gate: Gate::NeedsHandMode,
            reason: Error::HandModeOff.code(),
            message: Error::HandModeOff.message(),
            approver,
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
