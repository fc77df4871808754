//! Shared helpers for the host tests of the engine (not a test target itself).
#![allow(dead_code)]

use coworkkit::core::engine::{
    ActionDef, ActionId, CallRef, Config, Effect, Engine, Entropy, GrantId, InvokeRequest,
    ProposalId, Ticket,
};
use coworkkit::core::grant::Grant;
use coworkkit::core::record::{ActionRecord, Approver, Outcome};
use coworkkit::core::value::Value;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use std::sync::atomic::{AtomicU64, Ordering};

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

/// SplitMix64's output function: distinct, well-spread seeds from a counter.
pub fn splitmix64(n: u64) -> u64 {
    let mut z = n.wrapping_add(1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
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

    /// Each harness draws its own seed, as each instance in a page draws its own bytes from
    /// `crypto.getRandomValues`: two harnesses never issue the same tokens or call ids.
    pub fn with_config(config: Config) -> Self {
        static HARNESSES: AtomicU64 = AtomicU64::new(0);
        let n = HARNESSES.fetch_add(1, Ordering::Relaxed);
        Self::seeded(config, splitmix64(n))
    }

    /// A harness whose entropy starts from `seed`.
    pub fn seeded(config: Config, seed: u64) -> Self {
        Harness {
            engine: Engine::new(config, "s1".into(), Box::new(SeededEntropy(seed | 1))),
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

/// What the engine handed out that can later justify a `Run`, as the test saw it: soft tokens
/// (for which call, action and args, and when by the test's own clock), hard proposals (for
/// which call) and the grants the app made (SPEC §12: for which action and args, how long by
/// the test's clock, how many uses). The property models keep one each and ask it whether a
/// `Run` had consent, so that rule is written once, with the same knowledge as the e2e lab
/// (tests/e2e/hostile/lab.js).
pub struct Consent {
    /// Every token issued, in issue order.
    pub issued: Vec<Issued>,
    /// proposal → (call id, action), as announced.
    pub proposals: Vec<(ProposalId, String, String)>,
    /// Every grant the app made, in the order it made them.
    pub grants: Vec<Granted>,
    /// The engine's `confirmTimeoutMs`, as the test configured it: a token's lifetime is judged
    /// by the test's clock against it, never by the `expiresAt` the engine reports.
    timeout_ms: f64,
}

/// One grant, as the app made it and the test has counted its uses since.
#[derive(Clone, Debug)]
pub struct Granted {
    pub id: GrantId,
    pub action: String,
    /// The args a covered call must have, key by key.
    pub match_args: Vec<(String, Value)>,
    /// The test's clock when the app made it, and the lifetime it asked for.
    pub made_at: f64,
    pub ttl_ms: f64,
    pub max_uses: Option<u32>,
    /// Calls it let through, as the test counted them.
    pub uses: u32,
    /// Revoked, or the instance disposed.
    pub ended: bool,
}

impl Granted {
    /// Live at `now` by the test's own clock and counts.
    pub fn live(&self, now: f64) -> bool {
        !self.ended
            && now < self.made_at + self.ttl_ms
            && self.max_uses.is_none_or(|m| self.uses < m)
    }

    fn covers(&self, action: &str, args: &Value) -> bool {
        self.action == action
            && self
                .match_args
                .iter()
                .all(|(k, want)| args.get(k).is_some_and(|got| got.canonical_eq(want)))
    }
}

/// One soft token, as issued.
pub struct Issued {
    pub token: String,
    pub action: String,
    pub args: Value,
    /// The callId of the waiting call the token was issued to.
    pub call_id: String,
    /// The test's clock when the token was first answered.
    pub issued_at: f64,
    /// It let a call run.
    pub used: bool,
    /// Its call has settled (declined, expired, cancelled) without running on it: how, as the
    /// record said. A token of a settled call consents nothing.
    pub ended: Option<String>,
}

impl Consent {
    pub fn new(timeout_ms: f64) -> Self {
        Consent {
            issued: Vec::new(),
            proposals: Vec::new(),
            grants: Vec::new(),
            timeout_ms,
        }
    }

    /// The app made `grant` at `now`, asking for `ttl_ms`.
    pub fn granted(&mut self, grant: &Grant, ttl_ms: f64, now: f64) {
        self.grants.push(Granted {
            id: grant.id,
            action: grant.action.clone(),
            match_args: grant.match_args.clone(),
            made_at: now,
            ttl_ms,
            max_uses: grant.max_uses,
            uses: 0,
            ended: false,
        });
    }

    /// A grant was revoked: true when the test knew it live.
    pub fn revoked(&mut self, id: GrantId, now: f64) -> bool {
        match self.grants.iter_mut().find(|g| g.id == id) {
            Some(g) if g.live(now) => {
                g.ended = true;
                true
            }
            _ => false,
        }
    }

    /// The instance was disposed: every grant ended.
    pub fn disposed(&mut self) {
        for g in &mut self.grants {
            g.ended = true;
        }
    }

    /// A soft `Run` of `action` with `args` at `now` followed a first call with no token: a
    /// grant the app made, live by the test's clock and counts, must cover it; the oldest such
    /// (the documented rule) spends a use. Returns its id, which the call's record must name.
    pub fn grant_run(
        &mut self,
        action: &str,
        args: &Value,
        now: f64,
    ) -> Result<GrantId, TestCaseError> {
        let grant = self
            .grants
            .iter_mut()
            .find(|g| g.live(now) && g.covers(action, args))
            .ok_or_else(|| TestCaseError::fail("soft Run without a token or a live grant"))?;
        grant.uses += 1;
        Ok(grant.id)
    }

    /// The live grants as the test knows them must be exactly the engine's: no grant made,
    /// extended, widened or restored by anything but the app, each use counted once.
    pub fn check_grants<'a>(
        &self,
        engine: impl Iterator<Item = &'a Grant>,
        now: f64,
    ) -> Result<(), TestCaseError> {
        let theirs: Vec<&Grant> = engine.collect();
        let ours: Vec<&Granted> = self.grants.iter().filter(|g| g.live(now)).collect();
        prop_assert_eq!(
            theirs.len(),
            ours.len(),
            "live grants: engine vs the app's own"
        );
        for (t, o) in theirs.iter().zip(&ours) {
            prop_assert_eq!(t.id, o.id);
            prop_assert_eq!(&t.action, &o.action);
            prop_assert_eq!(t.expires_at, o.made_at + o.ttl_ms, "a grant's expiry moved");
            prop_assert_eq!(t.max_uses, o.max_uses, "a grant's uses were widened");
            prop_assert_eq!(t.uses, o.uses, "a grant's use count");
            prop_assert_eq!(&t.match_args, &o.match_args, "a grant's match was widened");
        }
        Ok(())
    }

    /// A `needs_confirmation` answer, at `now`, to an invoke of `action` with `args` carried
    /// `token` for the call `call_id`; a token answered again (a re-sent call) must be for the
    /// same call, action and args, and keeps its first issue time.
    pub fn issue(
        &mut self,
        token: &str,
        call_id: &str,
        (action, args): (&str, &Value),
        now: f64,
    ) -> Result<(), TestCaseError> {
        match self.issued.iter().find(|i| i.token == token) {
            Some(i) if i.action == action && i.args.canonical_eq(args) && i.call_id == call_id => {
                Ok(())
            }
            Some(_) => Err(TestCaseError::fail("one token for two calls")),
            None => {
                self.issued.push(Issued {
                    token: token.to_string(),
                    action: action.to_string(),
                    args: args.clone(),
                    call_id: call_id.to_string(),
                    issued_at: now,
                    used: false,
                    ended: None,
                });
                Ok(())
            }
        }
    }

    /// The call `call_id` settled with this record (`ran`: its outcome says it ran). A token
    /// issued to it that never let it run is dead from now on.
    pub fn settled(&mut self, call_id: &str, ran: bool, how: &str) {
        for i in &mut self.issued {
            if i.call_id == call_id && !i.used && !ran && i.ended.is_none() {
                i.ended = Some(how.to_string());
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

    /// A soft `Run` of the call `call_id` (`action` with `args`) at `now` followed a
    /// (non-declining) invoke of `req_action` with `req_args` presenting `token`. The token
    /// must have been issued to that very call, for exactly that action and those args, less
    /// than `confirmTimeoutMs` ago by the test's clock, its call not settled (declined,
    /// expired, cancelled), and never used.
    pub fn soft_run(
        &mut self,
        token: &str,
        (req_action, req_args): (&str, &Value),
        (call_id, action, args): (&str, &str, &Value),
        now: f64,
    ) -> Result<(), TestCaseError> {
        let timeout_ms = self.timeout_ms;
        let issued = self
            .issued
            .iter_mut()
            .find(|t| t.token == token)
            .ok_or_else(|| TestCaseError::fail("soft Run on a token never issued"))?;
        prop_assert_eq!(
            &issued.call_id,
            call_id,
            "soft Run of another call than the token's"
        );
        prop_assert_eq!(&issued.action, action);
        prop_assert_eq!(req_action, action);
        prop_assert!(
            issued.args.canonical_eq(args),
            "token issued for other args"
        );
        prop_assert!(
            req_args.canonical_eq(args),
            "confirming call had other args"
        );
        prop_assert!(
            issued.ended.is_none(),
            "soft Run on a token whose call already settled ({:?})",
            issued.ended
        );
        prop_assert!(
            now < issued.issued_at + timeout_ms,
            "soft Run on a token issued at {} and expired at {} by the test's clock (now {})",
            issued.issued_at,
            issued.issued_at + timeout_ms,
            now
        );
        prop_assert!(!issued.used, "token used twice");
        issued.used = true;
        Ok(())
    }
}
