//! Every reader of what the app configures, in one place: the constructor's options (SPEC §2),
//! an action spec — its name and description, `control`, `input` (a JSON Schema subset or a
//! Standard Schema, and `inputJsonSchema`), its functions, `approvers`, the hints, and an element
//! action's `element` + `operation` (SPEC §5) — and the options of `ck.grant`, `ck.cancel` and
//! `ck.cancelAll` (SPEC §12).
//!
//! Read property by property through js-sys into typed Rust structs (as SPEC §11 allows for
//! options and specs) rather than with serde's `from_value`: every message is then the SDK's own,
//! naming the option or the action and what it must be, with code `invalid_spec`, where serde's
//! would name Rust types ("invalid type: floating point `1.5`, expected a boolean").

use js_sys::{Array, Function, Object};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::Element;

use super::convert::{get, set};
use super::element::{ElementTarget, Operation};
use super::js::{self, number_text};
use super::passkey::PasskeyOptions;
use super::read::read_value;
use super::registry::{ActionInput, JsAction};
use super::standard::StandardSchema;
use crate::core::card::Labels;
use crate::core::control::Control;
use crate::core::engine::{ActionDef, Config};
use crate::core::error::Error;
use crate::core::grant::GrantOptions;
use crate::core::passkey::Verify;
use crate::core::schema::Schema;
use crate::core::value::Value;

/// `new Coworkkit(options)`, read.
pub(crate) struct Options {
    /// What the engine needs: levels, lifetimes, limits.
    pub(crate) config: Config,
    /// `armDelayMs`.
    pub(crate) arm_delay_ms: f64,
    /// `onActionRecord`.
    pub(crate) on_record: Option<Function>,
    /// `approver`: who is at the keyboard.
    pub(crate) approver: Option<Function>,
    /// `container`: where the SDK's own DOM goes (`None`: `document.body`).
    pub(crate) container: Option<Element>,
    /// The card's words.
    pub(crate) labels: Labels,
    /// `passkey`: what `verify: "passkey"` actions need.
    pub(crate) passkey: Option<PasskeyOptions>,
}

fn invalid(what: &str) -> Error {
    Error::InvalidSpec(format!("options: {what}"))
}

fn number(options: &JsValue, key: &'static str, default: f64, min: f64) -> Result<f64, Error> {
    let v = get(options, key);
    if v.is_undefined() {
        return Ok(default);
    }
    match v.as_f64() {
        Some(n) if n.is_finite() && n >= min => Ok(n),
        _ if min > 0.0 => Err(invalid(&format!("{key} must be a positive finite number"))),
        _ => Err(invalid(&format!("{key} must be a finite number ≥ 0"))),
    }
}

fn function(options: &JsValue, key: &'static str) -> Result<Option<Function>, Error> {
    let v = get(options, key);
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    v.dyn_into::<Function>()
        .map(Some)
        .map_err(|_| Error::InvalidSpec(format!("{key} must be a function")))
}

impl Options {
    /// Reads the options object (`undefined` or `null`: every default).
    pub(crate) fn read(options: Option<JsValue>) -> Result<Options, Error> {
        let options = options
            .filter(|o| !o.is_undefined() && !o.is_null())
            .unwrap_or_else(|| Object::new().into());
        let default_control = read_control(&get(&options, "defaultControl"), "defaultControl")?;
        let config = Config {
            default_control: default_control.unwrap_or(Control::Open),
            confirm_timeout_ms: number(&options, "confirmTimeoutMs", 120_000.0, 1.0)?,
            max_pending: number(&options, "maxPending", 16.0, 1.0)? as usize,
            max_args_bytes: number(&options, "maxArgsBytes", 65_536.0, 2.0)? as usize,
            number_text,
        };
        let container = match get(&options, "container") {
            v if v.is_undefined() || v.is_null() => None,
            v => Some(
                v.dyn_into::<Element>()
                    .map_err(|_| invalid("container must be an Element"))?,
            ),
        };
        let mut labels = Labels::default();
        let given = get(&options, "labels");
        if given.is_object() {
            if let Some(s) = get(&given, "confirm").as_string() {
                labels.confirm = s;
            }
            if let Some(s) = get(&given, "cancel").as_string() {
                labels.cancel = s;
            }
            if let Some(s) = get(&given, "confirmPasskey").as_string() {
                labels.confirm_passkey = s;
            }
            if let Some(s) = get(&given, "reason").as_string() {
                labels.reason = s;
            }
            if let Some(s) = get(&given, "cancelAll").as_string() {
                labels.cancel_all = s;
            }
        }
        Ok(Options {
            config,
            arm_delay_ms: number(&options, "armDelayMs", 500.0, 0.0)?,
            on_record: function(&options, "onActionRecord")?,
            approver: function(&options, "approver")?,
            container,
            labels,
            passkey: PasskeyOptions::read(&options)?,
        })
    }
}

