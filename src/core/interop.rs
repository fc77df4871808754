//! Agent interoperability (SPEC §7), as plain data: tool manifests for LLM providers, the
//! confirmation fields of a soft tool call, MCP hints mapped to a control level, and Standard
//! Schema issues turned into one `invalid_args` message.
//!
//! Everything here is pure: the web layer feeds it [`Value`]s and converts the answers to JS.
//! Reading a provider tool call is one JS pass, as reading an `invoke` call is
//! (`ckReadToolCall` in `web/js.rs`, its rules in `web/convert.rs`); a tool result only copies
//! the SDK's own outcome object into the provider's shape, with a fixed line per gate for the
//! model, so the web layer builds it in JS too (`ckAnswer`).
//! Manifests carry an action's name, description, input schema and a sentence about its gate;
//! never anything the app computes per call (the card's summary stays in the page).

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

use super::control::Control;
use super::error::Error;
use super::schema::push_path_key;
use super::value::Value;

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

// Manifests are plain serde values: the web layer hands them to JavaScript through
// serde-wasm-bindgen as fresh, mutable objects (the caller's to extend), the host tests print
// them with serde_json. Field order is the order providers document.

/// One action's entry in a manifest; each variant is one [`ToolFormat`]'s shape.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum ToolEntry<'a> {
    /// `{name, description, control, inputSchema, readOnly, idempotent}`.
    Json {
        /// The action's name.
        name: &'a str,
        /// As declared.
        description: &'a str,
        /// `"open" | "soft" | "hard"`.
        control: &'static str,
        /// As declared (see [`InputSchema`]).
        #[serde(rename = "inputSchema")]
        input_schema: InputSchema<'a>,
        /// The `readOnly` hint.
        #[serde(rename = "readOnly")]
        read_only: bool,
        /// The `idempotent` hint.
        idempotent: bool,
    },
    /// `{type: "function", function: {name, description, parameters}}`.
    OpenAi {
        /// Always `"function"`.
        #[serde(rename = "type")]
        kind: &'static str,
        /// The function.
        function: OpenAiFunction<'a>,
    },
    /// `{type: "function", name, description, parameters, strict: false}`.
    ///
    /// Responses function tools are strict by default; strict mode demands every property be
    /// required and `additionalProperties: false`, which an optional `confirmToken` (and most
    /// app schemas) are not: hence `strict: false`.
    OpenAiResponses {
        /// Always `"function"`.
        #[serde(rename = "type")]
        kind: &'static str,
        /// The action's name.
        name: &'a str,
        /// What the agent reads (see [`agent_description`]).
        description: String,
        /// The arguments' schema.
        parameters: InputSchema<'a>,
        /// Always false.
        strict: bool,
    },
    /// `{name, description, input_schema}`.
    Anthropic {
        /// The action's name.
        name: &'a str,
        /// What the agent reads.
        description: String,
        /// The arguments' schema.
        input_schema: InputSchema<'a>,
    },
    /// `{name, description, inputSchema, annotations}`.
    Mcp {
        /// The action's name.
        name: &'a str,
        /// What the agent reads.
        description: String,
        /// The arguments' schema.
        #[serde(rename = "inputSchema")]
        input_schema: InputSchema<'a>,
        /// The hints.
        annotations: McpAnnotations,
    },
}

/// The `function` of an OpenAI Chat Completions tool.
#[derive(Clone, Debug, Serialize)]
pub struct OpenAiFunction<'a> {
    /// The action's name.
    pub name: &'a str,
    /// What the agent reads.
    pub description: String,
    /// The arguments' schema.
    pub parameters: InputSchema<'a>,
}

/// MCP tool annotations. MCP's defaults are `readOnlyHint: false`, `destructiveHint: true`, so
/// every hint that differs from them is spelled out: a client that maps hints back with
/// [`control_from_mcp_annotations`] gets `open` for read-only open actions, `hard` for hard
/// ones and `soft` for the rest.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct McpAnnotations {
    /// True for open actions marked `readOnly`.
    #[serde(rename = "readOnlyHint", skip_serializing_if = "Option::is_none")]
    pub read_only: Option<bool>,
    /// True for hard actions, false for the others unless read-only.
    #[serde(rename = "destructiveHint", skip_serializing_if = "Option::is_none")]
    pub destructive: Option<bool>,
    /// True when the action is marked `idempotent`.
    #[serde(rename = "idempotentHint", skip_serializing_if = "Option::is_none")]
    pub idempotent: Option<bool>,
}

/// The manifest for `format`: one entry per action, in the order given.
pub fn manifest<'a>(format: ToolFormat, tools: &[ToolInfo<'a>]) -> Vec<ToolEntry<'a>> {
    tools.iter().map(|tool| tool_entry(format, tool)).collect()
}

