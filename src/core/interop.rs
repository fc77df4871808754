//! Agent interoperability (SPEC §7), as plain data: tool manifests for LLM providers, provider
//! tool calls read into a call, outcomes written back as the provider's tool result, MCP hints
//! mapped to a control level, and Standard Schema issues turned into one `invalid_args` message.
//!
//! Everything here is pure: the web layer feeds it [`Value`]s and converts the answers to JS.
//! Manifests carry an action's name, description, input schema and a sentence about its gate;
//! never anything the app computes per call (the card's summary stays in the page).

use alloc::string::String;
use alloc::vec;
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

fn object(fields: Vec<(&str, Value)>) -> Value {
    // A plain loop: `map(..).collect()` here was three monomorphized iterator helpers (~5 KB
    // of wasm) for a dozen short lists.
    let mut out = Vec::with_capacity(fields.len());
    for (k, v) in fields {
        out.push((String::from(k), v));
    }
    Value::Object(out)
}

fn string(s: &str) -> Value {
    Value::String(s.into())
}

/// The manifest for `format`: one entry per action, in the order given.
pub fn manifest(format: ToolFormat, tools: &[ToolInfo<'_>]) -> Value {
    let mut entries = Vec::with_capacity(tools.len());
    for tool in tools {
        entries.push(tool_entry(format, tool));
    }
    Value::Array(entries)
}

/// One action's manifest entry.
pub fn tool_entry(format: ToolFormat, tool: &ToolInfo<'_>) -> Value {
    let name = string(tool.name);
    if format == ToolFormat::Json {
        return object(vec![
            ("name", name),
            ("description", string(tool.description)),
            ("control", string(tool.control.as_str())),
            ("inputSchema", input_schema(tool, false)),
            ("readOnly", Value::Bool(tool.read_only)),
            ("idempotent", Value::Bool(tool.idempotent)),
        ]);
    }
    let description = Value::String(agent_description(tool.description, tool.control));
    let schema = input_schema(tool, tool.control == Control::Soft);
    match format {
        ToolFormat::OpenAi => object(vec![
            ("type", string("function")),
            (
                "function",
                object(vec![
                    ("name", name),
                    ("description", description),
                    ("parameters", schema),
                ]),
            ),
        ]),
        // Responses function tools are strict by default; strict mode demands every property
        // be required and `additionalProperties: false`, which an optional `confirmToken` (and
        // most app schemas) are not.
        ToolFormat::OpenAiResponses => object(vec![
            ("type", string("function")),
            ("name", name),
            ("description", description),
            ("parameters", schema),
            ("strict", Value::Bool(false)),
        ]),
        ToolFormat::Anthropic => object(vec![
            ("name", name),
            ("description", description),
            ("input_schema", schema),
        ]),
        ToolFormat::Mcp | ToolFormat::Json => object(vec![
            ("name", name),
            ("description", description),
            ("inputSchema", schema),
            ("annotations", mcp_annotations(tool)),
        ]),
    }
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

/// MCP tool annotations. MCP's defaults are `readOnlyHint: false`, `destructiveHint: true`,
/// so every hint that differs from them is spelled out: a client that maps hints back with
/// [`control_from_mcp_annotations`] gets `open` for read-only open actions, `hard` for hard
/// ones and `soft` for the rest.
fn mcp_annotations(tool: &ToolInfo<'_>) -> Value {
    let mut fields = Vec::new();
    if tool.control == Control::Open && tool.read_only {
        fields.push(("readOnlyHint", Value::Bool(true)));
    } else {
        fields.push((
            "destructiveHint",
            Value::Bool(tool.control == Control::Hard),
        ));
    }
    if tool.idempotent {
        fields.push(("idempotentHint", Value::Bool(true)));
    }
    object(fields)
}

/// The arguments' schema as providers accept it: always an object schema at the root.
///
/// No `input` → `{type: "object", properties: {}}`; an `input` whose JSON Schema is unknown
/// (a Standard Schema without export) or whose root is not an object schema → the permissive
/// `{type: "object"}`; else the declared schema with `type: "object"` made explicit and a
/// root `$schema` dropped. With `soft_params`, the optional `confirmToken` and `decline`
/// properties are added (never to `required`).
pub fn input_schema(tool: &ToolInfo<'_>, soft_params: bool) -> Value {
    let mut fields: Vec<(String, Value)> = match (tool.has_input, tool.input_schema) {
        (false, _) => vec![
            ("type".into(), string("object")),
            ("properties".into(), Value::Object(Vec::new())),
        ],
        (true, Some(Value::Object(given))) if is_object_schema(given) => {
            let mut fields = vec![("type".into(), string("object"))];
            fields.extend(
                given
                    .iter()
                    .filter(|(k, _)| k != "type" && k != "$schema")
                    .cloned(),
            );
            fields
        }
        (true, _) => vec![("type".into(), string("object"))],
    };
    if soft_params {
        let extra = [
            (
                "confirmToken",
                object(vec![
                    ("type", string("string")),
                    ("description", string(TOKEN_PARAM)),
                ]),
            ),
            (
                "decline",
                object(vec![
                    ("type", string("boolean")),
                    ("description", string(DECLINE_PARAM)),
                ]),
            ),
        ];
        let slot = match fields.iter().position(|(k, _)| k == "properties") {
            Some(i) => i,
            None => {
                fields.push(("properties".into(), Value::Object(Vec::new())));
                fields.len() - 1
            }
        };
        if let Value::Object(props) = &mut fields[slot].1 {
            for (key, schema) in extra {
                props.retain(|(k, _)| k != key);
                props.push((key.into(), schema));
            }
        } else {
            // `properties` that is not an object is not a schema a provider takes anyway.
            fields[slot].1 = Value::Object(
                extra
                    .into_iter()
                    .map(|(k, v)| (String::from(k), v))
                    .collect(),
            );
        }
    }
    Value::Object(fields)
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
    if hint("readOnlyHint") == Some(true) {
        Control::Open
    } else if hint("destructiveHint").unwrap_or(true) {
        Control::Hard
    } else {
        Control::Soft
    }
}

// ---- tool calls ---------------------------------------------------------------------------

/// Which provider's tool-call shape a call came in (and its result goes out) in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Provider {
    /// OpenAI Chat Completions: `{id, type: "function", function: {name, arguments}}` →
    /// `{role: "tool", tool_call_id, content}`.
    OpenAiChat,
    /// OpenAI Responses: `{type: "function_call", call_id, name, arguments}` →
    /// `{type: "function_call_output", call_id, output}`.
    OpenAiResponses,
    /// Anthropic Messages: `{type: "tool_use", id, name, input}` →
    /// `{type: "tool_result", tool_use_id, content, is_error}`.
    Anthropic,
}

/// A provider tool call, read.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolCall {
    /// The shape it came in (for an unrecognised call: the closest one).
    pub provider: Provider,
    /// The provider's call id; it becomes the `callId`.
    pub id: Option<String>,
    /// The tool (action) name; empty when absent.
    pub name: String,
    /// The arguments as a JSON object, or why they are not one.
    pub args: Result<Value, Error>,
}

