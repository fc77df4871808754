//! The objects the SDK hands out, built from what the engine says: the outcome `invoke` resolves
//! to, the action record, a proposal and a resolution, an approver. A leaf: each builder takes
//! the values it writes, never the instance. The per-call ones (outcome, record) are built by
//! `src/js/objects.js` in one crossing each; the rest through serde-wasm-bindgen.

use js_sys::Object;
use serde::Serialize;
use wasm_bindgen::prelude::*;

use super::convert::{get, set, write_frozen};
use super::js;
use crate::core::control::Control;
use crate::core::engine::ProposalInfo;
use crate::core::error::code_number;
use crate::core::grant::Grant;
use crate::core::record::{ActionRecord, Approver, Outcome, RecordOutcome};
use crate::core::value::Value;

/// The outcome object `invoke` resolves to (SPEC §3), frozen; `call_id` is the JS string of
/// `outcome.call_id`.
pub(crate) fn outcome_js(outcome: &Outcome<JsValue>, call_id: &JsValue) -> JsValue {
    outcome_parts(outcome, call_id, js::outcome)
}

/// A promise already resolved with [`outcome_js`] of the same outcome, made in the same crossing.
pub(crate) fn resolved_outcome_js(outcome: &Outcome<JsValue>, call_id: &JsValue) -> JsValue {
    outcome_parts(outcome, call_id, js::resolved_outcome)
}

/// One of the outcome builders of `objects.js`: `callId`, gate, `ok`, `result`, `error`,
/// `confirmToken`, `expiresAt`.
type OutcomeBuilder =
    fn(&JsValue, u8, bool, &JsValue, &JsValue, Option<String>, Option<f64>) -> JsValue;

/// Hands an outcome's fields to one of the outcome builders of `objects.js`.
fn outcome_parts(outcome: &Outcome<JsValue>, call_id: &JsValue, build: OutcomeBuilder) -> JsValue {
    let error = match &outcome.error {
        Some((code, message)) => js::error(code_number(code), message),
        None => JsValue::UNDEFINED,
    };
    build(
        call_id,
        outcome.gate as u8,
        outcome.ok,
        outcome.result.as_ref().unwrap_or(&JsValue::UNDEFINED),
        &error,
        outcome.confirm_token.clone(),
        outcome.expires_at,
    )
}

/// The JS strings an action record carries beside the record itself: written once per
/// instance, action or call, not per record.
pub(crate) struct RecordStrings<'a> {
    /// The session id.
    pub(crate) session: &'a JsValue,
    /// The action's name.
    pub(crate) action: &'a JsValue,
    /// The call's id.
    pub(crate) call_id: &'a JsValue,
}

/// The action record of SPEC §6, frozen.
pub(crate) fn record_js(r: &ActionRecord<JsValue>, strings: RecordStrings<'_>) -> JsValue {
    let u = JsValue::UNDEFINED;
    let (value, code, message) = match &r.outcome {
        RecordOutcome::Ok { value } => (value.as_ref().unwrap_or(&u), None, None),
        RecordOutcome::Error { code, message } => (&u, code_number(code), Some(message.clone())),
        RecordOutcome::NotRun => (&u, None, None),
    };
    let written_args;
    let args = match &r.snapshot {
        Some(snapshot) => snapshot,
        None => {
            written_args = write_frozen(&r.args);
            &written_args
        }
    };
    js::record(
        r.seq as f64,
        strings.session,
        strings.call_id,
        strings.action,
        r.control as u8,
        r.control_source as u8,
        r.gate as u8,
        r.outcome.status_number(),
        value,
        code,
        message,
        args,
        &r.approver.as_ref().map_or(JsValue::UNDEFINED, approver_js),
        r.reason.and_then(code_number),
        r.via as u8,
        r.started_at,
        r.settled_at,
        &r.verification.as_ref().map_or(JsValue::UNDEFINED, |v| {
            js::verification(&v.credential_id, &v.receipt)
        }),
        r.assurance as u8,
        r.note.clone(),
        r.grant.map(|id| id.to_string()),
    )
}

