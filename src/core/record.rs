//! What the agent gets back ([`Outcome`]) and what the app's audit log gets ([`ActionRecord`]).

use std::rc::Rc;

use super::control::{Control, ControlSource};
use super::ids::{CallRef, GrantId};
use super::passkey::Verification;
use super::value::Value;

/// Where a call stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Gate {
    /// An open call ran.
    Fired,
    /// A soft call's first answer: not run, a token was issued (never recorded).
    NeedsConfirmation,
    /// An element action while Hand mode is off: nothing was touched.
    NeedsHandMode,
    /// A soft call confirmed with its token, or a hard call confirmed on the card, ran.
    Confirmed,
    /// Declined, cancelled by the user or the app, or disposed.
    Cancelled,
    /// Nobody confirmed before the expiry.
    Timeout,
    /// Refused on arrival (bad input); nothing ran.
    Rejected,
}

impl Gate {
    /// Every gate, in the order of their numbers (`gate as u8`, which is what crosses to
    /// JavaScript: codes.js `GATES` names them in this order).
    pub const ALL: [Gate; 7] = [
        Gate::Fired,
        Gate::NeedsConfirmation,
        Gate::NeedsHandMode,
        Gate::Confirmed,
        Gate::Cancelled,
        Gate::Timeout,
        Gate::Rejected,
    ];

    /// `"fired"`, `"needs_confirmation"`, `"needs_hand_mode"`, `"confirmed"`, `"cancelled"`,
    /// `"timeout"` or `"rejected"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Gate::Fired => "fired",
            Gate::NeedsConfirmation => "needs_confirmation",
            Gate::NeedsHandMode => "needs_hand_mode",
            Gate::Confirmed => "confirmed",
            Gate::Cancelled => "cancelled",
            Gate::Timeout => "timeout",
            Gate::Rejected => "rejected",
        }
    }

    /// Every gate but `needs_confirmation` ends the call.
    pub fn is_terminal(self) -> bool {
        self != Gate::NeedsConfirmation
    }
}

/// The door a call came through (SPEC §6): its record's `via`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Via {
    /// `ck.invoke(call)`.
    #[default]
    Invoke,
    /// `ck.handleToolCall(providerCall)`.
    ToolCall,
    /// A tool's `execute` called by the browser's own agent (WebMCP).
    WebMcp,
}

impl Via {
    /// Every door, in the order of their numbers (codes.js `VIAS`).
    pub const ALL: [Via; 3] = [Via::Invoke, Via::ToolCall, Via::WebMcp];

    /// `"invoke"`, `"tool_call"` or `"webmcp"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Via::Invoke => "invoke",
            Via::ToolCall => "tool_call",
            Via::WebMcp => "webmcp",
        }
    }
}

/// What stands behind the decision that let a call run (SPEC §6): its record's `assurance`.
///
/// Each says the strongest thing the engine itself saw decide the call, and no more: a soft
/// token is the agent's word, a trusted click may be an agent that drives the browser's input,
/// and a passkey proves a verified person answered a prompt over this call's statement, not
/// which card they read. A call that ran and failed keeps the assurance of what let it run; a
/// call that never ran has none.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Assurance {
    /// Nothing decided it: an open call, or a call that did not run (rejected, cancelled,
    /// declined, timed out, needs Hand mode).
    None,
    /// A soft call confirmed with its token: the agent says the person agreed. The agent holds
    /// the token, so an agent that lies fires it too.
    Agent,
    /// A soft call fired at once by a grant a person made during their own gesture (SPEC §12).
    Grant,
    /// A hard card confirmed by trusted input on its armed Confirm: a person, or an agent that
    /// drives the browser's input (to the page, the two are the same).
    Input,
    /// A user-verified passkey assertion over this call's statement, made on this device
    /// (SPEC §4.1). It does not prove which card the person read: an agent that drives this
    /// browser can swap the card under their finger.
    Passkey,
    /// A user-verified passkey assertion made on another device that drew the call from its
    /// statement (SPEC §4.3). Reserved: nothing confirms a call this way yet.
    OtherDevice,
}

impl Assurance {
    /// Every assurance, in the order of their numbers (`assurance as u8`, which is what
    /// crosses to JavaScript: codes.js `ASSURANCES` names them in this order).
    pub const ALL: [Assurance; 6] = [
        Assurance::None,
        Assurance::Agent,
        Assurance::Grant,
        Assurance::Input,
        Assurance::Passkey,
        Assurance::OtherDevice,
    ];

