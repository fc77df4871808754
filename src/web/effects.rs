//! The effect performer: carries out what the [`Engine`] asks for, one effect at a time — call
//! `run`, draw, update or close the card, resolve `invoke` promises, deliver records and events
//! — and keeps the one timer the engine wants for its next deadline.
//!
//! Re-entrancy: `run`, record sinks and listeners are app code and may call back into the
//! instance (even `invoke` or `dispose`). So effects are drained one at a time and no
//! `RefCell` borrow is held while JavaScript runs.
//!
//! [`Engine`]: crate::core::engine::Engine

use std::cell::RefCell;
use std::rc::Rc;

use gloo_timers::callback::Timeout;
use js_sys::{Function, Object, Promise};
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::card::{CardLayer, Decision};
use super::convert::{get, write_frozen};
use super::events::EventKind;
use super::instance::Instance;
use super::js;
use super::time::{now, timeout};
use crate::core::card::{approver_notice, summary_text, title_from_name, CardModel};
use crate::core::control::Control;
use crate::core::engine::{
    ActionId, CallRef, CancelReason, Effect, ProposalId, ProposalInfo, Ticket,
};
use crate::core::error::{code_number, Error};
use crate::core::record::{ActionRecord, Approver, Outcome, RecordOutcome};
use crate::core::value::Value;

/// What the performer keeps between effects.
#[derive(Default)]
pub(crate) struct Effects {
    /// Resolvers of the calls that did not answer while their `invoke` drained (hard and async
    /// ones): few at a time, so a list.
    waiters: RefCell<Vec<(Ticket, Function)>>,
    /// Answers that arrived while `invoke` was still draining, before it made a promise: the
    /// promise it returns, already resolved.
    early: RefCell<Vec<(Ticket, JsValue)>>,
    /// The card's DOM, made when the first hard call needs it.
    card: RefCell<Option<CardLayer>>,
    /// The timer for the engine's next deadline, with that deadline.
    tick: RefCell<Option<(f64, Timeout)>>,
}

impl Effects {
    /// Performs queued effects until the engine has none, then re-arms the deadline timer.
    pub(crate) fn drain(&self, inst: &Instance) {
        loop {
            let effect = inst.engine_mut().poll_effect();
            match effect {
                Some(effect) => self.perform(inst, effect),
                None => break,
            }
        }
        self.schedule_tick(inst);
    }

    /// The promise of `invoke` for `ticket`, once its effects drained: resolved already when
    /// the answer came during the drain (an open action with a synchronous `run`, every
    /// rejection), else resolved when its `Answer` comes.
    pub(crate) fn promise_for(&self, ticket: Ticket) -> Promise {
        let early = {
            let mut early = self.early.borrow_mut();
            let at = early.iter().position(|(t, _)| *t == ticket);
            at.map(|i| early.swap_remove(i).1)
        };
        if let Some(promise) = early {
            return promise.unchecked_into();
        }
        let mut resolver = None;
        let promise = Promise::new(&mut |resolve, _reject| resolver = Some(resolve));
        if let Some(resolve) = resolver {
            self.waiters.borrow_mut().push((ticket, resolve));
        }
        promise
    }

    /// Whether an `invoke` promise waits for its answer.
    pub(crate) fn waiting(&self) -> bool {
        !self.waiters.borrow().is_empty()
    }

    /// Removes the card and the timer (from `dispose()`, after the engine settled everything).
    pub(crate) fn close(&self) {
        self.tick.borrow_mut().take();
        let card = self.card.borrow_mut().take();
        drop(card);
    }

    fn schedule_tick(&self, inst: &Instance) {
        if inst.disposed.get() {
            return;
        }
        let deadline = inst.engine().poll_timeout();
        let mut tick = self.tick.borrow_mut();
        match (deadline, tick.as_ref()) {
            (None, _) => *tick = None,
            (Some(at), Some((current, _))) if *current == at => {}
            (Some(at), _) => {
                let weak = inst.me.clone();
                // One past the deadline, so `tick(now)` finds it due.
                let timer = timeout(at - now() + 1.0, move || {
                    if let Some(inst) = weak.upgrade() {
                        inst.effects.tick.borrow_mut().take();
                        inst.engine_mut().tick(now());
                        inst.drain();
                    }
                });
                *tick = Some((at, timer));
            }
        }
    }

