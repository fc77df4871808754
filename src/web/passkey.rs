//! The browser's side of passkey-verified confirmation (SPEC §4.1): the `passkey` option, whether
//! the page can ask for a passkey at all, the app's credential ids, and the prompt itself —
//! [`navigator.credentials.get`](https://developer.mozilla.org/en-US/docs/Web/API/CredentialsContainer/get)
//! with user verification required, over the SHA-256 of the call's statement, which `passkey.js`
//! asks for (hashing, asking and base64url are all the browser's own jobs).
//!
//! A leaf: it knows nothing of the instance or the engine. What it gets back from the browser
//! is judged by [`core::passkey`](crate::core::passkey), and only the engine confirms.

use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortController, AbortSignal};

use super::convert::get;
use super::js;
use crate::core::engine::ProposalId;
use crate::core::error::Error;
use crate::core::passkey::rp_id_is_domain;

/// The browser prompt's timeout when the option gives none.
const DEFAULT_TIMEOUT_MS: f64 = 60_000.0;

/// The `passkey` option (SPEC §2), read.
#[derive(Clone)]
pub(crate) struct PasskeyOptions {
    /// `rpId`; `None`: the page's own hostname.
    rp_id: Option<String>,
    /// `credentials(approver)`: the base64url ids that may confirm, or a promise of them.
    credentials: Function,
    /// `timeoutMs`: the browser prompt's timeout.
    timeout_ms: f64,
}

impl PasskeyOptions {
    /// Reads `options.passkey`; `None` when absent.
    pub(crate) fn read(options: &JsValue) -> Result<Option<PasskeyOptions>, Error> {
        let passkey = get(options, "passkey");
        if passkey.is_undefined() || passkey.is_null() {
            return Ok(None);
        }
        let invalid = |what: &str| Error::InvalidSpec(format!("options: passkey.{what}"));
        if !passkey.is_object() {
            return Err(Error::InvalidSpec(
                "options: passkey must be an object".into(),
            ));
        }
        let credentials = get(&passkey, "credentials")
            .dyn_into::<Function>()
            .map_err(|_| invalid("credentials must be a function of the approver"))?;
        let rp_id = match get(&passkey, "rpId") {
            v if v.is_undefined() => None,
            v => match v.as_string() {
                Some(id) if !id.is_empty() => Some(id),
                _ => return Err(invalid("rpId must be a non-empty string")),
            },
        };
        let timeout_ms = match get(&passkey, "timeoutMs") {
            v if v.is_undefined() => DEFAULT_TIMEOUT_MS,
            v => match v.as_f64() {
                Some(ms) if ms.is_finite() && ms >= 1.0 => ms,
                _ => return Err(invalid("timeoutMs must be a positive finite number")),
            },
        };
        Ok(Some(PasskeyOptions {
            rp_id,
            credentials,
            timeout_ms,
        }))
    }

    /// The relying party id: the option's, else the page's hostname.
    pub(crate) fn rp_id(&self) -> String {
        self.rp_id.clone().unwrap_or_else(|| {
            js::window()
                .and_then(|w| w.location().hostname().ok())
                .unwrap_or_default()
        })
    }

    /// What the app answers to `passkey.credentials(approver)` (a JS approver object or
    /// `null`): the ids, or a promise of them, for `passkey.js` to check; a throw is
    /// `passkey_unavailable`.
    pub(crate) fn credentials_for(&self, approver: &JsValue) -> Result<JsValue, Error> {
        self.credentials
            .call1(&JsValue::UNDEFINED, approver)
            .map_err(|thrown| {
                let why = super::objects::message_of(&thrown);
                Error::PasskeyUnavailable(format!("passkey.credentials threw: {why}"))
            })
    }

    /// The prompt's timeout, in milliseconds.
    pub(crate) fn timeout_ms(&self) -> f64 {
        self.timeout_ms
    }
}

/// The options, when a passkey can be asked for in this page; else why not: no `passkey`
/// option, no page, not a secure context, no WebAuthn, or an IP address as the relying party.
pub(crate) fn usable(options: Option<&PasskeyOptions>) -> Result<&PasskeyOptions, Error> {
    let why = match (options, js::window()) {
        (None, _) => "the passkey option is missing: new Coworkkit({ passkey: { credentials } })",
        (_, None) => "passkeys need a page",
        (_, Some(window)) if !window.is_secure_context() => {
            "passkeys need a secure context (https, or localhost)"
        }
        (_, Some(window))
            if !(get(&window, "PublicKeyCredential").is_function()
                && get(&get(&window.navigator(), "credentials"), "get").is_function()) =>
        {
            "this browser has no WebAuthn (PublicKeyCredential)"
        }
        (Some(options), _) if !rp_id_is_domain(&options.rp_id()) => {
            "passkeys need a domain name as the relying party id, not an IP address (serve the \
             page on localhost or a real name)"
        }
        (Some(options), _) => return Ok(options),
    };
    Err(Error::PasskeyUnavailable(why.into()))
}

/// An assertion the browser gave, before it is judged.
pub(crate) struct Assertion {
    /// The credential's id, base64url.
    pub(crate) credential_id: String,
    /// Its authenticator data (flags at byte 32).
    pub(crate) authenticator_data: Vec<u8>,
    /// The assertion in the `PublicKeyCredential.toJSON()` shape.
    pub(crate) credential: JsValue,
    /// The ids the app named, which the prompt was asked with.
    pub(crate) allowed: Vec<String>,
}

/// Why a prompt gave no assertion.
pub(crate) enum Unanswered {
    /// The app names no passkey for this person.
    NoCredential,
    /// Dismissed, timed out, aborted, or the app's ids could not be used.
    Failed,
}

/// Asks the browser (`passkey.js`) for a user-verified assertion by one of the ids the app
/// answered (`answer`, checked there) over the SHA-256 of `statement`. Aborting `signal` ends the
/// prompt.
pub(crate) async fn ask(
    statement: &str,
    rp_id: &str,
    answer: &JsValue,
    timeout_ms: f64,
    signal: &AbortSignal,
) -> Result<Assertion, Unanswered> {
    let asked = js::passkey_ask(statement, rp_id, answer, timeout_ms, signal);
    match JsFuture::from(asked).await {
        Ok(assertion) => {
            let assertion: js::PasskeyAssertion = assertion.unchecked_into();
            Ok(Assertion {
                credential_id: assertion.credential_id(),
                authenticator_data: assertion.authenticator_data(),
                credential: assertion.credential(),
                allowed: assertion.allowed(),
            })
        }
        Err(thrown) if get(&thrown, "name").as_string().as_deref() == Some("NotFoundError") => {
            Err(Unanswered::NoCredential)
        }
        Err(_) => Err(Unanswered::Failed),
    }
}

/// The prompt open for a card.
pub(crate) struct OpenPrompt {
    pub(crate) proposal: ProposalId,
    /// The nonce of the statement it asks to sign.
    pub(crate) nonce: String,
    pub(crate) abort: AbortController,
}

/// What the arrival check of a passkey call found.
pub(crate) enum ArrivalCheck {
    /// It cannot be confirmed here: `passkey_unavailable`, saying why.
    Refused(Error),
    /// The app's credential ids, checked: the instance judges what it settles with.
    Later(Promise),
}
