#![cfg(not(target_arch = "wasm32"))]
//! The tape decoder (`core::tape`): every value the JavaScript reader can produce round-trips,
//! the refusals read as their errors, a tape that is not the reader's never panics, and the
//! shared fixture (tests/fixtures/tapes.txt, whose JavaScript end is tests/js/tapes.test.mjs)
//! decodes to what the reader read.
//!
//! For a longer run: `PROPTEST_CASES=100000 cargo test --release --test core_tape`

use std::fmt::Write;

use coworkkit::core::error::Error;
use coworkkit::core::tape::{decode_call, decode_tool_call, decode_value, Field, Shape};
use coworkkit::core::value::{Value, MAX_DEPTH};
use proptest::prelude::*;

/// The tape of `value`, written as the format in `core::tape`'s docs says (and as
/// src/js/read.js writes it).
fn encode(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push('n'),
        Value::Bool(b) => out.push(if *b { 't' } else { 'f' }),
        Value::Number(n) => {
            let safe = n.fract() == 0.0 && n.abs() <= 9_007_199_254_740_991.0;
            if safe && !(*n == 0.0 && n.is_sign_negative()) {
                write!(out, "i{};", *n as i64).unwrap();
            } else {
                write!(out, "d{:016x}", n.to_bits()).unwrap();
            }
        }
        Value::String(s) => write!(out, "s{}:{s}", s.len()).unwrap(),
        Value::Array(items) => {
            write!(out, "[{}:", items.len()).unwrap();
            items.iter().for_each(|item| encode(item, out));
            out.push(']');
        }
        Value::Object(fields) => {
            write!(out, "{{{}:", fields.len()).unwrap();
            for (key, item) in fields {
                write!(out, "{}:{key}", key.len()).unwrap();
                encode(item, out);
            }
            out.push('}');
        }
    }
}

/// `JSON.stringify` of the JS value this `Value` stands for: serde_json's text but for numbers,
/// which JavaScript prints its own way (`0` for -0, `1e+21`).
fn stringify(value: &Value) -> String {
    let mut out = String::new();
    write_js(value, &mut out);
    out
}

fn write_js(value: &Value, out: &mut String) {
    match value {
        Value::Number(n) if *n == 0.0 => out.push('0'),
        // Whole numbers below 10^21 print as their digits in both languages.
        Value::Number(n) if n.fract() == 0.0 && n.abs() < 1e21 => {
            let _ = write!(out, "{n}");
        }
        Value::Number(n) => {
            let text = serde_json::to_string(n).unwrap();
            match text.split_once('e') {
                Some((m, e)) if !e.starts_with(['-', '+']) => {
                    let _ = write!(out, "{m}e+{e}");
                }
                _ => out.push_str(&text),
            }
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_js(item, out);
            }
            out.push(']');
        }
        Value::Object(fields) => {
            out.push('{');
            for (i, (key, item)) in fields.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&serde_json::to_string(key).unwrap());
                out.push(':');
                write_js(item, out);
            }
            out.push('}');
        }
        other => out.push_str(&serde_json::to_string(other).unwrap()),
    }
}

fn tape(value: &Value) -> String {
    let mut out = String::new();
    encode(value, &mut out);
    out
}

/// Equal, numbers by their bits (so -0 is not 0).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.to_bits() == y.to_bits(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|((k, a), (l, b))| k == l && same(a, b))
        }
        _ => a == b,
    }
}

/// Numbers the reader hands over: any finite double, with the edges made likely.
fn number() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<f64>().prop_filter("finite", |n| n.is_finite()),
        (-9_007_199_254_740_991i64..=9_007_199_254_740_991).prop_map(|n| n as f64),
        (-1000i64..1000).prop_map(|n| n as f64),
        // Integers past 2^53, which are not safe and go by their bits.
        (53u32..1000).prop_map(|e| 2f64.powi(e as i32)),
        Just(-0.0),
        Just(f64::MIN_POSITIVE),
        Just(5e-324),
        Just(f64::MAX),
        Just(f64::MIN),
    ]
}

/// Strings: any Unicode (escapes, control characters, multi-byte), and the tape's own tags.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[nitfdsu:;#!?\\[\\]{}0-9\"\\\\]{0,8}",
        "[a-zé€😀\u{fffd}]{0,6}",
    ]
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        number().prop_map(Value::Number),
        text().prop_map(Value::String),
    ]
}

/// What the reader can produce: keys are unique in an object (they come from `Object.keys`,
/// and keys that read the same are refused).
fn value() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(8, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((text(), inner), 0..6).prop_map(|fields| {
                let mut unique: Vec<(String, Value)> = Vec::new();
                for (key, item) in fields {
                    if !unique.iter().any(|(k, _)| *k == key) {
                        unique.push((key, item));
                    }
                }
                Value::Object(unique)
            }),
        ]
    })
}

/// `depth` containers (arrays or objects as `kinds` says, bit by bit) around `leaf`.
fn nested(depth: usize, kinds: u64, leaf: Value) -> Value {
    (0..depth).fold(leaf, |inner, i| {
        if kinds >> (i % 64) & 1 == 0 {
            Value::Array(vec![inner])
        } else {
            Value::Object(vec![("k".into(), inner)])
        }
    })
}