    /// Performs one effect. Each kind has its own function.
    fn perform(&self, inst: &Instance, effect: Effect<JsValue>) {
        match effect {
            Effect::Answer { ticket, outcome } => self.answer(ticket, &outcome),
            Effect::Run {
                call,
                action,
                call_id,
                host_call_id,
                control,
                args,
                snapshot,
                approver,
                ..
            } => {
                let call_id = host_call_id.unwrap_or_else(|| JsValue::from_str(&call_id));
                run(
                    inst, call, action, &call_id, control, &args, snapshot, approver,
                );
            }
            Effect::ShowCard {
                proposal,
                action,
                name,
                args,
                snapshot,
                expires_at,
                approvers,
                position,
                total,
            } => {
                let snapshot = snapshot.unwrap_or_else(|| write_frozen(&args));
                let card = CardRequest {
                    proposal,
                    action,
                    name: &name,
                    snapshot: &snapshot,
                    expires_at,
                    approvers,
                    position,
                    total,
                };
                self.show_card(inst, card);
            }
            Effect::UpdateCard {
                position, total, ..
            } => {
                if let Some(card) = self.card.borrow_mut().as_mut() {
                    card.update_position(position, total);
                }
            }
            Effect::CloseCard { .. } => {
                if let Some(card) = self.card.borrow_mut().as_mut() {
                    card.close();
                }
            }
            Effect::Proposal(info) => {
                let payload = proposal_js(&info);
                inst.events.emit(EventKind::Proposal, &payload);
            }
            Effect::Resolved {
                proposal,
                action,
                outcome,
            } => {
                let (id, outcome_object) = (proposal.to_string(), outcome_js(&outcome));
                let payload = Payload(&[
                    ("id", Field::Text(&id)),
                    ("callId", Field::Text(&outcome.call_id)),
                    ("action", Field::Text(&action)),
                    ("outcome", Field::Js(&outcome_object)),
                ]);
                inst.events.emit(EventKind::Resolved, &frozen(&payload));
            }
            Effect::Record(record) => {
                let js = record_js(inst, &record);
                inst.watch.feed(&record, &js);
                inst.events.record(&js);
            }
            Effect::Nudge { action, control } => nudge(&action, control),
        }
    }

    fn answer(&self, ticket: Ticket, outcome: &Outcome<JsValue>) {
        let resolve = {
            let mut waiters = self.waiters.borrow_mut();
            let at = waiters.iter().position(|(t, _)| *t == ticket);
            at.map(|i| waiters.swap_remove(i).1)
        };
        match resolve {
            Some(resolve) => {
                let _ = resolve.call1(&JsValue::UNDEFINED, &outcome_js(outcome));
            }
            // Answered before `invoke` made a promise: `promise_for` picks this up.
            None => {
                let promise = outcome_parts(outcome, js::resolved_outcome);
                self.early.borrow_mut().push((ticket, promise));
            }
        }
    }

