//! The instance's effect loop: carries out what the [`Engine`] asks for, one effect at a time
//! — call `run` (or an element action's operation), draw, update or close the card, answer
//! `invoke` promises, deliver records and events — and keeps the one timer the engine wants
//! for its next deadline. No borrow is held while JavaScript runs (see the parent module).
//!
//! [`Engine`]: crate::core::engine::Engine

use std::rc::Rc;

use js_sys::Promise;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use super::Instance;
use crate::core::card::{approver_notice, summary_text, title_from_name, CardModel};
use crate::core::control::Control;
use crate::core::engine::{ActionId, CallRef, CancelReason, Effect, ProposalId, Ticket};
use crate::core::error::Error;
use crate::core::passkey::Verify;
use crate::core::record::{ActionRecord, Approver, Outcome};
use crate::core::value::Value;
use crate::web::card::{CardLayer, Decision};
use crate::web::convert::write_frozen;
use crate::web::element;
use crate::web::events::EventKind;
use crate::web::js::{self, RUN_LATER, RUN_THREW};
use crate::web::objects::{
    approver_js, message_of, nudge, outcome_js, proposal_js, record_js, resolution_js,
    resolved_outcome_js, RecordStrings,
};
use crate::web::time::{now, timeout};

/// A `run` the engine asked for.
struct RunCall {
    call: CallRef,
    action: ActionId,
    call_id: String,
    control: Control,
    args: Rc<Value>,
    snapshot: Option<JsValue>,
    approver: Option<Approver>,
    /// A passkey call's receipt (`ctx.receipt`).
    receipt: Option<JsValue>,
}

/// A card the engine asked for.
struct CardCall {
    proposal: ProposalId,
    action: ActionId,
    name: String,
    snapshot: JsValue,
    expires_at: f64,
    approvers: Option<Vec<String>>,
    verify: Option<Verify>,
    position: usize,
    total: usize,
}

impl Instance {
    /// Performs what the engine asks for until it has nothing more, then re-arms the deadline
    /// timer and decides whether the instance must hold itself.
    pub(crate) fn drain(&self) {
        loop {
            let effect = self.engine_mut().poll_effect();
            match effect {
                Some(effect) => self.perform(effect),
                None => break,
            }
        }
        self.schedule_tick();
        self.hold_while_owing();
    }

    /// Performs one effect. Each kind has its own function.
    fn perform(&self, effect: Effect<JsValue>) {
        match effect {
            Effect::Answer { ticket, outcome } => self.answer(ticket, &outcome),
            Effect::Run {
                call,
                action,
                call_id,
                control,
                args,
                snapshot,
                approver,
                receipt,
            } => self.run(RunCall {
                call,
                action,
                call_id,
                control,
                args,
                snapshot,
                approver,
                receipt,
            }),
            Effect::ShowCard {
                proposal,
                action,
                name,
                args,
                snapshot,
                expires_at,
                approvers,
                verify,
                position,
                total,
            } => self.show_card(CardCall {
                proposal,
                action,
                name,
                snapshot: snapshot.unwrap_or_else(|| write_frozen(&args)),
                expires_at,
                approvers,
                verify,
                position,
                total,
            }),
            Effect::UpdateCard {
                position, total, ..
            } => {
                if let Some(card) = self.card() {
                    card.update_position(position, total);
                }
            }
            Effect::CloseCard { proposal } => {
                self.end_prompt(Some(proposal));
                if let Some(card) = self.card() {
                    card.close();
                }
            }
            Effect::Proposal(info) => {
                self.events.emit(EventKind::Proposal, &proposal_js(&info));
            }
            Effect::Resolved {
                proposal,
                action,
                outcome,
            } => {
                let outcome_object = outcome_js(&outcome, &self.call_id_js(&outcome.call_id));
                let payload = resolution_js(
                    &proposal.to_string(),
                    &outcome.call_id,
                    &action,
                    &outcome_object,
                );
                self.events.emit(EventKind::Resolved, &payload);
            }
            Effect::Record(record) => self.record(&record),
            Effect::Nudge { action, control } => nudge(&action, control),
            Effect::GrantsChanged => self.grants_changed(),
        }
    }

