#![cfg(not(target_arch = "wasm32"))]
//! Passkey-verified confirmation in the engine (SPEC §4.1, §8): a `verify: "passkey"` proposal
//! runs only through `confirm_verified`, with an assertion over the statement the engine made
//! last for that call; and what the host accepts of an assertion (`assertion_accepted`).

mod engine_support;

use coworkkit::core::control::Control;
use coworkkit::core::engine::{ActionDef, CancelReason, Config, Effect, ProposalId};
use coworkkit::core::error::Error;
use coworkkit::core::passkey::{
    assertion_accepted, rp_id_is_domain, Refusal, Verification, Verify,
};
use coworkkit::core::record::{Assurance, Gate};
use engine_support::{admin, v, viewer, Harness};

const T0: f64 = 1_000_000.0;

fn passkey_action(h: &mut Harness, name: &str) {
    let mut def = ActionDef::new(name, "delete for good");
    def.control = Some(Control::Hard);
    def.verify = Some(Verify::Passkey);
    h.register(def);
}

fn verification(nonce: &str) -> Verification<String> {
    Verification {
        nonce: nonce.into(),
        credential_id: "cred-1".into(),
        receipt: format!("receipt over {nonce}"),
    }
}

fn waiting(h: &Harness) -> ProposalId {
    h.engine.pending()[0].id
}

#[test]
fn verify_is_for_hard_actions_only() {
    let mut h = Harness::new();
    for control in [None, Some(Control::Open), Some(Control::Soft)] {
        let mut def = ActionDef::new("archive", "a");
        def.control = control;
        def.verify = Some(Verify::Passkey);
        let error = h.engine.register(def).unwrap_err();
        assert_eq!(error.code(), "invalid_spec", "{control:?}");
        assert!(error.message().contains("hard"), "{}", error.message());
    }
    // A destructive name without a declared level is soft, so it cannot be verified either.
    let mut def = ActionDef::new("deleteProject", "d");
    def.verify = Some(Verify::Passkey);
    assert_eq!(h.engine.register(def).unwrap_err().code(), "invalid_spec");
    assert_eq!(h.engine.actions().count(), 0, "nothing was registered");
    assert_eq!(Verify::parse("passkey"), Some(Verify::Passkey));
    assert_eq!(Verify::parse("Passkey"), None);
}