    fn show_card(&self, inst: &Instance, req: CardRequest<'_>) {
        let (summary_fn, description) = inst
            .registry
            .with(req.action, |a| (a.summary.clone(), a.description.clone()))
            .unwrap_or_default();
        // The summary is the app's own words about this call: computed here, shown on the
        // card, and never passed anywhere else.
        let summary = summary_fn
            .and_then(|f| f.call1(&JsValue::UNDEFINED, req.snapshot).ok())
            .and_then(|v| v.as_string());
        let approver = inst.approver();
        let role = approver.as_ref().and_then(|a| a.role.as_deref());
        let confirm_allowed = inst.engine().may_confirm(req.proposal, role);
        let notice = match (&req.approvers, confirm_allowed) {
            (Some(list), false) => Some(approver_notice(list)),
            _ => None,
        };
        let model = CardModel {
            title: title_from_name(req.name),
            summary: summary_text(summary, &description),
            expires_at: req.expires_at,
            position: req.position,
            total: req.total,
            confirm_allowed,
            notice,
        };
        let mut slot = self.card.borrow_mut();
        if slot.is_none() {
            let Some(container) = inst.sdk_parent(None) else {
                return;
            };
            match CardLayer::new(&container, &inst.options.labels) {
                Ok(layer) => *slot = Some(layer),
                Err(e) => {
                    web_sys::console::error_2(&"coworkkit: could not draw the card".into(), &e);
                    return;
                }
            }
        }
        let weak = inst.me.clone();
        let proposal = req.proposal;
        let on_decision: Rc<dyn Fn(Decision)> = Rc::new(move |decision| {
            if let Some(inst) = weak.upgrade() {
                decide(&inst, proposal, decision);
            }
        });
        if let Some(card) = slot.as_mut() {
            if let Err(e) = card.show(model, inst.options.arm_delay_ms, on_decision) {
                web_sys::console::error_2(&"coworkkit: could not show the card".into(), &e);
            }
        }
    }
}

/// What [`Effects::show_card`] draws.
struct CardRequest<'a> {
    proposal: ProposalId,
    action: ActionId,
    name: &'a str,
    snapshot: &'a JsValue,
    expires_at: f64,
    approvers: Option<Vec<String>>,
    position: usize,
    total: usize,
}

/// A decision from the card. The card has already checked that a Confirm came from a trusted
/// click after the arm delay.
fn decide(inst: &Instance, proposal: ProposalId, decision: Decision) {
    match decision {
        Decision::Confirm => {
            let approver = inst.approver();
            let _ = inst.engine_mut().confirm(proposal, approver, now());
        }
        Decision::Cancel => {
            inst.engine_mut()
                .cancel(proposal, CancelReason::User, now());
        }
    }
    inst.drain();
}

/// Calls the action's `run` (or performs its element operation) and reports the end to the
/// engine: at once for a value or a throw, after it settles for a thenable.
#[allow(clippy::too_many_arguments)]
fn run(
    inst: &Instance,
    call: CallRef,
    action: ActionId,
    call_id: &JsValue,
    control: Control,
    args: &Rc<Value>,
    snapshot: Option<JsValue>,
    approver: Option<Approver>,
) {
    let pieces = inst
        .registry
        .with(action, |a| (a.run.clone(), a.element.clone()));
    let run = match pieces {
        Some((_, Some(target))) => {
            let result = inst.hand.perform(inst, &target, args);
            inst.engine_mut().run_finished(call, result, now());
            return;
        }
        Some((Some(run), None)) => run,
        _ => {
            let e = Error::RunFailed("the action was disposed before it ran".into());
            inst.engine_mut().run_finished(call, Err(e), now());
            return;
        }
    };
    let approver = approver.as_ref().map_or(JsValue::NULL, approver_js);
    let snapshot = snapshot.unwrap_or_else(|| write_frozen(args));
    let how = js::run(
        &run,
        &snapshot,
        call_id,
        control as u8,
        &approver,
        &inst.signal,
    );
    let value = js::take_run();
    match how {
        js::RUN_THREW => {
            let e = Error::RunFailed(message_of(&value));
            inst.engine_mut().run_finished(call, Err(e), now());
        }
        js::RUN_LATER => {
            let weak = inst.me.clone();
            wasm_bindgen_futures::spawn_local(async move {
                let settled = JsFuture::from(Promise::resolve(&value)).await;
                if let Some(inst) = weak.upgrade() {
                    let result = settled.map_err(|e| Error::RunFailed(message_of(&e)));
                    inst.engine_mut().run_finished(call, result, now());
                    inst.drain();
                }
            });
        }
        _ => {
            inst.engine_mut().run_finished(call, Ok(value), now());
        }
    }
}