    /// Answers the `invoke` of `ticket`: resolves its promise, or, when `invoke` is still
    /// draining and has made none, keeps the promise it will return, already resolved.
    fn answer(&self, ticket: Ticket, outcome: &Outcome<JsValue>) {
        let call_id = self.call_id_js(&outcome.call_id);
        if self.answers.is_waiting(ticket) {
            self.answers.answer(ticket, &outcome_js(outcome, &call_id));
        } else {
            let resolved = resolved_outcome_js(outcome, &call_id);
            self.answers.answer_early(ticket, resolved.unchecked_into());
        }
    }

    /// Delivers an action record: to the Watch panels, the `onActionRecord` sink and `record`
    /// listeners.
    fn record(&self, record: &ActionRecord<JsValue>) {
        let action = self.registry.name_js(&record.action);
        let call_id = self.call_id_js(&record.call_id);
        let strings = RecordStrings {
            session: &self.session_js,
            action: &action,
            call_id: &call_id,
        };
        let js = record_js(record, strings);
        self.watch.feed(&js);
        self.events.record(&js);
    }

    /// Calls the action's `run` (or performs its element operation) and reports the end to the
    /// engine: at once for a value or a throw, after it settles for a thenable.
    fn run(&self, run: RunCall) {
        let pieces = self
            .registry
            .with(run.action, |a| (a.run.clone(), a.element.clone()));
        let function = match pieces {
            Some((_, Some(target))) => {
                // Hand mode is checked again: the operation touches the page now. While it
                // does, the events it makes the browser fire are nobody's gesture.
                let result = if self.engine().hand_mode() {
                    let was_acting = self.acting.replace(true);
                    let result = element::act(&target, &run.args);
                    self.acting.set(was_acting);
                    result
                } else {
                    Err(Error::HandModeOff)
                };
                self.engine_mut().run_finished(run.call, result, now());
                return;
            }
            Some((Some(function), None)) => function,
            _ => {
                let e = Error::RunFailed("the action was disposed before it ran".into());
                self.engine_mut().run_finished(run.call, Err(e), now());
                return;
            }
        };
        let approver = run.approver.as_ref().map_or(JsValue::NULL, approver_js);
        let snapshot = run.snapshot.unwrap_or_else(|| write_frozen(&run.args));
        let report = js::run(
            &function,
            &snapshot,
            &self.call_id_js(&run.call_id),
            run.control as u8,
            &approver,
            &self.signal,
            run.receipt.as_ref().unwrap_or(&JsValue::UNDEFINED),
        );
        let (how, value) = (report.how(), report.value());
        match how {
            RUN_THREW => {
                let e = Error::RunFailed(message_of(&value));
                self.engine_mut().run_finished(run.call, Err(e), now());
            }
            RUN_LATER => {
                let (weak, call) = (self.me.clone(), run.call);
                wasm_bindgen_futures::spawn_local(async move {
                    let settled = JsFuture::from(Promise::resolve(&value)).await;
                    if let Some(inst) = weak.upgrade() {
                        let result = settled.map_err(|e| Error::RunFailed(message_of(&e)));
                        inst.engine_mut().run_finished(call, result, now());
                        inst.drain();
                    }
                });
            }
            _ => self.engine_mut().run_finished(run.call, Ok(value), now()),
        }
    }

