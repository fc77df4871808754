//! Shared helpers for the host tests of the engine (not a test target itself).
#![allow(dead_code)]

use coworkkit::core::engine::{
    ActionDef, ActionId, CallRef, Config, Effect, Engine, Entropy, InvokeRequest, ProposalId,
    Ticket,
};
use coworkkit::core::record::{ActionRecord, Approver, Outcome};
use coworkkit::core::value::Value;

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
    Value::parse_json(json).expect("test JSON")
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

    pub fn invoke(&mut self, req: InvokeRequest, now: f64) -> Ticket {
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
                    found = Some(outcome);
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
