#![cfg(not(target_arch = "wasm32"))]
//! Property tests: random sequences of everything the agent, the user, the app and time can do,
//! checked against the engine's invariants after every step.
//!
//! The default run is 10,000 cases per property; for a long run:
//!
//! ```text
//! PROPTEST_CASES=1000000 cargo test --release --test engine_props
//! ```

mod engine_support;

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use coworkkit::core::control::Control;
use coworkkit::core::engine::{
    ActionDef, ActionId, CallRef, CancelReason, Config, Effect, Engine, GrantId, InvokeRequest,
    ProposalId, Ticket,
};
use coworkkit::core::error::Error;
use coworkkit::core::grant::{GrantOptions, DEFAULT_TTL_MS, MAX_TTL_MS};
use coworkkit::core::record::{Approver, Assurance, Gate, RecordOutcome, Via};
use coworkkit::core::schema::Schema;
use coworkkit::core::value::Value;
use engine_support::{v, Consent, SeededEntropy};
use proptest::prelude::*;

const MAX_PENDING: usize = 3;
/// `confirmTimeoutMs` of every model: the consent ledger judges expiry by it.
const TIMEOUT_MS: f64 = 1000.0;

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000)
}

/// A grant's `ttlMs`, `maxUses` and `match` the app may ask for (some refused: 0, over 24 h,
/// not an object).
const TTLS: [Option<f64>; 5] = [
    None,
    Some(400.0),
    Some(1500.0),
    Some(0.0),
    Some(MAX_TTL_MS + 1.0),
];
const MAX_USES: [Option<f64>; 4] = [None, Some(1.0), Some(2.0), Some(0.0)];
const MATCHES: [Option<&str>; 5] = [
    None,
    Some("{}"),
    Some(r#"{"a":1}"#),
    Some(r#"{"b":"x"}"#),
    Some("[1]"),
];

/// What a person may type when they cancel a card: nothing, words, blank.
const SAID: [Option<&str>; 3] = [
    None,
    Some("  not this\none \u{202E}now "),
    Some(" \u{200B} "),
];

/// [`SAID`] as the record's `note` keeps it.
const NOTE: [Option<&str>; 3] = [None, Some("not this one now"), None];

/// The action pool: (name, declared control, approvers, element).
const ACTIONS: [(&str, Option<Control>, Option<&str>, bool); 7] = [
    ("readDoc", Some(Control::Open), None, false),
    ("archive", Some(Control::Soft), None, false),
    ("deleteItem", None, None, false), // soft by its name
    ("wipe", Some(Control::Hard), Some("admin"), false),
    ("publish", Some(Control::Hard), None, false),
    ("press", None, None, true),
    ("pressHard", Some(Control::Hard), None, true),
];

const ARGS: [&str; 7] = [
    "{}",
    r#"{"a":1}"#,
    r#"{"a":1,"b":"x"}"#,
    r#"{"b":"x","a":1}"#,
    r#"{"a":2}"#,
    r#"{"a":"s"}"#,
    "[1]",
];

#[derive(Clone, Debug)]
enum TokenChoice {
    None,
    /// An issued token; with `follow`, the call also takes that token's action and args (a
    /// proper confirmation, or a replay of one), which random names and args rarely match.
    Captured {
        index: usize,
        follow: bool,
    },
    Forged,
}

#[derive(Clone, Debug)]
enum Op {
    Register(usize),
    Unregister(usize),
    Invoke {
        action: usize,
        args: usize,
        call_id: Option<u8>,
        token: TokenChoice,
        decline: bool,
        host_reject: bool,
        unreadable: bool,
    },
    Confirm {
        proposal: usize,
        role: u8,
    },
    Cancel {
        proposal: usize,
        by_user: bool,
        /// An index into [`SAID`]: what the person typed, if anything.
        said: usize,
    },
    /// "Cancel all" on the card, or `ck.cancelAll` from the app.
    CancelAll {
        by_user: bool,
        said: usize,
    },
    Finish {
        run: usize,
        ok: bool,
    },
    Tick(u16),
    Dispose,
    HandMode(bool),
    /// The app asks for a grant, inside a person's gesture or not.
    Grant {
        action: usize,
        ttl: usize,
        max_uses: usize,
        matching: usize,
        gesture: bool,
    },
    /// The app (or the Watch panel's Revoke) ends one of the grants it made.
    Revoke(usize),
}

/// Decodes one random word into an input. (Generating plain `u64`s and decoding them is many
/// times faster than composing proptest strategies, which matters for 10,000 cases in debug
/// builds; shrinking still works: shorter sequences, smaller words.)
fn decode(x: u64) -> Op {
    let kind = x % 29;
    let mut rest = x / 29;
    let mut take = |n: u64| {
        let field = rest % n;
        rest /= n;
        field as usize
    };
    match kind {
        0..=1 => Op::Register(take(ACTIONS.len() as u64)),
        2 => Op::Unregister(take(ACTIONS.len() as u64)),
        3..=12 => {
            let action = take(ACTIONS.len() as u64 + 1);
            let args = take(ARGS.len() as u64);
            let call_id = match take(5) {
                4 => None,
                c => Some(c as u8),
            };
            let token = match take(8) {
                0..=2 => TokenChoice::None,
                3..=6 => TokenChoice::Captured {
                    index: take(64),
                    follow: take(2) == 0,
                },
                _ => TokenChoice::Forged,
            };
            let flags = take(100);
            Op::Invoke {
                action,
                args,
                call_id,
                token,
                decline: flags < 15,
                host_reject: (15..20).contains(&flags),
                unreadable: (20..23).contains(&flags),
            }
        }
        13..=16 => Op::Confirm {
            proposal: take(64),
            role: take(3) as u8,
        },
        17 => Op::Cancel {
            proposal: take(64),
            by_user: take(2) == 0,
            said: take(SAID.len() as u64),
        },
        18..=21 => Op::Finish {
            run: take(64),
            ok: take(5) != 0,
        },
        22..=23 => Op::Tick(take(700) as u16),
        24 => match take(10) {
            0 => Op::Dispose,
            1..=3 => Op::CancelAll {
                by_user: take(2) == 0,
                said: take(SAID.len() as u64),
            },
            _ => Op::Tick(0),
        },
        25 => Op::HandMode(take(2) == 0),
        26..=27 => Op::Grant {
            action: take(ACTIONS.len() as u64 + 1),
            ttl: take(TTLS.len() as u64),
            max_uses: take(MAX_USES.len() as u64),
            matching: take(MATCHES.len() as u64),
            gesture: take(5) != 0,
        },
        _ => Op::Revoke(take(64)),
    }
}

/// What the checker knows about the world, from the outside only.
struct Model {
    engine: Engine<u32>,
    now: f64,
    hand_mode: bool,
    ids: [Option<ActionId>; ACTIONS.len()],
    stale: Vec<ActionId>,
    /// Tokens issued and proposals announced.
    consent: Consent,
    runs: Vec<CallRef>,
    run_count: BTreeMap<CallRef, u32>,
    recorded: BTreeSet<CallRef>,
    tickets: BTreeMap<Ticket, u32>,
    next_result: u32,
    /// Gates, reasons, error codes and kinds of Run seen (for the coverage test).
    seen: BTreeSet<String>,
    /// The grant each call that ran on one spent, for its record to name.
    granted_runs: BTreeMap<CallRef, GrantId>,
    /// What let each call run, as the model saw it decided (the step that started it): the
    /// assurance its record must carry.
    run_assurance: BTreeMap<CallRef, Assurance>,
    disposed: bool,
}

/// The input that produced the effects being checked.
enum Step {
    Invoke {
        ticket: Ticket,
        name: String,
        args: Option<Value>,
        token: Option<String>,
        decline: bool,
    },
    Confirmed {
        proposal: ProposalId,
        role: Option<String>,
    },
    /// A cancel of one card or all, with what the person said (as the record must keep it).
    Cancelled {
        note: Option<&'static str>,
        all: Option<usize>,
    },
    Other,
}

/// The level each pool action has once registered (its declared one, or by its name).
fn pool_level(index: usize) -> Control {
    match ACTIONS[index] {
        (_, Some(control), ..) => control,
        ("deleteItem", ..) => Control::Soft,
        _ => Control::Open,
    }
}

fn role_of(role: u8) -> Option<Approver> {
    match role {
        1 => Some(Approver {
            id: "ann".into(),
            role: Some("admin".into()),
        }),
        2 => Some(Approver {
            id: "vic".into(),
            role: Some("viewer".into()),
        }),
        _ => None,
    }
}

fn def(index: usize) -> ActionDef {
    let (name, control, approvers, element) = ACTIONS[index];
    let mut def = ActionDef::new(name, "pool action");
    def.control = control;
    def.approvers = approvers.map(|r| vec![r.to_string()]);
    def.element = element;
    if index == 0 {
        def.schema = Some(
            Schema::parse(&v(
                r#"{"type":"object","properties":{"a":{"type":"number"}}}"#,
            ))
            .unwrap(),
        );
    }
    def
}

impl Model {
    fn new(seed: u64) -> Self {
        let config = Config {
            confirm_timeout_ms: TIMEOUT_MS,
            max_pending: MAX_PENDING,
            ..Config::default()
        };
        Model {
            engine: Engine::new(config, "prop".into(), Box::new(SeededEntropy(seed | 1))),
            now: 1_000.0,
            hand_mode: false,
            ids: [None; ACTIONS.len()],
            stale: Vec::new(),
            consent: Consent::new(TIMEOUT_MS),
            runs: Vec::new(),
            run_count: BTreeMap::new(),
            recorded: BTreeSet::new(),
            tickets: BTreeMap::new(),
            next_result: 0,
            seen: BTreeSet::new(),
            granted_runs: BTreeMap::new(),
            run_assurance: BTreeMap::new(),
            disposed: false,
        }
    }

    fn apply(&mut self, op: &Op) -> Result<(), TestCaseError> {
        self.now += 1.0;
        let step = match op {
            Op::Register(i) => {
                if let Ok(id) = self.engine.register(def(*i)) {
                    prop_assert!(self.ids[*i].is_none(), "duplicate registration accepted");
                    self.ids[*i] = Some(id);
                }
                Step::Other
            }
            Op::Unregister(i) => {
                let id = self.ids[*i].take().or_else(|| self.stale.first().copied());
                if let Some(id) = id {
                    self.engine.unregister(id, self.now);
                    self.stale.push(id);
                }
                Step::Other
            }
            Op::Invoke {
                action,
                args,
                call_id,
                token,
                decline,
                host_reject,
                unreadable,
            } => {
                let mut name = ACTIONS.get(*action).map_or("ghost", |a| a.0).to_string();
                let mut args_value = v(ARGS[*args]);
                let token = match token {
                    TokenChoice::None => None,
                    TokenChoice::Forged => Some("ckt_forged".to_string()),
                    TokenChoice::Captured { index, follow } if !self.consent.issued.is_empty() => {
                        let issued = &self.consent.issued;
                        let issued = &issued[index % issued.len()];
                        if *follow {
                            name.clone_from(&issued.action);
                            args_value = issued.args.clone();
                        }
                        // For the coverage test: a token presented again after its call
                        // settled without running, for exactly its action and args.
                        if let Some(how) = &issued.ended {
                            if name == issued.action && args_value.canonical_eq(&issued.args) {
                                self.seen.insert(format!("replayed:{how}"));
                            }
                        }
                        Some(issued.token.clone())
                    }
                    TokenChoice::Captured { .. } => None,
                };
                let req = InvokeRequest {
                    name: name.clone(),
                    action: None,
                    args: if *unreadable {
                        Err(Error::InvalidArgs("args.f: is a function".into()))
                    } else {
                        Ok(Rc::new(args_value.clone()))
                    },
                    call_id: call_id.map(|c| format!("c{c}")),
                    confirm_token: token.clone(),
                    decline: *decline,
                    reason: None,
                    host_rejection: host_reject.then(|| Error::ElementUnavailable("gone".into())),
                    snapshot: None,
                    via: Via::Invoke,
                };
                let ticket = self.engine.invoke(req, self.now);
                prop_assert!(self.tickets.insert(ticket, 0).is_none(), "ticket reused");
                Step::Invoke {
                    ticket,
                    name,
                    args: (!unreadable).then_some(args_value),
                    token,
                    decline: *decline,
                }
            }
            Op::Confirm { proposal, role } => {
                let id = self.pick_proposal(*proposal);
                let approver = role_of(*role);
                let role = approver.as_ref().and_then(|a| a.role.clone());
                // `may_confirm` is a getter without a clock: expire what is due first, as
                // `confirm` itself does.
                self.engine.tick(self.now);
                let may = self.engine.may_confirm(id, role.as_deref());
                let result = self.engine.confirm(id, approver, self.now);
                if may {
                    prop_assert!(
                        result.is_ok(),
                        "may_confirm said yes but confirm failed: {result:?}"
                    );
                }
                if let Err(e) = &result {
                    self.seen.insert(format!("confirm:{}", e.code()));
                }
                match result {
                    Ok(()) => Step::Confirmed { proposal: id, role },
                    Err(_) => Step::Other,
                }
            }
            Op::Cancel {
                proposal,
                by_user,
                said,
            } => {
                let id = self.pick_proposal(*proposal);
                let reason = if *by_user {
                    CancelReason::User
                } else {
                    CancelReason::App
                };
                self.engine.cancel_saying(id, reason, SAID[*said], self.now);
                Step::Cancelled {
                    note: NOTE[*said],
                    all: None,
                }
            }
            Op::CancelAll { by_user, said } => {
                let reason = if *by_user {
                    CancelReason::User
                } else {
                    CancelReason::App
                };
                let n = self.engine.cancel_all(None, reason, SAID[*said], self.now);
                if n > 1 {
                    self.seen.insert("cancel_all:several".into());
                }
                Step::Cancelled {
                    note: NOTE[*said],
                    all: Some(n),
                }
            }
            Op::Finish { run, ok } => {
                if !self.runs.is_empty() {
                    let call = self.runs[run % self.runs.len()];
                    let result = if *ok {
                        self.next_result += 1;
                        Ok(self.next_result)
                    } else {
                        Err(Error::RunFailed("boom".into()))
                    };
                    self.engine.run_finished(call, result, self.now);
                }
                Step::Other
            }
            Op::Tick(ms) => {
                self.now += f64::from(*ms);
                self.engine.tick(self.now);
                Step::Other
            }
            Op::Dispose => {
                self.engine.dispose(self.now);
                self.consent.disposed();
                self.disposed = true;
                Step::Other
            }
            Op::Grant {
                action,
                ttl,
                max_uses,
                matching,
                gesture,
            } => {
                let name = ACTIONS.get(*action).map_or("ghost", |a| a.0);
                let options = GrantOptions {
                    ttl_ms: TTLS[*ttl],
                    max_uses: MAX_USES[*max_uses],
                    match_args: MATCHES[*matching].map(|m| Ok(v(m))),
                };
                let ttl_ms = options.ttl_ms.unwrap_or(DEFAULT_TTL_MS);
                let soft = ACTIONS.get(*action).is_some()
                    && self.ids[*action].is_some()
                    && pool_level(*action) == Control::Soft;
                let sound = ttl_ms > 0.0
                    && ttl_ms <= MAX_TTL_MS
                    && MAX_USES[*max_uses] != Some(0.0)
                    && MATCHES[*matching] != Some("[1]");
                let expected = if self.disposed {
                    Err("disposed")
                } else if !soft || !sound {
                    Err("invalid_grant")
                } else if !gesture {
                    Err("needs_user_activation")
                } else {
                    Ok(())
                };
                let result = self.engine.grant(name, &options, *gesture, self.now);
                prop_assert_eq!(
                    result.as_ref().map(|_| ()).map_err(Error::code),
                    expected,
                    "grant of {} ({:?})",
                    name,
                    options
                );
                match result {
                    Ok(grant) => {
                        self.seen.insert("grant:made".into());
                        self.consent.granted(&grant, ttl_ms, self.now);
                    }
                    Err(e) => {
                        self.seen.insert(format!("grant:{}", e.code()));
                    }
                }
                Step::Other
            }
            Op::Revoke(index) => {
                if !self.consent.grants.is_empty() {
                    let id = self.consent.grants[index % self.consent.grants.len()].id;
                    let known_live = self.consent.revoked(id, self.now);
                    let revoked = self.engine.revoke_grant(id, self.now);
                    prop_assert_eq!(revoked, known_live, "revoke of {:?}", id);
                    if revoked {
                        self.seen.insert("grant:revoked".into());
                    }
                }
                Step::Other
            }
            Op::HandMode(armed) => {
                self.hand_mode = *armed;
                self.engine.set_hand_mode(*armed);
                Step::Other
            }
        };
        self.check(step)
    }

    fn pick_proposal(&self, index: usize) -> ProposalId {
        let proposals = &self.consent.proposals;
        if proposals.is_empty() {
            ProposalId::parse("ckp_999").unwrap()
        } else {
            proposals[index % proposals.len()].0
        }
    }

    /// Drains the effects of one step and checks every invariant.
    fn check(&mut self, step: Step) -> Result<(), TestCaseError> {
        let mut effects = Vec::new();
        while let Some(e) = self.engine.poll_effect() {
            effects.push(e);
        }
        let mut arrival_records = 0;
        for effect in &effects {
            match effect {
                Effect::Run {
                    call,
                    action,
                    call_id,
                    control,
                    args,
                    approver,
                    ..
                } => {
                    let count = self.run_count.entry(*call).or_insert(0);
                    *count += 1;
                    prop_assert_eq!(*count, 1, "Run emitted twice for one call");
                    prop_assert!(!self.recorded.contains(call), "Run after settling");
                    self.runs.push(*call);
                    self.seen.insert(format!("run:{}", control.as_str()));
                    // The action is live while its call starts: the model's own id says
                    // which of the pool it is.
                    let index = self
                        .ids
                        .iter()
                        .position(|id| *id == Some(*action))
                        .expect("a live pool action");
                    let name = ACTIONS[index].0;
                    if ACTIONS[index].3 {
                        prop_assert!(self.hand_mode, "element action ran with Hand mode off");
                    }
                    let assurance = match control {
                        Control::Hard => {
                            let Step::Confirmed { proposal, role } = &step else {
                                return Err(TestCaseError::fail("hard Run without a confirm"));
                            };
                            self.consent.hard_run(*proposal, call_id, name)?;
                            if let Some(required) = ACTIONS[index].2 {
                                prop_assert_eq!(
                                    role.as_deref(),
                                    Some(required),
                                    "confirmed by a role not listed"
                                );
                            }
                            prop_assert_eq!(
                                approver.as_ref().and_then(|a| a.role.clone()),
                                role.clone()
                            );
                            // The pool has no passkey action: a trusted click is all there is.
                            Assurance::Input
                        }
                        Control::Soft => match &step {
                            Step::Invoke {
                                name: req_name,
                                args: Some(req_args),
                                token: Some(token),
                                decline: false,
                                ..
                            } => {
                                self.consent.soft_run(
                                    token,
                                    (req_name, req_args),
                                    (call_id, name, args),
                                    self.now,
                                )?;
                                Assurance::Agent
                            }
                            // A first call: only a grant the app made can let it through.
                            Step::Invoke {
                                name: req_name,
                                args: Some(req_args),
                                token: None,
                                decline: false,
                                ..
                            } => {
                                prop_assert_eq!(req_name, name);
                                prop_assert!(req_args.canonical_eq(args));
                                let grant = self.consent.grant_run(name, args, self.now)?;
                                self.granted_runs.insert(*call, grant);
                                self.seen.insert("run:granted".into());
                                Assurance::Grant
                            }
                            _ => {
                                return Err(TestCaseError::fail(
                                    "soft Run without a confirming invoke or a grant",
                                ))
                            }
                        },
                        Control::Open => {
                            prop_assert!(
                                matches!(step, Step::Invoke { .. }),
                                "open Run outside invoke"
                            );
                            Assurance::None
                        }
                    };
                    self.run_assurance.insert(*call, assurance);
                }
                Effect::Record(record) => {
                    self.seen.insert(format!("gate:{}", record.gate.as_str()));
                    if let Some(reason) = &record.reason {
                        self.seen.insert(format!("reason:{reason}"));
                    }
                    prop_assert!(record.gate.is_terminal(), "record for needs_confirmation");
                    prop_assert_eq!(
                        record.grant,
                        record.call.and_then(|c| self.granted_runs.get(&c).copied()),
                        "the record names the grant its call spent, and only that"
                    );
                    // Only a cancel in which the person said something carries their words, on
                    // the cards it cancelled (a call that expired meanwhile carries none).
                    match &step {
                        Step::Cancelled { note, .. }
                            if record.gate == Gate::Cancelled
                                && record.reason != Some("expired") =>
                        {
                            prop_assert_eq!(record.note.as_deref(), *note);
                            prop_assert_eq!(
                                record.control,
                                Control::Hard,
                                "only cards are cancelled"
                            );
                            prop_assert!(matches!(record.outcome, RecordOutcome::NotRun));
                        }
                        _ => prop_assert_eq!(&record.note, &None),
                    }
                    prop_assert!(record.started_at <= record.settled_at);
                    let ran = match record.outcome {
                        RecordOutcome::Ok { .. } | RecordOutcome::Error { .. } => true,
                        RecordOutcome::NotRun => false,
                    };
                    // SPEC §6: what let it run, whether `run` succeeded or threw; none when it
                    // never ran (every arrival record among them).
                    let expected = match record.call {
                        Some(call) if ran => self.run_assurance.get(&call).copied(),
                        _ => Some(Assurance::None),
                    };
                    prop_assert_eq!(
                        Some(record.assurance),
                        expected,
                        "assurance of {:?}",
                        record
                    );
                    self.seen.insert(format!(
                        "assurance:{}:{}:{}",
                        record.gate.as_str(),
                        record.outcome.status(),
                        record.assurance.as_str()
                    ));
                    match record.call {
                        Some(call) => {
                            prop_assert!(self.recorded.insert(call), "two records for one call");
                            self.consent.settled(
                                &record.call_id,
                                ran,
                                record.reason.unwrap_or(record.gate.as_str()),
                            );
                            prop_assert_eq!(
                                ran,
                                self.run_count.contains_key(&call),
                                "outcome status vs run"
                            );
                        }
                        None => {
                            arrival_records += 1;
                            prop_assert!(matches!(record.outcome, RecordOutcome::NotRun));
                            prop_assert!(matches!(
                                record.gate,
                                Gate::Rejected | Gate::NeedsHandMode | Gate::Cancelled
                            ));
                            let Step::Invoke { ticket, .. } = &step else {
                                return Err(TestCaseError::fail("arrival record outside invoke"));
                            };
                            let answered = effects.iter().any(|e| matches!(e,
                                Effect::Answer { ticket: t, outcome } if t == ticket
                                    && outcome.gate == record.gate && outcome.call_id == record.call_id));
                            prop_assert!(answered, "arrival record without the matching answer");
                        }
                    }
                }
                Effect::Answer { ticket, outcome } => {
                    let count = self
                        .tickets
                        .get_mut(ticket)
                        .ok_or_else(|| TestCaseError::fail("answer for an unknown ticket"))?;
                    *count += 1;
                    prop_assert_eq!(*count, 1, "ticket answered twice");
                    if outcome.ok {
                        prop_assert!(matches!(outcome.gate, Gate::Fired | Gate::Confirmed));
                    }
                    self.seen
                        .insert(format!("answer:{}", outcome.gate.as_str()));
                    if outcome.gate == Gate::NeedsConfirmation {
                        let Step::Invoke {
                            ticket: t,
                            name,
                            args: Some(args),
                            ..
                        } = &step
                        else {
                            return Err(TestCaseError::fail("needs_confirmation outside invoke"));
                        };
                        prop_assert_eq!(t, ticket);
                        let token = outcome.confirm_token.as_deref().expect("token");
                        self.consent
                            .issue(token, &outcome.call_id, (name, args), self.now)?;
                    }
                }
                Effect::Proposal(info) => {
                    self.consent.announce(info.id, &info.call_id, &info.action)
                }
                _ => {}
            }
        }
        prop_assert!(arrival_records <= 1);
        if let Step::Cancelled { all: Some(n), .. } = step {
            let cancelled = effects
                .iter()
                .filter(|e| matches!(e, Effect::Record(r) if r.gate == Gate::Cancelled))
                .count();
            prop_assert_eq!(cancelled, n, "one record per card cancelled at once");
            prop_assert!(
                self.engine.pending().is_empty(),
                "a card survived Cancel all"
            );
        }
        self.consent
            .check_grants(self.engine.grants(self.now), self.now)?;
        let pending = self.engine.pending();
        prop_assert!(pending.len() <= MAX_PENDING, "pending above maxPending");
        // The visible card is the first pending one, and only it may be confirmed.
        for (i, p) in pending.iter().enumerate() {
            if i > 0 {
                prop_assert!(!self.engine.may_confirm(p.id, Some("admin")));
            }
        }
        Ok(())
    }

    /// Dispose, let every running call finish, then every ticket must have its one answer.
    fn finish(&mut self) -> Result<(), TestCaseError> {
        self.engine.dispose(self.now);
        self.consent.disposed();
        self.disposed = true;
        self.check(Step::Other)?;
        let running: Vec<CallRef> = self
            .runs
            .iter()
            .copied()
            .filter(|c| !self.recorded.contains(c))
            .collect();
        for call in running {
            self.engine.run_finished(call, Ok(0), self.now);
            self.check(Step::Other)?;
        }
        prop_assert!(self.engine.pending().is_empty());
        prop_assert_eq!(self.engine.poll_timeout(), None);
        for (ticket, count) in &self.tickets {
            prop_assert_eq!(*count, 1, "ticket {:?} not answered exactly once", ticket);
        }
        for call in self.run_count.keys() {
            prop_assert!(self.recorded.contains(call), "a run that never settled");
        }
        Ok(())
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn engine_invariants_hold_for_any_sequence(
        seed in any::<u64>(),
        registered in any::<u8>(),
        words in prop::collection::vec(any::<u64>(), 1..40),
    ) {
        let ops: Vec<Op> = words.iter().copied().map(decode).collect();
        let mut model = Model::new(seed);
        let run = |model: &mut Model| -> Result<(), TestCaseError> {
            for i in 0..ACTIONS.len() {
                if registered & (1 << i) != 0 {
                    model.apply(&Op::Register(i))?;
                }
            }
            for op in &ops {
                model.apply(op)?;
            }
            model.finish()
        };
        if let Err(error) = run(&mut model) {
            return Err(TestCaseError::fail(format!("{error}\nops: {ops:#?}")));
        }
    }
}

/// Guards the property test itself: the random sequences must actually reach every gate and
/// every refusal, or the invariants above would hold vacuously.
#[test]
fn random_sequences_reach_every_gate_and_refusal() {
    let mut state = 0x1234_5678_9abc_def1u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut seen = BTreeSet::new();
    for _ in 0..3000 {
        let mut model = Model::new(next());
        let registered = next();
        for i in 0..ACTIONS.len() {
            if registered & (1 << i) != 0 {
                model.apply(&Op::Register(i)).unwrap();
            }
        }
        for _ in 0..(next() % 40) {
            model.apply(&decode(next())).unwrap();
        }
        model.finish().unwrap();
        seen.extend(model.seen);
    }
    for expected in [
        "run:open",
        "run:soft",
        "run:hard",
        "answer:needs_confirmation",
        "answer:fired",
        "answer:confirmed",
        "gate:fired",
        "gate:confirmed",
        "gate:cancelled",
        "gate:timeout",
        "gate:rejected",
        "gate:needs_hand_mode",
        "reason:bad_token",
        "reason:token_expired",
        "reason:call_id_conflict",
        "reason:too_many_pending",
        "reason:unknown_action",
        "reason:invalid_args",
        "reason:element_unavailable",
        "reason:declined",
        "reason:expired",
        "reason:cancelled_by_user",
        "reason:cancelled_by_app",
        "reason:action_disposed",
        "reason:disposed",
        "reason:hand_mode_off",
        "replayed:declined",
        "replayed:expired",
        "replayed:action_disposed",
        "confirm:not_admin",
        "confirm:proposal_not_visible",
        "confirm:unknown_proposal",
        "grant:made",
        "grant:revoked",
        "grant:invalid_grant",
        "grant:needs_user_activation",
        "grant:disposed",
        "run:granted",
        "cancel_all:several",
        "assurance:fired:ok:none",
        "assurance:fired:error:none",
        "assurance:fired:ok:grant",
        "assurance:fired:error:grant",
        "assurance:confirmed:ok:agent",
        "assurance:confirmed:error:agent",
        "assurance:confirmed:ok:input",
        "assurance:confirmed:error:input",
        "assurance:cancelled:not_run:none",
        "assurance:timeout:not_run:none",
        "assurance:rejected:not_run:none",
        "assurance:needs_hand_mode:not_run:none",
    ] {
        assert!(
            seen.contains(expected),
            "never reached {expected}; saw {seen:?}"
        );
    }
}