/// `ck.grant(action, options)`'s options as they are; [`GrantTerms`] judges them. A number
/// option that is not a number reads as NaN, and `match` as JSON data within `max_bytes`.
///
/// [`GrantTerms`]: crate::core::grant::GrantTerms
pub(crate) fn read_grant_options(
    options: &JsValue,
    max_bytes: usize,
) -> Result<GrantOptions, Error> {
    if options.is_undefined() || options.is_null() {
        return Ok(GrantOptions::default());
    }
    if !options.is_object() {
        return Err(Error::InvalidGrant("options must be an object".into()));
    }
    let number = |key| {
        let v = get(options, key);
        (!v.is_undefined()).then(|| v.as_f64().unwrap_or(f64::NAN))
    };
    let matching = get(options, "match");
    Ok(GrantOptions {
        ttl_ms: number("ttlMs"),
        max_uses: number("maxUses"),
        match_args: (!matching.is_undefined()).then(|| read_value(&matching, max_bytes)),
    })
}

/// The `{ reason?, action? }` of `ck.cancel(id, options)` and `ck.cancelAll(options)`: each
/// string, or `None` (anything else is ignored: the app may always cancel, so a cancel never
/// throws for its options).
pub(crate) fn read_cancel_options(options: &JsValue) -> (Option<String>, Option<String>) {
    if !options.is_object() {
        return (None, None);
    }
    (
        get(options, "reason").as_string(),
        get(options, "action").as_string(),
    )
}

/// `handleToolCall(call, options)`'s options: whether the call is AG-UI's (`{ format: "ag-ui" }`),
/// the one shape a call cannot show by its fields (it is OpenAI Chat's). No options, or no
/// `format`: the shape decides. Anything else is the app's mistake, `invalid_spec`.
pub(crate) fn read_tool_call_options(options: &JsValue) -> Result<bool, Error> {
    if options.is_undefined() || options.is_null() {
        return Ok(false);
    }
    if !options.is_object() {
        return Err(Error::InvalidSpec(
            "handleToolCall: options must be an object, such as { format: \"ag-ui\" }".into(),
        ));
    }
    let format = get(options, "format");
    if format.is_undefined() {
        return Ok(false);
    }
    match format.as_string() {
        Some(name) if name == "ag-ui" => Ok(true),
        other => Err(Error::InvalidSpec(format!(
            "handleToolCall: format {} is not one a call needs: only \"ag-ui\" (AG-UI's tool call has OpenAI Chat's shape, so it must be named); other calls are known by their shape",
            other.map_or_else(|| "(not a string)".into(), |name| format!("\"{name}\""))
        ))),
    }
}

/// An `invalid_spec` error naming the action: `"<name>: <what>"`.
fn spec_error(name: &str, what: &str) -> Error {
    Error::InvalidSpec(format!("{name}: {what}"))
}

/// Reads a control level option (`defaultControl`, a spec's `control`); undefined is `None`.
fn read_control(v: &JsValue, what: &str) -> Result<Option<Control>, Error> {
    if v.is_undefined() {
        return Ok(None);
    }
    v.as_string()
        .and_then(|s| Control::parse(&s))
        .map(Some)
        .ok_or_else(|| Error::InvalidSpec(format!("{what} must be \"open\", \"soft\" or \"hard\"")))
}

/// Reads a spec's `verify`: absent, or `"passkey"` (the engine checks the level is hard).
fn read_verify(spec: &JsValue, name: &str) -> Result<Option<Verify>, Error> {
    let v = get(spec, "verify");
    if v.is_undefined() {
        return Ok(None);
    }
    v.as_string()
        .and_then(|s| Verify::parse(&s))
        .map(Some)
        .ok_or_else(|| spec_error(name, "verify must be \"passkey\""))
}

fn read_bool(spec: &JsValue, key: &'static str, default: bool) -> Result<bool, Error> {
    let v = get(spec, key);
    if v.is_undefined() {
        return Ok(default);
    }
    v.as_bool()
        .ok_or_else(|| Error::InvalidSpec(format!("{key} must be a boolean")))
}

fn read_function(spec: &JsValue, name: &str, key: &'static str) -> Result<Option<Function>, Error> {
    let v = get(spec, key);
    if v.is_undefined() {
        return Ok(None);
    }
    v.dyn_into::<Function>()
        .map(Some)
        .map_err(|_| spec_error(name, &format!("{key} must be a function")))
}

