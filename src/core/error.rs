//! One error type with stable machine codes (the `code` property of errors and outcomes).

use std::fmt;

/// Every code an outcome, a record's `reason` or a thrown error can carry: each
/// [`Error::code`], then the reasons a call is cancelled or timed out with. A code crosses to
/// JavaScript as its index here ([`code_number`]; codes.js `CODES` is the same list).
pub const CODES: [&str; 27] = [
    "unknown_action",
    "invalid_args",
    "args_too_large",
    "bad_token",
    "token_expired",
    "call_id_conflict",
    "too_many_pending",
    "element_unavailable",
    "invalid_spec",
    "duplicate_action",
    "not_admin",
    "run_failed",
    "needs_user_activation",
    "disposed",
    "hand_mode_off",
    "unknown_proposal",
    "proposal_not_visible",
    "model_context_unavailable",
    "model_context_refused",
    "passkey_unavailable",
    "passkey_required",
    "invalid_grant",
    "cancelled_by_user",
    "cancelled_by_app",
    "action_disposed",
    "declined",
    "expired",
];

/// A code's index in [`CODES`]; every code the crate makes is there (a host test checks).
pub fn code_number(code: &str) -> Option<u8> {
    CODES.iter().position(|c| *c == code).map(|at| at as u8)
}

/// Everything that can go wrong, each with a stable [`code`](Error::code) and a human message.
#[derive(Clone, Debug, PartialEq)]
pub enum Error {
    /// No live action has this name.
    UnknownAction(String),
    /// The arguments break the schema; the message names the failing path (`args.items[2]`).
    InvalidArgs(String),
    /// The arguments' JSON is larger than `maxArgsBytes`.
    ArgsTooLarge {
        /// Size of the arguments' JSON in UTF-8 bytes.
        size: usize,
        /// The configured limit.
        max: usize,
    },
    /// A confirm token that is unknown, forged, or bound to other args or another action.
    BadToken,
    /// A confirm token presented after its expiry.
    TokenExpired,
    /// The same `callId` arrived with different args or for another action.
    CallIdConflict,
    /// Too many calls already wait for confirmation.
    TooManyPending,
    /// An element action's element is missing, disabled, hidden or the SDK's own.
    ElementUnavailable(String),
    /// An action spec (or its schema) is malformed.
    InvalidSpec(String),
    /// An action with this name is already registered.
    DuplicateAction(String),
    /// The approver's role may not confirm this card.
    NotAdmin,
    /// The action's `run` threw or rejected; it is never retried.
    RunFailed(String),
    /// `armHandMode()` was called outside a user gesture.
    NeedsUserActivation,
    /// The instance was disposed.
    Disposed,
    /// An element action was called while Hand mode is off.
    HandModeOff,
    /// No waiting proposal has this id (never existed, or already settled or claimed).
    UnknownProposal,
    /// The proposal waits, but behind another card: only the visible card can be confirmed.
    ProposalNotVisible,
    /// `exposeToModelContext()` found no model context (none given, none on `document` or
    /// `navigator`).
    ModelContextUnavailable,
    /// The model context refused to register the tool of this action.
    ModelContextRefused(String),
    /// A `verify: "passkey"` call cannot be confirmed here: no WebAuthn (or not a secure
    /// context), no `passkey` option, or no credential for this approver. The message says
    /// which.
    PasskeyUnavailable(String),
    /// A `verify: "passkey"` proposal was confirmed without an accepted assertion over the
    /// statement made last for it.
    PasskeyRequired,
    /// `ck.grant` for an action that cannot be granted (not a live soft action) or with bad
    /// options; the message says which.
    InvalidGrant(String),
}

