#![cfg(not(target_arch = "wasm32"))]
//! JSON values: sizes as `JSON.stringify` counts them, canonical equality, depth, and reading
//! JSON text (through serde, as the other host tests do). serde_json stands in for
//! `JSON.stringify` where the two print alike: strings, integers, containers.
//!
//! For a longer run: `PROPTEST_CASES=1000000 cargo test --release --test core_value`

mod engine_support;

use coworkkit::core::ids::IdHasher;
use coworkkit::core::value::{Value, MAX_DEPTH};
use engine_support::SeededEntropy;
use proptest::prelude::*;

fn v(json: &str) -> Value {
    serde_json::from_str(json).unwrap()
}

/// Compact JSON as `JSON.stringify` prints it, for values without fractions.
fn json(value: &Value) -> String {
    serde_json::to_string(value).unwrap()
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000)
}

/// `JSON.stringify`'s text of each number (the browser prints them: a wasm test holds the
/// SDK's number printing to it); the size count never undercounts any of them, and is exact
/// for safe integers.
#[test]
fn number_sizes_never_undercount_json_stringify() {
    let table: &[(f64, &str)] = &[
        (0.0, "0"),
        (-0.0, "0"),
        (1.0, "1"),
        (-42.0, "-42"),
        (1.5, "1.5"),
        (0.1, "0.1"),
        (-0.000001, "-0.000001"),
        (1e-7, "1e-7"),
        (1.5e-7, "1.5e-7"),
        (123456789012345680000.0, "123456789012345680000"),
        (1e21, "1e+21"),
        (1.2345e25, "1.2345e+25"),
        (9007199254740992.0, "9007199254740992"),
        (5e-324, "5e-324"),
        (1.7976931348623157e308, "1.7976931348623157e+308"),
        (-1.2345678901234567e-6, "-0.0000012345678901234567"),
        (f64::NAN, "null"),
    ];
    for (n, text) in table {
        let len = Value::Number(*n).json_len();
        assert!(len >= text.len(), "{n:e}");
        if n.fract() == 0.0 && n.abs() < 9007199254740992.0 {
            assert_eq!(len, text.len(), "{n:e}");
        }
    }
}

#[test]
fn string_sizes_count_json_escapes() {
    let s = Value::String("a\"b\\c\n\r\t\u{8}\u{c}\u{1}\u{1f}é€😀\u{2028}/".into());
    assert_eq!(
        json(&s),
        "\"a\\\"b\\\\c\\n\\r\\t\\b\\f\\u0001\\u001fé€😀\u{2028}/\""
    );
    assert_eq!(s.json_len(), json(&s).len());
}