fn read_approvers(spec: &JsValue, name: &str) -> Result<Option<Vec<String>>, Error> {
    let v = get(spec, "approvers");
    if v.is_undefined() {
        return Ok(None);
    }
    if !Array::is_array(&v) {
        return Err(spec_error(
            name,
            "approvers must be an array of role strings",
        ));
    }
    let array = Array::from(&v);
    let list: Vec<String> = array.iter().filter_map(|r| r.as_string()).collect();
    if list.is_empty() || list.len() != array.length() as usize {
        return Err(spec_error(
            name,
            "approvers must be a non-empty array of role strings",
        ));
    }
    Ok(Some(list))
}

/// Reads an action spec object into the engine's definition and the web layer's pieces.
pub(crate) fn read_spec(spec: &JsValue) -> Result<(ActionDef, JsAction), Error> {
    if !spec.is_object() {
        return Err(Error::InvalidSpec(
            "the action spec must be an object".into(),
        ));
    }
    let name_js = get(spec, "name");
    let name = name_js.as_string().ok_or_else(|| {
        Error::InvalidSpec(format!(
            "the action spec's name must be a string such as \"deleteProject\" (the tool name \
             the model calls); got {}",
            name_js.js_typeof().as_string().unwrap_or_default()
        ))
    })?;
    let description = get(spec, "description")
        .as_string()
        .ok_or_else(|| spec_error(&name, "description must be a non-empty string"))?;
    let control = read_control(&get(spec, "control"), "control")?;
    let (schema, input) = read_input(spec, &name)?;
    let run = read_function(spec, &name, "run")?;
    let summary = read_function(spec, &name, "confirmationSummary")?;
    let element = read_element_spec(spec, run.is_some()).map_err(|what| spec_error(&name, what))?;
    let schema = match (schema, &element) {
        (None, Some(target)) => target.default_schema(),
        (schema, _) => schema,
    };
    if run.is_none() && element.is_none() {
        return Err(spec_error(&name, "run must be a function"));
    }
    let def = ActionDef {
        name: name.clone(),
        description: description.clone(),
        control,
        schema,
        approvers: read_approvers(spec, &name)?,
        element: element.is_some(),
        share_result: read_bool(spec, "shareResult", true)?,
        record_result: read_bool(spec, "recordResult", true)?,
        read_only: read_bool(spec, "readOnly", false)?,
        idempotent: read_bool(spec, "idempotent", false)?,
        untrusted_content: read_bool(spec, "untrustedContent", false)?,
        verify: read_verify(spec, &name)?,
    };
    let action = JsAction {
        name,
        name_js,
        run,
        summary,
        description,
        element,
        input,
    };
    Ok((def, action))
}

/// A Standard JSON Schema export larger than this is not worth putting in a manifest.
const MAX_EXPORT_BYTES: usize = 1 << 20;

/// Reads a spec's `input` (a JSON Schema subset or a Standard Schema) and `inputJsonSchema`.
fn read_input(spec: &JsValue, name: &str) -> Result<(Option<Schema>, ActionInput), Error> {
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
                standard: Some(StandardSchema {
                    props: standard,
                    validate,
                }),
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

/// Reads `element` and `operation` from a spec: `None` for a `run` action. `has_run` says
/// whether the spec has a `run`, which an element action must not have. A bad spec is `Err`
/// with what is wrong, which the registry reports as `invalid_spec` naming the action.
fn read_element_spec(spec: &JsValue, has_run: bool) -> Result<Option<ElementTarget>, &'static str> {
    let element = get(spec, "element");
    let operation = get(spec, "operation");
    if element.is_undefined() && operation.is_undefined() {
        return Ok(None);
    }
    if has_run {
        return Err("an action has either run or element + operation, not both");
    }
    let operation = match operation.as_string().as_deref() {
        Some("click") => Operation::Click,
        Some("fill") => Operation::Fill,
        Some("select") => Operation::Select,
        _ => return Err("operation must be \"click\", \"fill\" or \"select\""),
    };
    if let Some(selector) = element.as_string() {
        // A malformed selector is the app's bug: say so now, not at every call.
        let document = js::window()
            .and_then(|w| w.document())
            .ok_or("no document")?;
        if selector.is_empty() || document.query_selector(&selector).is_err() {
            return Err("element is not a valid CSS selector");
        }
    } else if !element.is_instance_of::<Element>() {
        return Err("element must be an Element or a selector string");
    }
    Ok(Some(ElementTarget::new(element, operation)))
}
