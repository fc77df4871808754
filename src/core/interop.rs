//! Agent interoperability (SPEC §7), as plain data: tool manifests for LLM providers, the
//! confirmation fields of a soft tool call, MCP hints mapped to a control level, and Standard
//! Schema issues turned into one `invalid_args` message.
//!
//! Everything here is pure: the web layer feeds it [`Value`]s and converts the answers to JS.
//! Reading a provider tool call is one JS pass, as reading an `invoke` call is
//! (`ckReadToolCall` in `src/js/read.js`, which states its rules; [`tape`](super::tape)
//! decodes what it hands over); a tool result only copies
//! the SDK's own outcome object into the provider's shape, with a fixed line per gate for the
//! model, so the web layer builds it in JS too (`ckAnswer`).
//! Manifests carry an action's name, description, input schema and a sentence about its gate;
//! never anything the app computes per call (the card's summary stays in the page).

use alloc::string::String;
use alloc::vec::Vec;

use super::control::Control;
use super::error::Error;
use super::value::{push_decimal, write_string, Value};

/// The manifest shapes `tools(format)` can produce.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToolFormat {
    /// coworkkit's own neutral listing: `{name, description, control, inputSchema, readOnly,
    /// idempotent}`, descriptions and schemas exactly as declared.
    Json,
    /// OpenAI Chat Completions: `{type: "function", function: {name, description, parameters}}`.
    OpenAi,
    /// OpenAI Responses: `{type: "function", name, description, parameters, strict: false}`.
    OpenAiResponses,
    /// Anthropic Messages: `{name, description, input_schema}`.
    Anthropic,
    /// MCP `tools/list` entries: `{name, description, inputSchema, annotations}`.
    Mcp,
}

/// The formats, in the order error messages list them.
pub const TOOL_FORMATS: [(&str, ToolFormat); 5] = [
    ("json", ToolFormat::Json),
    ("openai", ToolFormat::OpenAi),
    ("openai-responses", ToolFormat::OpenAiResponses),
    ("anthropic", ToolFormat::Anthropic),
    ("mcp", ToolFormat::Mcp),
];

impl ToolFormat {
    /// `"json" | "openai" | "openai-responses" | "anthropic" | "mcp"`; anything else is
    /// [`Error::InvalidSpec`] listing the known names.
    pub fn parse(name: &str) -> Result<ToolFormat, Error> {
        TOOL_FORMATS
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, f)| *f)
            .ok_or_else(|| {
                let mut message = String::from("unknown tool format \"");
                message.push_str(name);
                message.push_str("\": use json, openai, openai-responses, anthropic or mcp");
                Error::InvalidSpec(message)
            })
    }
}

/// One registered action as a manifest sees it.
#[derive(Clone, Copy, Debug)]
pub struct ToolInfo<'a> {
    /// The action's name (already an LLM-safe tool name, SPEC §2).
    pub name: &'a str,
    /// What the agent reads.
    pub description: &'a str,
    /// The effective control level.
    pub control: Control,
    /// The `readOnly` hint.
    pub read_only: bool,
    /// The `idempotent` hint.
    pub idempotent: bool,
    /// The arguments' JSON Schema: the declared JSON Schema `input`, a Standard Schema's JSON
    /// Schema export, or `inputJsonSchema`. `None` when the action has no `input` or its
    /// Standard Schema offers no JSON Schema.
    pub input_schema: Option<&'a Value>,
    /// True when the action declares an `input` (so a missing `input_schema` means "unknown",
    /// not "no arguments").
    pub has_input: bool,
}

/// The sentence a soft action's description ends with.
pub const SOFT_NOTE: &str = "This asks first: the first call does not run it but returns \
needs_confirmation with a confirmToken. Ask the user; on a yes, call it again with the same \
arguments plus confirmToken; on a no, call it with confirmToken and decline: true.";

/// The sentence a hard action's description ends with.
pub const HARD_NOTE: &str = "A person confirms this on screen before it runs: wait for the \
outcome and do not call it again.";

