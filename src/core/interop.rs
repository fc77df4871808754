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

use std::fmt::Write;

use super::card::title_from_name;
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
    /// AG-UI `Tool`s, as a run's `tools` carries them: `{name, description, parameters}`.
    AgUi,
    /// Not a `tools(format)` format: one action as a WebMCP tool (SPEC §7.2), everything but
    /// `execute`: `{name, title, description, inputSchema, annotations}`. `title` is the card's
    /// readable title; `description` and `inputSchema` are exactly the MCP manifest's (so a
    /// soft action offers `confirmToken` and `decline`); the annotations are `readOnlyHint`
    /// (open actions marked read-only), `consequentialHint` (soft and hard) and
    /// `untrustedContentHint`, each spelled out. Never the card's summary: that is computed per
    /// call and stays in the page.
    WebMcp,
}

/// The formats, in the order error messages list them.
pub const TOOL_FORMATS: [(&str, ToolFormat); 6] = [
    ("json", ToolFormat::Json),
    ("openai", ToolFormat::OpenAi),
    ("openai-responses", ToolFormat::OpenAiResponses),
    ("anthropic", ToolFormat::Anthropic),
    ("mcp", ToolFormat::Mcp),
    ("ag-ui", ToolFormat::AgUi),
];

impl ToolFormat {
    /// `"json" | "openai" | "openai-responses" | "anthropic" | "mcp" | "ag-ui"`; anything else is
    /// [`Error::InvalidSpec`] listing the known names.
    pub fn parse(name: &str) -> Result<ToolFormat, Error> {
        TOOL_FORMATS
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, f)| *f)
            .ok_or_else(|| {
                let mut message = String::from("unknown tool format \"");
                message.push_str(name);
                message.push_str("\": use json, openai, openai-responses, anthropic, mcp or ag-ui");
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
    /// The `untrustedContent` hint.
    pub untrusted_content: bool,
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
arguments plus confirmToken; on a no, call it with confirmToken and decline: true (and \
declineReason, if they said why).";

/// The sentence a hard action's description ends with.
pub const HARD_NOTE: &str = "A person confirms this on screen before it runs: wait for the \
outcome and do not call it again.";

/// The description of the optional `confirmToken` parameter of soft actions.
pub const TOKEN_PARAM: &str =
    "Only after the user said yes: the confirmToken from the needs_confirmation answer.";

/// The description of the optional `decline` parameter of soft actions.
pub const DECLINE_PARAM: &str = "With confirmToken, when the user said no.";

/// The description of the optional `declineReason` parameter of soft actions.
pub const REASON_PARAM: &str =
    "With decline: true, why the user said no, in their own words (at most 200 characters).";

/// The names a soft action's manifest adds to its arguments, and its tool calls' arguments
/// give up before validation (an app's own argument of one of these names gives way).
pub const SOFT_PARAMS: [&str; 3] = ["confirmToken", "decline", "declineReason"];

// Manifests are plain [`Value`] trees: the web layer hands them to JavaScript through
// serde-wasm-bindgen as fresh, mutable objects (the caller's to extend), the host tests print
// them with serde_json. One value type serializes every shape, so the six formats and the
// WebMCP tool go out through the same `Serialize` in the browser and in the host tests: what a
// test prints is what a page gets. Field order is the order providers document.

/// One action's manifest entry:
///
/// - `json`: `{name, description, control, inputSchema, readOnly, idempotent}`, the app's own
///   words and schema;
/// - `openai`: `{type: "function", function: {name, description, parameters}}`;
/// - `openai-responses`: `{type: "function", name, description, parameters, strict: false}`
///   (Responses function tools are strict by default, and strict mode demands every property
///   be required and `additionalProperties: false`, which an optional `confirmToken` and most
///   app schemas are not);
/// - `anthropic`: `{name, description, input_schema}`;
/// - `mcp`: `{name, description, inputSchema, annotations}`;
/// - `ag-ui`: `{name, description, parameters}` (AG-UI's `Tool`);
/// - WebMCP: see [`ToolFormat::WebMcp`].
///
/// The providers' entries get the gate's sentence in the description and, for soft actions,
/// the token parameters in the schema.
pub fn tool_entry(format: ToolFormat, tool: &ToolInfo<'_>) -> Value {
    use ToolFormat::*;
    let open = tool.control == Control::Open;
    let mut fields: Vec<(String, Value)> = Vec::new();
    if format == OpenAiResponses {
        fields.push(("type".into(), "function".into()));
    }
    fields.push(("name".into(), tool.name.into()));
    if format == WebMcp {
        fields.push(("title".into(), title_from_name(tool.name).into()));
    }
    // `json` keeps the app's own words and schema.
    let (description, soft_params) = match format {
        Json => (tool.description.into(), false),
        _ => (
            agent_description(tool.description, tool.control),
            tool.control == Control::Soft,
        ),
    };
    fields.push(("description".into(), description.into()));
    if format == Json {
        fields.push(("control".into(), tool.control.as_str().into()));
    }
    let schema_key = match format {
        OpenAi | OpenAiResponses | AgUi => "parameters",
        Anthropic => "input_schema",
        Json | Mcp | WebMcp => "inputSchema",
    };
    fields.push((schema_key.into(), input_schema(tool, soft_params)));
    match format {
        Json => {
            fields.push(("readOnly".into(), tool.read_only.into()));
            fields.push(("idempotent".into(), tool.idempotent.into()));
        }
        OpenAi => {
            return Value::Object(vec![
                ("type".into(), "function".into()),
                ("function".into(), Value::Object(fields)),
            ])
        }
        OpenAiResponses => fields.push(("strict".into(), false.into())),
        Anthropic | AgUi => {}
        Mcp => fields.push(("annotations".into(), mcp_annotations(tool))),
        WebMcp => fields.push((
            "annotations".into(),
            Value::Object(vec![
                ("readOnlyHint".into(), (open && tool.read_only).into()),
                ("consequentialHint".into(), (!open).into()),
                ("untrustedContentHint".into(), tool.untrusted_content.into()),
            ]),
        )),
    }
    Value::Object(fields)
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

/// An action's MCP tool annotations. MCP's defaults are `readOnlyHint: false`,
/// `destructiveHint: true`, so every hint that differs from them is spelled out: a client that
/// maps hints back with [`control_from_mcp_annotations`] gets `open` for read-only open
/// actions, `hard` for hard ones and `soft` for the rest. `idempotentHint` when marked.
pub fn mcp_annotations(tool: &ToolInfo<'_>) -> Value {
    let mut hints = vec![if tool.control == Control::Open && tool.read_only {
        ("readOnlyHint".into(), true.into())
    } else {
        (
            "destructiveHint".into(),
            (tool.control == Control::Hard).into(),
        )
    }];
    if tool.idempotent {
        hints.push(("idempotentHint".into(), true.into()));
    }
    Value::Object(hints)
}

/// The arguments' schema as providers accept it: always an object schema at the root.
///
/// No `input` → `{type: "object", properties: {}}`; an `input` whose JSON Schema is unknown
/// (a Standard Schema without export) or whose root is not an object schema → the permissive
/// `{type: "object"}`; else the declared schema with `type: "object"` made explicit and first,
/// and a root `$schema` dropped. With `soft_params`, the optional [`SOFT_PARAMS`] are added last
/// to `properties` (never to `required`), which is created if absent.
pub fn input_schema(tool: &ToolInfo<'_>, soft_params: bool) -> Value {
    let given = match (tool.has_input, tool.input_schema) {
        (true, Some(Value::Object(fields))) if is_object_schema(fields) => fields.as_slice(),
        _ => &[],
    };
    let mut fields = vec![(String::from("type"), Value::from("object"))];
    let mut add_properties = soft_params || !tool.has_input;
    for (key, value) in given {
        match key.as_str() {
            "type" | "$schema" => {}
            // `properties` that is not an object is not a schema a provider takes anyway: it
            // becomes the two soft parameters alone.
            "properties" if soft_params => {
                add_properties = false;
                let props = match value {
                    Value::Object(props) => props.as_slice(),
                    _ => &[],
                };
                fields.push((key.clone(), properties(props, true)));
            }
            _ => fields.push((key.clone(), value.clone())),
        }
    }
    if add_properties {
        fields.push(("properties".into(), properties(&[], soft_params)));
    }
    Value::Object(fields)
}

/// A `properties` object; with `soft_params`, any of the [`SOFT_PARAMS`] the app declared give
/// way to the soft parameters, added last.
fn properties(props: &[(String, Value)], soft_params: bool) -> Value {
    let mut fields = Vec::new();
    for (key, value) in props {
        if !(soft_params && SOFT_PARAMS.contains(&key.as_str())) {
            fields.push((key.clone(), value.clone()));
        }
    }
    if soft_params {
        let param = |kind: &str, description: &str| {
            Value::Object(vec![
                ("type".into(), kind.into()),
                ("description".into(), description.into()),
            ])
        };
        fields.push(("confirmToken".into(), param("string", TOKEN_PARAM)));
        fields.push(("decline".into(), param("boolean", DECLINE_PARAM)));
        fields.push(("declineReason".into(), param("string", REASON_PARAM)));
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
    /// `declineReason` (on `invoke`: `reason`), when a string: the user's words, which the
    /// engine takes only beside `decline` (SPEC §12).
    pub reason: Option<String>,
    /// `confirmToken` that is neither a string nor `null`: `bad_token`; `declineReason` that is
    /// neither: `invalid_args`.
    pub error: Option<Error>,
}

/// Takes `confirmToken`, a boolean `decline` and `declineReason` out of a soft action's
/// arguments (the [`SOFT_PARAMS`] the soft manifest adds), so the action's own arguments are
/// what the token is bound to.
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
        ("declineReason", Value::String(reason)) => {
            out.reason = Some(reason.clone());
            false
        }
        ("declineReason", Value::Null) => false,
        ("declineReason", _) => {
            out.error.get_or_insert(Error::InvalidArgs(
                "args.declineReason: must be a string".into(),
            ));
            false
        }
        _ => true,
    });
    out
}

// ---- Standard Schema ----------------------------------------------------------------------

/// At most this many issues are spelled out in one message.
pub const MAX_ISSUES: usize = 8;

/// The `invalid_args` message of a Standard Schema's issues, written as they are read: each as
/// `args.path: message` (`args.items[2].title: Expected string, received number`), joined with
/// `; `; past [`MAX_ISSUES`] they are only counted. An issue is [`start`](Self::start), the
/// steps of its path ([`key`](Self::key), [`index`](Self::index)), then [`end`](Self::end)
/// with its message.
#[derive(Default)]
pub struct IssueList {
    message: String,
    count: usize,
}

impl IssueList {
    /// Starts the next issue.
    pub fn start(&mut self) {
        self.count += 1;
        if self.shown() {
            if self.count > 1 {
                self.message.push_str("; ");
            }
            self.message.push_str("args");
        }
    }

    /// Whether the current issue is spelled out.
    fn shown(&self) -> bool {
        self.count <= MAX_ISSUES
    }

    /// A step of the current issue's path: an object key.
    pub fn key(&mut self, key: &str) {
        if self.shown() {
            push_path_key(&mut self.message, key);
        }
    }

    /// A step of the current issue's path: an array index.
    pub fn index(&mut self, n: u32) {
        if self.shown() {
            let _ = write!(self.message, "[{n}]");
        }
    }

    /// Ends the current issue with its message.
    pub fn end(&mut self, message: &str) {
        if self.shown() {
            self.message.push_str(": ");
            self.message.push_str(message);
        }
    }

    /// The `invalid_args` error; with no issue, a generic message.
    pub fn into_error(self) -> Error {
        let mut out = self.message;
        if self.count > MAX_ISSUES {
            let _ = write!(out, "; and {} more", self.count - MAX_ISSUES);
        }
        if self.count == 0 {
            out.push_str("args: rejected by the input schema");
        }
        Error::InvalidArgs(out)
    }
}
