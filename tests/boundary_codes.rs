//! The codes that cross between JavaScript and Rust agree: every constant of src/js/codes.js
//! against its Rust twin of the same name, and no constant on one side only.
//!
//! The core's twins (`core::tape`, `core::value::MAX_DEPTH`) are checked by `cargo test`; the
//! web layer's (`web::js`, built for wasm32 only) by the same test in the browser run.

use std::collections::{BTreeMap, BTreeSet};

use coworkkit::core::control::{Control, ControlSource};
use coworkkit::core::error::CODES;
use coworkkit::core::record::{Assurance, Gate, Via, STATUSES};
use coworkkit::core::tape::{self, Shape};
use coworkkit::core::value::MAX_DEPTH;

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

/// A code's value: a one-character string, a small integer, a string, or a list of names
/// whose indexes cross instead of the names.
#[derive(Debug, PartialEq)]
enum Code {
    Char(char),
    Int(u64),
    Text(String),
    Names(Vec<String>),
}

fn names<'a>(list: impl IntoIterator<Item = &'a str>) -> Code {
    Code::Names(list.into_iter().map(str::to_owned).collect())
}

fn ch(byte: u8) -> Code {
    Code::Char(char::from(byte))
}

/// Every `export const NAME = literal;` of codes.js. Anything else that is not a comment fails,
/// so a constant written some other way cannot slip past this test.
fn js_codes() -> BTreeMap<&'static str, Code> {
    let mut codes = BTreeMap::new();
    let mut in_doc = false;
    for line in include_str!("../src/js/codes.js").lines().map(str::trim) {
        if in_doc || line.starts_with("/*") {
            in_doc = !line.ends_with("*/");
            continue;
        }
        if line.is_empty() || line.starts_with("//") {
            continue;
        }
        let (name, literal) = line
            .strip_prefix("export const ")
            .and_then(|rest| rest.strip_suffix(';'))
            .and_then(|rest| rest.split_once(" = "))
            .unwrap_or_else(|| panic!("codes.js: not `export const NAME = literal;`: {line}"));
        let quoted = |l: &str| {
            l.strip_prefix('"')
                .and_then(|l| l.strip_suffix('"'))
                .map(str::to_owned)
        };
        // A list may be marked `const` for its JSDoc type: `/** @type {const} */ ([...])`.
        let literal = literal
            .strip_prefix("/** @type {const} */ (")
            .and_then(|l| l.strip_suffix(')'))
            .unwrap_or(literal);
        let list = literal.strip_prefix('[').and_then(|l| l.strip_suffix(']'));
        let code = match (quoted(literal), list) {
            (_, Some(items)) => Code::Names(
                items
                    .split(", ")
                    .map(|item| quoted(item).unwrap_or_else(|| panic!("codes.js: {name}: {item}")))
                    .collect(),
            ),
            (Some(text), _) if name.starts_with("TAG_") || name.starts_with("WHY_") => {
                assert_eq!(
                    text.chars().count(),
                    1,
                    "codes.js: {name} is not one character"
                );
                Code::Char(text.chars().next().unwrap())
            }
            (Some(text), _) => Code::Text(text),
            (None, None) => Code::Int(
                literal
                    .parse()
                    .unwrap_or_else(|_| panic!("codes.js: {name} = {literal}")),
            ),
        };
        assert!(codes.insert(name, code).is_none(), "codes.js: {name} twice");
    }
    codes
}

/// Every Rust twin this build has, by name.
fn rust_codes() -> Vec<(&'static str, Code)> {
    let mut codes = vec![
        ("MAX_DEPTH", Code::Int(MAX_DEPTH as u64)),
        ("TAG_NULL", ch(tape::TAG_NULL)),
        ("TAG_TRUE", ch(tape::TAG_TRUE)),
        ("TAG_FALSE", ch(tape::TAG_FALSE)),
        ("TAG_INT", ch(tape::TAG_INT)),
        ("TAG_DOUBLE", ch(tape::TAG_DOUBLE)),
        ("TAG_STRING", ch(tape::TAG_STRING)),
        ("TAG_ARRAY", ch(tape::TAG_ARRAY)),
        ("TAG_ARRAY_END", ch(tape::TAG_ARRAY_END)),
        ("TAG_OBJECT", ch(tape::TAG_OBJECT)),
        ("TAG_OBJECT_END", ch(tape::TAG_OBJECT_END)),
        ("TAG_LENGTH_END", ch(tape::TAG_LENGTH_END)),
        ("TAG_NUMBER_END", ch(tape::TAG_NUMBER_END)),
        ("TAG_TOO_LARGE", ch(tape::TAG_TOO_LARGE)),
        ("TAG_NOT_JSON", ch(tape::TAG_NOT_JSON)),
        ("TAG_REFUSED", ch(tape::TAG_REFUSED)),
        ("TAG_ABSENT", ch(tape::TAG_ABSENT)),
        ("TAG_OTHER", ch(tape::TAG_OTHER)),
        ("TAG_DECLINE", ch(tape::TAG_DECLINE)),
        ("TAG_NO_DECLINE", ch(tape::TAG_NO_DECLINE)),
        ("WHY_TOO_DEEP", ch(tape::WHY_TOO_DEEP)),
        ("WHY_NOT_FINITE", ch(tape::WHY_NOT_FINITE)),
        ("WHY_UNDEFINED", ch(tape::WHY_UNDEFINED)),
        ("WHY_FUNCTION", ch(tape::WHY_FUNCTION)),
        ("WHY_SYMBOL", ch(tape::WHY_SYMBOL)),
        ("WHY_BIGINT", ch(tape::WHY_BIGINT)),
        ("WHY_NOT_PLAIN", ch(tape::WHY_NOT_PLAIN)),
        ("WHY_UNREADABLE", ch(tape::WHY_UNREADABLE)),
        ("WHY_BAD_LENGTH", ch(tape::WHY_BAD_LENGTH)),
        ("WHY_GETTER_THREW", ch(tape::WHY_GETTER_THREW)),
        ("WHY_DUPLICATE_KEY", ch(tape::WHY_DUPLICATE_KEY)),
        ("SHAPE_OPENAI_CHAT", Code::Int(Shape::OpenAiChat as u64)),
        (
            "SHAPE_OPENAI_RESPONSES",
            Code::Int(Shape::OpenAiResponses as u64),
        ),
        ("SHAPE_ANTHROPIC", Code::Int(Shape::Anthropic as u64)),
        ("SHAPE_MCP", Code::Int(Shape::Mcp as u64)),
        ("SHAPE_AI_SDK", Code::Int(Shape::AiSdk as u64)),
        ("SHAPE_AG_UI", Code::Int(Shape::AgUi as u64)),
        ("GATES", names(Gate::ALL.map(Gate::as_str))),
        ("CONTROLS", names(Control::ALL.map(Control::as_str))),
        (
            "CONTROL_SOURCES",
            names(ControlSource::ALL.map(ControlSource::as_str)),
        ),
        ("VIAS", names(Via::ALL.map(Via::as_str))),
        ("STATUSES", names(STATUSES)),
        ("ASSURANCES", names(Assurance::ALL.map(Assurance::as_str))),
        ("CODES", names(CODES)),
        ("MAX_FIELD_BYTES", Code::Int(tape::MAX_FIELD_BYTES as u64)),
    ];
    codes.extend(web_codes());
    codes
}

