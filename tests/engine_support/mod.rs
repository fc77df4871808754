//! Shared helpers for the host tests of the engine (not a test target itself).
#![allow(dead_code)]

use coworkkit::core::engine::{
    ActionDef, ActionId, CallRef, Config, Effect, Engine, Entropy, InvokeRequest, ProposalId,
    Ticket,
};
use coworkkit::core::record::{ActionRecord, Approver, Outcome};
use coworkkit::core::value::Value;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

/// A deterministic PRNG (xorshift64*) standing in for `crypto.getRandomValues`.
pub struct SeededEntropy(pub u64);

impl Entropy for SeededEntropy {
    fn fill(&mut self, buf: &mut [u8]) {
        for b in buf {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            *b = (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 56) as u8;
        }
    }
}

/// JSON text → value (panics on bad test input).
pub fn v(json: &str) -> Value {
    serde_json::from_str(json).expect("test JSON")
}

/// The engine plus everything it has emitted so far.
pub struct Harness {
    pub engine: Engine<String>,
    pub effects: Vec<Effect<String>>,
}

impl Harness {
    pub fn new() -> Self {
        Self::with_config(Config::default())
    }

    pub fn with_config(config: Config) -> Self {
        Harness {
            engine: Engine::new(
                config,
                "s1".into(),
                Box::new(SeededEntropy(0x9e37_79b9_7f4a_7c15)),
            ),
            effects: Vec::new(),
        }
    }

    /// Drains the engine's queue; returns only the effects of this step.
    pub fn drain(&mut self) -> Vec<Effect<String>> {
        let mut step = Vec::new();
        while let Some(effect) = self.engine.poll_effect() {
            step.push(effect);
        }
        self.effects.extend(step.iter().cloned());
        step
    }

    pub fn register(&mut self, def: ActionDef) -> ActionId {
        let id = self.engine.register(def).expect("register");
        self.drain();
        id
    }

    pub fn action(&mut self, name: &str, control: Option<&str>) -> ActionId {
        let mut def = ActionDef::new(name, "test action");
        def.control = control.map(|c| coworkkit::core::control::Control::parse(c).unwrap());
        self.register(def)
    }

    pub fn invoke(&mut self, req: InvokeRequest<String>, now: f64) -> Ticket {
        let ticket = self.engine.invoke(req, now);
        self.drain();
        ticket
    }

    /// A first call with this callId (or none).
    pub fn call(&mut self, name: &str, args: &str, call_id: Option<&str>, now: f64) -> Ticket {
        let mut req = InvokeRequest::new(name, v(args));
        req.call_id = call_id.map(Into::into);
        self.invoke(req, now)
    }

    /// A confirming call with a token (and optionally a new callId).
    pub fn confirm_call(
        &mut self,
        name: &str,
        args: &str,
        token: &str,
        call_id: Option<&str>,
        now: f64,
    ) -> Ticket {
        let mut req = InvokeRequest::new(name, v(args));
        req.confirm_token = Some(token.into());
        req.call_id = call_id.map(Into::into);
        self.invoke(req, now)
    }

    pub fn answer(&self, ticket: Ticket) -> Option<&Outcome<String>> {
        let mut found = None;
        for effect in &self.effects {
            if let Effect::Answer { ticket: t, outcome } = effect {
                if *t == ticket {
                    assert!(found.is_none(), "ticket answered twice");
                    found = Some(&**outcome);
                }
            }
        }
        found
    }

    pub fn answered(&self, ticket: Ticket) -> &Outcome<String> {
        self.answer(ticket).expect("ticket answered")
    }

    pub fn runs(&self) -> Vec<(CallRef, String, Option<Approver>)> {
        self.effects
            .iter()
            .filter_map(|e| match e {
                Effect::Run {
                    call,
                    call_id,
                    approver,
                    ..
                } => Some((*call, call_id.clone(), approver.clone())),
                _ => None,
            })
            .collect()
    }

    pub fn last_run(&self) -> CallRef {
        self.runs().last().expect("a run").0
    }