/// The message of an unrecognised call shape.
pub const UNRECOGNISED_CALL: &str = "not a tool call coworkkit knows: expected OpenAI Chat \
{id, type: \"function\", function: {name, arguments}}, OpenAI Responses {type: \"function_call\", \
call_id, name, arguments} or Anthropic {type: \"tool_use\", id, name, input}";

/// Reads a provider tool call. Never fails: a malformed call is a [`ToolCall`] whose `args`
/// is an [`Error::InvalidArgs`], so it becomes a `rejected` outcome answered in the closest
/// shape.
///
/// `parse_json` reads arguments given as JSON text: [`Value::parse_json`] on the host; the
/// browser's own `JSON.parse` in the wasm, which keeps Rust's float parsing out of the binary.
pub fn parse_tool_call(
    call: &Value,
    parse_json: impl FnOnce(&str) -> Result<Value, Error>,
) -> ToolCall {
    let text = |v: Option<&Value>| v.and_then(Value::as_str).map(String::from);
    let kind = call.get("type").and_then(Value::as_str);
    let function = call
        .get("function")
        .filter(|f| matches!(f, Value::Object(_)));
    let (provider, recognised) = match kind {
        Some("function_call") => (Provider::OpenAiResponses, true),
        Some("tool_use") => (Provider::Anthropic, true),
        Some("function") if function.is_some() => (Provider::OpenAiChat, true),
        _ if call.get("call_id").is_some() => (Provider::OpenAiResponses, false),
        _ if call.get("input").is_some() || call.get("tool_use_id").is_some() => {
            (Provider::Anthropic, false)
        }
        _ => (Provider::OpenAiChat, false),
    };
    let (id, name, raw) = match provider {
        Provider::OpenAiChat => (
            text(call.get("id")),
            text(function.and_then(|f| f.get("name")).or(call.get("name"))),
            function.and_then(|f| f.get("arguments")),
        ),
        Provider::OpenAiResponses => (
            text(call.get("call_id")),
            text(call.get("name")),
            call.get("arguments"),
        ),
        Provider::Anthropic => (
            text(call.get("id")),
            text(call.get("name")),
            call.get("input"),
        ),
    };
    let args = if recognised {
        read_arguments(raw, parse_json)
    } else {
        Err(Error::InvalidArgs(UNRECOGNISED_CALL.into()))
    };
    ToolCall {
        provider,
        id,
        name: name.unwrap_or_default(),
        args,
    }
}

