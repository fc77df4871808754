#![cfg(not(target_arch = "wasm32"))]
//! The TypeScript `ErrorCode` (src/web/types.rs, shipped in coworkkit.d.ts) names exactly the
//! codes an outcome, a record's `reason` or a thrown error can carry, and its `Assurance` exactly
//! the assurances a record can carry.

use std::collections::BTreeSet;

use coworkkit::core::engine::CancelReason;
use coworkkit::core::error::{code_number, Error, CODES};
use coworkkit::core::record::Assurance;

/// One of every error; the `match` stops compiling when a variant is added, so the list
/// cannot fall behind.
fn every_error() -> Vec<Error> {
    let all = vec![
        Error::UnknownAction(String::new()),
        Error::InvalidArgs(String::new()),
        Error::ArgsTooLarge { size: 0, max: 0 },
        Error::BadToken,
        Error::TokenExpired,
        Error::CallIdConflict,
        Error::TooManyPending,
        Error::ElementUnavailable(String::new()),
        Error::InvalidSpec(String::new()),
        Error::DuplicateAction(String::new()),
        Error::NotAdmin,
        Error::RunFailed(String::new()),
        Error::NeedsUserActivation,
        Error::Disposed,
        Error::HandModeOff,
        Error::UnknownProposal,
        Error::ProposalNotVisible,
        Error::ModelContextUnavailable,
        Error::ModelContextRefused(String::new()),
        Error::PasskeyUnavailable(String::new()),
        Error::PasskeyRequired,
        Error::InvalidGrant(String::new()),
    ];
    for error in &all {
        match error {
            Error::UnknownAction(_)
            | Error::InvalidArgs(_)
            | Error::ArgsTooLarge { .. }
            | Error::BadToken
            | Error::TokenExpired
            | Error::CallIdConflict
            | Error::TooManyPending
            | Error::ElementUnavailable(_)
            | Error::InvalidSpec(_)
            | Error::DuplicateAction(_)
            | Error::NotAdmin
            | Error::RunFailed(_)
            | Error::NeedsUserActivation
            | Error::Disposed
            | Error::HandModeOff
            | Error::UnknownProposal
            | Error::ProposalNotVisible
            | Error::ModelContextUnavailable
            | Error::ModelContextRefused(_)
            | Error::PasskeyUnavailable(_)
            | Error::PasskeyRequired
            | Error::InvalidGrant(_) => {}
        }
    }
    all
}

/// The string literals of `export type ErrorCode = ...;` in the TypeScript section.
fn typescript_codes() -> BTreeSet<String> {
    typescript_union("ErrorCode")
}

/// The string literals of `export type <name> = ...;` in the TypeScript section.
fn typescript_union(name: &str) -> BTreeSet<String> {
    let source = include_str!("../src/web/types.rs");
    let start = source
        .find(&format!("export type {name} ="))
        .unwrap_or_else(|| panic!("{name} in types.rs"));
    let union = &source[start..];
    let union = &union[..union.find(';').expect("the union ends")];
    union
        .split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

#[test]
fn every_code_the_crate_makes_has_a_number() {
    for error in every_error() {
        assert!(code_number(error.code()).is_some(), "{}", error.code());
    }
    let numbers: BTreeSet<u8> = CODES.iter().filter_map(|c| code_number(c)).collect();
    assert_eq!(numbers.len(), CODES.len(), "each code once");
}

#[test]
fn the_typescript_error_code_lists_every_code_and_only_those() {
    let mut codes: BTreeSet<String> = every_error().iter().map(|e| e.code().into()).collect();
    for reason in [
        CancelReason::User,
        CancelReason::App,
        CancelReason::ActionDisposed,
        CancelReason::Disposed,
    ] {
        codes.insert(reason.as_str().into());
    }
    // The engine's own reasons: a declined soft call, an expired card or token.
    codes.insert("declined".into());
    codes.insert("expired".into());
    assert_eq!(typescript_codes(), codes);
    let listed: BTreeSet<String> = CODES.iter().map(|c| c.to_string()).collect();
    assert_eq!(listed, codes, "core::error::CODES");
}

#[test]
fn the_typescript_assurance_lists_every_assurance_and_only_those() {
    let assurances: BTreeSet<String> = Assurance::ALL.iter().map(|a| a.as_str().into()).collect();
    assert_eq!(typescript_union("Assurance"), assurances);
}
