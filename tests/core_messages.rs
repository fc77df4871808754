#![cfg(not(target_arch = "wasm32"))]
//! The messages a newcomer meets (issue 34 part 5): a thrown error's message starts with
//! `coworkkit:` and ends with its code; a refused name says which name, why, and a name that
//! would do; a non-trusted grant or armHandMode says what to do; a summary on a soft action
//! is warned about.

mod engine_support;

use coworkkit::core::engine::{suggested_name, ActionDef};
use coworkkit::core::error::{summary_unseen, Error, CODES};
use engine_support::Harness;

/// One error of every variant.
fn every_error() -> Vec<Error> {
    vec![
        Error::UnknownAction("deleteX".into()),
        Error::InvalidArgs("args.id: expected string".into()),
        Error::ArgsTooLarge {
            size: 70_000,
            max: 65_536,
        },
        Error::BadToken,
        Error::TokenExpired,
        Error::CallIdConflict,
        Error::TooManyPending,
        Error::ElementUnavailable("the element is disabled".into()),
        Error::InvalidSpec("deleteX: run must be a function".into()),
        Error::DuplicateAction("deleteX".into()),
        Error::NotAdmin,
        Error::RunFailed("boom".into()),
        Error::NeedsUserActivation,
        Error::Disposed,
        Error::HandModeOff,
        Error::UnknownProposal,
        Error::ProposalNotVisible,
        Error::ModelContextUnavailable,
        Error::ModelContextRefused("deleteX".into()),
        Error::PasskeyUnavailable("no passkey option".into()),
        Error::PasskeyRequired,
        Error::InvalidGrant("not a soft action".into()),
    ]
}

#[test]
fn every_thrown_message_starts_with_coworkkit_and_ends_with_its_code() {
    let errors = every_error();
    let mut codes: Vec<&str> = errors.iter().map(Error::code).collect();
    codes.sort_unstable();
    codes.dedup();
    assert_eq!(codes.len(), errors.len(), "one of each variant");
    for error in errors {
        let thrown = error.thrown_message();
        assert!(thrown.starts_with("coworkkit: "), "{thrown}");
        assert!(
            thrown.ends_with(&format!(" (code: {})", error.code())),
            "{thrown}"
        );
        assert!(thrown.contains(&error.message()), "{thrown}");
        assert!(CODES.contains(&error.code()));
    }
}

#[test]
fn a_refused_name_is_quoted_with_the_rule_its_reason_and_a_name_that_would_do() {
    let mut h = Harness::new();
    for (name, suggestion) in [
        ("delete project", "delete_project"),
        ("2fa.reset", "a2fa_reset"),
        ("", "a"),
        ("ok-name_but.dot", "ok-name_but_dot"),
    ] {
        let error = h.engine.register(ActionDef::new(name, "d")).unwrap_err();
        assert_eq!(error.code(), "invalid_spec");
        let message = error.message();
        assert!(
            message.contains(&format!("the action name {name:?} is not allowed")),
            "{message}"
        );
        assert!(message.contains("tool name the model calls"), "{message}");
        assert!(message.contains("^[A-Za-z][A-Za-z0-9_-]*$"), "{message}");
        assert!(
            message.ends_with(&format!("e.g. {suggestion:?}")),
            "{message}"
        );
        assert_eq!(suggested_name(name), suggestion);
        // The suggestion is itself a name the engine takes.
        h.engine.register(ActionDef::new(suggestion, "d")).unwrap();
    }
    let long = "x".repeat(80);
    assert_eq!(suggested_name(&long).len(), 64);
    h.engine
        .register(ActionDef::new(suggested_name(&long), "d"))
        .unwrap();
}

#[test]
fn needs_user_activation_says_where_to_call_it_and_what_automation_does() {
    let message = Error::NeedsUserActivation.thrown_message();
    assert!(
        message.starts_with(
            "coworkkit: only a person can do this: call it in the handler of a person's click"
        ),
        "{message}"
    );
    assert!(message.contains("not from a timer"), "{message}");
    assert!(
        message.contains("page.evaluate counts as a gesture"),
        "{message}"
    );
    assert!(
        message.ends_with("(code: needs_user_activation)"),
        "{message}"
    );
}

#[test]
fn the_unseen_summary_warning_names_the_action_its_level_and_the_fix() {
    let warning = summary_unseen("archiveTask", "soft");
    assert!(
        warning.starts_with(
            "coworkkit: action \"archiveTask\" has a confirmationSummary, but it is gated \"soft\""
        ),
        "{warning}"
    );
    assert!(
        warning.contains("shown only on a hard action's card"),
        "{warning}"
    );
    assert!(warning.contains("Declare control: \"hard\""), "{warning}");
}
