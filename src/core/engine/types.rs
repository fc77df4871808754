//! The engine's public types: what the host hands in ([`Config`], [`ActionDef`],
//! [`InvokeRequest`], [`CancelReason`]) and what it gets back ([`Effect`], [`ProposalInfo`]).
//! The ids they carry live in [`ids`](crate::core::ids); outcomes and records in
//! [`record`](crate::core::record).

use std::rc::Rc;

use crate::core::control::Control;
use crate::core::error::Error;
use crate::core::ids::{ActionId, CallRef, ProposalId, Ticket};
use crate::core::passkey::Verify;
use crate::core::record::{ActionRecord, Approver, Outcome, Via};
use crate::core::schema::Schema;
use crate::core::value::Value;

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
    /// How a number in a message prints (a schema's bound: `must be at most 0.5`), and how a
    /// number that is not a safe integer is measured against `max_args_bytes`. The web layer
    /// passes the browser's own `String(n)`, so both agree with what `JSON.stringify` prints
    /// for the same args; the default is Rust's `Display`, which agrees with it for the numbers
    /// schemas hold.
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
    /// `verify`: what a hard call needs beyond a trusted click on Confirm (SPEC §4.1).
    pub verify: Option<Verify>,
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
            verify: None,
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
    /// The registration the host already resolved `name` to ([`Engine::action`]), so the name
    /// is looked up once per call: the call then goes to that registration or, when it was
    /// unregistered meanwhile (while an async check ran), is an unknown action — never to a
    /// later registration of the same name, which the host's checks did not see. `None`: the
    /// engine looks the name up.
    ///
    /// [`Engine::action`]: super::Engine::action
    pub action: Option<ActionId>,
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
    /// The door it came through.
    pub via: Via,
    /// A soft token from an earlier `needs_confirmation`.
    pub confirm_token: Option<String>,
    /// With the token: the user said no.
    pub decline: bool,
    /// With `decline` and the token: the user's reason, in their words (SPEC §12). Anywhere
    /// else the request is refused (`invalid_args`): an agent never puts words in a person's
    /// mouth that a record would show as theirs.
    pub reason: Option<String>,
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
            action: None,
            args: Ok(Rc::new(args)),
            snapshot: None,
            via: Via::Invoke,
            call_id: None,
            confirm_token: None,
            decline: false,
            reason: None,
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

    /// The outcome's message for a call cancelled this way.
    pub(super) fn message(self) -> &'static str {
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

/// What the host must do next, drained with [`Engine::poll_effect`](super::Engine::poll_effect) in order.
///
/// A `Record` is the largest variant (about 300 bytes on a 64-bit host, half that in wasm32). It
/// is not boxed: every settled call makes one, and effects live only in the engine's queue until
/// the host drains them, so a box would be one more allocation per call for no memory saved.
#[allow(clippy::large_enum_variant)]
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
    /// [`Engine::run_finished`](super::Engine::run_finished). Emitted at most once per call.
    Run {
        /// The call, for `run_finished`.
        call: CallRef,
        /// The registration to run.
        action: ActionId,
        /// The original `callId` (`ctx.callId`).
        call_id: String,
        /// Effective level (`ctx.control`).
        control: Control,
        /// The frozen snapshot.
        args: Rc<Value>,
        /// The host's copy of it.
        snapshot: Option<R>,
        /// Who confirmed (`ctx.approver`), for hard calls.
        approver: Option<Approver>,
        /// The passkey receipt (`ctx.receipt`), for `verify: "passkey"` calls.
        receipt: Option<R>,
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
        /// What confirming needs beyond a trusted click (the card asks for a passkey).
        verify: Option<Verify>,
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
    /// The live grants changed: one was created, used, revoked, expired, or all ended at
    /// `dispose` ([`Engine::grants`](super::Engine::grants) lists them now).
    GrantsChanged,
    /// Dev warning: this action's name reads destructive, so its level was raised.
    /// Once per action name per engine.
    Nudge {
        /// Action name.
        action: String,
        /// The level it got.
        control: Control,
    },
}