/// Arguments as a JSON string (OpenAI) or an object (Anthropic, or an SDK that parsed them).
/// Absent, `null` and the empty string mean no arguments.
fn read_arguments(
    raw: Option<&Value>,
    parse_json: impl FnOnce(&str) -> Result<Value, Error>,
) -> Result<Value, Error> {
    let value = match raw {
        None | Some(Value::Null) => return Ok(Value::Object(Vec::new())),
        Some(Value::String(s)) if s.trim().is_empty() => return Ok(Value::Object(Vec::new())),
        Some(Value::String(s)) => parse_json(s)?,
        Some(other) => other.clone(),
    };
    match value {
        Value::Object(_) => Ok(value),
        _ => Err(Error::InvalidArgs(
            "args: a tool call's arguments must be a JSON object".into(),
        )),
    }
}

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

/// An outcome as the tool result reports it (read back from the `Outcome` object).
#[derive(Clone, Copy, Debug)]
pub struct OutcomeView<'a> {
    /// The gate name.
    pub gate: &'a str,
    /// `run` ran and did not throw.
    pub ok: bool,
    /// `error.code` and `error.message`.
    pub error: Option<(&'a str, &'a str)>,
    /// The soft token.
    pub confirm_token: Option<&'a str>,
    /// The outcome carries a `result` (absent with `shareResult: false` or when nothing ran).
    pub has_result: bool,
}

/// The tool result's content object: `{gate, ok, result?, error?, confirmToken?,
/// instruction?}`. With `has_result`, `result` is a `null` placeholder in its place for the
/// caller to fill with the run's value.
pub fn tool_content(action: &str, outcome: &OutcomeView<'_>) -> Value {
    let mut fields = vec![
        ("gate", string(outcome.gate)),
        ("ok", Value::Bool(outcome.ok)),
    ];
    if outcome.has_result {
        fields.push(("result", Value::Null));
    }
    if let Some((code, message)) = outcome.error {
        fields.push((
            "error",
            object(vec![("code", string(code)), ("message", string(message))]),
        ));
    }
    if let Some(token) = outcome.confirm_token {
        fields.push(("confirmToken", string(token)));
    }
    if let Some(line) = instruction(action, outcome.gate) {
        fields.push(("instruction", Value::String(line)));
    }
    object(fields)
}

/// One line telling the model what to do next, for the gates where that is not obvious.
pub fn instruction(action: &str, gate: &str) -> Option<String> {
    let line = match gate {
        "needs_confirmation" => {
            let mut s =
                String::from("Not done yet. Ask the user whether to go ahead; on a yes, call ");
            s.push_str(action);
            s.push_str(
                " again with the same arguments plus this confirmToken; on a no, call it with the \
                 confirmToken and decline: true.",
            );
            return Some(s);
        }
        "needs_hand_mode" => {
            "Not done: the user has not let the agent use this page (Hand mode is off). Ask them \
             to turn it on, then try again."
        }
        "cancelled" => "Not done: it was cancelled. Do not retry unless the user asks.",
        "timeout" => "Not done: nobody confirmed it in time.",
        _ => return None,
    };
    Some(line.into())
}

/// Whether a provider should see the result as an error: the call did not do its work, except
/// for a soft call's first answer, which is a normal step.
pub fn is_error(outcome: &OutcomeView<'_>) -> bool {
    !outcome.ok && outcome.gate != "needs_confirmation"
}

/// The provider's tool-result message for a call with this id, carrying `content` (the
/// compact JSON of [`tool_content`]).
pub fn tool_result(provider: Provider, id: &str, content: String, is_error: bool) -> Value {
    match provider {
        Provider::OpenAiChat => object(vec![
            ("role", string("tool")),
            ("tool_call_id", string(id)),
            ("content", Value::String(content)),
        ]),
        Provider::OpenAiResponses => object(vec![
            ("type", string("function_call_output")),
            ("call_id", string(id)),
            ("output", Value::String(content)),
        ]),
        Provider::Anthropic => object(vec![
            ("type", string("tool_result")),
            ("tool_use_id", string(id)),
            ("content", Value::String(content)),
            ("is_error", Value::Bool(is_error)),
        ]),
    }
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
