#![cfg(not(target_arch = "wasm32"))]
//! SPEC §6's `assurance`: what stands behind the decision that let a call run, as the engine
//! decides it. One row per way a call can end, at every level and gate, each with the record it
//! must leave: a call that never ran has `none`; one that ran has what let it run (`none` for
//! open, `agent` for a soft token, `grant` for a grant, `input` for a card's Confirm, `passkey`
//! for an assertion over its statement), whether its `run` succeeded or threw.
//!
//! The property models (engine_props.rs, engine_passkey.rs) check the same rule on every record
//! of random sequences.

mod engine_support;

use coworkkit::core::control::Control;
use coworkkit::core::engine::{ActionDef, CancelReason, Config, Effect, InvokeRequest};
use coworkkit::core::error::Error;
use coworkkit::core::grant::GrantOptions;
use coworkkit::core::passkey::{Verification, Verify};
use coworkkit::core::record::{Assurance, Gate, RecordOutcome};
use engine_support::{admin, v, Harness};

const T0: f64 = 1_000_000.0;
const TIMEOUT_MS: f64 = 10_000.0;

/// How a call's `run` ends, for the rows where it runs.
#[derive(Clone, Copy)]
enum Run {
    Ok,
    Throws,
}

impl Run {
    fn result(self) -> Result<String, Error> {
        match self {
            Run::Ok => Ok("done".into()),
            Run::Throws => Err(Error::RunFailed("boom".into())),
        }
    }

    fn status(self) -> &'static str {
        match self {
            Run::Ok => "ok",
            Run::Throws => "error",
        }
    }
}

/// A harness with one action of each kind the rows need.
fn harness() -> Harness {
    let mut h = Harness::with_config(Config {
        confirm_timeout_ms: TIMEOUT_MS,
        max_pending: 1,
        ..Config::default()
    });
    h.action("read", Some("open"));
    h.action("archive", Some("soft"));
    h.action("wipe", Some("hard"));
    let mut passkey = ActionDef::new("deleteProject", "delete for good");
    passkey.control = Some(Control::Hard);
    passkey.verify = Some(Verify::Passkey);
    h.register(passkey);
    let mut press = ActionDef::new("press", "press a button");
    press.control = Some(Control::Hard);
    press.element = true;
    h.register(press);
    let mut tagged = ActionDef::new("tag", "a schema");
    tagged.control = Some(Control::Open);
    tagged.schema = Some(
        coworkkit::core::schema::Schema::parse(&v(
            r#"{"type":"object","properties":{"n":{"type":"number"}}}"#,
        ))
        .unwrap(),
    );
    h.register(tagged);
    h
}

/// The token of the soft call answered last.
fn token(h: &Harness) -> String {
    h.effects
        .iter()
        .rev()
        .find_map(|e| match e {
            Effect::Answer { outcome, .. } => outcome.confirm_token.clone(),
            _ => None,
        })
        .expect("a soft call's token")
}

fn finish_last_run(h: &mut Harness, run: Run, now: f64) {
    let call = h.last_run();
    h.finish(call, run.result(), now);
}

fn open(h: &mut Harness, run: Run) {
    h.call("read", "{}", None, T0);
    finish_last_run(h, run, T0 + 1.0);
}