proptest! {
    #[test]
    fn every_value_the_reader_can_produce_round_trips(v in value()) {
        let decoded = decode_value(&tape(&v), usize::MAX);
        prop_assert!(matches!(&decoded, Ok(d) if same(d, &v)), "{v:?} read back as {decoded:?}");
    }

    #[test]
    fn nesting_up_to_the_depth_limit_round_trips(depth in 0..=MAX_DEPTH, kinds in any::<u64>(), leaf in leaf()) {
        let v = nested(depth, kinds, leaf);
        prop_assert!(matches!(decode_value(&tape(&v), usize::MAX), Ok(d) if same(&d, &v)));
    }

    #[test]
    fn a_tape_that_is_not_the_readers_never_panics(text in any::<String>(), cut in any::<prop::sample::Index>()) {
        let _ = decode_value(&text, 100);
        let _ = decode_call(&text, 100);
        let _ = decode_tool_call(&text, 100);
        // A real tape cut short, or with its tail replaced.
        let real = tape(&Value::Object(vec![("a".into(), Value::Array(vec![Value::Number(1.5), Value::String(text.clone())]))]));
        let at = cut.index(real.len() + 1);
        if let Some(head) = real.get(..at) {
            prop_assert!(decode_value(head, 100).is_err() || at == real.len());
            let _ = decode_value(&(head.to_owned() + &text), 100);
        }
    }
}