/// The description of the optional `confirmToken` parameter of soft actions.
pub const TOKEN_PARAM: &str =
    "Only after the user said yes: the confirmToken from the needs_confirmation answer.";

/// The description of the optional `decline` parameter of soft actions.
pub const DECLINE_PARAM: &str = "With confirmToken, when the user said no.";

// Manifests are written here as compact JSON text, which the web layer turns into fresh JS
// objects with one `JSON.parse`: building `Value` trees and converting them key by key cost
// several KB of wasm for a handful of fixed shapes.

/// Each format's entry: JSON text around the action's fields, `$0` name, `$1` description,
/// `$2` input schema, `$3` control, `$4` readOnly, `$5` idempotent, `$6` MCP annotations.
///
/// Responses function tools are strict by default; strict mode demands every property be
/// required and `additionalProperties: false`, which an optional `confirmToken` (and most app
/// schemas) are not: hence `"strict":false`.
fn entry_template(format: ToolFormat) -> &'static str {
    match format {
        ToolFormat::Json => {
            r#"{"name":$0,"description":$1,"control":$3,"inputSchema":$2,"readOnly":$4,"idempotent":$5}"#
        }
        ToolFormat::OpenAi => {
            r#"{"type":"function","function":{"name":$0,"description":$1,"parameters":$2}}"#
        }
        ToolFormat::OpenAiResponses => {
            r#"{"type":"function","name":$0,"description":$1,"parameters":$2,"strict":false}"#
        }
        ToolFormat::Anthropic => r#"{"name":$0,"description":$1,"input_schema":$2}"#,
        ToolFormat::Mcp => r#"{"name":$0,"description":$1,"inputSchema":$2,"annotations":$6}"#,
    }
}

/// Appends `template`, with `part` writing each `$n` (one digit `n`) in its place.
fn fill(out: &mut String, template: &str, part: &mut dyn FnMut(&mut String, u8)) {
    let mut slot = false;
    for &b in template.as_bytes() {
        if slot {
            part(out, b);
            slot = false;
        } else if b == b'$' {
            slot = true;
        } else {
            out.push(char::from(b));
        }
    }
}

fn json_bool(b: bool) -> &'static str {
    if b {
        "true"
    } else {
        "false"
    }
}

/// The manifest for `format`, as JSON text: one entry per action, in the order given.
pub fn manifest(format: ToolFormat, tools: &[ToolInfo<'_>]) -> String {
    let mut out = String::from("[");
    for (i, tool) in tools.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_entry(&mut out, format, tool);
    }
    out.push(']');
    out
}

/// One action's manifest entry, as JSON text.
pub fn tool_entry(format: ToolFormat, tool: &ToolInfo<'_>) -> String {
    let mut out = String::new();
    write_entry(&mut out, format, tool);
    out
}

fn write_entry(out: &mut String, format: ToolFormat, tool: &ToolInfo<'_>) {
    // The neutral listing keeps the app's words and schema; the providers' entries get the
    // gate's sentence and, for soft actions, the token parameters.
    let neutral = format == ToolFormat::Json;
    fill(out, entry_template(format), &mut |out, slot| match slot {
        b'0' => write_string(out, tool.name),
        b'1' if neutral => write_string(out, tool.description),
        b'1' => write_string(out, &agent_description(tool.description, tool.control)),
        b'2' => write_input_schema(out, tool, !neutral && tool.control == Control::Soft),
        b'3' => write_string(out, tool.control.as_str()),
        b'4' => out.push_str(json_bool(tool.read_only)),
        b'5' => out.push_str(json_bool(tool.idempotent)),
        _ => write_mcp_annotations(out, tool),
    });
}