/// The twins in `web::js`, which only the wasm build has.
#[cfg(target_arch = "wasm32")]
fn web_codes() -> Vec<(&'static str, Code)> {
    use coworkkit::web::js;
    let int = |n: u8| Code::Int(u64::from(n));
    vec![
        ("OP_CLICK", int(js::OP_CLICK)),
        ("OP_FILL", int(js::OP_FILL)),
        ("OP_SELECT", int(js::OP_SELECT)),
        ("RUN_RETURNED", int(js::RUN_RETURNED)),
        ("RUN_THREW", int(js::RUN_THREW)),
        ("RUN_LATER", int(js::RUN_LATER)),
        ("ELEMENT_MISSING", int(js::ELEMENT_MISSING)),
        ("ELEMENT_DETACHED", int(js::ELEMENT_DETACHED)),
        ("ELEMENT_OWN_DOM", int(js::ELEMENT_OWN_DOM)),
        ("ELEMENT_INERT", int(js::ELEMENT_INERT)),
        ("ELEMENT_HIDDEN", int(js::ELEMENT_HIDDEN)),
        ("ELEMENT_DISABLED", int(js::ELEMENT_DISABLED)),
        ("ELEMENT_NOT_HTML", int(js::ELEMENT_NOT_HTML)),
        ("ELEMENT_NOT_EDITABLE", int(js::ELEMENT_NOT_EDITABLE)),
        ("ELEMENT_NOT_SELECT", int(js::ELEMENT_NOT_SELECT)),
        ("ELEMENT_NO_OPTION", int(js::ELEMENT_NO_OPTION)),
    ]
}

#[cfg(not(target_arch = "wasm32"))]
fn web_codes() -> Vec<(&'static str, Code)> {
    Vec::new()
}

/// The JS codes whose twins live in `web`, which only the wasm build has.
fn web_only(name: &str) -> bool {
    cfg!(not(target_arch = "wasm32"))
        && (name.starts_with("OP_") || name.starts_with("RUN_") || name.starts_with("ELEMENT_"))
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn every_code_that_crosses_is_the_same_on_both_sides() {
    let js = js_codes();
    let rust = rust_codes();
    for (name, code) in &rust {
        assert_eq!(js.get(name), Some(code), "{name}: codes.js against Rust");
    }
    for name in js.keys() {
        assert!(
            web_only(name) || rust.iter().any(|(n, _)| n == name),
            "{name} is in codes.js but has no Rust twin here"
        );
    }
    // Within a family, no two meanings share a code.
    for family in ["TAG_", "WHY_", "SHAPE_", "OP_", "ELEMENT_"] {
        let codes: Vec<String> = js
            .iter()
            .filter(|(n, _)| n.starts_with(family))
            .map(|(_, c)| format!("{c:?}"))
            .collect();
        let distinct: BTreeSet<&String> = codes.iter().collect();
        assert_eq!(
            distinct.len(),
            codes.len(),
            "two {family}codes share a value"
        );
    }
}

/// The numbers that cross for gates, levels, doors and assurances are the enums'
/// discriminants, in the order the name lists give.
#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn enum_numbers_are_their_positions_in_the_lists() {
    for (i, gate) in Gate::ALL.iter().enumerate() {
        assert_eq!(*gate as usize, i, "{gate:?}");
    }
    for (i, control) in Control::ALL.iter().enumerate() {
        assert_eq!(*control as usize, i, "{control:?}");
    }
    for (i, source) in ControlSource::ALL.iter().enumerate() {
        assert_eq!(*source as usize, i, "{source:?}");
    }
    for (i, via) in Via::ALL.iter().enumerate() {
        assert_eq!(*via as usize, i, "{via:?}");
    }
    for (i, assurance) in Assurance::ALL.iter().enumerate() {
        assert_eq!(*assurance as usize, i, "{assurance:?}");
    }
}
