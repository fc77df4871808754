//! Agent interoperability in the browser (SPEC §7): `tools(format)`, `handleToolCall(call)`,
//! `controlFromMcpAnnotations(annotations)`, and Standard Schema `input`s.
//!
//! The shapes and rules live in [`crate::core::interop`]; this module only reads JS values into
//! [`Value`]s, asks the engine (through the instance's `invoke_request`) and writes plain JS back.
//!
//! Standard Schema (<https://standardschema.dev>): `input["~standard"].validate(args)` judges
//! each call, on a fresh frozen copy of the arguments as read (plain JSON), so the library sees
//! exactly what `run` will see. Its transformed output is ignored: `run` gets the snapshot
//! (SPEC §3.1). A `Promise` from `validate` is awaited before the call reaches the engine.
//! For manifests, a Standard JSON Schema export (`~standard.jsonSchema.input(...)`, as zod 4
//! has) or the spec's `inputJsonSchema` gives the JSON Schema; else it is `{type: "object"}`.

use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

use js_sys::{Array, Function, Object, Promise};
use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::future_to_promise;

use super::convert::{get, set, write_frozen};
use super::instance::Instance;
use super::js;
use super::read::{read_tool_call, read_value, ToolCallFields};
use crate::core::control::Control;
use crate::core::engine::{ActionDef, ActionId, InvokeRequest};
use crate::core::error::Error;
use crate::core::interop::{
    take_confirm_fields, tool_entry, ConfirmFields, IssueList, ToolFormat, ToolInfo,
};
use crate::core::record::Via;
use crate::core::schema::Schema;
use crate::core::tape::Shape;
use crate::core::value::Value;

#[wasm_bindgen(typescript_custom_section)]
const TS_INTEROP: &'static str = r#"
/** A manifest format for `tools(format)`. */
export type ToolFormat = "json" | "openai" | "openai-responses" | "anthropic" | "mcp";
/** A tool's argument schema in a manifest: always an object schema at the root. */
export interface ToolInputSchema { type: "object"; properties?: { [key: string]: unknown }; required?: string[]; additionalProperties?: boolean | { [keyword: string]: unknown }; [keyword: string]: unknown; }
/** `tools("json")`: coworkkit's neutral listing, description and schema as declared. */
export interface JsonTool { name: string; description: string; control: Control; inputSchema: ToolInputSchema; readOnly: boolean; idempotent: boolean; }
/** `tools("openai")`: an OpenAI Chat Completions function tool. */
export interface OpenAITool { type: "function"; function: { name: string; description: string; parameters: ToolInputSchema }; }
/** `tools("openai-responses")`: an OpenAI Responses function tool (non-strict). */
export interface OpenAIResponsesTool { type: "function"; name: string; description: string; parameters: ToolInputSchema; strict: false; }
/** `tools("anthropic")`: an Anthropic Messages tool. */
export interface AnthropicTool { name: string; description: string; input_schema: ToolInputSchema; }
/** MCP tool annotations (hints; MCP's defaults: readOnlyHint false, destructiveHint true). */
export interface McpToolAnnotations { title?: string; readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean; }
/** `tools("mcp")`: an MCP `tools/list` entry. */
export interface McpTool { name: string; description: string; inputSchema: ToolInputSchema; annotations: McpToolAnnotations; }
/** The entry type of each manifest format. */
export interface ToolManifestMap { json: JsonTool; openai: OpenAITool; "openai-responses": OpenAIResponsesTool; anthropic: AnthropicTool; mcp: McpTool; }
/** Any manifest. */
export type ToolManifest = JsonTool[] | OpenAITool[] | OpenAIResponsesTool[] | AnthropicTool[] | McpTool[];

/** An OpenAI Chat Completions tool call (`message.tool_calls[i]`). */
export interface OpenAIToolCall { id: string; type: "function"; function: { name: string; arguments: string | { [key: string]: Json } }; }
/** An OpenAI Responses function call (an `output` item). */
export interface OpenAIResponsesToolCall { type: "function_call"; call_id: string; name: string; arguments: string | { [key: string]: Json }; id?: string; status?: string; }
/** An Anthropic `tool_use` content block. */
export interface AnthropicToolUse { type: "tool_use"; id: string; name: string; input: { [key: string]: Json } | string; }
/** What `handleToolCall` accepts. */
export type ToolCall = OpenAIToolCall | OpenAIResponsesToolCall | AnthropicToolUse;
/** The OpenAI Chat Completions message answering a tool call. */
export interface OpenAIToolMessage { role: "tool"; tool_call_id: string; content: string; }
/** The OpenAI Responses input item answering a function call. */
export interface OpenAIResponsesToolOutput { type: "function_call_output"; call_id: string; output: string; }
/** The Anthropic content block answering a `tool_use`. */
export interface AnthropicToolResult { type: "tool_result"; tool_use_id: string; content: string; is_error: boolean; }
/** What `handleToolCall` resolves to: the shape of the call it got. */
export type ToolResult = OpenAIToolMessage | OpenAIResponsesToolOutput | AnthropicToolResult;
/** The JSON inside a tool result's `content` / `output`. */
export interface ToolResultContent { gate: Gate; ok: boolean; result?: unknown; error?: { code: ErrorCode; message: string }; confirmToken?: string; instruction?: string; }

