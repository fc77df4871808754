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

// ---- what the SDK promises of its tokens -------------------------------------------------
//
// A soft token is `ckt_` and 128 bits from the host's CSPRNG (`crypto.getRandomValues` in the
// web layer, here the host's own, /dev/urandom): no relation between consecutive tokens, none
// repeated, each instance its own bits. The shape alone would let a counter pass, so the
// engine's tokens are checked against the bytes it drew and measured statistically, and the
// same checks are shown to refuse a counter.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::rc::Rc;

use coworkkit::core::control::Control;
use coworkkit::core::engine::{ActionDef, Config, Effect, Engine, Entropy, InvokeRequest};
use coworkkit::core::value::Value;

/// The host's CSPRNG.
struct Urandom(std::fs::File);

impl Urandom {
    fn new() -> Self {
        Urandom(std::fs::File::open("/dev/urandom").expect("/dev/urandom"))
    }
}

impl Entropy for Urandom {
    fn fill(&mut self, buf: &mut [u8]) {
        self.0.read_exact(buf).expect("random bytes");
    }
}

/// A 128-bit counter, big-endian: unique "random" bytes with every relation a token must not
/// have.
struct Counter(u128);

impl Entropy for Counter {
    fn fill(&mut self, buf: &mut [u8]) {
        for chunk in buf.chunks_mut(16) {
            self.0 += 1;
            chunk.copy_from_slice(&self.0.to_be_bytes()[..chunk.len()]);
        }
    }
}

/// Keeps every fill it passes on, in order.
struct Recording<E>(E, Rc<RefCell<Vec<Vec<u8>>>>);

impl<E: Entropy> Entropy for Recording<E> {
    fn fill(&mut self, buf: &mut [u8]) {
        self.0.fill(buf);
        self.1.borrow_mut().push(buf.to_vec());
    }
}

/// `n` soft tokens from one engine over `entropy`, each call declined at once so that the next
/// one may wait; with `call_ids`, the engine draws each call's id as well. Returns (tokens,
/// call ids).
fn engine_tokens(
    entropy: Box<dyn Entropy>,
    n: usize,
    call_ids: bool,
) -> (Vec<String>, Vec<String>) {
    let mut engine: Engine<u32> = Engine::new(Config::default(), "s".into(), entropy);
    let mut def = ActionDef::new("archive", "soft action");
    def.control = Some(Control::Soft);
    engine.register(def).expect("register");
    let (mut tokens, mut ids) = (Vec::with_capacity(n), Vec::new());
    for i in 0..n {
        let mut req = InvokeRequest::new("archive", Value::Object(Vec::new()));
        if !call_ids {
            req.call_id = Some(format!("c{i}"));
        }
        engine.invoke(req, 1.0);
        let (mut token, mut call_id) = (None, None);
        while let Some(effect) = engine.poll_effect() {
            if let Effect::Answer { outcome, .. } = effect {
                token.clone_from(&outcome.confirm_token);
                call_id = Some(outcome.call_id.clone());
            }
        }
        let token = token.expect("a soft call is answered with a token");
        let mut decline = InvokeRequest::new("archive", Value::Object(Vec::new()));
        decline.confirm_token = Some(token.clone());
        decline.decline = true;
        engine.invoke(decline, 1.0);
        while engine.poll_effect().is_some() {}
        tokens.push(token);
        if call_ids {
            ids.extend(call_id);
        }
    }
    (tokens, ids)
}

/// A token's 128 bits (its 32 hex digits after `ckt_`).
fn bits_of(token: &str) -> Result<u128, String> {
    let hex = token
        .strip_prefix("ckt_")
        .ok_or_else(|| format!("{token:?}: no ckt_ prefix"))?;
    if hex.len() != 32 || !hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        return Err(format!("{token:?}: not 32 lowercase hex digits"));
    }
    u128::from_str_radix(hex, 16).map_err(|e| e.to_string())
}