    /// `"none"`, `"agent"`, `"grant"`, `"input"`, `"passkey"` or `"other-device"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Assurance::None => "none",
            Assurance::Agent => "agent",
            Assurance::Grant => "grant",
            Assurance::Input => "input",
            Assurance::Passkey => "passkey",
            Assurance::OtherDevice => "other-device",
        }
    }
}

/// The person who confirmed a hard card.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Approver {
    /// Who (the app's own user id).
    pub id: String,
    /// Their role, matched against the action's `approvers`.
    pub role: Option<String>,
}

/// The answer to one `invoke`.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome<R> {
    /// The call's (original) `callId`.
    pub call_id: String,
    /// Where the call stands.
    pub gate: Gate,
    /// True only when `run` ran and succeeded.
    pub ok: bool,
    /// What `run` returned; absent when it failed or the action has `shareResult: false`.
    pub result: Option<R>,
    /// `(code, message)` for every outcome that is not ok and not `needs_confirmation`:
    /// the error code for rejections and failures, the reason for cancellations, timeouts and
    /// `needs_hand_mode`.
    pub error: Option<(&'static str, String)>,
    /// The soft token (only with `needs_confirmation`).
    pub confirm_token: Option<String>,
    /// Absolute expiry of the token, epoch ms (only with `needs_confirmation`).
    pub expires_at: Option<f64>,
}

/// A record's `outcome`.
#[derive(Clone, Debug, PartialEq)]
pub enum RecordOutcome<R> {
    /// `run` succeeded; `value` is absent when the action has `recordResult: false`.
    Ok {
        /// What `run` returned.
        value: Option<R>,
    },
    /// `run` failed.
    Error {
        /// Stable code (`run_failed`, `element_unavailable`, …).
        code: &'static str,
        /// Human message.
        message: String,
    },
    /// Nothing ran (rejected, cancelled, timed out, needs Hand mode).
    NotRun,
}

/// A record outcome's `status` names, in the order of their numbers (codes.js `STATUSES`).
pub const STATUSES: [&str; 3] = ["ok", "error", "not_run"];

impl<R> RecordOutcome<R> {
    /// The status's number: its index in [`STATUSES`].
    pub fn status_number(&self) -> u8 {
        match self {
            RecordOutcome::Ok { .. } => 0,
            RecordOutcome::Error { .. } => 1,
            RecordOutcome::NotRun => 2,
        }
    }

    /// `"ok"`, `"error"` or `"not_run"`.
    pub fn status(&self) -> &'static str {
        STATUSES[usize::from(self.status_number())]
    }
}

/// One settled call (SPEC §6). Exactly one per settled call; none for `needs_confirmation`.
#[derive(Clone, Debug, PartialEq)]
pub struct ActionRecord<R> {
    /// Record format version: 1.
    pub v: u8,
    /// The record's number in its session, from 1: the JS record's `id` is
    /// `<sessionId>.<seq>` (made where the record becomes a JS object).
    pub seq: u64,
    /// The engine's session.
    pub session_id: Rc<str>,
    /// The call's original `callId`.
    pub call_id: String,
    /// Action name as called.
    pub action: String,
    /// Effective level.
    pub control: Control,
    /// Why that level.
    pub control_source: ControlSource,
    /// Terminal gate.
    pub gate: Gate,
    /// How it went.
    pub outcome: RecordOutcome<R>,
    /// The argument snapshot (`null` when the host could not read the args at all).
    pub args: Rc<Value>,
    /// The host's own copy of the snapshot, when it handed one in.
    pub snapshot: Option<R>,
    /// Who confirmed a hard card.
    pub approver: Option<Approver>,
    /// Machine code for rejected / cancelled / timeout / needs_hand_mode (one of
    /// [`CODES`](super::error::CODES)).
    pub reason: Option<&'static str>,
    /// The door the call came through; for a soft call, the door of its first call (the one
    /// that got the token).
    pub via: Via,
    /// The passkey assertion that confirmed a `verify: "passkey"` call that ran.
    pub verification: Option<Verification<R>>,
    /// What stands behind the decision that let it run; [`Assurance::None`] when it did not.
    pub assurance: Assurance,
    /// Epoch ms of the first invoke of this call.
    pub started_at: f64,
    /// Epoch ms of settlement.
    pub settled_at: f64,
    /// The person's own words when they said no with a reason (SPEC §12), cleaned by
    /// [`reason_text`](super::card::reason_text).
    pub note: Option<String>,
    /// The remembered grant that let a soft call fire without a token (SPEC §12).
    pub grant: Option<GrantId>,
    /// The admitted call this record settles; `None` for a call refused on arrival (it never
    /// became a call). Not part of the JS record.
    pub call: Option<CallRef>,
}
