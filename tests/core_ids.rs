#![cfg(not(target_arch = "wasm32"))]
//! The shared ids: proposal ids' public form, random ids, and the keyed hasher of the engine's
//! maps from agent-chosen ids.

mod engine_support;

use std::hash::BuildHasher;

use coworkkit::core::ids::{hex_id, random_id, IdHasher, ProposalId, CALL_ID_PREFIX};
use engine_support::SeededEntropy;

#[test]
fn two_engines_hash_the_same_ids_differently() {
    // Each engine draws its own keys, so an agent cannot precompute ids that collide in
    // another session's maps.
    let a = IdHasher::from_entropy(&mut SeededEntropy(1));
    let b = IdHasher::from_entropy(&mut SeededEntropy(2));
    let ids = [
        "call_1",
        "call_2",
        "ckt_0123456789abcdef0123456789abcdef",
        "",
    ];
    for id in ids {
        assert_ne!(a.hash_one(id), b.hash_one(id), "{id:?}");
        // One engine's hasher is stable, or its maps could not find anything.
        assert_eq!(a.hash_one(id), a.hash_one(id));
    }
    let again = IdHasher::from_entropy(&mut SeededEntropy(1));
    assert_eq!(a.hash_one("call_1"), again.hash_one("call_1"));
}

#[test]
fn random_ids_are_a_prefix_and_128_bits_of_hex() {
    let mut entropy = SeededEntropy(7);
    let first = random_id(&mut entropy, "ck_");
    let second = random_id(&mut entropy, "ck_");
    assert_eq!(first.len(), 3 + 32);
    assert!(first.starts_with("ck_"));
    assert!(first[3..]
        .bytes()
        .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()));
    assert_ne!(first, second);
    assert_eq!(random_id(&mut entropy, "").len(), 32);
}

#[test]
fn proposal_ids_print_and_parse_only_their_own_form() {
    let id = ProposalId::parse("ckp_42").expect("own form");
    assert_eq!(id.to_string(), "ckp_42");
    assert_eq!(id.as_u64(), 42);
    assert_eq!(
        ProposalId::parse(&format!("ckp_{}", u64::MAX)).map(|p| p.as_u64()),
        Some(u64::MAX)
    );
    for bad in [
        "",
        "ckp_",
        "ckp_+5",
        "ckp_-1",
        "ckp_ 1",
        "ckp_1x",
        "CKP_1",
        "ckp_18446744073709551616",
    ] {
        assert_eq!(ProposalId::parse(bad), None, "{bad:?}");
    }
}

/// A drawn call id is `ck_` and its 16 bytes as 32 lowercase hex digits, in order.
#[test]
fn a_drawn_id_reads_as_the_js_side_writes_it() {
    let bytes = [
        0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32,
        0x10,
    ];
    assert_eq!(
        hex_id(CALL_ID_PREFIX, &bytes),
        "ck_0123456789abcdeffedcba9876543210"
    );
}