    /// Draws the card for a proposal (making the card's DOM on first use). The summary and the
    /// approver are app code, which may settle the proposal or dispose the instance: the card is
    /// drawn only if the proposal is still the visible one afterwards.
    fn show_card(&self, req: CardCall) {
        if !self.engine().is_visible(req.proposal) {
            return;
        }
        let (summary_fn, description) = self
            .registry
            .with(req.action, |a| (a.summary.clone(), a.description.clone()))
            .unwrap_or_default();
        // The summary is the app's own words about this call: computed here, shown on the
        // card, and never passed anywhere else.
        let summary = summary_fn
            .and_then(|f| f.call1(&JsValue::UNDEFINED, &req.snapshot).ok())
            .and_then(|v| v.as_string());
        let approver = self.approver();
        if !self.engine().is_visible(req.proposal) {
            return;
        }
        let role = approver.as_ref().and_then(|a| a.role.as_deref());
        let confirm_allowed = self.engine().may_confirm(req.proposal, role);
        let notice = match (&req.approvers, confirm_allowed) {
            (Some(list), false) => Some(approver_notice(list)),
            _ => None,
        };
        let model = CardModel {
            title: title_from_name(&req.name),
            summary: summary_text(summary, &description),
            expires_at: req.expires_at,
            position: req.position,
            total: req.total,
            confirm_allowed,
            notice,
            passkey: req.verify == Some(Verify::Passkey),
        };
        let Some(card) = self.card().or_else(|| self.make_card()) else {
            return;
        };
        let (weak, proposal) = (self.me.clone(), req.proposal);
        let on_decision: Rc<dyn Fn(Decision)> = Rc::new(move |decision| {
            if let Some(inst) = weak.upgrade() {
                inst.decide(proposal, decision);
            }
        });
        if let Err(e) = card.show(model, on_decision) {
            web_sys::console::error_2(&"coworkkit: could not show the card".into(), &e);
        }
    }

    /// Makes the card's DOM, on first use. Appending its host may run page code (a custom
    /// element of that name): no borrow is held meanwhile, and a layer made by a call that came
    /// back in meanwhile is the one kept.
    fn make_card(&self) -> Option<Rc<CardLayer>> {
        let container = self.sdk_parent(None)?;
        let made = CardLayer::new(
            &container,
            &self.options.labels,
            self.options.arm_delay_ms,
            self.acting.clone(),
        );
        let layer = match made {
            Ok(layer) => Rc::new(layer),
            Err(e) => {
                web_sys::console::error_2(&"coworkkit: could not draw the card".into(), &e);
                return None;
            }
        };
        let existing = self.card();
        if existing.is_some() || self.disposed.get() {
            return existing; // `layer` is dropped here, with no borrow held.
        }
        *self.card.borrow_mut() = Some(layer.clone());
        Some(layer)
    }

    /// A decision from the card. The card has already checked that a Confirm came from a
    /// person's armed, trusted input (SPEC §4.2). A passkey card's Confirm starts its prompt.
    fn decide(&self, proposal: ProposalId, decision: Decision) {
        let passkey = self.engine().proposal_verify(proposal) == Some(Verify::Passkey);
        match decision {
            Decision::Confirm if passkey => return self.start_passkey(proposal),
            Decision::Confirm => {
                let approver = self.approver();
                let _ = self.engine_mut().confirm(proposal, approver, now());
            }
            Decision::Cancel { reason } => {
                self.engine_mut().cancel_saying(
                    proposal,
                    CancelReason::User,
                    reason.as_deref(),
                    now(),
                );
            }
            Decision::CancelAll { reason } => {
                self.engine_mut()
                    .cancel_all(None, CancelReason::User, reason.as_deref(), now());
            }
        }
        self.drain();
    }

    /// Keeps one timer, for the engine's next deadline.
    fn schedule_tick(&self) {
        if self.disposed.get() {
            return;
        }
        let deadline = self.engine().poll_timeout();
        let mut tick = self.tick.borrow_mut();
        match (deadline, tick.as_ref()) {
            (None, _) => *tick = None,
            (Some(at), Some((current, _))) if *current == at => {}
            (Some(at), _) => {
                let weak = self.me.clone();
                // One past the deadline, so `tick(now)` finds it due.
                let timer = timeout(at - now() + 1.0, move || {
                    if let Some(inst) = weak.upgrade() {
                        inst.tick.borrow_mut().take();
                        inst.engine_mut().tick(now());
                        inst.drain();
                    }
                });
                *tick = Some((at, timer));
            }
        }
    }
}
