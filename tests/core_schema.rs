#![cfg(not(target_arch = "wasm32"))]
//! The JSON Schema subset (SPEC §2): what passes, what fails, and the path in the message.

use coworkkit::core::error::Error;
use coworkkit::core::schema::Schema;
use coworkkit::core::value::Value;

/// How the engine prints a bound by default (the browser passes its own `String(n)`).
fn number_text(n: f64) -> String {
    n.to_string()
}

fn v(json: &str) -> Value {
    serde_json::from_str(json).unwrap()
}

fn schema(json: &str) -> Schema {
    Schema::parse(&v(json)).expect("valid schema")
}

fn message(s: &Schema, args: &str) -> String {
    match s.validate(&v(args), number_text) {
        Err(Error::InvalidArgs(m)) => m,
        other => panic!("expected invalid_args for {args}, got {other:?}"),
    }
}

fn spec_error(json: &str) -> String {
    match Schema::parse(&v(json)) {
        Err(Error::InvalidSpec(m)) => m,
        other => panic!("expected invalid_spec for {json}, got {other:?}"),
    }
}

#[test]
fn invalid_args_message_names_the_failing_path() {
    let s = schema(
        r#"{"type":"object","properties":{"items":{"type":"array","items":{"type":"object",
            "properties":{"title":{"type":"string"}}}}}}"#,
    );
    assert!(s
        .validate(
            &v(r#"{"items":[{"title":"a"},{"title":"b"}]}"#),
            number_text
        )
        .is_ok());
    assert_eq!(
        message(&s, r#"{"items":[{"title":"a"},{"title":"b"},{"title":3}]}"#),
        "args.items[2].title: expected string"
    );
}

#[test]
fn odd_keys_are_quoted_in_the_path() {
    let s = schema(r#"{"properties":{"a b":{"type":"number"}}}"#);
    assert_eq!(
        message(&s, r#"{"a b":"x"}"#),
        r#"args["a b"]: expected number"#
    );
    // Quotes, backslashes and control characters are escaped as JSON writes them.
    let closed = schema(r#"{"additionalProperties":false}"#);
    assert_eq!(
        message(&closed, r#"{"q\"\\\n\u0001\u001f":1}"#),
        r#"args["q\"\\\n\u0001\u001f"]: is not an allowed property"#
    );
}

#[test]
fn every_type_name_is_checked() {
    let cases = [
        ("object", "{}", "[]"),
        ("string", "\"x\"", "1"),
        ("number", "1.5", "\"1\""),
        ("integer", "3", "3.5"),
        ("boolean", "false", "0"),
        ("array", "[]", "{}"),
        ("null", "null", "false"),
    ];
    for (name, good, bad) in cases {
        let s = schema(&format!(r#"{{"type":"{name}"}}"#));
        assert!(
            s.validate(&v(good), number_text).is_ok(),
            "{name} accepts {good}"
        );
        assert_eq!(message(&s, bad), format!("args: expected {name}"));
    }
    assert!(schema(r#"{"type":"number"}"#)
        .validate(&v("7"), number_text)
        .is_ok());
}

#[test]
fn type_arrays_allow_any_listed_type() {
    let s = schema(r#"{"type":["string","null"]}"#);
    assert!(s.validate(&v("null"), number_text).is_ok());
    assert!(s.validate(&v("\"x\""), number_text).is_ok());
    assert_eq!(message(&s, "1"), "args: expected string or null");
}

#[test]
fn required_properties_must_be_present() {
    let s = schema(
        r#"{"type":"object","properties":{"projectId":{"type":"string"}},"required":["projectId"]}"#,
    );
    assert_eq!(message(&s, "{}"), "args.projectId: is required");
    assert!(s
        .validate(&v(r#"{"projectId":"p1","other":1}"#), number_text)
        .is_ok());
}

#[test]
fn additional_properties_false_or_schema() {
    let closed = schema(r#"{"properties":{"a":{}},"additionalProperties":false}"#);
    assert!(closed.validate(&v(r#"{"a":1}"#), number_text).is_ok());
    assert_eq!(
        message(&closed, r#"{"a":1,"b":2}"#),
        "args.b: is not an allowed property"
    );
    let typed = schema(r#"{"additionalProperties":{"type":"integer"}}"#);
    assert!(typed.validate(&v(r#"{"x":1,"y":2}"#), number_text).is_ok());
    assert_eq!(
        message(&typed, r#"{"x":1,"y":2.5}"#),
        "args.y: expected integer"
    );
}

#[test]
fn enum_and_const_compare_canonically() {
    let s = schema(r#"{"enum":["a",{"x":1,"y":2}]}"#);
    assert!(s.validate(&v(r#"{"y":2,"x":1}"#), number_text).is_ok());
    assert!(s.validate(&v(r#""a""#), number_text).is_ok());
    assert_eq!(
        message(&s, r#""b""#),
        "args: is not one of the allowed values"
    );
    let c = schema(r#"{"const":[1,2]}"#);
    assert!(c.validate(&v("[1,2]"), number_text).is_ok());
    assert_eq!(
        message(&c, "[2,1]"),
        "args: does not equal the required constant"
    );
}

#[test]
fn minimum_and_maximum_bound_numbers() {
    let s = schema(r#"{"properties":{"n":{"type":"number","minimum":1,"maximum":2.5}}}"#);
    assert!(s.validate(&v(r#"{"n":1}"#), number_text).is_ok());
    assert!(s.validate(&v(r#"{"n":2.5}"#), number_text).is_ok());
    assert_eq!(message(&s, r#"{"n":0}"#), "args.n: must be at least 1");
    assert_eq!(message(&s, r#"{"n":3}"#), "args.n: must be at most 2.5");
}

#[test]
fn string_lengths_count_unicode_characters() {
    let s = schema(r#"{"type":"string","minLength":2,"maxLength":3}"#);
    assert!(s.validate(&v(r#""éé""#), number_text).is_ok()); // 4 bytes, 2 chars
    assert!(s.validate(&v(r#""😀😀😀""#), number_text).is_ok()); // 12 bytes, 3 chars
    assert!(message(&s, r#""é""#).starts_with("args: must have at least"));
    assert!(message(&s, r#""abcd""#).starts_with("args: must have at most"));
    // Three-byte characters, counted as one each (the count skips continuation bytes).
    assert!(s.validate(&v(r#""€€€""#), number_text).is_ok());
    assert!(message(&s, r#""€€€€""#).starts_with("args: must have at most"));
    assert!(message(&s, r#""😀""#).starts_with("args: must have at least"));
}

#[test]
fn keywords_only_constrain_their_own_kind() {
    let s = schema(
        r#"{"minLength":3,"minimum":5,"properties":{"a":{"type":"string"}},"items":{"type":"string"}}"#,
    );
    for ok in ["1e9", "\"abc\"", "[\"x\"]", "{\"b\":1}", "null", "true"] {
        assert!(s.validate(&v(ok), number_text).is_ok(), "{ok}");
    }
}

#[test]
fn boolean_schemas() {
    assert!(schema("true").validate(&v("[1]"), number_text).is_ok());
    assert!(schema(r#"{"properties":{"x":false}}"#)
        .validate(&v("{}"), number_text)
        .is_ok());
    assert_eq!(
        message(&schema(r#"{"properties":{"x":false}}"#), r#"{"x":1}"#),
        "args.x: no value is allowed here"
    );
}

#[test]
fn annotations_are_ignored() {
    let s = schema(
        r#"{"$schema":"https://json-schema.org/draft/2020-12/schema","title":"T","description":"d",
            "type":"object","properties":{"a":{"type":"string","description":"x","default":"y","format":"email"}}}"#,
    );
    assert!(s
        .validate(&v(r#"{"a":"not an email"}"#), number_text)
        .is_ok());
}

#[test]
fn malformed_schema_is_invalid_spec() {
    assert_eq!(
        spec_error(r#"{"type":"strin"}"#),
        "input.type: unknown type name"
    );
    assert_eq!(
        spec_error(r#"{"type":[]}"#),
        "input.type: must be a type name or a non-empty array of them"
    );
    assert_eq!(
        spec_error("3"),
        "input: a schema must be an object or a boolean"
    );
    assert_eq!(
        spec_error(r#"{"properties":[]}"#),
        "input.properties: must be an object"
    );
    assert_eq!(
        spec_error(r#"{"properties":{"a":{"minLength":-1}}}"#),
        "input.properties.a.minLength: must be a non-negative integer"
    );
    assert_eq!(
        spec_error(r#"{"required":"a"}"#),
        "input.required: must be an array of property names"
    );
    assert_eq!(
        spec_error(r#"{"items":[{}]}"#),
        "input.items: a schema must be an object or a boolean"
    );
    assert_eq!(
        spec_error(r#"{"enum":"a"}"#),
        "input.enum: must be an array"
    );
    assert_eq!(
        spec_error(r#"{"minimum":"1"}"#),
        "input.minimum: must be a number"
    );
    assert_eq!(
        spec_error(r#"{"additionalProperties":1}"#),
        "input.additionalProperties: a schema must be an object or a boolean"
    );
}

#[test]
fn unsupported_validation_keywords_are_refused_not_ignored() {
    for keyword in ["pattern", "anyOf", "$ref", "minItems", "exclusiveMinimum"] {
        let m = spec_error(&format!(r#"{{"properties":{{"a":{{"{keyword}":1}}}}}}"#));
        assert!(
            m.starts_with(&format!("input.properties.a.{keyword}: is not supported")),
            "{m}"
        );
    }
}