/** A Standard Schema v1 issue. */
export interface StandardSchemaIssue { readonly message: string; readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }>; }
/** A Standard Schema v1 validation result. */
export type StandardSchemaResult = { readonly value: unknown; readonly issues?: undefined } | { readonly issues: ReadonlyArray<StandardSchemaIssue> };
/** A Standard Schema v1 object (zod, valibot, arktype, …); `jsonSchema` is the Standard JSON Schema export when the library has one. */
export interface StandardSchemaV1 {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: string;
    validate(value: unknown): StandardSchemaResult | Promise<StandardSchemaResult>;
    readonly jsonSchema?: { input(options: { target: "draft-2020-12" }): { [keyword: string]: unknown } };
  };
}

export interface Coworkkit {
  tools<F extends ToolFormat>(format: F): Array<ToolManifestMap[F]>;
  handleToolCall(call: OpenAIToolCall): Promise<OpenAIToolMessage>;
  handleToolCall(call: OpenAIResponsesToolCall): Promise<OpenAIResponsesToolOutput>;
  handleToolCall(call: AnthropicToolUse): Promise<AnthropicToolResult>;
}
"#;

/// What the web layer keeps about an action's `input`, beside the engine's [`Schema`].
#[derive(Clone, Default)]
pub(crate) struct ActionInput {
    /// The Standard Schema's `~standard` object and its `validate`.
    pub(crate) standard: Option<(JsValue, Function)>,
    /// The arguments' JSON Schema for manifests when it is not the engine's [`Schema`]: a
    /// Standard Schema's export, or `inputJsonSchema`.
    pub(crate) json_schema: Option<Value>,
    /// The spec declares an `input` (or `inputJsonSchema`).
    pub(crate) declared: bool,
}

/// A Standard JSON Schema export larger than this is not worth putting in a manifest.
const MAX_EXPORT_BYTES: usize = 1 << 20;

use super::registry::spec_error;

/// Reads a spec's `input` (a JSON Schema subset or a Standard Schema) and `inputJsonSchema`.
pub(crate) fn read_input(
    spec: &JsValue,
    name: &str,
) -> Result<(Option<Schema>, ActionInput), Error> {
    let explicit = match get(spec, "inputJsonSchema") {
        v if v.is_undefined() || v.is_null() => None,
        v => match read_value(&v, MAX_EXPORT_BYTES) {
            Ok(value @ Value::Object(_)) => Some(value),
            _ => {
                return Err(spec_error(
                    name,
                    "inputJsonSchema must be a JSON Schema object",
                ))
            }
        },
    };
    let input = get(spec, "input");
    if input.is_undefined() || input.is_null() {
        let declared = explicit.is_some();
        return Ok((
            None,
            ActionInput {
                standard: None,
                json_schema: explicit,
                declared,
            },
        ));
    }
    // arktype's schemas are functions, so look for `~standard` on those too.
    let standard = if input.is_object() || input.is_function() {
        get(&input, "~standard")
    } else {
        JsValue::UNDEFINED
    };
    if standard.is_object() {
        let validate = get(&standard, "validate")
            .dyn_into::<Function>()
            .map_err(|_| spec_error(name, "input[\"~standard\"].validate must be a function"))?;
        let json_schema = explicit.or_else(|| export_json_schema(&standard));
        return Ok((
            None,
            ActionInput {
                standard: Some((standard, validate)),
                json_schema,
                declared: true,
            },
        ));
    }
    let value = read_value(&input, usize::MAX).map_err(|e| {
        let why = e.message();
        spec_error(
            name,
            &format!("input is not a JSON Schema or a Standard Schema ({why})"),
        )
    })?;
    // The manifest shows `Schema::source` unless `inputJsonSchema` says otherwise.
    let schema = Schema::parse(&value)?;
    Ok((
        Some(schema),
        ActionInput {
            standard: None,
            json_schema: explicit,
            declared: true,
        },
    ))
}

/// The Standard JSON Schema export (`~standard.jsonSchema.input({ target })`), if the library
/// offers one and it is plain JSON; a throw means "none".
fn export_json_schema(standard: &JsValue) -> Option<Value> {
    let converter = get(standard, "jsonSchema");
    let input = get(&converter, "input").dyn_into::<Function>().ok()?;
    let options = Object::new();
    set(&options, "target", "draft-2020-12");
    let exported = input.call1(&converter, &options).ok()?;
    read_value(&exported, MAX_EXPORT_BYTES).ok()
}