#[test]
fn the_deepest_nesting_the_reader_allows_decodes_and_one_more_does_not() {
    // The reader allows values MAX_DEPTH containers down; the innermost container may only
    // be empty at MAX_DEPTH itself.
    let empty_at_limit = format!("{}[0:]{}", "[1:".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
    assert!(decode_value(&empty_at_limit, usize::MAX).is_ok());
    let too_deep = format!(
        "{}n{}",
        "[1:".repeat(MAX_DEPTH + 1),
        "]".repeat(MAX_DEPTH + 1)
    );
    assert_eq!(decode_value(&too_deep, 9), Err(unreadable()));
    let far_too_deep = "[1:".repeat(100_000);
    assert_eq!(
        decode_value(&far_too_deep, 9),
        Err(unreadable()),
        "no stack overflow"
    );
}

fn unreadable() -> Error {
    Error::InvalidArgs("args: cannot be read, not JSON data".into())
}

#[test]
fn over_the_budget_is_args_too_large_with_the_size_seen() {
    assert_eq!(
        decode_value("#39;", 30),
        Err(Error::ArgsTooLarge { size: 39, max: 30 })
    );
    assert_eq!(
        decode_value("#x", 30),
        Err(Error::ArgsTooLarge {
            size: usize::MAX,
            max: 30
        }),
        "a size that does not decode reads as the largest"
    );
}

#[test]
fn not_json_names_the_path_and_the_reason() {
    let message = |tape: &str| match decode_value(tape, 10) {
        Err(Error::InvalidArgs(m)) => m,
        other => panic!("{tape}: {other:?}"),
    };
    let reasons = [
        ('0', "is nested too deeply (or is cyclic)"),
        ('1', "is not a finite number"),
        ('2', "is undefined"),
        ('3', "is a function"),
        ('4', "is a symbol"),
        ('5', "is a BigInt"),
        ('6', "is not a plain object"),
        ('7', "cannot be read"),
        ('8', "has an unreadable length"),
        ('9', "has a throwing getter"),
        (
            'a',
            "is a key that another key of the object also reads as (lone surrogates read as U+FFFD)",
        ),
    ];
    for (why, reason) in reasons {
        assert_eq!(
            message(&format!("!{why}args.a[2]")),
            format!("args.a[2]: {reason}, not JSON data")
        );
    }
}

#[test]
fn a_tape_that_does_not_decode_is_unreadable_args() {
    for bad in [
        "",
        "q",
        "i12",
        "i1;i2;",
        "s5:abc",
        "[2:n",
        "{1:1:a}",
        "d123",
        "dzzzzzzzzzzzzzzzz",
        "s1:\u{e9}",
    ] {
        assert_eq!(decode_value(bad, 9), Err(unreadable()), "{bad:?}");
    }
    // Not a number a `Value` may hold.
    assert_eq!(
        decode_value(&format!("d{:016x}", f64::NAN.to_bits()), 9),
        Err(unreadable())
    );
    assert_eq!(
        decode_value(&format!("d{:016x}", f64::INFINITY.to_bits()), 9),
        Err(unreadable())
    );
}

#[test]
fn a_call_decodes_its_fields_decline_and_args() {
    let call = decode_call("s7:getTasks2:c1u1s2:no{1:1:ai1;}", 100);
    assert_eq!(call.name, Field::Text("getTask".into()));
    assert_eq!(call.call_id, Field::Text("c1".into()));
    assert_eq!(call.confirm_token, Field::Absent);
    assert!(call.decline);
    assert_eq!(call.reason, Field::Text("no".into()));
    assert_eq!(
        call.args,
        Some(Ok(Value::Object(vec![("a".into(), Value::Number(1.0))])))
    );
    let call = decode_call("xuu0uu", 100);
    assert_eq!(
        (call.name, call.decline, call.args),
        (Field::Other, false, None)
    );
    let call = decode_call("s1:xuu0u#200;", 100);
    assert_eq!(
        call.args,
        Some(Err(Error::ArgsTooLarge {
            size: 200,
            max: 100
        }))
    );
    assert_eq!(
        decode_call("s9:short", 100).name,
        Field::Other,
        "a string that does not decode"
    );
}

#[test]
fn a_tool_call_decodes_its_shape_id_name_and_args() {
    let call = decode_tool_call("1s4:fc_1s7:getTask{0:}", 100);
    assert_eq!(call.kind, Shape::OpenAiResponses);
    assert_eq!(call.id.as_deref(), Some("fc_1"));
    assert_eq!(call.name, "getTask");
    assert_eq!(call.args, Ok(Value::Object(vec![])));
    let call = decode_tool_call("2uu?args: not valid JSON: oops", 100);
    assert_eq!(
        (call.kind, call.id, call.name.as_str()),
        (Shape::Anthropic, None, "")
    );
    assert_eq!(
        call.args,
        Err(Error::InvalidArgs("args: not valid JSON: oops".into()))
    );
    assert_eq!(decode_tool_call("0uu!3args.f", 100).kind, Shape::OpenAiChat);
    let call = decode_tool_call("5s4:tc_1s7:getTask{0:}", 100);
    assert_eq!(
        (call.kind, call.id.as_deref(), call.name.as_str()),
        (Shape::AgUi, Some("tc_1"), "getTask")
    );
    assert_eq!(decode_tool_call("6uu{0:}", 100).kind, Shape::OpenAiChat);
    assert_eq!(
        decode_tool_call("", 100).kind,
        Shape::OpenAiChat,
        "a shape that does not decode"
    );
}

/// The fixture's cases, each its `key text` lines.
fn fixture() -> Vec<Vec<(&'static str, &'static str)>> {
    include_str!("fixtures/tapes.txt")
        .split("\n\n")
        .map(|block| {
            block
                .lines()
                .filter(|l| !l.is_empty() && !l.starts_with('#'))
                .map(|l| l.split_once(' ').unwrap_or((l, "")))
                .collect::<Vec<_>>()
        })
        .filter(|case| !case.is_empty())
        .collect()
}

fn field_json(field: &Field) -> Value {
    match field {
        Field::Text(text) => Value::String(text.clone()),
        Field::Absent => Value::Null,
        Field::Other => Value::Object(vec![("other".into(), Value::Bool(true))]),
    }
}

fn error_text(error: &Error) -> String {
    format!("{}: {error}", error.code())
}

#[test]
fn the_shared_fixture_decodes_to_what_the_reader_read() {
    let cases = fixture();
    assert!(cases.len() > 40);
    for case in cases {
        let get = |key: &str| case.iter().find(|(k, _)| *k == key).map(|(_, v)| *v);
        let tape_text = get("tape").expect("every case has a tape");
        let budget = get("budget").map_or(65536, |b| b.parse().unwrap());
        let (json, args) = if get("value").is_some() {
            let decoded = decode_value(tape_text, budget);
            if let Ok(v) = &decoded {
                assert_eq!(
                    tape(v),
                    tape_text,
                    "the decoder keeps everything the tape says"
                );
            }
            (decoded.as_ref().ok().map(stringify), decoded)
        } else if get("call").is_some() {
            let call = decode_call(tape_text, budget);
            let mut fields = vec![
                ("name".to_owned(), field_json(&call.name)),
                ("callId".to_owned(), field_json(&call.call_id)),
                ("confirmToken".to_owned(), field_json(&call.confirm_token)),
                ("decline".to_owned(), Value::Bool(call.decline)),
                ("reason".to_owned(), field_json(&call.reason)),
            ];
            if let Some(Ok(args)) = &call.args {
                fields.push(("args".into(), args.clone()));
            }
            let args = call.args.unwrap_or(Ok(Value::Null));
            (Some(stringify(&Value::Object(fields))), args)
        } else {
            let call = decode_tool_call(tape_text, budget);
            let mut fields = vec![
                ("kind".to_owned(), Value::Number(f64::from(call.kind as u8))),
                (
                    "id".to_owned(),
                    call.id.clone().map_or(Value::Null, Value::String),
                ),
                ("name".to_owned(), Value::String(call.name.clone())),
            ];
            if let Ok(args) = &call.args {
                fields.push(("args".into(), args.clone()));
            }
            (Some(stringify(&Value::Object(fields))), call.args)
        };
        assert_eq!(json.as_deref(), get("json"), "{tape_text}");
        assert_eq!(
            args.as_ref().err().map(error_text).as_deref(),
            get("error"),
            "{tape_text}"
        );
    }
}