#[test]
fn a_trusted_click_alone_never_runs_a_passkey_action() {
    let mut h = Harness::new();
    passkey_action(&mut h, "deleteProject");
    let t = h.call("deleteProject", r#"{"id":"p1"}"#, Some("c1"), T0);
    let p = waiting(&h);
    assert!(matches!(
        h.effects.last(),
        Some(Effect::ShowCard {
            verify: Some(Verify::Passkey),
            ..
        })
    ));
    assert_eq!(h.engine.proposal_verify(p), Some(Verify::Passkey));
    assert_eq!(
        h.engine.confirm(p, admin(), T0 + 1.0),
        Err(Error::PasskeyRequired)
    );
    h.drain();
    assert!(h.runs().is_empty());
    assert!(h.answer(t).is_none(), "still waiting");
    assert_eq!(h.engine.pending().len(), 1);
}

#[test]
fn the_statement_is_of_exactly_this_call_with_a_fresh_nonce_each_time() {
    let mut h = Harness::new();
    passkey_action(&mut h, "deleteProject");
    h.call("deleteProject", r#"{"id":"p1","n":[1,2]}"#, Some("c1"), T0);
    let p = waiting(&h);
    let first = h.engine.begin_passkey(p, None, T0 + 600.0).unwrap();
    assert_eq!(first.action, "deleteProject");
    assert_eq!(*first.args, v(r#"{"id":"p1","n":[1,2]}"#));
    assert_eq!(first.call_id, "c1");
    assert_eq!(&*first.session_id, h.engine.session_id());
    assert_eq!(first.issued_at, T0 + 600.0);
    assert_eq!(first.expires_at, T0 + 120_000.0, "the card's own expiry");
    assert_eq!(first.nonce.len(), 32, "128 bits in hex");
    assert!(first.nonce.bytes().all(|b| b.is_ascii_hexdigit()));
    let second = h.engine.begin_passkey(p, None, T0 + 700.0).unwrap();
    assert_ne!(first.nonce, second.nonce);
}

#[test]
fn an_assertion_over_the_last_statement_runs_it_once_with_the_receipt() {
    let mut h = Harness::new();
    passkey_action(&mut h, "deleteProject");
    let t = h.call("deleteProject", r#"{"id":"p1"}"#, Some("c1"), T0);
    let p = waiting(&h);
    let statement = h
        .engine
        .begin_passkey(p, Some("admin"), T0 + 600.0)
        .unwrap();
    h.engine
        .confirm_verified(p, admin(), verification(&statement.nonce), T0 + 900.0)
        .unwrap();
    h.drain();
    let receipt = h.effects.iter().find_map(|e| match e {
        Effect::Run { receipt, .. } => Some(receipt.clone()),
        _ => None,
    });
    assert_eq!(
        receipt,
        Some(Some(format!("receipt over {}", statement.nonce)))
    );
    // Claimed: neither a second assertion nor a cancel reaches it now.
    assert_eq!(
        h.engine
            .confirm_verified(p, admin(), verification(&statement.nonce), T0 + 901.0),
        Err(Error::UnknownProposal)
    );
    assert!(!h.engine.cancel(p, CancelReason::User, T0 + 901.0));
    let call = h.last_run();
    h.finish(call, Ok("gone".into()), T0 + 1000.0);
    let outcome = h.answered(t);
    assert_eq!((outcome.gate, outcome.ok), (Gate::Confirmed, true));
    let record = h.records()[0];
    assert_eq!(record.approver, admin());
    let recorded = record.verification.as_ref().expect("verification");
    assert_eq!(recorded.credential_id, "cred-1");
    assert_eq!(recorded.nonce, statement.nonce);
    assert_eq!(record.assurance, Assurance::Passkey);
    assert_eq!(h.runs().len(), 1);
}

#[test]
fn an_assertion_over_an_earlier_or_foreign_statement_confirms_nothing() {
    let mut h = Harness::new();
    passkey_action(&mut h, "deleteProject");
    h.call("deleteProject", r#"{"id":"p1"}"#, Some("c1"), T0);
    let p = waiting(&h);
    // Before any statement was made: nothing to have signed.
    assert_eq!(
        h.engine
            .confirm_verified(p, None, verification("0123"), T0 + 1.0),
        Err(Error::PasskeyRequired)
    );
    let first = h.engine.begin_passkey(p, None, T0 + 600.0).unwrap();
    let second = h.engine.begin_passkey(p, None, T0 + 700.0).unwrap();
    // A late answer to the first prompt, and a made-up nonce.
    for nonce in [first.nonce.as_str(), "f".repeat(32).as_str()] {
        assert_eq!(
            h.engine
                .confirm_verified(p, None, verification(nonce), T0 + 800.0),
            Err(Error::PasskeyRequired)
        );
    }
    h.drain();
    assert!(h.runs().is_empty());
    // Another call's statement does not confirm this one either.
    h.call("deleteProject", r#"{"id":"p2"}"#, Some("c2"), T0);
    let other = h.engine.pending()[1].id;
    h.engine.cancel(p, CancelReason::User, T0 + 900.0);
    assert_eq!(
        h.engine
            .confirm_verified(other, None, verification(&second.nonce), T0 + 901.0),
        Err(Error::PasskeyRequired)
    );
    h.drain();
    assert!(h.runs().is_empty());
}

#[test]
fn cancel_expiry_and_dispose_during_a_prompt_settle_once_and_ignore_the_late_assertion() {
    for ending in ["cancel", "expiry", "dispose"] {
        let mut h = Harness::with_config(Config {
            confirm_timeout_ms: 10_000.0,
            ..Config::default()
        });
        passkey_action(&mut h, "deleteProject");
        let t = h.call("deleteProject", "{}", None, T0);
        let p = waiting(&h);
        let statement = h.engine.begin_passkey(p, None, T0 + 600.0).unwrap();
        let late = T0 + 20_000.0;
        match ending {
            "cancel" => assert!(h.engine.cancel(p, CancelReason::User, T0 + 700.0)),
            "expiry" => h.engine.tick(late),
            _ => h.engine.dispose(T0 + 700.0),
        }
        let result = h
            .engine
            .confirm_verified(p, None, verification(&statement.nonce), late);
        assert!(result.is_err(), "{ending}: {result:?}");
        h.drain();
        assert!(h.runs().is_empty(), "{ending}");
        let gate = h.answered(t).gate;
        let expected = if ending == "expiry" {
            Gate::Timeout
        } else {
            Gate::Cancelled
        };
        assert_eq!(gate, expected, "{ending}");
        assert_eq!(h.records().len(), 1, "{ending}: one record");
        assert!(h.records()[0].verification.is_none(), "{ending}");
    }
}

#[test]
fn the_approvers_rule_holds_for_the_statement_and_the_confirmation() {
    let mut h = Harness::new();
    let mut def = ActionDef::new("deleteProject", "d");
    def.control = Some(Control::Hard);
    def.verify = Some(Verify::Passkey);
    def.approvers = Some(vec!["admin".into()]);
    h.register(def);
    h.call("deleteProject", "{}", None, T0);
    let p = waiting(&h);
    assert_eq!(
        h.engine.begin_passkey(p, Some("viewer"), T0 + 1.0),
        Err(Error::NotAdmin)
    );
    let statement = h.engine.begin_passkey(p, Some("admin"), T0 + 1.0).unwrap();
    assert_eq!(
        h.engine
            .confirm_verified(p, viewer(), verification(&statement.nonce), T0 + 2.0),
        Err(Error::NotAdmin)
    );
    h.drain();
    assert!(h.runs().is_empty());
    assert_eq!(h.engine.pending().len(), 1, "it stays pending");
}

#[test]
fn a_plain_hard_action_has_no_statement_and_ignores_a_verification() {
    let mut h = Harness::new();
    h.action("wipe", Some("hard"));
    h.call("wipe", "{}", None, T0);
    let p = waiting(&h);
    assert_eq!(h.engine.proposal_verify(p), None);
    assert_eq!(
        h.engine.begin_passkey(p, None, T0 + 1.0),
        Err(Error::PasskeyRequired)
    );
    h.engine
        .confirm_verified(p, None, verification("ab"), T0 + 2.0)
        .unwrap();
    h.drain();
    let call = h.last_run();
    h.finish(call, Ok(String::new()), T0 + 3.0);
    assert!(h.records()[0].verification.is_none());
}

#[test]
fn a_relying_party_id_is_a_domain_never_an_ip_address() {
    for domain in [
        "localhost",
        "example.com",
        "app.example.co.uk",
        "1.2.3.example",
        "xn--bcher-kva.example",
    ] {
        assert!(rp_id_is_domain(domain), "{domain}");
    }
    for address in ["127.0.0.1", "10.0.0.12", "::1", "[::1]", "fe80::1", ""] {
        assert!(!rp_id_is_domain(address), "{address}");
    }
}

/// Authenticator data: 32 bytes of RP ID hash, a flags byte, a 4-byte counter.
fn authenticator_data(flags: u8) -> Vec<u8> {
    let mut data = vec![0u8; 37];
    data[32] = flags;
    data
}

#[test]
fn only_a_user_verified_assertion_by_a_named_credential_is_accepted() {
    let allowed = vec!["cred-1".to_string(), "cred-2".to_string()];
    let up_uv = authenticator_data(0x01 | 0x04);
    assert_eq!(assertion_accepted(&up_uv, "cred-2", &allowed), Ok(()));
    // Other flags (backup eligibility and state, attested data) change nothing.
    assert_eq!(
        assertion_accepted(
            &authenticator_data(0x05 | 0x08 | 0x10 | 0x40),
            "cred-1",
            &allowed
        ),
        Ok(())
    );
    for flags in [0x00, 0x01, 0x04, 0x01 | 0x08 | 0x10] {
        let expected = Refusal::NotUserVerified;
        assert_eq!(
            assertion_accepted(&authenticator_data(flags), "cred-1", &allowed),
            Err(expected),
            "flags {flags:#04x}"
        );
    }
    assert_eq!(
        assertion_accepted(&up_uv, "cred-3", &allowed),
        Err(Refusal::OtherCredential)
    );
    assert_eq!(
        assertion_accepted(&up_uv, "CRED-1", &allowed),
        Err(Refusal::OtherCredential)
    );
    assert_eq!(
        assertion_accepted(&up_uv[..36], "cred-1", &allowed),
        Err(Refusal::Malformed)
    );
    assert_eq!(
        assertion_accepted(&[], "cred-1", &allowed),
        Err(Refusal::Malformed)
    );
}

// ---- property: no sequence runs a passkey action without an assertion over its last statement

mod property {
    use std::collections::BTreeMap;

    use coworkkit::core::control::Control;
    use coworkkit::core::engine::{ActionDef, CallRef, CancelReason, Config, Effect, ProposalId};
    use coworkkit::core::passkey::{Verification, Verify};
    use coworkkit::core::record::{Assurance, RecordOutcome};
    use proptest::prelude::*;

    use super::engine_support::Harness;

    /// What the test saw of one proposal: its call id and every nonce the engine made for it,
    /// in order.
    #[derive(Default)]
    struct Seen {
        call_id: String,
        nonces: Vec<String>,
    }

    #[derive(Clone, Debug)]
    enum Op {
        Invoke(u8),
        Begin(u8),
        /// A trusted click and nothing else.
        Confirm(u8),
        /// An assertion: over the last statement (0), an earlier one (1), another proposal's
        /// last (2), a made-up nonce (3).
        Verified(u8, u8),
        Cancel(u8),
        Tick(u16),
        Finish(u8),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            2 => any::<u8>().prop_map(Op::Invoke),
            3 => any::<u8>().prop_map(Op::Begin),
            2 => any::<u8>().prop_map(Op::Confirm),
            4 => (any::<u8>(), 0u8..4).prop_map(|(p, n)| Op::Verified(p, n)),
            1 => any::<u8>().prop_map(Op::Cancel),
            1 => any::<u16>().prop_map(Op::Tick),
            1 => any::<u8>().prop_map(Op::Finish),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(
            std::env::var("PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(2_000)
        ))]

        #[test]
        fn every_passkey_run_carries_an_assertion_over_its_calls_last_statement(
            ops in proptest::collection::vec(op(), 1..60)
        ) {
            let mut h = Harness::with_config(Config { confirm_timeout_ms: 5_000.0, ..Config::default() });
            let mut def = ActionDef::new("deleteProject", "d");
            def.control = Some(Control::Hard);
            def.verify = Some(Verify::Passkey);
            h.register(def);
            let mut now = 1_000_000.0;
            let mut proposals: Vec<ProposalId> = Vec::new();
            let mut seen: BTreeMap<ProposalId, Seen> = BTreeMap::new();
            // The nonce each proposal's last statement had when it was confirmed.
            let mut confirmed_with: BTreeMap<String, String> = BTreeMap::new();
            let mut runs: Vec<CallRef> = Vec::new();
            let pick = |list: &Vec<ProposalId>, i: u8| list.get(usize::from(i) % list.len().max(1)).copied();
            for op in ops {
                now += 10.0;
                match op {
                    Op::Invoke(n) => {
                        let call_id = format!("c{n}");
                        h.call("deleteProject", &format!(r#"{{"n":{n}}}"#), Some(&call_id), now);
                        for e in &h.effects {
                            if let Effect::Proposal(info) = e {
                                if !proposals.contains(&info.id) {
                                    proposals.push(info.id);
                                    seen.insert(info.id, Seen { call_id: info.call_id.clone(), ..Seen::default() });
                                }
                            }
                        }
                    }
                    Op::Begin(i) => {
                        if let Some(p) = pick(&proposals, i) {
                            if let Ok(statement) = h.engine.begin_passkey(p, None, now) {
                                let entry = seen.get_mut(&p).expect("seen");
                                prop_assert_eq!(&statement.call_id, &entry.call_id, "a statement of its own call");
                                prop_assert!(!entry.nonces.contains(&statement.nonce), "a fresh nonce");
                                entry.nonces.push(statement.nonce);
                            }
                        }
                    }
                    Op::Confirm(i) => {
                        if let Some(p) = pick(&proposals, i) {
                            prop_assert!(h.engine.confirm(p, None, now).is_err(), "a click alone never confirms");
                        }
                    }
                    Op::Verified(i, which) => {
                        if let Some(p) = pick(&proposals, i) {
                            let nonces = &seen[&p].nonces;
                            let other = proposals.iter().rev().find(|q| **q != p).and_then(|q| seen[q].nonces.last());
                            let nonce = match which {
                                0 => nonces.last().cloned(),
                                1 => nonces.iter().rev().nth(1).cloned(),
                                2 => other.cloned(),
                                _ => Some("f".repeat(32)),
                            };
                            if let Some(nonce) = nonce {
                                let v = Verification { nonce: nonce.clone(), credential_id: "c".into(), receipt: nonce.clone() };
                                if h.engine.confirm_verified(p, None, v, now).is_ok() {
                                    prop_assert_eq!(Some(&nonce), nonces.last(), "confirmed only by the last statement");
                                    confirmed_with.insert(seen[&p].call_id.clone(), nonce);
                                }
                            }
                        }
                    }
                    Op::Cancel(i) => {
                        if let Some(p) = pick(&proposals, i) {
                            h.engine.cancel(p, CancelReason::User, now);
                        }
                    }
                    Op::Tick(ms) => {
                        now += f64::from(ms);
                        h.engine.tick(now);
                    }
                    Op::Finish(i) => {
                        if let Some(call) = runs.get(usize::from(i) % runs.len().max(1)).copied() {
                            h.engine.run_finished(call, Ok(String::new()), now);
                        }
                    }
                }
                let step = h.drain();
                for e in &step {
                    if let Effect::Run { call, call_id, receipt, .. } = e {
                        runs.push(*call);
                        let expected = confirmed_with.get(call_id);
                        prop_assert!(expected.is_some(), "{call_id} ran without a verified confirmation");
                        prop_assert_eq!(receipt.as_ref(), expected, "the run carries that assertion's receipt");
                    }
                    if let Effect::Record(r) = e {
                        if let Some(v) = &r.verification {
                            prop_assert_eq!(Some(&v.nonce), confirmed_with.get(&r.call_id));
                        }
                        // It ran only on its assertion: `passkey`; else nothing decided it.
                        let ran = !matches!(r.outcome, RecordOutcome::NotRun);
                        let expected = if ran { Assurance::Passkey } else { Assurance::None };
                        prop_assert_eq!(r.assurance, expected, "assurance of {}", r.call_id);
                    }
                }
            }
        }
    }
}
