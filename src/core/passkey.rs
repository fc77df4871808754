//! Passkey-verified confirmation (SPEC §4.1): what the engine and the card know of it, without
//! a browser.
//!
//! A hard action with `verify: "passkey"` fires only after a trusted, armed click on its card's
//! Confirm **and** a user-verified WebAuthn assertion over a [`Statement`] of exactly that call.
//! The engine makes the statement's fields ([`Engine::begin_passkey`]) and accepts a confirmation
//! only with a [`Verification`] that names the statement it made last for that call; the web
//! layer asks the browser for the assertion and checks it with [`assertion_accepted`] first.
//!
//! [`Engine::begin_passkey`]: crate::core::engine::Engine::begin_passkey

use std::rc::Rc;

use super::value::Value;

/// What a hard action asks beyond a trusted click on Confirm (the spec's `verify`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verify {
    /// `"passkey"`: a user-verified WebAuthn assertion over the call's statement.
    Passkey,
}

impl Verify {
    /// Reads the spec's `verify` string.
    pub fn parse(s: &str) -> Option<Verify> {
        match s {
            "passkey" => Some(Verify::Passkey),
            _ => None,
        }
    }
}

/// Whether `rp_id` can be a WebAuthn relying party id at all: a domain name, never an IP
/// address (the browser refuses those, so a page served on `127.0.0.1` has no passkeys; on
/// `localhost` it has).
pub fn rp_id_is_domain(rp_id: &str) -> bool {
    let ipv4 = rp_id.split('.').count() == 4
        && rp_id
            .split('.')
            .all(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()));
    !rp_id.is_empty() && !ipv4 && !rp_id.contains(':') && !rp_id.starts_with('[')
}

/// The statement format's version, its `v`.
pub const STATEMENT_VERSION: u8 = 1;

/// What the engine puts in one call's statement (SPEC §4.1). The host adds what only it knows
/// (`origin`, `rpId`) and writes the whole as canonical JSON, keys sorted, which is what the
/// passkey signs (its SHA-256 is the WebAuthn challenge).
#[derive(Clone, Debug, PartialEq)]
pub struct Statement<R> {
    /// The action's name.
    pub action: String,
    /// The call's argument snapshot.
    pub args: Rc<Value>,
    /// The host's own copy of the snapshot, as it handed it in.
    pub snapshot: Option<R>,
    /// The call's original `callId`.
    pub call_id: String,
    /// The engine's session.
    pub session_id: Rc<str>,
    /// 128 random bits, as 32 hex digits: a new one for every prompt.
    pub nonce: String,
    /// When the statement was made (the click), epoch ms.
    pub issued_at: f64,
    /// The card's expiry, epoch ms.
    pub expires_at: f64,
}

/// A passkey assertion the host accepted (see [`assertion_accepted`]), handed to
/// [`Engine::confirm`](crate::core::engine::Engine::confirm).
#[derive(Clone, Debug, PartialEq)]
pub struct Verification<R> {
    /// The nonce of the statement the assertion signed: it must be the last one the engine
    /// made for the call.
    pub nonce: String,
    /// The credential that signed, base64url (the record's `credentialId`).
    pub credential_id: String,
    /// `{ statement, credential }`, the host's object that `run` (`ctx.receipt`) and the record
    /// carry for the app's server to check.
    pub receipt: R,
}

/// Why an assertion the browser returned is not accepted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The authenticator did not verify the person (no PIN or biometric): the UV flag is unset.
    NotUserVerified,
    /// Signed by a credential the app did not name for this approver.
    OtherCredential,
    /// The authenticator data is too short to hold its flags.
    Malformed,
}

/// The flags byte of WebAuthn authenticator data follows the 32-byte RP ID hash; the signature
/// counter (4 bytes) follows it, so well-formed data is at least 37 bytes.
const FLAGS_AT: usize = 32;
const MIN_AUTHENTICATOR_DATA: usize = 37;
/// Flag bits: user present, user verified.
const USER_PRESENT: u8 = 0x01;
const USER_VERIFIED: u8 = 0x04;

/// Accepts an assertion only when its authenticator data says the person was present and
/// verified (UP and UV set) and it was made by one of `allowed` (base64url ids). The signature
/// itself is the app's server's to check: the page holds no public key.
pub fn assertion_accepted(
    authenticator_data: &[u8],
    credential_id: &str,
    allowed: &[String],
) -> Result<(), Refusal> {
    if authenticator_data.len() < MIN_AUTHENTICATOR_DATA {
        return Err(Refusal::Malformed);
    }
    let flags = authenticator_data[FLAGS_AT];
    if flags & USER_PRESENT == 0 || flags & USER_VERIFIED == 0 {
        return Err(Refusal::NotUserVerified);
    }
    if !allowed.iter().any(|id| id == credential_id) {
        return Err(Refusal::OtherCredential);
    }
    Ok(())
}