/// A proposal as the SDK hands it out, frozen, with the call's own frozen snapshot as `args`.
pub(crate) fn proposal_js(p: &ProposalInfo<JsValue>) -> JsValue {
    let id = p.id.to_string();
    let args = p.snapshot.clone().unwrap_or_else(|| write_frozen(&p.args));
    frozen(&Payload(&[
        ("id", Field::Text(&id)),
        ("callId", Field::Text(&p.call_id)),
        ("action", Field::Text(&p.action)),
        ("control", Field::Text(p.control.as_str())),
        ("args", Field::Js(&args)),
        ("expiresAt", Field::Number(p.expires_at)),
    ]))
}

/// A deeply frozen JS object from a payload that serde describes (the objects the SDK hands
/// out off the per-call path). JSON-compatible: maps as plain objects, no `BigInt`; a
/// preserved `JsValue` field (a snapshot) goes through as the same object.
pub(crate) fn frozen(value: &impl Serialize) -> JsValue {
    let js = value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .unwrap_or(JsValue::NULL);
    if let Some(object) = js.dyn_ref::<Object>() {
        Object::freeze(object);
    }
    js
}

/// One of the objects handed out off the per-call path (a proposal, a resolution): its fields
/// in order, serialized as a map. Not derived: serde-wasm-bindgen turns a derived struct's
/// field names into JS strings through a cache of its own (a thread-local map keyed by their
/// addresses), code the wasm would carry for these objects alone.
struct Payload<'a>(&'a [(&'a str, Field<'a>)]);

/// A field's value: text, a number, or a JS value that goes in as the same value (the call's
/// frozen snapshot, the outcome).
enum Field<'a> {
    Text(&'a str),
    Number(f64),
    Js(&'a JsValue),
}

impl Serialize for Payload<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (key, value) in self.0 {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

impl Serialize for Field<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Field::Text(text) => serializer.serialize_str(text),
            Field::Number(n) => serializer.serialize_f64(*n),
            Field::Js(value) => serde_wasm_bindgen::preserve::serialize(*value, serializer),
        }
    }
}

fn record_js(inst: &Instance, r: &ActionRecord<JsValue>) -> JsValue {
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
    let mut written_id = JsValue::UNDEFINED;
    js::record(
        r.seq as f64,
        &inst.session_js,
        id_js(&r.call_id, &r.host_call_id, &mut written_id),
        &inst.registry.name_js(&r.action),
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
    )
}

/// The outcome object `invoke` resolves to (SPEC §3), frozen.
pub(crate) fn outcome_js(outcome: &Outcome<JsValue>) -> JsValue {
    outcome_parts(outcome, js::outcome)
}

/// One of the outcome builders of `objects.js`: `callId`, gate, `ok`, `result`, `error`,
/// `confirmToken`, `expiresAt`.
type OutcomeBuilder =
    fn(&JsValue, u8, bool, &JsValue, &JsValue, Option<String>, Option<f64>) -> JsValue;

/// Hands an outcome's fields to one of the outcome builders of `objects.js`.
fn outcome_parts(outcome: &Outcome<JsValue>, build: OutcomeBuilder) -> JsValue {
    let (u, mut written) = (JsValue::UNDEFINED, JsValue::UNDEFINED);
    let error = match &outcome.error {
        Some((code, message)) => js::error(code_number(code), message),
        None => JsValue::UNDEFINED,
    };
    build(
        id_js(&outcome.call_id, &outcome.host_call_id, &mut written),
        outcome.gate as u8,
        outcome.ok,
        outcome.result.as_ref().unwrap_or(&u),
        &error,
        outcome.confirm_token.clone(),
        outcome.expires_at,
    )
}

/// A call id's JS string: the one the call came with, else written out into `written`.
fn id_js<'a>(text: &str, host: &'a Option<JsValue>, written: &'a mut JsValue) -> &'a JsValue {
    match host {
        Some(js) => js,
        None => {
            *written = JsValue::from_str(text);
            written
        }
    }
}

fn approver_js(a: &Approver) -> JsValue {
    let o = Object::new();
    super::convert::set(&o, "id", a.id.as_str());
    if let Some(role) = &a.role {
        super::convert::set(&o, "role", role.as_str());
    }
    Object::freeze(&o).into()
}

/// The console hint for an action that declares no control but reads destructive.
fn nudge(action: &str, control: Control) {
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
