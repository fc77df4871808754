#![cfg(not(target_arch = "wasm32"))]
//! One test per engine rule (SPEC §1, §3, §6), each named after the rule it defends.

mod engine_support;

use coworkkit::core::control::{Control, ControlSource};
use coworkkit::core::engine::{
    ActionDef, CancelReason, Config, Effect, InvokeRequest, ProposalId, MAX_SOFT_WAITING,
    REMEMBERED_CALLS,
};
use coworkkit::core::error::Error;
use coworkkit::core::record::{Gate, RecordOutcome, Via};
use coworkkit::core::schema::Schema;
use coworkkit::core::value::Value;
use engine_support::{admin, v, viewer, Harness};

const T0: f64 = 1_000_000.0;

fn soft_token(h: &Harness, ticket: coworkkit::core::engine::Ticket) -> String {
    let outcome = h.answered(ticket);
    assert_eq!(outcome.gate, Gate::NeedsConfirmation);
    outcome.confirm_token.clone().expect("token")
}

// ---- registration ----------------------------------------------------------------------

#[test]
fn register_refuses_bad_names_and_empty_descriptions() {
    let mut h = Harness::new();
    for bad in ["", "1abc", "a b", "a.b", "é", &"a".repeat(65)] {
        let err = h.engine.register(ActionDef::new(bad, "d")).unwrap_err();
        assert_eq!(err.code(), "invalid_spec", "{bad:?}");
    }
    assert!(h
        .engine
        .register(ActionDef::new("a".repeat(64), "d"))
        .is_ok());
    assert!(h.engine.register(ActionDef::new("A-b_9", "d")).is_ok());
    let err = h.engine.register(ActionDef::new("x", "   ")).unwrap_err();
    assert_eq!(err.code(), "invalid_spec");
    let mut def = ActionDef::new("y", "d");
    def.approvers = Some(vec![]);
    assert_eq!(h.engine.register(def).unwrap_err().code(), "invalid_spec");
}

#[test]
fn live_duplicate_is_duplicate_action_but_reregistering_after_unregister_is_fine() {
    let mut h = Harness::new();
    let first = h.action("save", None);
    let err = h
        .engine
        .register(ActionDef::new("save", "again"))
        .unwrap_err();
    assert_eq!(err, Error::DuplicateAction("save".into()));
    h.engine.unregister(first, T0);
    let second = h.action("save", None);
    assert_ne!(first, second);
    assert_eq!(h.engine.action("save").unwrap().0, second);
    h.engine.unregister(first, T0); // stale id: no-op
    assert!(h.engine.action("save").is_some());
}

#[test]
fn actions_are_listed_in_registration_order_with_resolved_control() {
    let mut h = Harness::new();
    h.action("b", Some("hard"));
    h.action("deleteAll", None);
    h.action("a", None);
    let listed: Vec<(String, Control, ControlSource)> = h
        .engine
        .actions()
        .map(|(_, d, c, s)| (d.name.clone(), c, s))
        .collect();
    assert_eq!(
        listed,
        vec![
            ("b".into(), Control::Hard, ControlSource::Declared),
            (
                "deleteAll".into(),
                Control::Soft,
                ControlSource::DestructiveName
            ),
            ("a".into(), Control::Open, ControlSource::Default),
        ]
    );
}

#[test]
fn nudge_once_per_action_name() {
    let mut h = Harness::new();
    let id = h
        .engine
        .register(ActionDef::new("deleteProject", "d"))
        .unwrap();
    h.engine.unregister(id, T0);
    h.engine
        .register(ActionDef::new("deleteProject", "d"))
        .unwrap();
    let mut declared = ActionDef::new("wipeDisk", "d");
    declared.control = Some(Control::Open);
    h.engine.register(declared).unwrap();
    h.drain();
    let nudges: Vec<_> = h
        .effects
        .iter()
        .filter_map(|e| match e {
            Effect::Nudge { action, control } => Some((action.clone(), *control)),
            _ => None,
        })
        .collect();
    assert_eq!(nudges, vec![("deleteProject".to_string(), Control::Soft)]);
}

#[test]
fn default_control_applies_to_undeclared_actions() {
    let mut h = Harness::with_config(Config {
        default_control: Control::Hard,
        ..Config::default()
    });
    h.action("deleteProject", None);
    h.action("read", None);
    assert_eq!(h.engine.action("deleteProject").unwrap().2, Control::Hard);
    assert_eq!(h.engine.action("read").unwrap().3, ControlSource::Default);
    h.call("read", "{}", None, T0);
    assert_eq!(h.engine.pending().len(), 1);
}

// ---- open ------------------------------------------------------------------------------