fn soft_with_token(h: &mut Harness, run: Run) {
    h.call("archive", r#"{"id":1}"#, Some("c1"), T0);
    let token = token(h);
    h.confirm_call("archive", r#"{"id":1}"#, &token, Some("c2"), T0 + 1.0);
    finish_last_run(h, run, T0 + 2.0);
}

fn soft_on_a_grant(h: &mut Harness, run: Run) {
    h.engine
        .grant("archive", &GrantOptions::default(), true, T0)
        .expect("grant");
    h.drain();
    h.call("archive", r#"{"id":1}"#, None, T0 + 1.0);
    finish_last_run(h, run, T0 + 2.0);
}

fn hard_confirmed(h: &mut Harness, run: Run) {
    h.call("wipe", "{}", None, T0);
    let p = h.engine.pending()[0].id;
    h.engine.confirm(p, admin(), T0 + 600.0).unwrap();
    h.drain();
    finish_last_run(h, run, T0 + 700.0);
}

/// A plain hard card confirmed with a verification handed in anyway: the engine drops it, and
/// claims only what it saw, a trusted click.
fn hard_confirmed_with_a_stray_verification(h: &mut Harness, run: Run) {
    h.call("wipe", "{}", None, T0);
    let p = h.engine.pending()[0].id;
    h.engine
        .confirm_verified(p, admin(), verification("ab"), T0 + 600.0)
        .unwrap();
    h.drain();
    finish_last_run(h, run, T0 + 700.0);
}

fn passkey_confirmed(h: &mut Harness, run: Run) {
    h.call("deleteProject", "{}", None, T0);
    let p = h.engine.pending()[0].id;
    let statement = h.engine.begin_passkey(p, None, T0 + 600.0).unwrap();
    h.engine
        .confirm_verified(p, admin(), verification(&statement.nonce), T0 + 900.0)
        .unwrap();
    h.drain();
    finish_last_run(h, run, T0 + 1000.0);
}

fn verification(nonce: &str) -> Verification<String> {
    Verification {
        nonce: nonce.into(),
        credential_id: "cred-1".into(),
        receipt: format!("receipt over {nonce}"),
    }
}

/// One way a call ends without running.
type NotRun = fn(&mut Harness);

fn rejected_unknown_action(h: &mut Harness) {
    h.call("ghost", "{}", None, T0);
}

fn rejected_invalid_args(h: &mut Harness) {
    h.call("tag", r#"{"n":"x"}"#, None, T0);
}

fn rejected_bad_token(h: &mut Harness) {
    h.confirm_call("archive", "{}", "ckt_forged", None, T0);
}

fn rejected_too_many_pending(h: &mut Harness) {
    h.call("wipe", r#"{"n":1}"#, None, T0);
    h.call("wipe", r#"{"n":2}"#, None, T0);
}

fn soft_declined(h: &mut Harness) {
    h.call("archive", "{}", None, T0);
    let token = token(h);
    let mut req = InvokeRequest::new("archive", v("{}"));
    req.confirm_token = Some(token);
    req.decline = true;
    req.reason = Some("not today".into());
    h.invoke(req, T0 + 1.0);
}

fn soft_timed_out(h: &mut Harness) {
    h.call("archive", "{}", None, T0);
    h.engine.tick(T0 + TIMEOUT_MS);
    h.drain();
}

fn soft_unregistered(h: &mut Harness) {
    h.call("archive", "{}", None, T0);
    let id = h.engine.action("archive").unwrap().0;
    h.engine.unregister(id, T0 + 1.0);
    h.drain();
}

fn hard_cancelled_by_the_person(h: &mut Harness) {
    h.call("wipe", "{}", None, T0);
    let p = h.engine.pending()[0].id;
    h.engine
        .cancel_saying(p, CancelReason::User, Some("wrong one"), T0 + 600.0);
    h.drain();
}

fn hard_timed_out(h: &mut Harness) {
    h.call("wipe", "{}", None, T0);
    h.engine.tick(T0 + TIMEOUT_MS);
    h.drain();
}

fn hard_disposed(h: &mut Harness) {
    h.call("wipe", "{}", None, T0);
    h.engine.dispose(T0 + 1.0);
    h.drain();
}

/// A card confirmed by a trusted click, for an element action while Hand mode is off: it
/// settles `needs_hand_mode` without touching the page, so nothing was decided to run.
fn element_card_confirmed_with_hand_mode_off(h: &mut Harness) {
    h.engine.set_hand_mode(true);
    h.call("press", "{}", None, T0);
    h.engine.set_hand_mode(false);
    let p = h.engine.pending()[0].id;
    h.engine.confirm(p, admin(), T0 + 600.0).unwrap();
    h.drain();
}

/// The person's passkey prompt was under way when they cancelled: nothing ran.
fn passkey_cancelled_during_the_prompt(h: &mut Harness) {
    h.call("deleteProject", "{}", None, T0);
    let p = h.engine.pending()[0].id;
    h.engine.begin_passkey(p, None, T0 + 600.0).unwrap();
    h.engine.cancel(p, CancelReason::User, T0 + 700.0);
    h.drain();
}

fn after_dispose(h: &mut Harness) {
    h.engine.dispose(T0);
    h.drain();
    h.call("read", "{}", None, T0 + 1.0);
}

/// The last record's gate, outcome status and assurance.
fn last_record(h: &Harness) -> (Gate, &'static str, Assurance) {
    let records = h.records();
    let r = records.last().expect("a record");
    (r.gate, r.outcome.status(), r.assurance)
}

#[test]
fn a_call_that_ran_carries_what_let_it_run_whether_run_succeeded_or_threw() {
    type Ran = fn(&mut Harness, Run);
    let rows: [(&str, Ran, Gate, Assurance); 6] = [
        ("open", open, Gate::Fired, Assurance::None),
        (
            "soft, with its token",
            soft_with_token,
            Gate::Confirmed,
            Assurance::Agent,
        ),
        (
            "soft, on a grant",
            soft_on_a_grant,
            Gate::Fired,
            Assurance::Grant,
        ),
        (
            "hard, Confirm",
            hard_confirmed,
            Gate::Confirmed,
            Assurance::Input,
        ),
        (
            "hard, Confirm with a stray verification",
            hard_confirmed_with_a_stray_verification,
            Gate::Confirmed,
            Assurance::Input,
        ),
        (
            "passkey",
            passkey_confirmed,
            Gate::Confirmed,
            Assurance::Passkey,
        ),
    ];
    for (name, scenario, gate, assurance) in rows {
        for run in [Run::Ok, Run::Throws] {
            let mut h = harness();
            scenario(&mut h, run);
            assert_eq!(h.records().len(), 1, "{name}: one record");
            assert_eq!(
                last_record(&h),
                (gate, run.status(), assurance),
                "{name}, run {}",
                run.status()
            );
        }
    }
}

#[test]
fn a_call_that_never_ran_has_no_assurance_whatever_was_under_way() {
    let rows: [(&str, NotRun, Gate, &str); 13] = [
        (
            "unknown action",
            rejected_unknown_action,
            Gate::Rejected,
            "unknown_action",
        ),
        (
            "invalid args",
            rejected_invalid_args,
            Gate::Rejected,
            "invalid_args",
        ),
        (
            "forged token",
            rejected_bad_token,
            Gate::Rejected,
            "bad_token",
        ),
        (
            "too many pending",
            rejected_too_many_pending,
            Gate::Rejected,
            "too_many_pending",
        ),
        ("soft declined", soft_declined, Gate::Cancelled, "declined"),
        ("soft timed out", soft_timed_out, Gate::Timeout, "expired"),
        (
            "soft action unregistered",
            soft_unregistered,
            Gate::Cancelled,
            "action_disposed",
        ),
        (
            "hard cancelled by the person",
            hard_cancelled_by_the_person,
            Gate::Cancelled,
            "cancelled_by_user",
        ),
        ("hard timed out", hard_timed_out, Gate::Timeout, "expired"),
        ("hard disposed", hard_disposed, Gate::Cancelled, "disposed"),
        (
            "element card confirmed, Hand mode off",
            element_card_confirmed_with_hand_mode_off,
            Gate::NeedsHandMode,
            "hand_mode_off",
        ),
        (
            "passkey cancelled during the prompt",
            passkey_cancelled_during_the_prompt,
            Gate::Cancelled,
            "cancelled_by_user",
        ),
        ("after dispose", after_dispose, Gate::Cancelled, "disposed"),
    ];
    for (name, scenario, gate, reason) in rows {
        let mut h = harness();
        scenario(&mut h);
        let record = *h.records().last().expect("a record");
        assert_eq!((record.gate, record.reason), (gate, Some(reason)), "{name}");
        assert!(
            matches!(record.outcome, RecordOutcome::NotRun),
            "{name}: not run"
        );
        assert_eq!(record.assurance, Assurance::None, "{name}");
        assert!(record.verification.is_none(), "{name}");
    }
}

/// The words are SPEC §6's, in the order their numbers cross to JavaScript (codes.js
/// `ASSURANCES`, checked against this list by boundary_codes.rs). `other-device` is among them
/// so the type is whole, though nothing confirms a call that way yet (SPEC §4.3).
#[test]
fn the_assurances_are_named_in_the_words_of_the_spec() {
    let names: Vec<&str> = Assurance::ALL.iter().map(|a| a.as_str()).collect();
    assert_eq!(
        names,
        ["none", "agent", "grant", "input", "passkey", "other-device"]
    );
}