/// `future_to_promise` of a boxed future. The wasm's two futures that JavaScript gets as
/// promises (an async Standard Schema's verdict before its call goes on, WebMCP's `ready`)
/// share this one instantiation of it.
pub(crate) fn future_promise(
    future: impl Future<Output = Result<JsValue, JsValue>> + 'static,
) -> Promise {
    let future: Pin<Box<dyn Future<Output = Result<JsValue, JsValue>>>> = Box::pin(future);
    future_to_promise(future)
}

/// What a Standard Schema said about a call's arguments.
pub(crate) enum Check {
    /// Valid, or no Standard Schema to ask.
    Pass,
    /// Invalid: the call is rejected with this error.
    Fail(Error),
    /// `validate` returned a promise; await it, then [`verdict`].
    Later(Promise),
}

/// Runs the action's Standard Schema (if any) on the arguments of a call about to reach the
/// engine. Calls the engine already refuses (unreadable args, another host rejection) are not
/// validated.
pub(crate) fn standard_check(inst: &Instance, request: &InvokeRequest<JsValue>) -> Check {
    if request.host_rejection.is_some() {
        return Check::Pass;
    }
    let Ok(args) = &request.args else {
        return Check::Pass;
    };
    let Some(id) = inst.engine().action(&request.name).map(|a| a.0) else {
        return Check::Pass;
    };
    let Some((props, validate)) = inst
        .registry
        .with(id, |a| a.input.standard.clone())
        .flatten()
    else {
        return Check::Pass;
    };
    // No borrow is held from here on: `validate` is library code and may call back in. It
    // gets a copy of its own, so nothing it does can reach the call's snapshot.
    let copy = write_frozen(args);
    match validate.call1(&props, &copy) {
        Err(thrown) => Check::Fail(thrown_error(&thrown)),
        Ok(result) if result.is_object() && get(&result, "then").is_function() => {
            Check::Later(Promise::resolve(&result))
        }
        Ok(result) => verdict(&result).map_or(Check::Pass, Check::Fail),
    }
}

/// Builds the engine request for a provider tool call.
fn tool_request(inst: &Instance, call: ToolCallFields) -> InvokeRequest<JsValue> {
    let ToolCallFields {
        name, id, mut args, ..
    } = call;
    let soft = matches!(inst.engine().action(&name), Some((_, _, Control::Soft, _)));
    let fields = match (soft, &mut args) {
        (true, Ok(args)) => take_confirm_fields(args),
        _ => ConfirmFields::default(),
    };
    let (call_id, mut host_rejection) = match id {
        Some(id) if !id.is_empty() && id.len() <= 256 => (Some(id), None),
        Some(_) => (
            None,
            Some(Error::InvalidArgs(
                "the tool call's id must be a non-empty string of at most 256 bytes".into(),
            )),
        ),
        None => (None, None),
    };
    if host_rejection.is_none() {
        host_rejection = fields.error;
    }
    // As `invoke` does: with Hand mode on, an unavailable element refuses the call on arrival.
    if host_rejection.is_none() {
        host_rejection = inst.hand.rejection(inst, &name, args.as_ref().ok());
    }
    InvokeRequest {
        name,
        // Made once, from the args the engine keeps, so `run`, the card and the record share it.
        snapshot: args.as_ref().ok().map(write_frozen),
        args: args.map(Rc::new),
        via: Via::ToolCall,
        call_id,
        host_call_id: None,
        confirm_token: fields.token,
        decline: fields.decline,
        host_rejection,
    }
}

/// A settled `validate` result: `None` when valid, else the issues as `invalid_args`.
pub(crate) fn verdict(result: &JsValue) -> Option<Error> {
    let issues = get(result, "issues");
    if issues.is_undefined() || issues.is_null() {
        return None;
    }
    let mut list = IssueList::default();
    if Array::is_array(&issues) {
        for issue in Array::from(&issues).iter() {
            let message = get(&issue, "message").as_string();
            let path = get(&issue, "path");
            list.start();
            if Array::is_array(&path) {
                for segment in Array::from(&path).iter() {
                    path_step(&mut list, &segment);
                }
            }
            list.end(message.as_deref().unwrap_or("invalid"));
        }
    }
    Some(list.into_error())
}

/// A path segment: a property key, or `{ key }` (Standard Schema's `PathSegment`); an index
/// when it is a whole number that fits one.
fn path_step(list: &mut IssueList, segment: &JsValue) {
    let key = if segment.is_object() {
        get(segment, "key")
    } else {
        segment.clone()
    };
    match key.as_f64() {
        Some(n) if n >= 0.0 && n.fract() == 0.0 && n < 4_294_967_296.0 => list.index(n as u32),
        // Another number is no key: the step is left out.
        Some(_) => {}
        None => {
            if let Some(key) = key.as_string() {
                list.key(&key);
            }
        }
    }
}