#[test]
fn open_runs_once_then_gate_fired_with_result() {
    let mut h = Harness::new();
    h.action("read", None);
    let t = h.call("read", r#"{"id":1}"#, Some("c1"), T0);
    assert!(h.answer(t).is_none(), "answered only when run ends");
    let call = h.last_run();
    h.finish(call, Ok("done".into()), T0 + 5.0);
    let outcome = h.answered(t);
    assert_eq!((outcome.gate, outcome.ok), (Gate::Fired, true));
    assert_eq!(outcome.result.as_deref(), Some("done"));
    assert_eq!(outcome.call_id, "c1");
    let records = h.records();
    assert_eq!(records.len(), 1);
    let r = records[0];
    assert_eq!(r.v, 1);
    assert_eq!(&*r.session_id, "s1");
    assert_eq!((r.started_at, r.settled_at), (T0, T0 + 5.0));
    assert_eq!(
        r.outcome,
        RecordOutcome::Ok {
            value: Some("done".into())
        }
    );
    assert_eq!(r.control_source, ControlSource::Default);
    assert_eq!(*r.args, v(r#"{"id":1}"#));
    assert!(h
        .effects
        .iter()
        .any(|e| matches!(e, Effect::Record(r) if r.call == Some(call))));
}

#[test]
fn generated_call_ids_and_record_ids_are_unique() {
    let mut h = Harness::new();
    h.action("read", None);
    let mut ids = std::collections::BTreeSet::new();
    for i in 0..50 {
        let t = h.call("read", "{}", None, T0 + i as f64);
        let call = h.last_run();
        h.finish(call, Ok(String::new()), T0);
        let id = h.answered(t).call_id.clone();
        assert!(id.starts_with("ck_") && id.len() == 35, "{id}");
        assert!(ids.insert(id));
    }
    let record_ids: std::collections::BTreeSet<_> = h.records().iter().map(|r| r.seq).collect();
    assert_eq!(record_ids.len(), 50);
}

#[test]
fn run_failure_is_never_retried() {
    let mut h = Harness::new();
    h.action("save", None);
    let t = h.call("save", "{}", Some("c1"), T0);
    let call = h.last_run();
    h.finish(call, Err(Error::RunFailed("boom".into())), T0);
    let outcome = h.answered(t).clone();
    assert!(!outcome.ok);
    assert_eq!(outcome.error, Some(("run_failed", "boom".into())));
    // A second report, a resend, a replay: nothing runs again.
    h.finish(call, Ok("late".into()), T0);
    let again = h.call("save", "{}", Some("c1"), T0 + 1.0);
    assert_eq!(h.answered(again), &outcome);
    assert_eq!(h.runs().len(), 1);
    assert_eq!(h.records().len(), 1);
    assert_eq!(
        h.records()[0].outcome,
        RecordOutcome::Error {
            code: "run_failed",
            message: "boom".into()
        }
    );
}

#[test]
fn element_errors_keep_their_own_code() {
    let mut h = Harness::new();
    let mut def = ActionDef::new("press", "d");
    def.element = true;
    h.register(def);
    h.engine.set_hand_mode(true);
    let t = h.call("press", "{}", None, T0);
    h.finish(
        h.last_run(),
        Err(Error::ElementUnavailable("gone".into())),
        T0,
    );
    assert_eq!(
        h.answered(t).error.as_ref().unwrap().0,
        "element_unavailable"
    );
}

#[test]
fn share_result_false_omits_result_and_record_result_false_omits_value() {
    let mut h = Harness::new();
    let mut secret = ActionDef::new("secret", "d");
    secret.share_result = false;
    h.register(secret);
    let mut private = ActionDef::new("private", "d");
    private.record_result = false;
    h.register(private);
    let t1 = h.call("secret", "{}", None, T0);
    h.finish(h.last_run(), Ok("s".into()), T0);
    let t2 = h.call("private", "{}", None, T0);
    h.finish(h.last_run(), Ok("p".into()), T0);
    assert_eq!(
        (h.answered(t1).ok, h.answered(t1).result.clone()),
        (true, None)
    );
    assert_eq!(h.answered(t2).result.as_deref(), Some("p"));
    let records = h.records();
    assert_eq!(
        records[0].outcome,
        RecordOutcome::Ok {
            value: Some("s".into())
        }
    );
    assert_eq!(records[1].outcome, RecordOutcome::Ok { value: None });
}

// ---- arrival checks --------------------------------------------------------------------

#[test]
fn unknown_action_is_rejected_and_recorded() {
    let mut h = Harness::new();
    let t = h.call("nope", "{}", Some("c1"), T0);
    let outcome = h.answered(t);
    assert_eq!(outcome.gate, Gate::Rejected);
    assert_eq!(outcome.error.as_ref().unwrap().0, "unknown_action");
    let r = h.records()[0];
    assert_eq!(
        (r.gate, r.reason, r.call),
        (Gate::Rejected, Some("unknown_action"), None)
    );
    assert_eq!(r.outcome, RecordOutcome::NotRun);
}

#[test]
fn unreadable_args_are_rejected_with_the_host_error() {
    let mut h = Harness::new();
    h.action("save", None);
    let mut req = InvokeRequest::new("save", Value::Null);
    req.args = Err(Error::InvalidArgs(
        "args.f: is a function, not JSON data".into(),
    ));
    let t = h.invoke(req, T0);
    let outcome = h.answered(t);
    assert_eq!(
        outcome.error,
        Some((
            "invalid_args",
            "args.f: is a function, not JSON data".into()
        ))
    );
    assert_eq!(*h.records()[0].args, Value::Null);
    assert!(h.runs().is_empty());
}

#[test]
fn args_too_large_is_measured_on_the_json_snapshot() {
    let mut h = Harness::with_config(Config {
        max_args_bytes: 12,
        ..Config::default()
    });
    h.action("save", None);
    let big = h.call("save", r#"{"a":"12345"}"#, None, T0); // 13 bytes
    assert_eq!(h.answered(big).error.as_ref().unwrap().0, "args_too_large");
    let ok = h.call("save", r#"{"a":"1234"}"#, None, T0); // 12 bytes
    assert!(h.answer(ok).is_none());
    let multi = h.call("save", r#"{"a":"éé1"}"#, None, T0); // é is 2 bytes: 13
    assert_eq!(
        h.answered(multi).error.as_ref().unwrap().1,
        "args are 13 bytes of JSON, more than the 12 allowed"
    );
}

#[test]
fn invalid_args_names_the_path_and_runs_nothing() {
    let mut h = Harness::new();
    let mut def = ActionDef::new("save", "d");
    def.schema = Some(
        Schema::parse(&v(r#"{"type":"object","properties":{"items":{"type":"array","items":{"properties":{"title":{"type":"string"}}}}}}"#))
            .unwrap(),
    );
    h.register(def);
    let t = h.call("save", r#"{"items":[{},{},{"title":1}]}"#, None, T0);
    assert_eq!(
        h.answered(t).error,
        Some((
            "invalid_args",
            "args.items[2].title: expected string".into()
        ))
    );
    assert!(h.runs().is_empty());
}

#[test]
fn rejected_calls_are_recorded_but_not_remembered() {
    let mut h = Harness::new();
    let mut def = ActionDef::new("save", "d");
    def.schema = Some(Schema::parse(&v(r#"{"required":["a"]}"#)).unwrap());
    h.register(def);
    let bad = h.call("save", "{}", Some("c1"), T0);
    assert_eq!(h.answered(bad).gate, Gate::Rejected);
    // A corrected retry with the same callId is judged afresh (not call_id_conflict).
    let good = h.call("save", r#"{"a":1}"#, Some("c1"), T0);
    h.finish(h.last_run(), Ok("ok".into()), T0);
    assert_eq!(h.answered(good).gate, Gate::Fired);
    assert_eq!(h.records().len(), 2);
    assert_eq!(h.records()[0].reason, Some("invalid_args"));
}

#[test]
fn host_rejection_applies_after_idempotency_lookup() {
    let mut h = Harness::new();
    h.action("save", None);
    let t = h.call("save", "{}", Some("c1"), T0);
    h.finish(h.last_run(), Ok("ok".into()), T0);
    let mut resend = InvokeRequest::new("save", v("{}"));
    resend.call_id = Some("c1".into());
    resend.host_rejection = Some(Error::InvalidArgs("args: nope".into()));
    let again = h.invoke(resend, T0);
    assert_eq!(h.answered(again), h.answered(t));
    let mut fresh = InvokeRequest::new("save", v("{}"));
    fresh.host_rejection = Some(Error::ElementUnavailable("hidden".into()));
    let rejected = h.invoke(fresh, T0);
    assert_eq!(
        h.answered(rejected).error,
        Some(("element_unavailable", "hidden".into()))
    );
}

// ---- idempotency -----------------------------------------------------------------------

#[test]
fn same_call_id_while_running_attaches_a_second_ticket() {
    let mut h = Harness::new();
    h.action("save", None);
    let t1 = h.call("save", r#"{"a":1,"b":2}"#, Some("c1"), T0);
    let t2 = h.call("save", r#"{"b":2,"a":1}"#, Some("c1"), T0);
    assert!(h.answer(t1).is_none() && h.answer(t2).is_none());
    h.finish(h.last_run(), Ok("r".into()), T0);
    assert_eq!(h.answered(t1), h.answered(t2));
    assert_eq!(h.runs().len(), 1);
    assert_eq!(h.records().len(), 1);
}

#[test]
fn same_call_id_while_hard_pending_answers_when_it_settles() {
    let mut h = Harness::new();
    h.action("wipe", Some("hard"));
    let t1 = h.call("wipe", "{}", Some("c1"), T0);
    let t2 = h.call("wipe", "{}", Some("c1"), T0);
    assert_eq!(h.engine.pending().len(), 1);
    let p = h.engine.pending()[0].id;
    h.engine.cancel(p, CancelReason::User, T0);
    h.drain();
    assert_eq!(h.answered(t1).gate, Gate::Cancelled);
    assert_eq!(h.answered(t1), h.answered(t2));
}

#[test]
fn same_call_id_after_settling_returns_the_remembered_outcome() {
    let mut h = Harness::new();
    h.action("save", None);
    let t1 = h.call("save", "[1]", Some("c1"), T0);
    h.finish(h.last_run(), Ok("r".into()), T0);
    let t2 = h.call("save", "[1]", Some("c1"), T0 + 10.0);
    assert_eq!(h.answered(t1), h.answered(t2));
    assert_eq!(h.runs().len(), 1);
    assert_eq!(h.records().len(), 1);
}

#[test]
fn same_call_id_different_args_is_call_id_conflict() {
    let mut h = Harness::new();
    h.action("save", None);
    h.action("other", None);
    h.call("save", r#"{"a":1}"#, Some("c1"), T0);
    let t = h.call("save", r#"{"a":2}"#, Some("c1"), T0);
    assert_eq!(h.answered(t).error.as_ref().unwrap().0, "call_id_conflict");
    let t = h.call("other", r#"{"a":1}"#, Some("c1"), T0);
    assert_eq!(h.answered(t).error.as_ref().unwrap().0, "call_id_conflict");
    assert_eq!(h.runs().len(), 1);
}

#[test]
fn idempotency_memory_is_bounded_to_the_last_1024_settled_calls() {
    let mut h = Harness::new();
    h.action("save", None);
    for i in 0..=REMEMBERED_CALLS {
        h.call("save", "{}", Some(&format!("c{i}")), T0);
        h.finish(h.last_run(), Ok(String::new()), T0);
    }
    // c0 was evicted: it runs again as a new call. c1 is still remembered.
    let runs = h.runs().len();
    h.call("save", "{}", Some("c1"), T0);
    assert_eq!(h.runs().len(), runs);
    h.call("save", "{}", Some("c0"), T0);
    assert_eq!(h.runs().len(), runs + 1);
}

#[test]
fn aliases_are_evicted_with_their_call() {
    let mut h = Harness::new();
    h.action("archive", Some("soft"));
    h.action("save", None);
    let first = h.call("archive", "{}", Some("orig"), T0);
    let token = soft_token(&h, first);
    h.confirm_call("archive", "{}", &token, Some("alias"), T0);
    h.finish(h.last_run(), Ok(String::new()), T0);
    for i in 0..REMEMBERED_CALLS {
        h.call("save", "{}", Some(&format!("c{i}")), T0);
        h.finish(h.last_run(), Ok(String::new()), T0);
    }
    // Both ids are free again: a different call under them is not a conflict.
    let t = h.call("save", r#"{"x":1}"#, Some("alias"), T0);
    assert!(h.answer(t).is_none(), "admitted as a new call");
    let t = h.call("save", r#"{"x":1}"#, Some("orig"), T0);
    assert!(h.answer(t).is_none(), "admitted as a new call");
    // And the token is forgotten too.
    let t = h.confirm_call("archive", "{}", &token, None, T0);
    assert_eq!(h.answered(t).error.as_ref().unwrap().0, "bad_token");
}

// ---- soft --------------------------------------------------------------------------------

#[test]
fn soft_first_call_needs_confirmation_without_record_or_run() {
    let mut h = Harness::new();
    h.action("archive", Some("soft"));
    let t = h.call("archive", "{}", Some("c1"), T0);
    let outcome = h.answered(t);
    assert_eq!(outcome.gate, Gate::NeedsConfirmation);
    assert!(!outcome.ok);
    assert_eq!(outcome.expires_at, Some(T0 + 120_000.0));
    assert_eq!(outcome.error, None);
    assert!(h.records().is_empty());
    assert!(h.runs().is_empty());
    assert_eq!(h.engine.poll_timeout(), Some(T0 + 120_000.0));
}

#[test]
fn soft_token_carries_at_least_128_random_bits() {
    let mut h = Harness::new();
    h.action("archive", Some("soft"));
    let t = h.call("archive", "{}", None, T0);
    let a = soft_token(&h, t);
    let t = h.call("archive", "{}", None, T0);
    let b = soft_token(&h, t);
    let hex = a.strip_prefix("ckt_").unwrap();
    assert_eq!(hex.len(), 32);
    assert!(hex.bytes().all(|c| c.is_ascii_hexdigit()));
    assert_ne!(a, b);
}

#[test]
fn soft_resend_while_waiting_returns_the_same_token() {
    let mut h = Harness::new();
    h.action("archive", Some("soft"));
    let t1 = h.call("archive", r#"{"a":1,"b":2}"#, Some("c1"), T0);
    let t2 = h.call("archive", r#"{"b":2,"a":1}"#, Some("c1"), T0 + 50.0);
    assert_eq!(h.answered(t1), h.answered(t2));
}

#[test]
fn soft_token_bound_to_args_key_order_insensitive() {
    let mut h = Harness::new();
    h.action("archive", Some("soft"));
    let first = h.call("archive", r#"{"id":"p1","all":true}"#, Some("c1"), T0);
    let token = soft_token(&h, first);
    let t = h.confirm_call(
        "archive",
        r#"{"all":true,"id":"p1"}"#,
        &token,
        None,
        T0 + 1.0,
    );
    assert_eq!(h.runs().len(), 1);
    h.finish(h.last_run(), Ok("archived".into()), T0 + 2.0);
    let outcome = h.answered(t);
    assert_eq!(
        (outcome.gate, outcome.ok, outcome.call_id.as_str()),
        (Gate::Confirmed, true, "c1")
    );
    let r = h.records()[0];
    assert_eq!(
        (r.gate, r.call_id.as_str(), r.started_at),
        (Gate::Confirmed, "c1", T0)
    );
    // The snapshot is the first call's.
    assert_eq!(
        serde_json::to_string(&*r.args).unwrap(),
        r#"{"id":"p1","all":true}"#
    );
}

#[test]
fn soft_token_with_other_args_is_bad_token_and_fires_nothing() {
    let mut h = Harness::new();
    h.action("archive", Some("soft"));
    let first = h.call("archive", r#"{"id":"p1"}"#, None, T0);
    let token = soft_token(&h, first);
    let t = h.confirm_call("archive", r#"{"id":"p2"}"#, &token, None, T0);
    assert_eq!(h.answered(t).gate, Gate::Rejected);
    assert_eq!(h.answered(t).error.as_ref().unwrap().0, "bad_token");
    assert!(h.runs().is_empty());
    // The token still works for exactly its args.
    h.confirm_call("archive", r#"{"id":"p1"}"#, &token, None, T0);
    assert_eq!(h.runs().len(), 1);
}

#[test]
fn soft_token_for_another_action_is_bad_token() {
    let mut h = Harness::new();
    h.action("archive", Some("soft"));
    h.action("publish", Some("soft"));
    let first = h.call("archive", "{}", None, T0);
    let token = soft_token(&h, first);
    let t = h.confirm_call("publish", "{}", &token, None, T0);
    assert_eq!(h.answered(t).error.as_ref().unwrap().0, "bad_token");
    assert!(h.runs().is_empty());
}

#[test]
fn forged_or_foreign_token_is_bad_token() {
    let mut h = Harness::new();
    h.action("archive", Some("soft"));
    h.action("read", None);
    h.call("archive", "{}", None, T0);
    for forged in ["", "ckt_00000000000000000000000000000000", "anything"] {
        let t = h.confirm_call("archive", "{}", forged, None, T0);
        assert_eq!(h.answered(t).error.as_ref().unwrap().0, "bad_token");
    }
    // A token on an open action is forged too: it fires nothing.
    let t = h.confirm_call("read", "{}", "ckt_x", None, T0);
    assert_eq!(h.answered(t).error.as_ref().unwrap().0, "bad_token");
    // Another session's (another engine's) token means nothing here.
    let mut other = Harness::new();
    other.action("archive", Some("soft"));
    let foreign = other.call("archive", "{}", None, T0);
    let foreign = soft_token(&other, foreign);
    let mut third = Harness::with_config(Config::default());
    third.action("archive", Some("soft"));
    let t = third.confirm_call("archive", "{}", &foreign, None, T0);
    assert_eq!(third.answered(t).error.as_ref().unwrap().0, "bad_token");
    assert!(h.runs().is_empty() && third.runs().is_empty());
}

#[test]
fn soft_token_single_use_replay_returns_terminal_outcome() {
    let mut h = Harness::new();
    h.action("archive", Some("soft"));
    let first = h.call("archive", "{}", Some("c1"), T0);
    let token = soft_token(&h, first);
    let confirming = h.confirm_call("archive", "{}", &token, None, T0);
    let replay_while_running = h.confirm_call("archive", "{}", &token, None, T0);
    h.finish(h.last_run(), Ok("r".into()), T0);
    let replay_after = h.confirm_call("archive", "{}", &token, Some("c9"), T0);
    assert_eq!(h.runs().len(), 1);
    assert_eq!(h.answered(confirming), h.answered(replay_while_running));
    assert_eq!(h.answered(confirming), h.answered(replay_after));
    assert_eq!(h.records().len(), 1);
    // A replay with other args is still bad_token.
    let t = h.confirm_call("archive", r#"{"x":1}"#, &token, None, T0);
    assert_eq!(h.answered(t).error.as_ref().unwrap().0, "bad_token");
}

#[test]
fn soft_confirming_call_id_becomes_an_alias_of_the_original() {
    let mut h = Harness::new();
    h.action("archive", Some("soft"));
    let first = h.call("archive", r#"{"a":1}"#, Some("orig"), T0);
    let token = soft_token(&h, first);
    let confirming = h.confirm_call("archive", r#"{"a":1}"#, &token, Some("fresh"), T0);
    // Re-sending the alias while running attaches; after settling returns the same outcome.
    let mut resend = InvokeRequest::new("archive", v(r#"{"a":1}"#));
    resend.call_id = Some("fresh".into());
    let during = h.invoke(resend.clone(), T0);
    h.finish(h.last_run(), Ok("r".into()), T0);
    let after = h.invoke(resend, T0);
    let outcome = h.answered(confirming).clone();
    assert_eq!(outcome.call_id, "orig");
    assert_eq!(outcome.gate, Gate::Confirmed);
    assert_eq!(h.answered(during), &outcome);
    assert_eq!(h.answered(after), &outcome);
    // The alias is bound to the args too.
    let t = h.call("archive", r#"{"a":2}"#, Some("fresh"), T0);
    assert_eq!(h.answered(t).error.as_ref().unwrap().0, "call_id_conflict");
    assert_eq!(h.records().iter().filter(|r| r.call.is_some()).count(), 1);
}

#[test]
fn soft_original_call_id_with_another_calls_token_is_bad_token() {
    let mut h = Harness::new();
    h.action("archive", Some("soft"));
    h.call("archive", "{}", Some("a"), T0);
    let b = h.call("archive", "{}", Some("b"), T0);
    let token_b = soft_token(&h, b);
    let t = h.confirm_call("archive", "{}", &token_b, Some("a"), T0);
    assert_eq!(h.answered(t).error.as_ref().unwrap().0, "bad_token");
    assert!(h.runs().is_empty());
}

#[test]
fn soft_decline_settles_cancelled() {
    let mut h = Harness::new();
    h.action("archive", Some("soft"));
    let first = h.call("archive", "{}", Some("c1"), T0);
    let token = soft_token(&h, first);
    let mut req = InvokeRequest::new("archive", v("{}"));
    req.confirm_token = Some(token.clone());
    req.decline = true;
    let t = h.invoke(req, T0 + 3.0);
    let outcome = h.answered(t);
    assert_eq!(
        (outcome.gate, outcome.call_id.as_str()),
        (Gate::Cancelled, "c1")
    );
    assert_eq!(outcome.error.as_ref().unwrap().0, "declined");
    let r = h.records()[0];
    assert_eq!((r.gate, r.reason), (Gate::Cancelled, Some("declined")));
    // The token is spent: confirming now returns the cancelled outcome, runs nothing.
    let late = h.confirm_call("archive", "{}", &token, None, T0 + 4.0);
    assert_eq!(h.answered(late).gate, Gate::Cancelled);
    assert!(h.runs().is_empty());
    // decline without a token is a bad token.
    let mut req = InvokeRequest::new("archive", v("{}"));
    req.decline = true;
    let t = h.invoke(req, T0);
    assert_eq!(h.answered(t).error.as_ref().unwrap().0, "bad_token");
}

#[test]
fn expired_token_settles_as_timeout_with_record() {
    let mut h = Harness::new();
    h.action("archive", Some("soft"));
    let first = h.call("archive", "{}", Some("c1"), T0);
    let token = soft_token(&h, first);
    h.engine.tick(T0 + 119_999.0);
    h.drain();
    assert!(h.records().is_empty());
    h.engine.tick(T0 + 120_000.0);
    h.drain();
    let r = h.records()[0];
    assert_eq!(
        (r.gate, r.reason, r.settled_at),
        (Gate::Timeout, Some("expired"), T0 + 120_000.0)
    );
    assert_eq!(h.engine.poll_timeout(), None);
    // The expired token fires nothing.
    let t = h.confirm_call("archive", "{}", &token, None, T0 + 120_001.0);
    assert_eq!(h.answered(t).error.as_ref().unwrap().0, "token_expired");
    assert!(h.runs().is_empty());
    // Re-sending the original callId returns the timeout.
    let t = h.call("archive", "{}", Some("c1"), T0 + 120_002.0);
    assert_eq!(h.answered(t).gate, Gate::Timeout);
}

#[test]
fn expired_token_is_token_expired_even_if_the_timer_never_fired() {
    let mut h = Harness::new();
    h.action("archive", Some("soft"));
    let first = h.call("archive", "{}", None, T0);
    let token = soft_token(&h, first);
    let t = h.confirm_call("archive", "{}", &token, None, T0 + 500_000.0);
    assert_eq!(h.answered(t).error.as_ref().unwrap().0, "token_expired");
    assert_eq!(
        h.records()
            .iter()
            .filter(|r| r.gate == Gate::Timeout)
            .count(),
        1
    );
    assert!(h.runs().is_empty());
}

#[test]
fn soft_waiting_calls_are_bounded() {
    let mut h = Harness::new();
    h.action("archive", Some("soft"));
    for _ in 0..MAX_SOFT_WAITING {
        h.call("archive", "{}", None, T0);
    }
    let t = h.call("archive", "{}", None, T0);
    assert_eq!(h.answered(t).error.as_ref().unwrap().0, "too_many_pending");
}

// ---- hard ----------------------------------------------------------------------------

#[test]
fn hard_proposal_waits_for_a_confirm_then_runs_as_confirmed() {
    let mut h = Harness::new();
    let mut def = ActionDef::new("deleteProject", "d");
    def.control = Some(Control::Hard);
    def.approvers = Some(vec!["admin".into()]);
    let action = h.register(def);
    let t = h.call("deleteProject", r#"{"projectId":"p1"}"#, Some("c1"), T0);
    assert!(h.answer(t).is_none());
    assert!(h.runs().is_empty());
    let pending = h.engine.pending();
    assert_eq!(pending.len(), 1);
    let info = &pending[0];
    assert_eq!(
        (info.call_id.as_str(), info.action.as_str(), info.control),
        ("c1", "deleteProject", Control::Hard)
    );
    assert_eq!(info.expires_at, T0 + 120_000.0);
    assert!(matches!(
        &h.effects[..],
        [Effect::Proposal(p), Effect::ShowCard { proposal, action: a, position: 1, total: 1, approvers: Some(_), .. }]
            if p.id == info.id && *proposal == info.id && *a == action
    ));
    let id_string = info.id.to_string();
    assert_eq!(h.engine.proposal_by_str(&id_string), Some(info.id));
    h.engine.confirm(info.id, admin(), T0 + 1.0).unwrap();
    h.drain();
    let (call, call_id, approver) = h.runs()[0].clone();
    assert_eq!((call_id.as_str(), approver.clone()), ("c1", admin()));
    assert!(h.engine.pending().is_empty());
    assert_eq!(h.engine.proposal_by_str(&id_string), None);
    h.finish(call, Ok("gone".into()), T0 + 2.0);
    let outcome = h.answered(t);
    assert_eq!((outcome.gate, outcome.ok), (Gate::Confirmed, true));
    let r = h.records()[0];
    assert_eq!((r.gate, r.approver.clone()), (Gate::Confirmed, admin()));
    assert!(h
        .effects
        .iter()
        .any(|e| matches!(e, Effect::Resolved { outcome: o, .. } if o.call_id == "c1" && o.ok)));
}

#[test]
fn hard_double_confirm_runs_once() {
    let mut h = Harness::new();
    h.action("wipe", Some("hard"));
    let t = h.call("wipe", "{}", None, T0);
    let p = h.engine.pending()[0].id;
    assert!(h.engine.confirm(p, None, T0).is_ok());
    assert_eq!(h.engine.confirm(p, None, T0), Err(Error::UnknownProposal));
    assert!(
        !h.engine.cancel(p, CancelReason::User, T0),
        "claimed: too late to cancel"
    );
    h.drain();
    let call = h.last_run();
    h.finish(call, Ok(String::new()), T0);
    assert_eq!(h.engine.confirm(p, None, T0), Err(Error::UnknownProposal));
    h.drain();
    assert_eq!(h.runs().len(), 1);
    assert_eq!(h.answered(t).gate, Gate::Confirmed);
}

#[test]
fn hard_fifo_one_visible_card_and_updates() {
    let mut h = Harness::new();
    h.action("wipe", Some("hard"));
    h.call("wipe", "1", Some("a"), T0);
    h.call("wipe", "2", Some("b"), T0);
    let step = {
        h.engine.invoke(
            InvokeRequest {
                call_id: Some("c".into()),
                ..InvokeRequest::new("wipe", v("3"))
            },
            T0,
        );
        h.drain()
    };
    let ids: Vec<ProposalId> = h.engine.pending().iter().map(|p| p.id).collect();
    let call_ids: Vec<String> = h
        .engine
        .pending()
        .iter()
        .map(|p| p.call_id.clone())
        .collect();
    assert_eq!(call_ids, ["a", "b", "c"]);
    assert!(
        matches!(&step[..], [Effect::Proposal(_), Effect::UpdateCard { proposal, position: 1, total: 3 }] if *proposal == ids[0])
    );
    // Only the visible card can be confirmed.
    assert_eq!(
        h.engine.confirm(ids[1], None, T0),
        Err(Error::ProposalNotVisible)
    );
    assert!(!h.engine.may_confirm(ids[1], None));
    assert!(h.engine.may_confirm(ids[0], None));
    // Cancelling a queued one updates the total; cancelling the visible one shows the next.
    assert!(h.engine.cancel(ids[1], CancelReason::App, T0));
    let step = h.drain();
    assert!(step.iter().any(
        |e| matches!(e, Effect::UpdateCard { proposal, total: 2, .. } if *proposal == ids[0])
    ));
    h.engine.confirm(ids[0], None, T0).unwrap();
    let step = h.drain();
    let kinds: Vec<&str> = step
        .iter()
        .map(|e| match e {
            Effect::CloseCard { .. } => "close",
            Effect::ShowCard { .. } => "show",
            Effect::Run { .. } => "run",
            _ => "other",
        })
        .collect();
    assert_eq!(kinds, ["close", "show", "run"]);
    assert!(
        matches!(&step[1], Effect::ShowCard { proposal, position: 1, total: 1, .. } if *proposal == ids[2])
    );
    let records = h.records();
    assert_eq!(records[0].reason, Some("cancelled_by_app"));
}

#[test]
fn hard_max_pending_rejects_too_many_pending() {
    let mut h = Harness::with_config(Config {
        max_pending: 2,
        ..Config::default()
    });
    h.action("wipe", Some("hard"));
    h.call("wipe", "1", None, T0);
    h.call("wipe", "2", None, T0);
    let t = h.call("wipe", "3", None, T0);
    assert_eq!(h.answered(t).error.as_ref().unwrap().0, "too_many_pending");
    assert_eq!(h.engine.pending().len(), 2);
    // A settled proposal frees a slot.
    let p = h.engine.pending()[0].id;
    h.engine.cancel(p, CancelReason::User, T0);
    let t = h.call("wipe", "3", None, T0);
    assert!(h.answer(t).is_none());
    assert_eq!(h.engine.pending().len(), 2);
}

#[test]
fn hard_approver_role_not_listed_is_not_admin_and_stays_pending() {
    let mut h = Harness::new();
    let mut def = ActionDef::new("wipe", "d");
    def.control = Some(Control::Hard);
    def.approvers = Some(vec!["admin".into(), "owner".into()]);
    h.register(def);
    let t = h.call("wipe", "{}", None, T0);
    let p = h.engine.pending()[0].id;
    assert!(!h.engine.may_confirm(p, Some("viewer")));
    assert!(!h.engine.may_confirm(p, None));
    assert!(h.engine.may_confirm(p, Some("owner")));
    assert_eq!(h.engine.confirm(p, viewer(), T0), Err(Error::NotAdmin));
    assert_eq!(h.engine.confirm(p, None, T0), Err(Error::NotAdmin));
    assert_eq!(Error::NotAdmin.code(), "not_admin");
    h.drain();
    assert!(h.runs().is_empty());
    assert!(h.answer(t).is_none());
    assert_eq!(h.engine.pending().len(), 1);
    h.engine.confirm(p, admin(), T0).unwrap();
    h.drain();
    assert_eq!(h.runs().len(), 1);
}

#[test]
fn hard_expiry_times_out_with_record() {
    let mut h = Harness::with_config(Config {
        confirm_timeout_ms: 1000.0,
        ..Config::default()
    });
    h.action("wipe", Some("hard"));
    let t = h.call("wipe", "{}", None, T0);
    let p = h.engine.pending()[0].id;
    assert_eq!(h.engine.poll_timeout(), Some(T0 + 1000.0));
    // A confirm that arrives after the expiry finds nothing (expiry wins).
    assert_eq!(
        h.engine.confirm(p, None, T0 + 1000.0),
        Err(Error::UnknownProposal)
    );
    h.drain();
    assert_eq!(h.answered(t).gate, Gate::Timeout);
    assert_eq!(h.records()[0].reason, Some("expired"));
    assert!(h
        .effects
        .iter()
        .any(|e| matches!(e, Effect::CloseCard { proposal } if *proposal == p)));
    assert!(h.runs().is_empty());
}

#[test]
fn hard_cancel_reasons_are_recorded() {
    let mut h = Harness::new();
    h.action("wipe", Some("hard"));
    for (i, reason) in [CancelReason::User, CancelReason::App]
        .into_iter()
        .enumerate()
    {
        let t = h.call("wipe", &i.to_string(), None, T0);
        let p = h.engine.pending()[0].id;
        assert!(h.engine.cancel(p, reason, T0));
        assert!(!h.engine.cancel(p, reason, T0));
        h.drain();
        assert_eq!(h.answered(t).gate, Gate::Cancelled);
        assert_eq!(h.records()[i].reason, Some(reason.as_str()));
    }
    assert_eq!(CancelReason::User.as_str(), "cancelled_by_user");
    assert_eq!(CancelReason::App.as_str(), "cancelled_by_app");
}

#[test]
fn agent_cannot_confirm_a_hard_call_through_invoke() {
    let mut h = Harness::new();
    h.action("wipe", Some("hard"));
    h.call("wipe", "{}", Some("c1"), T0);
    let p = h.engine.pending()[0].id.to_string();
    for token in [p.as_str(), "ckt_x", "c1"] {
        h.confirm_call("wipe", "{}", token, Some("c1"), T0);
        h.confirm_call("wipe", "{}", token, None, T0);
        let mut decline = InvokeRequest::new("wipe", v("{}"));
        decline.confirm_token = Some(token.into());
        decline.decline = true;
        h.invoke(decline, T0);
    }
    assert!(h.runs().is_empty());
    assert_eq!(h.engine.pending().len(), 1);
}

// ---- hand mode -----------------------------------------------------------------------

#[test]
fn element_action_while_hand_mode_off_settles_needs_hand_mode() {
    let mut h = Harness::new();
    let mut def = ActionDef::new("press", "d");
    def.element = true;
    h.register(def);
    let t = h.call("press", "{}", Some("c1"), T0);
    let outcome = h.answered(t);
    assert_eq!(outcome.gate, Gate::NeedsHandMode);
    assert_eq!(outcome.error.as_ref().unwrap().0, "hand_mode_off");
    let r = h.records()[0];
    assert_eq!(
        (r.gate, r.reason, r.outcome.clone()),
        (
            Gate::NeedsHandMode,
            Some("hand_mode_off"),
            RecordOutcome::NotRun
        )
    );
    // Not remembered: once armed, the same callId runs.
    h.engine.set_hand_mode(true);
    h.call("press", "{}", Some("c1"), T0);
    assert_eq!(h.runs().len(), 1);
}

#[test]
fn hard_element_confirmed_after_disarm_settles_needs_hand_mode() {
    let mut h = Harness::new();
    let mut def = ActionDef::new("press", "d");
    def.element = true;
    def.control = Some(Control::Hard);
    h.register(def);
    h.engine.set_hand_mode(true);
    let t = h.call("press", "{}", None, T0);
    let p = h.engine.pending()[0].id;
    h.engine.set_hand_mode(false);
    h.engine.confirm(p, admin(), T0).unwrap();
    h.drain();
    assert!(h.runs().is_empty());
    assert_eq!(h.answered(t).gate, Gate::NeedsHandMode);
    assert_eq!(h.records()[0].approver, admin());
    assert!(h.engine.pending().is_empty());
}

#[test]
fn soft_element_confirmed_after_disarm_settles_needs_hand_mode() {
    let mut h = Harness::new();
    let mut def = ActionDef::new("press", "d");
    def.element = true;
    def.control = Some(Control::Soft);
    h.register(def);
    h.engine.set_hand_mode(true);
    let first = h.call("press", "{}", None, T0);
    let token = soft_token(&h, first);
    h.engine.set_hand_mode(false);
    let t = h.confirm_call("press", "{}", &token, None, T0);
    assert_eq!(h.answered(t).gate, Gate::NeedsHandMode);
    assert!(h.runs().is_empty());
}

// ---- unregister, dispose --------------------------------------------------------------

#[test]
fn unregister_cancels_that_actions_waiting_calls() {
    let mut h = Harness::new();
    let wipe = h.action("wipe", Some("hard"));
    h.action("keep", Some("hard"));
    let archive = h.action("archive", Some("soft"));
    h.action("read", None);
    let t_wipe = h.call("wipe", "{}", None, T0);
    let t_keep = h.call("keep", "{}", None, T0);
    let first = h.call("archive", "{}", None, T0);
    let token = soft_token(&h, first);
    let t_read = h.call("read", "{}", None, T0);
    h.engine.unregister(wipe, T0);
    h.engine.unregister(archive, T0);
    h.drain();
    assert_eq!(h.answered(t_wipe).gate, Gate::Cancelled);
    assert!(h.answer(t_keep).is_none());
    let reasons: Vec<_> = h.records().iter().map(|r| r.reason.unwrap()).collect();
    assert_eq!(reasons, ["action_disposed", "action_disposed"]);
    assert_eq!(h.engine.pending().len(), 1);
    let confirm = h.confirm_call("archive", "{}", &token, None, T0);
    assert_eq!(
        h.answered(confirm).error.as_ref().unwrap().0,
        "unknown_action"
    );
    // Running calls still finish.
    h.finish(h.runs()[0].0, Ok("r".into()), T0);
    assert_eq!(h.answered(t_read).gate, Gate::Fired);
}

#[test]
fn dispose_cancels_everything_and_later_invokes() {
    let mut h = Harness::new();
    h.action("wipe", Some("hard"));
    h.action("archive", Some("soft"));
    h.action("read", None);
    let t_wipe = h.call("wipe", "{}", None, T0);
    h.call("archive", "{}", None, T0);
    let t_read = h.call("read", "{}", None, T0);
    h.engine.dispose(T0 + 1.0);
    h.drain();
    assert_eq!(h.answered(t_wipe).gate, Gate::Cancelled);
    assert_eq!(h.answered(t_wipe).error.as_ref().unwrap().0, "disposed");
    assert_eq!(h.records().len(), 2);
    assert!(h.records().iter().all(|r| r.reason == Some("disposed")));
    assert!(h.engine.pending().is_empty());
    assert_eq!(h.engine.poll_timeout(), None);
    let later = h.call("read", r#"{"a":1}"#, Some("late"), T0 + 2.0);
    let outcome = h.answered(later);
    assert_eq!(
        (outcome.gate, outcome.call_id.as_str()),
        (Gate::Cancelled, "late")
    );
    let r = h.records()[2];
    assert_eq!(
        (r.reason, serde_json::to_string(&*r.args).unwrap()),
        (Some("disposed"), r#"{"a":1}"#.to_string())
    );
    // The running call finishes normally.
    h.finish(h.runs()[0].0, Ok("r".into()), T0 + 3.0);
    assert_eq!(h.answered(t_read).gate, Gate::Fired);
    assert_eq!(
        h.engine.register(ActionDef::new("x", "d")),
        Err(Error::Disposed)
    );
    assert_eq!(
        h.engine
            .confirm(ProposalId::parse("ckp_1").unwrap(), None, T0),
        Err(Error::Disposed)
    );
}

// ---- records -------------------------------------------------------------------------

#[test]
fn control_source_is_on_every_record() {
    let mut h = Harness::new();
    h.action("deleteOne", None);
    h.action("read", None);
    h.action("pinned", Some("open"));
    h.call("nothing", "{}", None, T0);
    let t = h.call("deleteOne", "{}", None, T0);
    let token = soft_token(&h, t);
    h.confirm_call("deleteOne", "{}", &token, None, T0);
    h.finish(h.last_run(), Ok(String::new()), T0);
    h.call("read", "{}", None, T0);
    h.finish(h.last_run(), Ok(String::new()), T0);
    h.call("pinned", "{}", None, T0);
    h.finish(h.last_run(), Ok(String::new()), T0);
    let sources: Vec<_> = h
        .records()
        .iter()
        .map(|r| (r.action.clone(), r.control, r.control_source))
        .collect();
    assert_eq!(
        sources,
        vec![
            ("nothing".into(), Control::Open, ControlSource::Default),
            (
                "deleteOne".into(),
                Control::Soft,
                ControlSource::DestructiveName
            ),
            ("read".into(), Control::Open, ControlSource::Default),
            ("pinned".into(), Control::Open, ControlSource::Declared),
        ]
    );
}

#[test]
fn proposal_ids_round_trip_through_strings() {
    let id = ProposalId::parse("ckp_42").unwrap();
    assert_eq!(id.to_string(), "ckp_42");
    // The longest accepted form (19 digits) and leading zeros read as the number they write.
    let max = ProposalId::parse("ckp_9999999999999999999").unwrap();
    assert_eq!(max.to_string(), "ckp_9999999999999999999");
    assert_eq!(ProposalId::parse("ckp_007"), ProposalId::parse("ckp_7"));
    for bad in [
        "",
        "ckp_",
        "ckp_x",
        "42",
        "ckp_-1",
        "ckp_99999999999999999999",
    ] {
        assert_eq!(ProposalId::parse(bad), None, "{bad}");
    }
}

#[test]
fn error_codes_are_stable() {
    let table: Vec<(Error, &str)> = vec![
        (Error::UnknownAction("x".into()), "unknown_action"),
        (Error::InvalidArgs("x".into()), "invalid_args"),
        (Error::ArgsTooLarge { size: 2, max: 1 }, "args_too_large"),
        (Error::BadToken, "bad_token"),
        (Error::TokenExpired, "token_expired"),
        (Error::CallIdConflict, "call_id_conflict"),
        (Error::TooManyPending, "too_many_pending"),
        (Error::ElementUnavailable("x".into()), "element_unavailable"),
        (Error::InvalidSpec("x".into()), "invalid_spec"),
        (Error::DuplicateAction("x".into()), "duplicate_action"),
        (Error::NotAdmin, "not_admin"),
        (Error::RunFailed("x".into()), "run_failed"),
        (Error::NeedsUserActivation, "needs_user_activation"),
        (Error::Disposed, "disposed"),
        (Error::HandModeOff, "hand_mode_off"),
        (Error::UnknownProposal, "unknown_proposal"),
        (Error::ProposalNotVisible, "proposal_not_visible"),
    ];
    for (error, code) in table {
        assert_eq!(error.code(), code);
        assert!(!error.to_string().is_empty());
    }
}

#[test]
fn every_record_names_its_door_and_a_soft_call_keeps_its_first() {
    let mut h = Harness::new();
    h.action("read", Some("open"));
    h.action("archive", Some("soft"));
    let mut req = InvokeRequest::new("read", v("{}"));
    req.via = Via::WebMcp;
    h.invoke(req, T0);
    h.finish(h.last_run(), Ok("read".into()), T0);
    let mut bad = InvokeRequest::new("nope", v("{}"));
    bad.via = Via::ToolCall;
    h.invoke(bad, T0);
    // The soft call starts as a tool call; its confirming call comes through `invoke`.
    let mut first = InvokeRequest::new("archive", v(r#"{"id":1}"#));
    first.via = Via::ToolCall;
    let t = h.invoke(first, T0);
    let token = soft_token(&h, t);
    h.confirm_call("archive", r#"{"id":1}"#, &token, None, T0 + 1.0);
    h.finish(h.last_run(), Ok("done".into()), T0 + 2.0);
    let doors: Vec<(&str, Via)> = h
        .records()
        .iter()
        .map(|r| (r.action.as_str(), r.via))
        .collect();
    assert_eq!(
        doors,
        [
            ("read", Via::WebMcp),
            ("nope", Via::ToolCall),
            ("archive", Via::ToolCall)
        ]
    );
    assert_eq!(Via::WebMcp.as_str(), "webmcp");
    assert_eq!(Via::ToolCall.as_str(), "tool_call");
    assert_eq!(Via::Invoke.as_str(), "invoke");
}

#[test]
fn the_hosts_snapshot_travels_with_a_call_and_a_confirming_call_answers_with_the_first_id() {
    let mut h = Harness::new();
    h.action("read", Some("open"));
    h.action("archive", Some("soft"));
    let mut req = InvokeRequest::new("read", v("{}"));
    req.call_id = Some("c1".into());
    req.snapshot = Some("js:{}".into());
    h.invoke(req, T0);
    let run = h
        .effects
        .iter()
        .find_map(|e| match e {
            Effect::Run {
                call_id,
                snapshot,
                call,
                ..
            } => Some((call_id.clone(), snapshot.clone(), *call)),
            _ => None,
        })
        .expect("a run");
    assert_eq!(run.0, "c1");
    assert_eq!(run.1.as_deref(), Some("js:{}"));
    h.finish(run.2, Ok("done".into()), T0);
    let record = h.records()[0];
    assert_eq!(record.call_id, "c1");
    assert_eq!(record.snapshot.as_deref(), Some("js:{}"));

    // A soft call confirmed by a call with its own id: the outcome is the first call's.
    let mut first = InvokeRequest::new("archive", v(r#"{"id":1}"#));
    first.call_id = Some("c2".into());
    let t = h.invoke(first, T0);
    assert_eq!(h.answered(t).call_id, "c2");
    let token = soft_token(&h, t);
    let mut confirm = InvokeRequest::new("archive", v(r#"{"id":1}"#));
    confirm.call_id = Some("c3".into());
    confirm.confirm_token = Some(token);
    let t2 = h.invoke(confirm, T0 + 1.0);
    h.finish(h.last_run(), Ok("archived".into()), T0 + 2.0);
    assert_eq!(h.answered(t2).call_id, "c2");
    // A refusal answers with the id it was sent.
    let mut bad = InvokeRequest::new("nope", v("{}"));
    bad.call_id = Some("c4".into());
    let t3 = h.invoke(bad, T0 + 3.0);
    assert_eq!(h.answered(t3).call_id, "c4");
}

#[test]
fn a_call_the_host_resolved_goes_to_that_registration_and_no_later_one() {
    let mut h = Harness::new();
    let first = h.action("report", Some("open"));
    // Resolved by the host: it runs, as by name.
    let mut req = InvokeRequest::new("report", v("{}"));
    req.action = Some(first);
    let t = h.invoke(req, T0);
    h.finish(h.last_run(), Ok("r".into()), T0);
    assert_eq!(h.answered(t).gate, Gate::Fired);
    // Unregistered while the host was checking, and the name registered again: the call is
    // for the registration it was checked against, which is gone.
    h.engine.unregister(first, T0);
    let second = h.action("report", Some("open"));
    assert_ne!(first, second);
    let mut stale = InvokeRequest::new("report", v("{}"));
    stale.action = Some(first);
    let t = h.invoke(stale, T0 + 1.0);
    assert_eq!(h.answered(t).gate, Gate::Rejected);
    assert_eq!(h.answered(t).error.as_ref().unwrap().0, "unknown_action");
    // Not resolved: the name finds the new registration.
    let t = h.call("report", "{}", None, T0 + 2.0);
    h.finish(h.last_run(), Ok("r".into()), T0 + 2.0);
    assert_eq!(h.answered(t).gate, Gate::Fired);
}

// ---- two engines (two instances in one page) ----------------------------------------------

/// Two engines with the same registrations, driven in step: their calls, tokens' calls and
/// proposals get the same internal numbers, so a token table or id memory shared between them
/// would confuse one's call with the other's. Each draws its own entropy.
fn twins() -> (Harness, Harness) {
    let mut pair = (Harness::new(), Harness::new());
    for h in [&mut pair.0, &mut pair.1] {
        h.action("archive", Some("soft"));
        h.action("readDoc", Some("open"));
    }
    (pair.0, pair.1)
}

#[test]
fn a_token_of_one_engine_is_bad_token_in_another_through_every_door() {
    let (mut a, mut b) = twins();
    let from_a = a.call("archive", "{}", None, T0);
    let from_b = b.call("archive", "{}", None, T0);
    let (token_a, token_b) = (soft_token(&a, from_a), soft_token(&b, from_b));
    // Distinct seeds: the engines never hand out the same token or call id.
    assert_ne!(token_a, token_b);
    assert_ne!(a.answered(from_a).call_id, b.answered(from_b).call_id);
    for via in Via::ALL {
        // `b` has its own waiting call for exactly this action and args: A's token names
        // nothing there, with or without a callId, declining or not.
        for (call_id, decline) in [(None, false), (Some("x1"), false), (None, true)] {
            let mut req = InvokeRequest::new("archive", v("{}"));
            req.confirm_token = Some(token_a.clone());
            req.call_id = call_id.map(Into::into);
            req.decline = decline;
            req.via = via;
            let t = b.invoke(req, T0);
            assert_eq!(b.answered(t).gate, Gate::Rejected, "{via:?}");
            assert_eq!(b.answered(t).error.as_ref().unwrap().0, "bad_token");
        }
        // A's token together with B's callId of the waiting call: still not B's token.
        let mut req = InvokeRequest::new("archive", v("{}"));
        req.confirm_token = Some(token_a.clone());
        req.call_id = Some(b.answered(from_b).call_id.clone());
        req.via = via;
        let t = b.invoke(req, T0);
        assert_eq!(b.answered(t).error.as_ref().unwrap().0, "bad_token");
    }
    assert!(a.runs().is_empty() && b.runs().is_empty());
    // Each engine's own token still confirms its own call, once.
    let t = b.confirm_call("archive", "{}", &token_b, None, T0);
    assert_eq!(b.runs().len(), 1);
    assert_eq!(b.runs()[0].1, b.answered(from_b).call_id);
    b.finish(b.last_run(), Ok("b".into()), T0);
    assert_eq!(b.answered(t).gate, Gate::Confirmed);
    assert!(a.runs().is_empty(), "b's confirmation ran nothing in a");
    a.confirm_call("archive", "{}", &token_a, None, T0);
    assert_eq!(a.runs().len(), 1);
    // B's used token is as foreign to `a` as any: a fresh call in `a` is not confirmed by it.
    let again = a.call("archive", "{}", None, T0);
    let t = a.confirm_call("archive", "{}", &token_b, None, T0);
    assert_eq!(a.answered(t).error.as_ref().unwrap().0, "bad_token");
    assert_eq!(a.runs().len(), 1);
    assert_eq!(a.answered(again).gate, Gate::NeedsConfirmation);
}

#[test]
fn a_call_id_of_one_engine_is_a_new_call_in_another() {
    let (mut a, mut b) = twins();
    // A settled open call: the same callId and args in `b` run there, afresh.
    let first = a.call("readDoc", "{}", Some("c1"), T0);
    a.finish(a.last_run(), Ok("from a".into()), T0);
    assert_eq!(a.answered(first).result.as_deref(), Some("from a"));
    let in_b = b.call("readDoc", "{}", Some("c1"), T0);
    assert_eq!(b.runs().len(), 1, "b runs its own c1");
    b.finish(b.last_run(), Ok("from b".into()), T0);
    assert_eq!(b.answered(in_b).result.as_deref(), Some("from b"));
    // Other args under the same callId are no conflict in `b`'s memory either.
    let other = a.call("readDoc", r#"{"x":1}"#, Some("c9"), T0);
    a.finish(a.last_run(), Ok("a9".into()), T0);
    assert_eq!(a.answered(other).gate, Gate::Fired);
    let t = b.call("readDoc", r#"{"y":2}"#, Some("c9"), T0);
    assert_eq!(b.runs().len(), 2);
    b.finish(b.last_run(), Ok("b9".into()), T0);
    assert_eq!(b.answered(t).gate, Gate::Fired);
    // A soft call waiting in `a` under c2: c2 in `b` is b's own call, with its own token.
    let waiting = a.call("archive", "{}", Some("c2"), T0);
    let in_b = b.call("archive", "{}", Some("c2"), T0);
    assert_ne!(soft_token(&a, waiting), soft_token(&b, in_b));
    // Each engine: one record per call it settled, none for the other's.
    assert_eq!(a.records().len(), 2);
    assert_eq!(b.records().len(), 2);
    assert!(b.records().iter().all(|r| !matches!(
        &r.outcome,
        RecordOutcome::Ok { value: Some(value) } if value == "from a"
    )));
}

#[test]
fn only_the_front_proposal_of_a_live_engine_is_visible() {
    let mut h = Harness::new();
    h.action("wipe", Some("hard"));
    h.call("wipe", r#"{"n":1}"#, None, T0);
    h.call("wipe", r#"{"n":2}"#, None, T0);
    let ids: Vec<_> = h.engine.pending().iter().map(|p| p.id).collect();
    assert!(h.engine.is_visible(ids[0]));
    assert!(!h.engine.is_visible(ids[1]), "second in the queue");
    h.engine.cancel(ids[0], CancelReason::App, T0);
    h.drain();
    assert!(!h.engine.is_visible(ids[0]), "settled");
    assert!(h.engine.is_visible(ids[1]), "now in front");
    h.engine.dispose(T0);
    h.drain();
    assert!(!h.engine.is_visible(ids[1]), "disposed");
}

#[test]
fn after_dispose_a_resent_call_gets_its_own_outcome_and_a_new_one_is_cancelled() {
    let mut h = Harness::new();
    h.action("read", Some("open"));
    let t = h.call("read", "{}", Some("c1"), T0);
    h.finish(h.last_run(), Ok("done".into()), T0);
    assert_eq!(h.answered(t).gate, Gate::Fired);
    let records = h.records().len();
    h.engine.dispose(T0 + 1.0);
    h.drain();
    // The call that fired is still the call that fired, and no second record says otherwise.
    let again = h.call("read", "{}", Some("c1"), T0 + 2.0);
    assert_eq!(h.answered(again).gate, Gate::Fired);
    assert_eq!(h.records().len(), records);
    // Other args under the same id: a conflict, as before dispose.
    let other = h.call("read", r#"{"x":1}"#, Some("c1"), T0 + 3.0);
    assert_eq!(
        h.answered(other).error.as_ref().unwrap().0,
        "call_id_conflict"
    );
    // A new call is cancelled at once.
    let fresh = h.call("read", "{}", Some("c2"), T0 + 4.0);
    assert_eq!(h.answered(fresh).gate, Gate::Cancelled);
}
