//! The instance's side of passkey-verified confirmation (SPEC §4.1): the arrival check of a
//! `verify: "passkey"` call, and the prompt that a trusted, armed click on its card starts.
//!
//! One prompt at a time: a card waiting for its prompt ignores Confirm, and a prompt started
//! while another is open (it cannot happen through the card) aborts the older one. The prompt
//! ends when its card closes for any reason (confirmed, cancelled, expired, disposed): its
//! `AbortSignal` aborts the browser's prompt, and an answer that arrives anyway finds no open
//! prompt of that nonce and is dropped. The engine, too, confirms only with an assertion over the
//! statement it made last for the call.

use wasm_bindgen::prelude::*;
use web_sys::{AbortController, AbortSignal};

use super::Instance;
use crate::core::card::PasskeyStatus;
use crate::core::engine::ProposalId;
use crate::core::error::Error;
use crate::core::passkey::{assertion_accepted, Refusal, Verification};
use crate::core::record::Approver;
use crate::web::convert::write_frozen;
use crate::web::js;
use crate::web::objects::{approver_js, message_of};
use crate::web::passkey::{self, ask, ArrivalCheck, Assertion, OpenPrompt, Unanswered};
use crate::web::time::now;

impl Instance {
    /// Judges what the promise of [`ArrivalCheck::Later`] settled with: `None` when there is a
    /// passkey to ask for.
    pub(super) fn ids_on_arrival(&self, settled: Result<JsValue, JsValue>) -> Option<Error> {
        settled
            .err()
            .map(|why| Error::PasskeyUnavailable(message_of(&why)))
    }

    /// Whether a `verify: "passkey"` call that just arrived could be confirmed here (SPEC §4.1):
    /// WebAuthn in a secure context, the `passkey` option, and at least one credential id for
    /// the approver at the keyboard.
    pub(super) fn passkey_on_arrival(&self) -> ArrivalCheck {
        let options = match passkey::usable(self.options.passkey.as_ref()) {
            Ok(options) => options,
            Err(why) => return ArrivalCheck::Refused(why),
        };
        let approver = self.approver().as_ref().map_or(JsValue::NULL, approver_js);
        match options.credentials_for(&approver) {
            Ok(answer) => ArrivalCheck::Later(js::passkey_ids(&answer)),
            Err(error) => ArrivalCheck::Refused(error),
        }
    }

    /// A trusted, armed click on a passkey card's Confirm: makes the call's statement and asks
    /// the browser for the person's passkey over it. The card waits meanwhile.
    pub(super) fn start_passkey(&self, proposal: ProposalId) {
        let approver = self.approver();
        let role = approver.as_ref().and_then(|a| a.role.clone());
        let begun = self
            .engine_mut()
            .begin_passkey(proposal, role.as_deref(), now());
        let (Ok(statement), Some(options)) = (begun, self.options.passkey.clone()) else {
            self.passkey_failed(PasskeyStatus::Failed);
            self.drain();
            return;
        };
        let location = js::window().map(|w| w.location());
        let origin = location
            .as_ref()
            .and_then(|l| l.origin().ok())
            .unwrap_or_default();
        let rp_id = options.rp_id();
        let args = statement
            .snapshot
            .clone()
            .unwrap_or_else(|| write_frozen(&statement.args));
        let text = js::statement(
            &origin,
            &rp_id,
            &statement.action,
            &args,
            &statement.call_id,
            &statement.session_id,
            &statement.nonce,
            statement.issued_at,
            statement.expires_at,
        );
        let Ok(abort) = AbortController::new() else {
            self.passkey_failed(PasskeyStatus::Failed);
            return;
        };
        let signal = abort.signal();
        let nonce = statement.nonce;
        let open = OpenPrompt {
            proposal,
            nonce: nonce.clone(),
            abort,
        };
        if let Some(older) = self.prompt.replace(Some(open)) {
            older.abort.abort();
        }
        let ids = options
            .credentials_for(&approver.as_ref().map_or(JsValue::NULL, approver_js))
            .unwrap_or(JsValue::UNDEFINED);
        let weak = self.weak();
        wasm_bindgen_futures::spawn_local(async move {
            let answer = prompt(&text, &rp_id, &ids, options.timeout_ms(), &signal).await;
            if let Some(inst) = weak.upgrade() {
                inst.passkey_answered(proposal, nonce, &text, approver, answer);
            }
        });
        self.drain();
    }

    /// The prompt of `proposal` over the statement of `nonce` ended: confirms with an accepted
    /// assertion, or tells the card why not. Dropped unless it is still the open prompt.
    fn passkey_answered(
        &self,
        proposal: ProposalId,
        nonce: String,
        statement: &str,
        approver: Option<Approver>,
        answer: Result<Assertion, PasskeyStatus>,
    ) {
        let current = self
            .prompt
            .borrow()
            .as_ref()
            .is_some_and(|open| open.proposal == proposal && open.nonce == nonce);
        if !current {
            return;
        }
        self.prompt.borrow_mut().take();
        let assertion = match answer {
            Ok(assertion) => assertion,
            Err(status) => return self.passkey_failed(status),
        };
        let verification = Verification {
            nonce,
            credential_id: assertion.credential_id,
            receipt: js::receipt(statement, &assertion.credential),
        };
        let confirmed = self
            .engine_mut()
            .confirm_verified(proposal, approver, verification, now());
        if confirmed.is_err() {
            self.passkey_failed(PasskeyStatus::Failed);
        }
        self.drain();
    }

    /// Tells the visible card its prompt ended without confirming; the card re-arms.
    fn passkey_failed(&self, status: PasskeyStatus) {
        if let Some(card) = self.card() {
            card.passkey_failed(status);
        }
    }

    /// Aborts the prompt open for `proposal` (any prompt: `None`), if there is one: its card
    /// closed, or the instance is being disposed.
    pub(super) fn end_prompt(&self, proposal: Option<ProposalId>) {
        let open = {
            let mut slot = self.prompt.borrow_mut();
            match slot.as_ref() {
                Some(open) if proposal.is_none_or(|p| p == open.proposal) => slot.take(),
                _ => None,
            }
        };
        if let Some(open) = open {
            open.abort.abort();
        }
    }
}

/// The browser's prompt over the app's ids, then the judgement of its assertion: accepted, or
/// the card's word for why not.
async fn prompt(
    statement: &str,
    rp_id: &str,
    ids: &JsValue,
    timeout_ms: f64,
    signal: &AbortSignal,
) -> Result<Assertion, PasskeyStatus> {
    let assertion = ask(statement, rp_id, ids, timeout_ms, signal)
        .await
        .map_err(|unanswered| match unanswered {
            Unanswered::NoCredential => PasskeyStatus::NoCredential,
            Unanswered::Failed => PasskeyStatus::Failed,
        })?;
    let judged = assertion_accepted(
        &assertion.authenticator_data,
        &assertion.credential_id,
        &assertion.allowed,
    );
    match judged {
        Ok(()) => Ok(assertion),
        Err(Refusal::NotUserVerified) => Err(PasskeyStatus::NotVerified),
        Err(Refusal::OtherCredential) => Err(PasskeyStatus::OtherCredential),
        Err(Refusal::Malformed) => Err(PasskeyStatus::Failed),
    }
}