#[test]
fn objects_keep_insertion_order() {
    let value = v(r#"{"b":1,"a":[true,false,null,"x"],"c":{}}"#);
    assert_eq!(json(&value), r#"{"b":1,"a":[true,false,null,"x"],"c":{}}"#);
    assert_eq!(value.json_len(), json(&value).len());
}

#[test]
fn json_len_is_utf8_length_and_never_undercounts_fractions() {
    let value = v(r#"{"name":"Zoë","n":[1,-20,300]}"#);
    assert_eq!(value.json_len(), json(&value).len());
    assert!(Value::Number(0.1).json_len() >= 3);
    assert!(Value::Number(-1.7976931348623157e308).json_len() >= "-1.7976931348623157e+308".len());
}

#[test]
fn canonical_eq_ignores_key_order() {
    assert!(v(r#"{"a":1,"b":{"x":[1,2],"y":null}}"#)
        .canonical_eq(&v(r#"{"b":{"y":null,"x":[1,2]},"a":1}"#)));
    assert!(!v(r#"{"a":1}"#).canonical_eq(&v(r#"{"a":1,"b":2}"#)));
    assert!(!v("[1,2]").canonical_eq(&v("[2,1]")));
    assert!(!v(r#"{"a":1}"#).canonical_eq(&v(r#"{"a":"1"}"#)));
    // big objects: a scan per key, or (for args an agent chose) a keyed map
    let hasher = IdHasher::from_entropy(&mut SeededEntropy(3));
    let keys: Vec<String> = (0..40).map(|i| format!("\"k{i}\":{i}")).collect();
    let mut reversed = keys.clone();
    reversed.reverse();
    let a = v(&format!("{{{}}}", keys.join(",")));
    let b = v(&format!("{{{}}}", reversed.join(",")));
    assert!(a.canonical_eq(&b));
    assert!(a.canonical_eq_keyed(&b, &hasher));
    let c = v(&format!(
        "{{{}}}",
        keys.join(",").replace("\"k7\":7", "\"k7\":8")
    ));
    assert!(!a.canonical_eq(&c));
    assert!(!a.canonical_eq_keyed(&c, &hasher));
    let d = v(&format!(
        "{{{}}}",
        keys.join(",").replace("\"k7\":7", "\"k77\":7")
    ));
    assert!(!a.canonical_eq_keyed(&d, &hasher));
}

#[test]
fn get_reads_object_fields() {
    let value = v(r#"{"a":{"b":"c"}}"#);
    assert_eq!(
        value
            .get("a")
            .and_then(|a| a.get("b"))
            .and_then(Value::as_str),
        Some("c")
    );
    assert_eq!(value.get("zz"), None);
    assert_eq!(Value::Null.get("a"), None);
}

#[test]
fn depth_is_measured_without_going_deeper_than_the_limit() {
    let ok = "[".repeat(MAX_DEPTH) + &"]".repeat(MAX_DEPTH);
    assert!(v(&ok).deeper_than(MAX_DEPTH - 1));
    assert!(!v(&ok).deeper_than(MAX_DEPTH));
    assert!(!Value::Null.deeper_than(0));
    assert!(v("{}").deeper_than(0));
}

#[test]
fn reading_keeps_the_last_of_repeated_keys() {
    assert_eq!(
        v(r#"{"a":1,"b":0,"a":2}"#),
        Value::Object(vec![
            ("a".into(), Value::Number(2.0)),
            ("b".into(), Value::Number(0.0))
        ])
    );
    assert_eq!(v(r#""\u00e9\ud83d\ude00\/""#), Value::String("é😀/".into()));
}

fn arb_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-1e6f64..1e6).prop_map(|n| Value::Number(n.trunc())),
        any::<f64>()
            .prop_filter("finite", |n| n.is_finite())
            .prop_map(Value::Number),
        ".{0,8}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 32, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map("[a-z\"\\\\]{0,4}", inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Numbers that the size count bounds rather than counts.
fn has_fraction(value: &Value) -> bool {
    match value {
        Value::Number(n) => n.fract() != 0.0 || n.abs() >= 9007199254740992.0,
        Value::Array(items) => items.iter().any(has_fraction),
        Value::Object(fields) => fields.iter().any(|(_, v)| has_fraction(v)),
        _ => false,
    }
}

fn positive_zero(value: &Value) -> Value {
    match value {
        Value::Number(n) if *n == 0.0 => Value::Number(0.0),
        Value::Array(items) => Value::Array(items.iter().map(positive_zero).collect()),
        Value::Object(fields) => Value::Object(
            fields
                .iter()
                .map(|(k, v)| (k.clone(), positive_zero(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn json_round_trips_and_json_len_matches(value in arb_value()) {
        let back = v(&json(&value));
        prop_assert!(back.canonical_eq(&value));
        prop_assert_eq!(&back, &value);
        // `JSON.stringify` prints -0 as `0`; serde_json keeps its sign.
        let text = json(&positive_zero(&value));
        if has_fraction(&value) {
            prop_assert!(value.json_len() >= text.len());
        } else {
            prop_assert_eq!(value.json_len(), text.len());
        }
    }
}

#[test]
fn json_len_within_measures_fractions_as_they_print() {
    let print: fn(f64) -> String = |n| n.to_string();
    assert_eq!(
        v("[0.5,-2.25,3]").json_len_within(64, print),
        Some("[0.5,-2.25,3]".len())
    );
    assert_eq!(
        v(r#"{"f":0.125}"#).json_len_within(64, print),
        Some(r#"{"f":0.125}"#.len())
    );
    // A safe integer never asks the printer.
    assert_eq!(
        v("[1234567890123456]").json_len_within(64, |_| unreachable!()),
        Some(18)
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    /// The one-walk measure agrees with the two it stands for.
    #[test]
    fn json_len_within_is_json_len_unless_too_deep(value in arb_value(), limit in 0usize..6) {
        // Printing every fraction as 25 characters, the walk agrees with json_len's bound.
        let expected = (!value.deeper_than(limit)).then(|| value.json_len());
        prop_assert_eq!(value.json_len_within(limit, |_| "0".repeat(25)), expected);
    }
}