impl Error {
    /// The stable machine code, e.g. `"invalid_args"`.
    pub fn code(&self) -> &'static str {
        match self {
            Error::UnknownAction(_) => "unknown_action",
            Error::InvalidArgs(_) => "invalid_args",
            Error::ArgsTooLarge { .. } => "args_too_large",
            Error::BadToken => "bad_token",
            Error::TokenExpired => "token_expired",
            Error::CallIdConflict => "call_id_conflict",
            Error::TooManyPending => "too_many_pending",
            Error::ElementUnavailable(_) => "element_unavailable",
            Error::InvalidSpec(_) => "invalid_spec",
            Error::DuplicateAction(_) => "duplicate_action",
            Error::NotAdmin => "not_admin",
            Error::RunFailed(_) => "run_failed",
            Error::NeedsUserActivation => "needs_user_activation",
            Error::Disposed => "disposed",
            Error::HandModeOff => "hand_mode_off",
            Error::UnknownProposal => "unknown_proposal",
            Error::ProposalNotVisible => "proposal_not_visible",
            Error::ModelContextUnavailable => "model_context_unavailable",
            Error::ModelContextRefused(_) => "model_context_refused",
            Error::PasskeyUnavailable(_) => "passkey_unavailable",
            Error::PasskeyRequired => "passkey_required",
            Error::InvalidGrant(_) => "invalid_grant",
        }
    }
}

impl Error {
    /// The human message (what `Display` prints).
    pub fn message(&self) -> String {
        let text = match self {
            Error::UnknownAction(name) => return format!("no action named `{name}` is registered"),
            Error::InvalidArgs(message)
            | Error::InvalidSpec(message)
            | Error::ElementUnavailable(message)
            | Error::RunFailed(message)
            | Error::PasskeyUnavailable(message)
            | Error::InvalidGrant(message) => message,
            Error::ArgsTooLarge { size, max } => {
                return format!("args are {size} bytes of JSON, more than the {max} allowed")
            }
            Error::BadToken => {
                "confirmToken does not match this call (unknown, or issued for other args or another action)"
            }
            Error::TokenExpired => {
                "confirmToken has expired; call again without it to get a new one"
            }
            Error::CallIdConflict => {
                "this callId was already used with different args or another action"
            }
            Error::TooManyPending => "too many calls are already waiting for confirmation",
            Error::DuplicateAction(name) => {
                return format!("an action named `{name}` is already registered")
            }
            Error::NotAdmin => "this approver's role may not confirm this action",
            Error::NeedsUserActivation => {
                "only a person can do this: call it in the handler of a person's click or key \
                 press (e.g. your own button's onClick), not from a timer, a later promise or \
                 page load. In automated tests, Playwright's and puppeteer's page.evaluate \
                 counts as a gesture, a page script does not"
            }
            Error::Disposed => "this coworkkit instance was disposed",
            Error::HandModeOff => {
                "Hand mode is off: the user has not allowed the agent to use this page"
            }
            Error::UnknownProposal => "no proposal with this id is waiting",
            Error::ProposalNotVisible => "only the visible confirmation card can be confirmed",
            Error::ModelContextUnavailable => {
                "no model context: pass options.modelContext, or run where document.modelContext \
                 (WebMCP) or navigator.modelContext (a polyfill) exists"
            }
            Error::PasskeyRequired => {
                "this action is confirmed only with the person's passkey, over this call's statement"
            }
            Error::ModelContextRefused(name) => {
                return format!("the model context refused to register the tool `{name}`")
            }
        };
        text.into()
    }
}

impl Error {
    /// The message of the `Error` thrown to JavaScript: `coworkkit: <message> (code: <code>)`,
    /// so that a stack trace or a log line alone says where it came from and which code it is.
    pub fn thrown_message(&self) -> String {
        format!("coworkkit: {} (code: {})", self.message(), self.code())
    }
}

/// The console warning for an action declared with a `confirmationSummary` but gated `control`
/// (not `"hard"`): no card shows it.
pub fn summary_unseen(action: &str, control: &str) -> String {
    format!(
        "coworkkit: action \"{action}\" has a confirmationSummary, but it is gated \"{control}\", \
         and the summary is shown only on a hard action's card. Declare control: \"hard\" to \
         show it, or drop confirmationSummary."
    )
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())
    }
}

impl std::error::Error for Error {}
