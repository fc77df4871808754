#![cfg(not(target_arch = "wasm32"))]
//! JSON values: printing like `JSON.stringify`, sizes, canonical equality, parsing.
//!
//! For a longer run: `PROPTEST_CASES=1000000 cargo test --release --test core_value`

use coworkkit::core::value::{Value, MAX_DEPTH};
use proptest::prelude::*;

fn v(json: &str) -> Value {
    Value::parse_json(json).unwrap()
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000)
}

#[test]
fn numbers_print_like_json_stringify() {
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
        assert_eq!(Value::Number(*n).to_json(), *text, "{n:e}");
        assert!(Value::Number(*n).json_len() >= text.len(), "{n:e}");
    }
}

#[test]
fn strings_escape_like_json_stringify() {
    let s = Value::String("a\"b\\c\n\r\t\u{8}\u{c}\u{1}\u{1f}é€😀\u{2028}/".into());
    assert_eq!(
        s.to_json(),
        "\"a\\\"b\\\\c\\n\\r\\t\\b\\f\\u0001\\u001fé€😀\u{2028}/\""
    );
    assert_eq!(s.json_len(), s.to_json().len());
}

#[test]
fn objects_keep_insertion_order_in_json() {
    let value = v(r#"{"b":1,"a":[true,false,null,"x"],"c":{}}"#);
    assert_eq!(
        value.to_json(),
        r#"{"b":1,"a":[true,false,null,"x"],"c":{}}"#
    );
    assert_eq!(value.json_len(), value.to_json().len());
}

#[test]
fn json_len_is_utf8_length_and_never_undercounts_fractions() {
    let value = v(r#"{"name":"Zoë","n":[1,-20,300]}"#);
    assert_eq!(value.json_len(), value.to_json().len());
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
    // big objects take the sorted path
    let keys: Vec<String> = (0..40).map(|i| format!("\"k{i}\":{i}")).collect();
    let mut reversed = keys.clone();
    reversed.reverse();
    let a = v(&format!("{{{}}}", keys.join(",")));
    let b = v(&format!("{{{}}}", reversed.join(",")));
    assert!(a.canonical_eq(&b));
    let c = v(&format!(
        "{{{}}}",
        keys.join(",").replace("\"k7\":7", "\"k7\":8")
    ));
    assert!(!a.canonical_eq(&c));
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
fn parse_refuses_bad_json_and_deep_nesting() {
    for bad in [
        "",
        "{",
        "[1,]",
        "01",
        "1.",
        "\"\\x\"",
        "nul",
        "1e999",
        "{\"a\" 1}",
        "[] x",
    ] {
        let err = Value::parse_json(bad).unwrap_err();
        assert_eq!(err.code(), "invalid_args", "{bad}");
    }
    let deep = "[".repeat(MAX_DEPTH + 1) + &"]".repeat(MAX_DEPTH + 1);
    assert!(Value::parse_json(&deep).is_err());
    let ok = "[".repeat(MAX_DEPTH) + &"]".repeat(MAX_DEPTH);
    assert!(Value::parse_json(&ok).is_ok());
    assert!(v(&ok).deeper_than(MAX_DEPTH - 1));
    assert!(!v(&ok).deeper_than(MAX_DEPTH));
}

#[test]
fn parse_handles_escapes_and_duplicate_keys() {
    assert_eq!(v(r#""\u00e9\ud83d\ude00\/""#), Value::String("é😀/".into()));
    assert_eq!(v(r#""\ud800x""#), Value::String("\u{fffd}x".into()));
    assert_eq!(
        v(r#"{"a":1,"a":2}"#),
        Value::Object(vec![("a".into(), Value::Number(2.0))])
    );
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

fn has_fraction(value: &Value) -> bool {
    match value {
        Value::Number(n) => n.fract() != 0.0 || n.abs() >= 9007199254740992.0,
        Value::Array(items) => items.iter().any(has_fraction),
        Value::Object(fields) => fields.iter().any(|(_, v)| has_fraction(v)),
        _ => false,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn json_round_trips_and_json_len_matches(value in arb_value()) {
        let text = value.to_json();
        let back = Value::parse_json(&text).unwrap();
        prop_assert!(back.canonical_eq(&value));
        prop_assert_eq!(&back, &value);
        if has_fraction(&value) {
            prop_assert!(value.json_len() >= text.len());
        } else {
            prop_assert_eq!(value.json_len(), text.len());
        }
    }
}