/// The statistical checks: `Err` names the first one a sample fails. Bounds are six standard
/// deviations of what independent fair bits give, so a true CSPRNG fails one about once in a
/// hundred million runs.
fn check_randomness(tokens: &[String]) -> Result<(), String> {
    let n = tokens.len();
    let words = tokens
        .iter()
        .map(|t| bits_of(t))
        .collect::<Result<Vec<u128>, String>>()?;
    let distinct: HashSet<u128> = words.iter().copied().collect();
    if distinct.len() != n {
        return Err(format!("{} of {n} tokens repeated", n - distinct.len()));
    }
    let nf = n as f64;
    // Every one of the 128 bit positions is a fair coin: half ones.
    let (mean, sd) = (nf / 2.0, (nf / 4.0).sqrt());
    for bit in 0..128 {
        let ones = words.iter().filter(|w| *w >> bit & 1 == 1).count() as f64;
        if (ones - mean).abs() > 6.0 * sd {
            return Err(format!("bit {bit} is one in {ones} of {n} tokens"));
        }
    }
    // The two halves are independent (not one 64-bit draw written twice, say): their XOR
    // has 32 bits set on average, with a standard deviation of 4 per token.
    let halves: f64 = words
        .iter()
        .map(|w| f64::from(((*w >> 64) as u64 ^ *w as u64).count_ones()))
        .sum::<f64>()
        / nf;
    if (halves - 32.0).abs() > 6.0 * 4.0 / nf.sqrt() {
        return Err(format!(
            "the halves of a token differ in {halves:.2} bits on average"
        ));
    }
    // No relation between consecutive tokens: no difference repeats (a counter's is
    // constant), and consecutive tokens differ in 64 of 128 bits on average (SD √32 each).
    let differences: HashSet<u128> = words.windows(2).map(|p| p[1].wrapping_sub(p[0])).collect();
    if differences.len() != n - 1 {
        return Err(format!(
            "{} repeated differences between consecutive tokens",
            n - 1 - differences.len()
        ));
    }
    let pairs = (n - 1) as f64;
    let flips: f64 = words
        .windows(2)
        .map(|p| f64::from((p[0] ^ p[1]).count_ones()))
        .sum::<f64>()
        / pairs;
    if (flips - 64.0).abs() > 6.0 * 32f64.sqrt() / pairs.sqrt() {
        return Err(format!(
            "consecutive tokens differ in {flips:.2} bits on average"
        ));
    }
    Ok(())
}

#[test]
fn a_token_is_128_bits_the_engine_drew_for_it_alone() {
    let drawn = Rc::new(RefCell::new(Vec::new()));
    let entropy = Recording(Urandom::new(), drawn.clone());
    let (tokens, call_ids) = engine_tokens(Box::new(entropy), 2_000, true);
    // Which draw each 16-byte fill was; a fill that two ids show was used twice.
    let drawn = drawn.borrow();
    let fills: HashMap<&[u8], usize> = drawn
        .iter()
        .enumerate()
        .filter(|(_, f)| f.len() == 16)
        .map(|(i, f)| (f.as_slice(), i))
        .collect();
    let mut used = HashSet::new();
    for token in &tokens {
        let bytes = bits_of(token).unwrap().to_be_bytes();
        let fill = fills
            .get(&bytes[..])
            .unwrap_or_else(|| panic!("{token}: not one draw of 16 bytes from the entropy"));
        assert!(
            used.insert(*fill),
            "{token}: its bytes were drawn for another id"
        );
    }
    for id in &call_ids {
        let hex = id.strip_prefix("ck_").expect("an engine-made call id");
        let bytes = u128::from_str_radix(hex, 16).unwrap().to_be_bytes();
        let fill = fills.get(&bytes[..]).expect("a call id is one draw");
        assert!(
            used.insert(*fill),
            "{id}: its bytes were drawn for another id"
        );
    }
    assert_eq!(used.len(), tokens.len() + call_ids.len());
}

#[test]
fn a_hundred_thousand_tokens_from_the_csprng_look_random() {
    let (tokens, _) = engine_tokens(Box::new(Urandom::new()), 100_000, false);
    assert_eq!(tokens.len(), 100_000);
    check_randomness(&tokens).unwrap();
}

#[test]
fn the_randomness_checks_refuse_a_counter_and_accept_the_test_prng() {
    // Without these, the checks above could pass anything.
    let (counted, _) = engine_tokens(Box::new(Counter(0)), 2_000, false);
    let error = check_randomness(&counted).expect_err("a counter passed the randomness checks");
    assert!(error.contains("bit"), "{error}");
    // 64 random bits written twice: unique, balanced, unrelated to the next, but not 128 bits.
    let (random, _) = engine_tokens(Box::new(Urandom::new()), 2_000, false);
    check_randomness(&random).unwrap();
    let doubled: Vec<String> = random
        .iter()
        .map(|t| {
            let w = bits_of(t).unwrap() as u64;
            format!("ckt_{w:016x}{w:016x}")
        })
        .collect();
    let error = check_randomness(&doubled).expect_err("64 bits written twice passed");
    assert!(error.contains("halves"), "{error}");
    // The seeded stand-in the other tests use is fit for them.
    let (seeded, _) = engine_tokens(Box::new(SeededEntropy(0x1234_5678)), 20_000, false);
    check_randomness(&seeded).unwrap();
}

#[test]
fn each_engine_draws_its_own_tokens() {
    let (a, _) = engine_tokens(Box::new(Urandom::new()), 1_000, false);
    let (b, _) = engine_tokens(Box::new(Urandom::new()), 1_000, false);
    let a: HashSet<&String> = a.iter().collect();
    assert!(
        b.iter().all(|t| !a.contains(t)),
        "two engines shared a token"
    );
    // Two test engines too: each harness draws its own seed.
    let (c, _) = engine_tokens(
        Box::new(SeededEntropy(engine_support::splitmix64(0))),
        10,
        false,
    );
    let (d, _) = engine_tokens(
        Box::new(SeededEntropy(engine_support::splitmix64(1))),
        10,
        false,
    );
    assert!(c.iter().all(|t| !d.contains(t)));
}
