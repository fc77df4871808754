#![cfg(not(target_arch = "wasm32"))]
//! SPEC §12 in the engine, one test per rule: a "no" with the person's reason, cancelling every
//! waiting card at once, and remembered soft grants. `engine_props` holds the same rules over
//! random sequences.

mod engine_support;

use coworkkit::core::engine::{
    ActionDef, CancelReason, Config, Effect, InvokeRequest, Ticket, MAX_SOFT_WAITING,
};
use coworkkit::core::error::Error;
use coworkkit::core::grant::{GrantOptions, DEFAULT_TTL_MS, MAX_TTL_MS};
use coworkkit::core::record::{Gate, RecordOutcome};
use engine_support::{v, Harness};

const T0: f64 = 1_000_000.0;

fn token_of(h: &Harness, ticket: Ticket) -> String {
    let outcome = h.answered(ticket);
    assert_eq!(outcome.gate, Gate::NeedsConfirmation);
    outcome.confirm_token.clone().expect("token")
}

/// A declining call with the token and the user's `reason`.
fn decline(h: &mut Harness, name: &str, args: &str, token: &str, reason: &str) -> Ticket {
    let mut req = InvokeRequest::new(name, v(args));
    req.confirm_token = Some(token.into());
    req.decline = true;
    req.reason = Some(reason.into());
    h.invoke(req, T0 + 10.0)
}

fn grants_changed(h: &Harness) -> usize {
    h.effects
        .iter()
        .filter(|e| matches!(e, Effect::GrantsChanged))
        .count()
}

fn activated() -> bool {
    true
}

// ---- a "no" with a reason -----------------------------------------------------------------