    pub fn records(&self) -> Vec<&ActionRecord<String>> {
        self.effects
            .iter()
            .filter_map(|e| match e {
                Effect::Record(r) => Some(r),
                _ => None,
            })
            .collect()
    }

    pub fn finish(
        &mut self,
        call: CallRef,
        result: Result<String, coworkkit::core::error::Error>,
        now: f64,
    ) {
        self.engine.run_finished(call, result, now);
        self.drain();
    }

    pub fn proposals(&self) -> Vec<ProposalId> {
        self.effects
            .iter()
            .filter_map(|e| match e {
                Effect::Proposal(info) => Some(info.id),
                _ => None,
            })
            .collect()
    }
}

pub fn admin() -> Option<Approver> {
    Some(Approver {
        id: "ann".into(),
        role: Some("admin".into()),
    })
}

pub fn viewer() -> Option<Approver> {
    Some(Approver {
        id: "vic".into(),
        role: Some("viewer".into()),
    })
}

/// What the engine handed out that can later justify a `Run`: soft tokens (for which action and
/// args) and hard proposals (for which call). The property models keep one each and ask it
/// whether a `Run` had consent, so that rule is written once.
#[derive(Default)]
pub struct Consent {
    /// token → (action, args) it was issued for, in issue order.
    pub issued: Vec<(String, String, Value)>,
    /// Tokens that already let a call run.
    pub used: std::collections::BTreeSet<String>,
    /// proposal → (call id, action), as announced.
    pub proposals: Vec<(ProposalId, String, String)>,
}

impl Consent {
    /// A `needs_confirmation` answer to an invoke of `action` with `args` carried `token`; a
    /// token answered again (a re-sent call) must be for the same action and args.
    pub fn issue(&mut self, token: &str, action: &str, args: &Value) -> Result<(), TestCaseError> {
        match self.issued.iter().find(|i| i.0 == token) {
            Some((_, a, v)) if a == action && v.canonical_eq(args) => Ok(()),
            Some(_) => Err(TestCaseError::fail("one token for two calls")),
            None => {
                self.issued
                    .push((token.to_string(), action.to_string(), args.clone()));
                Ok(())
            }
        }
    }

    /// A hard proposal was announced.
    pub fn announce(&mut self, proposal: ProposalId, call_id: &str, action: &str) {
        self.proposals
            .push((proposal, call_id.to_string(), action.to_string()));
    }

    /// A hard `Run` of `call_id` (`action`) followed the confirm of `confirmed`: it must be that
    /// proposal's call.
    pub fn hard_run(
        &self,
        confirmed: ProposalId,
        call_id: &str,
        action: &str,
    ) -> Result<(), TestCaseError> {
        let (_, p_call_id, p_action) = self
            .proposals
            .iter()
            .find(|p| p.0 == confirmed)
            .ok_or_else(|| TestCaseError::fail("confirm of an unannounced proposal"))?;
        prop_assert_eq!(p_call_id, call_id, "Run is not the confirmed card's call");
        prop_assert_eq!(p_action, action);
        Ok(())
    }

    /// A soft `Run` of `action` with `args` followed an invoke of `req_action` with `req_args`
    /// presenting `token`: the token must have been issued for exactly that action and those
    /// args, and never have been used.
    pub fn soft_run(
        &mut self,
        token: &str,
        (req_action, req_args): (&str, &Value),
        (action, args): (&str, &Value),
    ) -> Result<(), TestCaseError> {
        let (_, issued_action, issued_args) = self
            .issued
            .iter()
            .find(|t| t.0 == token)
            .ok_or_else(|| TestCaseError::fail("soft Run on a token never issued"))?;
        prop_assert_eq!(issued_action, action);
        prop_assert_eq!(req_action, action);
        prop_assert!(
            issued_args.canonical_eq(args),
            "token issued for other args"
        );
        prop_assert!(
            req_args.canonical_eq(args),
            "confirming call had other args"
        );
        prop_assert!(self.used.insert(token.to_string()), "token used twice");
        Ok(())
    }
}