/// A `validate` that threw or rejected: the call is refused, as a failed check would be.
pub(crate) fn thrown_error(thrown: &JsValue) -> Error {
    let message = thrown
        .as_string()
        .or_else(|| get(thrown, "message").as_string())
        .unwrap_or_default();
    Error::InvalidArgs(format!(
        "args: the input schema's validate threw: {message}"
    ))
}

/// How a manifest sees one action.
fn tool_info<'a>(
    def: &'a ActionDef,
    control: Control,
    input: Option<&'a ActionInput>,
) -> ToolInfo<'a> {
    ToolInfo {
        name: &def.name,
        description: &def.description,
        control,
        read_only: def.read_only,
        idempotent: def.idempotent,
        untrusted_content: def.untrusted_content,
        // An element action's implied schema (`fill`'s `value`) is in `def.schema`.
        input_schema: input
            .and_then(|i| i.json_schema.as_ref())
            .or(def.schema.as_ref().map(Schema::source)),
        has_input: def.schema.is_some() || input.is_some_and(|i| i.declared),
    }
}

/// One action's manifest entry in `format` (or its WebMCP tool, everything but `execute`): a
/// fresh plain object.
fn tool_js(
    inst: &Instance,
    action: (ActionId, &ActionDef, Control),
    format: ToolFormat,
) -> JsValue {
    let (id, def, control) = action;
    // The value the entry is built from is a fresh tree, so no borrow of the registry is
    // held while serde builds the objects.
    let entry = inst
        .registry
        .with(id, |a| {
            tool_entry(format, &tool_info(def, control, Some(&a.input)))
        })
        .unwrap_or_else(|| tool_entry(format, &tool_info(def, control, None)));
    entry
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .unwrap_or(JsValue::NULL)
}

/// The manifest of every registered action for an LLM (SPEC §7): fresh plain objects each
/// time (the caller's to extend); an unknown format is `invalid_spec`.
pub(crate) fn tools(inst: &Instance, format: &JsValue) -> Result<JsValue, Error> {
    let name = format
        .as_string()
        .unwrap_or_else(|| "(not a string)".into());
    let format = ToolFormat::parse(&name)?;
    let list = Array::new();
    let engine = inst.engine();
    if !engine.is_disposed() {
        for (id, def, control, _) in engine.actions() {
            list.push(&tool_js(inst, (id, def, control), format));
        }
    }
    Ok(list.into())
}

/// One action as a WebMCP tool, everything but `execute` (see
/// [`ToolFormat::WebMcp`](crate::core::interop::ToolFormat::WebMcp)); `None` when it is not
/// registered.
pub(crate) fn webmcp_tool_js(inst: &Instance, action: ActionId) -> Option<JsValue> {
    let engine = inst.engine();
    let (id, def, control, _) = engine.action_by_id(action)?;
    Some(tool_js(inst, (id, def, control), ToolFormat::WebMcp))
}

/// The engine request for one `execute(input)` of a WebMCP tool: a fresh call (WebMCP gives
/// none an id) through the tool-call door, so a soft tool takes `confirmToken` and `decline`
/// out of its input. The input must be a JSON object (`undefined` and `null` are `{}`).
pub(crate) fn webmcp_request(
    inst: &Instance,
    name: &str,
    input: &JsValue,
) -> InvokeRequest<JsValue> {
    let max = inst.engine().config().max_args_bytes;
    let args = if input.is_undefined() || input.is_null() {
        Ok(Value::Object(Vec::new()))
    } else {
        match read_value(input, max) {
            Ok(object @ Value::Object(_)) => Ok(object),
            Ok(_) => Err(Error::InvalidArgs(
                "args: a tool's input must be a JSON object".into(),
            )),
            Err(error) => Err(error),
        }
    };
    let call = ToolCallFields {
        kind: Shape::OpenAiChat,
        id: None,
        name: name.into(),
        args,
    };
    let mut request = tool_request(inst, call);
    request.via = Via::WebMcp;
    request
}

/// Runs a provider tool call through the engine (SPEC §7) and answers in the matching
/// tool-result shape. Never rejects.
pub(crate) fn handle_tool_call(inst: &Instance, call: &JsValue) -> Promise {
    let max = inst.engine().config().max_args_bytes;
    let call = read_tool_call(call, max);
    let (kind, id, name) = (call.kind, call.id.clone(), call.name.clone());
    let request = tool_request(inst, call);
    let outcome = inst.invoke_request(request);
    // The answer is shaped in JS once the outcome settles, from the call's own data only:
    // a hard call may wait minutes for a person, and must not keep the instance alive.
    js::answer(&outcome, kind, id, &name)
}