/// The description an agent reads: the app's words, then one sentence about the gate.
pub fn agent_description(description: &str, control: Control) -> String {
    let note = match control {
        Control::Open => return description.into(),
        Control::Soft => SOFT_NOTE,
        Control::Hard => HARD_NOTE,
    };
    let trimmed = description.trim_end();
    let mut out = String::with_capacity(trimmed.len() + note.len() + 2);
    out.push_str(trimmed);
    if !trimmed.is_empty() {
        if !trimmed.ends_with(['.', '!', '?']) {
            out.push('.');
        }
        out.push(' ');
    }
    out.push_str(note);
    out
}

/// MCP tool annotations, as JSON text. MCP's defaults are `readOnlyHint: false`,
/// `destructiveHint: true`, so every hint that differs from them is spelled out: a client that
/// maps hints back with [`control_from_mcp_annotations`] gets `open` for read-only open
/// actions, `hard` for hard ones and `soft` for the rest.
fn write_mcp_annotations(out: &mut String, tool: &ToolInfo<'_>) {
    out.push_str(if tool.control == Control::Open && tool.read_only {
        r#"{"readOnlyHint":true"#
    } else if tool.control == Control::Hard {
        r#"{"destructiveHint":true"#
    } else {
        r#"{"destructiveHint":false"#
    });
    if tool.idempotent {
        out.push_str(r#","idempotentHint":true"#);
    }
    out.push('}');
}

/// The arguments' schema as providers accept it, as JSON text: always an object schema at the
/// root.
///
/// No `input` → `{type: "object", properties: {}}`; an `input` whose JSON Schema is unknown
/// (a Standard Schema without export) or whose root is not an object schema → the permissive
/// `{type: "object"}`; else the declared schema with `type: "object"` made explicit and first,
/// and a root `$schema` dropped. With `soft_params`, the optional `confirmToken` and `decline`
/// properties are added last to `properties` (never to `required`), which is created if absent.
pub fn input_schema(tool: &ToolInfo<'_>, soft_params: bool) -> String {
    let mut out = String::new();
    write_input_schema(&mut out, tool, soft_params);
    out
}

fn write_input_schema(out: &mut String, tool: &ToolInfo<'_>, soft_params: bool) {
    out.push_str(r#"{"type":"object""#);
    // Whether `properties` is still to be written at the end.
    let mut add_properties = soft_params || !tool.has_input;
    if let (true, Some(Value::Object(given))) = (tool.has_input, tool.input_schema) {
        if is_object_schema(given) {
            for (key, value) in given {
                if key == "type" || key == "$schema" {
                    continue;
                }
                out.push(',');
                write_string(out, key);
                out.push(':');
                if soft_params && key == "properties" {
                    add_properties = false;
                    // `properties` that is not an object is not a schema a provider takes
                    // anyway: it becomes the two soft parameters alone.
                    let props = match value {
                        Value::Object(props) => props.as_slice(),
                        _ => &[],
                    };
                    write_properties(out, props, true);
                } else {
                    value.write_json_exact(out);
                }
            }
        }
    }
    if add_properties {
        out.push_str(r#","properties":"#);
        write_properties(out, &[], soft_params);
    }
    out.push('}');
}

/// A `properties` object; with `soft_params`, any `confirmToken` and `decline` the app declared
/// give way to the soft parameters, added last.
fn write_properties(out: &mut String, props: &[(String, Value)], soft_params: bool) {
    out.push('{');
    let mut first = true;
    for (key, value) in props {
        if soft_params && (key == "confirmToken" || key == "decline") {
            continue;
        }
        if !first {
            out.push(',');
        }
        first = false;
        write_string(out, key);
        out.push(':');
        value.write_json_exact(out);
    }
    if soft_params {
        if !first {
            out.push(',');
        }
        out.push_str(r#""confirmToken":{"type":"string","description":"#);
        write_string(out, TOKEN_PARAM);
        out.push_str(r#"},"decline":{"type":"boolean","description":"#);
        write_string(out, DECLINE_PARAM);
        out.push('}');
    }
    out.push('}');
}

/// A root schema whose `type` is absent or `"object"`.
fn is_object_schema(fields: &[(String, Value)]) -> bool {
    match fields.iter().find(|(k, _)| k == "type") {
        None => true,
        Some((_, Value::String(t))) => t == "object",
        Some(_) => false,
    }
}

/// MCP hints → control (SPEC §7), with MCP's defaults (`readOnlyHint: false`,
/// `destructiveHint: true`): read-only → open; destructive or unannotated → hard; else soft.
/// A hint that is not a boolean counts as absent.
pub fn control_from_mcp_annotations(annotations: Option<&Value>) -> Control {
    let hint = |key: &str| match annotations.and_then(|a| a.get(key)) {
        Some(Value::Bool(b)) => Some(*b),
        _ => None,
    };
    control_from_mcp_hints(hint("readOnlyHint"), hint("destructiveHint"))
}

/// [`control_from_mcp_annotations`] on the two hints that decide it, each `None` when absent or
/// not a boolean.
pub fn control_from_mcp_hints(read_only: Option<bool>, destructive: Option<bool>) -> Control {
    if read_only == Some(true) {
        Control::Open
    } else if destructive.unwrap_or(true) {
        Control::Hard
    } else {
        Control::Soft
    }
}

// ---- tool calls ---------------------------------------------------------------------------

/// What a soft call's arguments carried besides the action's own: taken out before the call.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ConfirmFields {
    /// `confirmToken`, when a string.
    pub token: Option<String>,
    /// `decline: true`.
    pub decline: bool,
    /// `confirmToken` that is neither a string nor `null`: `bad_token`.
    pub error: Option<Error>,
}

/// Takes `confirmToken` and a boolean `decline` out of a soft action's arguments (the names
/// the soft manifest adds), so the action's own arguments are what the token is bound to.
pub fn take_confirm_fields(args: &mut Value) -> ConfirmFields {
    let mut out = ConfirmFields::default();
    let Value::Object(fields) = args else {
        return out;
    };
    fields.retain(|(key, value)| match (key.as_str(), value) {
        ("confirmToken", Value::String(token)) => {
            out.token = Some(token.clone());
            false
        }
        ("confirmToken", Value::Null) => false,
        ("confirmToken", _) => {
            out.error = Some(Error::BadToken);
            false
        }
        ("decline", Value::Bool(decline)) => {
            out.decline = *decline;
            false
        }
        _ => true,
    });
    out
}

// ---- Standard Schema ----------------------------------------------------------------------

/// One step of a Standard Schema issue's `path`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathStep {
    /// An object key.
    Key(String),
    /// An array index.
    Index(u32),
}

/// At most this many issues are spelled out in one message.
pub const MAX_ISSUES: usize = 8;

/// The `invalid_args` error for a Standard Schema's issues: each as `args.path: message`
/// (`args.items[2].title: Expected string, received number`), joined with `; `.
pub fn issues_error(issues: &[(Vec<PathStep>, String)]) -> Error {
    let mut out = String::new();
    for (i, (path, message)) in issues.iter().take(MAX_ISSUES).enumerate() {
        if i > 0 {
            out.push_str("; ");
        }
        out.push_str("args");
        for step in path {
            match step {
                PathStep::Key(key) if is_identifier(key) => {
                    out.push('.');
                    out.push_str(key);
                }
                PathStep::Key(key) => {
                    out.push('[');
                    write_string(&mut out, key);
                    out.push(']');
                }
                PathStep::Index(n) => {
                    out.push('[');
                    push_decimal(&mut out, u64::from(*n));
                    out.push(']');
                }
            }
        }
        out.push_str(": ");
        out.push_str(message);
    }
    if issues.len() > MAX_ISSUES {
        out.push_str("; and ");
        push_decimal(&mut out, (issues.len() - MAX_ISSUES) as u64);
        out.push_str(" more");
    }
    if issues.is_empty() {
        out.push_str("args: rejected by the input schema");
    }
    Error::InvalidArgs(out)
}

fn is_identifier(key: &str) -> bool {
    let mut chars = key.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}