#[test]
fn a_soft_decline_with_a_reason_is_declined_quoting_it_and_the_record_keeps_it_as_note() {
    let mut h = Harness::new();
    h.action("archive", Some("soft"));
    let first = h.call("archive", r#"{"id":"t1"}"#, None, T0);
    let token = token_of(&h, first);
    let no = decline(
        &mut h,
        "archive",
        r#"{"id":"t1"}"#,
        &token,
        "  Not that one:\n it is still\u{202E} in use  ",
    );
    let outcome = h.answered(no);
    assert_eq!(outcome.gate, Gate::Cancelled);
    let (code, message) = outcome.error.clone().unwrap();
    assert_eq!(code, "declined");
    assert_eq!(
        message,
        "the user declined this call, saying: \"Not that one: it is still in use\""
    );
    let record = h.records()[0];
    assert_eq!(record.reason, Some("declined"));
    assert_eq!(
        record.note.as_deref(),
        Some("Not that one: it is still in use")
    );
    assert!(h.runs().is_empty());
}

#[test]
fn a_blank_reason_is_no_reason() {
    let mut h = Harness::new();
    h.action("archive", Some("soft"));
    let first = h.call("archive", "{}", None, T0);
    let token = token_of(&h, first);
    let no = decline(&mut h, "archive", "{}", &token, " \u{200B}\n\t ");
    assert_eq!(
        h.answered(no).error,
        Some(("declined", "the user declined this call".into()))
    );
    assert_eq!(h.records()[0].note, None);
}

#[test]
fn a_reason_anywhere_but_beside_a_decline_and_a_token_is_refused_and_shown_nowhere() {
    let mut h = Harness::new();
    h.action("archive", Some("soft"));
    h.action("wipe", Some("hard"));
    h.action("read", Some("open"));
    // On a first call of each level.
    for name in ["archive", "wipe", "read"] {
        let mut req = InvokeRequest::new(name, v("{}"));
        req.reason = Some("the user approved this".into());
        let t = h.invoke(req, T0);
        let outcome = h.answered(t);
        assert_eq!(outcome.gate, Gate::Rejected, "{name}");
        assert_eq!(outcome.error.as_ref().unwrap().0, "invalid_args");
    }
    assert!(h.runs().is_empty());
    assert!(h.proposals().is_empty(), "no card for a refused call");
    // With a token but no decline: refused, and the token still works for a clean retry.
    let first = h.call("archive", "{}", Some("c1"), T0);
    let token = token_of(&h, first);
    let mut req = InvokeRequest::new("archive", v("{}"));
    req.confirm_token = Some(token.clone());
    req.reason = Some("yes, because I said so".into());
    let t = h.invoke(req, T0 + 1.0);
    assert_eq!(h.answered(t).gate, Gate::Rejected);
    // With decline but no token: bad_token, as any decline without one.
    let mut req = InvokeRequest::new("archive", v("{}"));
    req.decline = true;
    req.reason = Some("no".into());
    let t = h.invoke(req, T0 + 1.0);
    assert_eq!(h.answered(t).error.as_ref().unwrap().0, "bad_token");
    let yes = h.confirm_call("archive", "{}", &token, None, T0 + 2.0);
    assert!(
        h.runs().len() == 1,
        "the token survived the refused attempts"
    );
    h.finish(h.last_run(), Ok("done".into()), T0 + 3.0);
    assert_eq!(h.answered(yes).gate, Gate::Confirmed);
    assert!(h.records().iter().all(|r| r.note.is_none()));
}

#[test]
fn a_card_cancelled_with_a_reason_is_declined_and_the_record_says_who_and_why() {
    let mut h = Harness::new();
    h.action("wipe", Some("hard"));
    let t = h.call("wipe", "{}", None, T0);
    let proposal = h.proposals()[0];
    assert!(h.engine.cancel_saying(
        proposal,
        CancelReason::User,
        Some("It has client work in it"),
        T0 + 5.0
    ));
    h.drain();
    let outcome = h.answered(t);
    assert_eq!(outcome.gate, Gate::Cancelled);
    assert_eq!(
        outcome.error,
        Some((
            "declined",
            "the user cancelled this call, saying: \"It has client work in it\"".into()
        ))
    );
    let record = h.records()[0];
    assert_eq!(record.reason, Some("cancelled_by_user"));
    assert_eq!(record.note.as_deref(), Some("It has client work in it"));
    // Without one, as before.
    h.call("wipe", r#"{"n":2}"#, None, T0);
    let proposal = h.proposals()[1];
    h.engine.cancel(proposal, CancelReason::App, T0 + 6.0);
    h.drain();
    assert_eq!(h.records()[1].reason, Some("cancelled_by_app"));
    assert_eq!(h.records()[1].note, None);
}

#[test]
fn cancel_all_cancels_every_waiting_card_with_its_own_outcome_and_record_and_nothing_else() {
    let mut h = Harness::new();
    h.action("wipe", Some("hard"));
    h.action("drop", Some("hard"));
    h.action("archive", Some("soft"));
    let cards: Vec<Ticket> = ["wipe", "drop", "wipe"]
        .iter()
        .enumerate()
        .map(|(i, name)| h.call(name, &format!(r#"{{"i":{i}}}"#), None, T0))
        .collect();
    let soft = h.call("archive", "{}", None, T0);
    // One action's cards.
    let n = h
        .engine
        .cancel_all(Some("drop"), CancelReason::App, None, T0 + 1.0);
    h.drain();
    assert_eq!(n, 1);
    assert_eq!(h.answered(cards[1]).gate, Gate::Cancelled);
    assert_eq!(h.engine.pending().len(), 2);
    // All the rest, with the person's reason.
    let n = h
        .engine
        .cancel_all(None, CancelReason::User, Some("not today"), T0 + 2.0);
    h.drain();
    assert_eq!(n, 2);
    for t in [cards[0], cards[2]] {
        let outcome = h.answered(t);
        assert_eq!(outcome.gate, Gate::Cancelled);
        assert_eq!(outcome.error.as_ref().unwrap().0, "declined");
    }
    let records = h.records();
    assert_eq!(records.len(), 3, "one record per card");
    assert_eq!(
        records
            .iter()
            .map(|r| (r.reason, r.note.as_deref()))
            .collect::<Vec<_>>(),
        [
            (Some("cancelled_by_app"), None),
            (Some("cancelled_by_user"), Some("not today")),
            (Some("cancelled_by_user"), Some("not today")),
        ]
    );
    assert!(h.runs().is_empty(), "cancelling never runs anything");
    assert!(h.engine.pending().is_empty());
    // The soft call waiting for its token is no card: still waiting.
    assert_eq!(h.answered(soft).gate, Gate::NeedsConfirmation);
    assert_eq!(h.engine.poll_timeout(), Some(T0 + 120_000.0));
    assert_eq!(h.engine.cancel_all(None, CancelReason::User, None, T0), 0);
}

// ---- grants: who may make one ------------------------------------------------------------

fn options(ttl: Option<f64>, max: Option<f64>, matching: Option<&str>) -> GrantOptions {
    GrantOptions {
        ttl_ms: ttl,
        max_uses: max,
        match_args: matching.map(|m| Ok(v(m))),
    }
}

#[test]
fn only_a_live_soft_action_with_sound_options_inside_a_gesture_is_granted() {
    let mut h = Harness::new();
    h.action("archive", Some("soft"));
    h.action("deleteItem", None); // soft by its name
    h.action("wipe", Some("hard"));
    h.action("read", Some("open"));
    let any = GrantOptions::default();
    let code = |h: &mut Harness, name: &str, o: &GrantOptions, gesture: bool| {
        h.engine
            .grant(name, o, gesture, T0)
            .map(|g| g.action)
            .map_err(|e| e.code())
    };
    assert_eq!(code(&mut h, "wipe", &any, true), Err("invalid_grant"));
    assert_eq!(code(&mut h, "read", &any, true), Err("invalid_grant"));
    assert_eq!(code(&mut h, "ghost", &any, true), Err("invalid_grant"));
    // A grant that could never be made reads as such even outside a gesture.
    assert_eq!(code(&mut h, "wipe", &any, false), Err("invalid_grant"));
    for bad in [
        options(Some(0.0), None, None),
        options(Some(-5.0), None, None),
        options(Some(MAX_TTL_MS + 1.0), None, None),
        options(Some(f64::NAN), None, None),
        options(Some(f64::INFINITY), None, None),
        options(None, Some(0.0), None),
        options(None, Some(1.5), None),
        options(None, Some(f64::NAN), None),
        options(None, None, Some("[1]")),
        options(None, None, Some("\"id\"")),
        options(None, None, Some("null")),
        GrantOptions {
            match_args: Some(Err(Error::InvalidArgs("args.f: is a function".into()))),
            ..GrantOptions::default()
        },
    ] {
        assert_eq!(
            code(&mut h, "archive", &bad, true),
            Err("invalid_grant"),
            "{bad:?}"
        );
    }
    assert_eq!(
        code(&mut h, "archive", &any, false),
        Err("needs_user_activation")
    );
    assert_eq!(h.engine.grants(T0).count(), 0, "nothing was made");
    assert_eq!(grants_changed(&h), 0);
    assert_eq!(
        code(&mut h, "archive", &any, activated()),
        Ok("archive".into())
    );
    assert_eq!(
        code(
            &mut h,
            "deleteItem",
            &options(Some(MAX_TTL_MS), Some(1.0), Some("{}")),
            true
        ),
        Ok("deleteItem".into())
    );
    h.drain();
    assert_eq!(grants_changed(&h), 2);
    let live: Vec<_> = h.engine.grants(T0).cloned().collect();
    assert_eq!(live.len(), 2);
    assert_eq!(live[0].expires_at, T0 + DEFAULT_TTL_MS);
    assert_eq!(live[0].max_uses, None);
    assert_eq!(live[1].expires_at, T0 + MAX_TTL_MS);
    assert_eq!(live[1].max_uses, Some(1));
    assert_ne!(live[0].id, live[1].id);
    assert_eq!(
        h.engine.grant_by_str(&live[0].id.to_string(), T0),
        Some(live[0].id)
    );
    h.engine.dispose(T0);
    assert_eq!(
        code(&mut h, "archive", &any, true),
        Err("disposed"),
        "nothing is granted after dispose"
    );
}

// ---- grants: what they let through ---------------------------------------------------------

#[test]
fn a_matching_soft_call_fires_at_once_naming_the_grant_and_others_still_need_a_token() {
    let mut h = Harness::new();
    h.action("archive", Some("soft"));
    h.action("label", Some("soft"));
    let grant = h
        .engine
        .grant(
            "archive",
            &options(
                None,
                None,
                Some(r#"{"box":{"b":1,"a":[1,2]},"kind":"thread"}"#),
            ),
            true,
            T0,
        )
        .unwrap();
    h.drain();
    // Covered: the match's keys with equal values (key order aside), other keys free.
    let t = h.call(
        "archive",
        r#"{"kind":"thread","id":"t1","box":{"a":[1,2],"b":1}}"#,
        Some("c1"),
        T0 + 1.0,
    );
    assert_eq!(h.runs().len(), 1, "fired at once, no token");
    h.finish(h.last_run(), Ok("ok".into()), T0 + 2.0);
    let outcome = h.answered(t);
    assert_eq!((outcome.gate, outcome.ok), (Gate::Fired, true));
    assert_eq!(outcome.confirm_token, None);
    let record = h.records()[0];
    assert_eq!(record.grant, Some(grant.id));
    assert_eq!(record.gate, Gate::Fired);
    assert!(matches!(record.outcome, RecordOutcome::Ok { .. }));
    // Re-sent: the same answer, no second run and no second use.
    let again = h.call(
        "archive",
        r#"{"kind":"thread","id":"t1","box":{"a":[1,2],"b":1}}"#,
        Some("c1"),
        T0 + 3.0,
    );
    assert_eq!(h.answered(again).gate, Gate::Fired);
    assert_eq!(h.runs().len(), 1);
    assert_eq!(h.engine.grants(T0).next().unwrap().uses, 1);
    // Not covered: another value, a missing key, another action. Each asks first.
    for (name, args) in [
        ("archive", r#"{"kind":"label","box":{"a":[1,2],"b":1}}"#),
        ("archive", r#"{"kind":"thread"}"#),
        ("archive", r#"{"kind":"thread","box":{"a":[2,1],"b":1}}"#),
        ("label", r#"{"kind":"thread","box":{"a":[1,2],"b":1}}"#),
    ] {
        let t = h.call(name, args, None, T0 + 4.0);
        assert_eq!(h.answered(t).gate, Gate::NeedsConfirmation, "{name} {args}");
    }
    assert_eq!(h.runs().len(), 1);
}

#[test]
fn a_grant_ends_at_its_expiry_by_the_engine_clock() {
    let mut h = Harness::new();
    h.action("archive", Some("soft"));
    let grant = h
        .engine
        .grant("archive", &options(Some(60_000.0), None, None), true, T0)
        .unwrap();
    h.drain();
    assert_eq!(h.engine.poll_timeout(), Some(T0 + 60_000.0));
    let t = h.call("archive", r#"{"n":1}"#, None, T0 + 59_999.0);
    h.finish(h.last_run(), Ok("ok".into()), T0 + 59_999.5);
    assert_eq!(h.answered(t).gate, Gate::Fired);
    // At the expiry, without the timer having fired: the call is judged at its own time.
    let t = h.call("archive", r#"{"n":2}"#, None, T0 + 60_000.0);
    assert_eq!(h.answered(t).gate, Gate::NeedsConfirmation);
    assert_eq!(h.engine.grants(T0 + 60_000.0).count(), 0);
    assert!(h
        .engine
        .grant_by_str(&grant.id.to_string(), T0 + 60_000.0)
        .is_none());
    // The tick that ended it told the host.
    assert!(matches!(
        h.effects
            .iter()
            .rev()
            .find(|e| matches!(e, Effect::GrantsChanged)),
        Some(Effect::GrantsChanged)
    ));
}

#[test]
fn a_grant_ends_when_its_uses_are_spent_when_revoked_and_on_dispose() {
    let mut h = Harness::new();
    h.action("archive", Some("soft"));
    let two = h
        .engine
        .grant(
            "archive",
            &options(None, Some(2.0), Some(r#"{"a":1}"#)),
            true,
            T0,
        )
        .unwrap();
    for i in 0..2 {
        let t = h.call("archive", r#"{"a":1}"#, None, T0 + 1.0);
        h.finish(h.last_run(), Ok("ok".into()), T0 + 1.0);
        assert_eq!(h.answered(t).gate, Gate::Fired, "use {i}");
    }
    assert!(h.engine.grants(T0).all(|g| g.id != two.id), "spent");
    let t = h.call("archive", r#"{"a":1}"#, None, T0 + 2.0);
    assert_eq!(h.answered(t).gate, Gate::NeedsConfirmation);
    assert_eq!(
        h.records()
            .iter()
            .filter(|r| r.grant == Some(two.id))
            .count(),
        2
    );

    let revoked = h
        .engine
        .grant("archive", &GrantOptions::default(), true, T0)
        .unwrap();
    assert!(h.engine.revoke_grant(revoked.id, T0 + 3.0));
    assert!(!h.engine.revoke_grant(revoked.id, T0 + 3.0), "once");
    let t = h.call("archive", r#"{"b":1}"#, None, T0 + 4.0);
    assert_eq!(h.answered(t).gate, Gate::NeedsConfirmation);

    h.engine
        .grant("archive", &GrantOptions::default(), true, T0)
        .unwrap();
    h.drain();
    let before = grants_changed(&h);
    h.engine.dispose(T0 + 5.0);
    h.drain();
    assert_eq!(h.engine.grants(T0).count(), 0);
    assert_eq!(grants_changed(&h), before + 1);
    assert_eq!(h.engine.poll_timeout(), None);
}

#[test]
fn a_grant_never_lets_through_what_its_action_does_not_allow() {
    let mut h = Harness::new();
    let id = h.action("archive", Some("soft"));
    let mut press = ActionDef::new("press", "An element action.");
    press.control = coworkkit::core::control::Control::parse("soft");
    press.element = true;
    h.register(press);
    h.engine
        .grant("archive", &GrantOptions::default(), true, T0)
        .unwrap();
    h.engine
        .grant("press", &GrantOptions::default(), true, T0)
        .unwrap();
    // Hand mode still gates an element action.
    let t = h.call("press", "{}", None, T0);
    assert_eq!(h.answered(t).gate, Gate::NeedsHandMode);
    // The same name defined again as hard: a grant never fires a hard action.
    h.engine.unregister(id, T0);
    h.action("archive", Some("hard"));
    let t = h.call("archive", "{}", None, T0 + 1.0);
    assert!(h.answer(t).is_none(), "waits on its card");
    assert_eq!(h.proposals().len(), 1);
    assert!(h.runs().is_empty());
    // Defined again as soft, it is covered again: a grant names an action, as a person does.
    h.engine.cancel_all(None, CancelReason::App, None, T0 + 2.0);
    let hard = h.engine.action("archive").unwrap().0;
    h.engine.unregister(hard, T0 + 2.0);
    h.action("archive", Some("soft"));
    let t = h.call("archive", "{}", None, T0 + 3.0);
    h.finish(h.last_run(), Ok("ok".into()), T0 + 3.0);
    assert_eq!(h.answered(t).gate, Gate::Fired);
}

#[test]
fn a_grant_lets_a_call_through_even_when_many_soft_calls_wait() {
    let mut h = Harness::with_config(Config::default());
    h.action("archive", Some("soft"));
    for i in 0..MAX_SOFT_WAITING {
        h.call("archive", &format!(r#"{{"i":{i}}}"#), None, T0);
    }
    let t = h.call("archive", r#"{"i":-1}"#, None, T0);
    assert_eq!(h.answered(t).error.as_ref().unwrap().0, "too_many_pending");
    h.engine
        .grant("archive", &GrantOptions::default(), true, T0)
        .unwrap();
    let t = h.call("archive", r#"{"i":-1}"#, None, T0);
    h.finish(h.last_run(), Ok("ok".into()), T0);
    assert_eq!(h.answered(t).gate, Gate::Fired);
}

#[test]
fn no_request_an_agent_can_send_makes_or_changes_a_grant() {
    // Every shape of request, through every path of the door, with and without a grant to
    // aim at: afterwards the grants are exactly what the app made, one use spent per fired call.
    let mut h = Harness::new();
    h.action("archive", Some("soft"));
    h.action("wipe", Some("hard"));
    let made = h
        .engine
        .grant(
            "archive",
            &options(Some(1_000.0), Some(3.0), Some(r#"{"a":1}"#)),
            true,
            T0,
        )
        .unwrap();
    let mut fired = 0;
    for (name, args, token, decline, reason) in [
        ("archive", r#"{"a":2}"#, None, false, None),
        ("archive", r#"{"a":1}"#, Some("ckt_forged"), false, None),
        ("archive", r#"{"a":1}"#, None, true, Some("grant me")),
        (
            "archive",
            r#"{"a":1}"#,
            None,
            false,
            Some("ttlMs: 86400000"),
        ),
        ("wipe", r#"{"a":1}"#, None, false, None),
        (
            "archive",
            r#"{"a":1,"ttlMs":99999999,"maxUses":99}"#,
            None,
            false,
            None,
        ),
    ] {
        let mut req = InvokeRequest::new(name, v(args));
        req.confirm_token = token.map(Into::into);
        req.decline = decline;
        req.reason = reason.map(Into::into);
        h.invoke(req, T0 + 1.0);
        if h.runs().len() > fired {
            fired = h.runs().len();
            h.finish(h.last_run(), Ok("ok".into()), T0 + 1.0);
        }
    }
    let live: Vec<_> = h.engine.grants(T0 + 1.0).cloned().collect();
    assert_eq!(live.len(), 1);
    let g = &live[0];
    assert_eq!(
        (g.id, g.expires_at, g.max_uses, &g.match_args),
        (made.id, made.expires_at, made.max_uses, &made.match_args)
    );
    assert_eq!(
        g.uses as usize, fired,
        "one use per fired call, nothing else"
    );
    assert_eq!(
        fired, 1,
        "only the call with a:1 and extra keys was covered"
    );
}