/// A proposal as the SDK hands it out (`pending()`, the `proposal` event): fields in SPEC §3's
/// order, `args` the call's own frozen snapshot (the same object `run` and the card get).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Proposal<'a> {
    id: String,
    call_id: &'a str,
    action: &'a str,
    control: &'a str,
    #[serde(with = "serde_wasm_bindgen::preserve")]
    args: JsValue,
    expires_at: f64,
}

/// What a `resolved` listener gets, `outcome` being the frozen outcome object itself.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Resolution<'a> {
    id: &'a str,
    call_id: &'a str,
    action: &'a str,
    #[serde(with = "serde_wasm_bindgen::preserve")]
    outcome: JsValue,
}

/// A proposal as the SDK hands it out, frozen.
pub(crate) fn proposal_js(p: &ProposalInfo<JsValue>) -> JsValue {
    frozen(&Proposal {
        id: p.id.to_string(),
        call_id: &p.call_id,
        action: &p.action,
        control: p.control.as_str(),
        args: p.snapshot.clone().unwrap_or_else(|| write_frozen(&p.args)),
        expires_at: p.expires_at,
    })
}

/// What a `resolved` listener gets: `{ id, callId, action, outcome }`, frozen.
pub(crate) fn resolution_js(
    proposal: &str,
    call_id: &str,
    action: &str,
    outcome: &JsValue,
) -> JsValue {
    frozen(&Resolution {
        id: proposal,
        call_id,
        action,
        outcome: outcome.clone(),
    })
}

/// A grant as the SDK hands it out (`ck.grant`, `ck.grants()`, the `grants` event), built by
/// `objects.js` in one crossing; `match` (deeply frozen) only when it names arguments.
pub(crate) fn grant_js(g: &Grant) -> JsValue {
    let matching = if g.match_args.is_empty() {
        JsValue::UNDEFINED
    } else {
        write_frozen(&Value::Object(g.match_args.clone()))
    };
    js::grant(
        &g.id.to_string(),
        &g.action,
        g.created_at,
        g.expires_at,
        g.max_uses,
        g.uses,
        &matching,
    )
}

/// `{ id, role? }`, frozen: who confirmed, as `ctx.approver` and the record carry it.
pub(crate) fn approver_js(a: &Approver) -> JsValue {
    let o = Object::new();
    set(&o, "id", a.id.as_str());
    if let Some(role) = &a.role {
        set(&o, "role", role.as_str());
    }
    Object::freeze(&o).into()
}

/// Who is at the keyboard, from what the `approver` option returned; `None` when it is not
/// `{ id: string, role?: string }`.
pub(crate) fn read_approver(v: &JsValue) -> Option<Approver> {
    let id = get(v, "id").as_string()?;
    let role = get(v, "role").as_string();
    Some(Approver { id, role })
}

/// A frozen JS object from a value serde describes. JSON-compatible: maps as plain objects, no
/// `BigInt`; a preserved `JsValue` field (a snapshot, an outcome) goes through as the same,
/// already frozen, object.
fn frozen(value: &impl Serialize) -> JsValue {
    let js = value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .unwrap_or(JsValue::NULL);
    if let Some(object) = js.dyn_ref::<Object>() {
        Object::freeze(object);
    }
    js
}

/// The console hint for an action that declares no control but reads destructive.
pub(crate) fn nudge(action: &str, control: Control) {
    let message = format!(
        "coworkkit: action \"{action}\" declares no control and its name reads destructive, so \
         it is gated as \"{}\". Declare control: \"open\", \"soft\" or \"hard\" to choose \
         explicitly.",
        control.as_str()
    );
    web_sys::console::warn_1(&message.into());
}

/// What a `run` threw or rejected with, as the outcome's message.
pub(crate) fn message_of(thrown: &JsValue) -> String {
    if let Some(s) = thrown.as_string() {
        return s;
    }
    get(thrown, "message")
        .as_string()
        .unwrap_or_else(|| "run threw a non-Error value".into())
}