/// One action's manifest entry.
pub fn tool_entry<'a>(format: ToolFormat, tool: &ToolInfo<'a>) -> ToolEntry<'a> {
    // The neutral listing keeps the app's words and schema; the providers' entries get the
    // gate's sentence and, for soft actions, the token parameters.
    let soft_params = format != ToolFormat::Json && tool.control == Control::Soft;
    let schema = input_schema(tool, soft_params);
    let description = || agent_description(tool.description, tool.control);
    match format {
        ToolFormat::Json => ToolEntry::Json {
            name: tool.name,
            description: tool.description,
            control: tool.control.as_str(),
            input_schema: schema,
            read_only: tool.read_only,
            idempotent: tool.idempotent,
        },
        ToolFormat::OpenAi => ToolEntry::OpenAi {
            kind: "function",
            function: OpenAiFunction {
                name: tool.name,
                description: description(),
                parameters: schema,
            },
        },
        ToolFormat::OpenAiResponses => ToolEntry::OpenAiResponses {
            kind: "function",
            name: tool.name,
            description: description(),
            parameters: schema,
            strict: false,
        },
        ToolFormat::Anthropic => ToolEntry::Anthropic {
            name: tool.name,
            description: description(),
            input_schema: schema,
        },
        ToolFormat::Mcp => ToolEntry::Mcp {
            name: tool.name,
            description: description(),
            input_schema: schema,
            annotations: mcp_annotations(tool),
        },
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

/// An action's MCP hints (see [`McpAnnotations`]).
pub fn mcp_annotations(tool: &ToolInfo<'_>) -> McpAnnotations {
    let read_only = tool.control == Control::Open && tool.read_only;
    McpAnnotations {
        read_only: read_only.then_some(true),
        destructive: (!read_only).then_some(tool.control == Control::Hard),
        idempotent: tool.idempotent.then_some(true),
    }
}

/// The arguments' schema as providers accept it: always an object schema at the root.
///
/// No `input` → `{type: "object", properties: {}}`; an `input` whose JSON Schema is unknown
/// (a Standard Schema without export) or whose root is not an object schema → the permissive
/// `{type: "object"}`; else the declared schema with `type: "object"` made explicit and first,
/// and a root `$schema` dropped. With `soft_params`, the optional `confirmToken` and `decline`
/// properties are added last to `properties` (never to `required`), which is created if absent.
#[derive(Clone, Copy, Debug)]
pub struct InputSchema<'a> {
    /// The declared schema's fields, when it is an object schema.
    given: Option<&'a [(String, Value)]>,
    /// Write `properties` (empty, or only the soft parameters) when `given` has none.
    add_properties: bool,
    soft_params: bool,
}

/// [`InputSchema`] for one action; see there.
pub fn input_schema<'a>(tool: &ToolInfo<'a>, soft_params: bool) -> InputSchema<'a> {
    let given = match (tool.has_input, tool.input_schema) {
        (true, Some(Value::Object(fields))) if is_object_schema(fields) => Some(fields.as_slice()),
        _ => None,
    };
    let declares_properties = given.is_some_and(|g| g.iter().any(|(k, _)| k == "properties"));
    InputSchema {
        given,
        add_properties: (soft_params || !tool.has_input) && !declares_properties,
        soft_params,
    }
}

impl Serialize for InputSchema<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("type", "object")?;
        for (key, value) in self.given.unwrap_or_default() {
            match key.as_str() {
                "type" | "$schema" => {}
                // `properties` that is not an object is not a schema a provider takes anyway:
                // it becomes the two soft parameters alone.
                "properties" if self.soft_params => {
                    let props = match value {
                        Value::Object(props) => props.as_slice(),
                        _ => &[],
                    };
                    map.serialize_entry(key, &Properties(props, true))?;
                }
                _ => map.serialize_entry(key, value)?,
            }
        }
        if self.add_properties {
            map.serialize_entry("properties", &Properties(&[], self.soft_params))?;
        }
        map.end()
    }
}

/// A `properties` object; with the flag, any `confirmToken` and `decline` the app declared give
/// way to the soft parameters, added last.
struct Properties<'a>(&'a [(String, Value)], bool);

/// A soft action's extra parameter: `{type, description}`.
#[derive(Serialize)]
struct Param {
    #[serde(rename = "type")]
    kind: &'static str,
    description: &'static str,
}

impl Serialize for Properties<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let Properties(props, soft_params) = *self;
        let mut map = serializer.serialize_map(None)?;
        for (key, value) in props {
            if !(soft_params && (key == "confirmToken" || key == "decline")) {
                map.serialize_entry(key, value)?;
            }
        }
        if soft_params {
            let token = Param {
                kind: "string",
                description: TOKEN_PARAM,
            };
            let decline = Param {
                kind: "boolean",
                description: DECLINE_PARAM,
            };
            map.serialize_entry("confirmToken", &token)?;
            map.serialize_entry("decline", &decline)?;
        }
        map.end()
    }
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
                PathStep::Key(key) => push_path_key(&mut out, key),
                PathStep::Index(n) => out.push_str(&format!("[{n}]")),
            }
        }
        out.push_str(": ");
        out.push_str(message);
    }
    if issues.len() > MAX_ISSUES {
        out.push_str(&format!("; and {} more", issues.len() - MAX_ISSUES));
    }
    if issues.is_empty() {
        out.push_str("args: rejected by the input schema");
    }
    Error::InvalidArgs(out)
}
