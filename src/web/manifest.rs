//! The registered actions as an LLM's tool manifest (`tools(format)`, SPEC §7) and as WebMCP
//! tools (SPEC §7.2, everything but `execute`). The entries themselves are the core's
//! ([`tool_entry`]); this module puts the engine's definitions and the web layer's schemas
//! together and writes them out as fresh plain objects.

use js_sys::Array;
use serde::Serialize;
use wasm_bindgen::prelude::*;

use super::registry::{ActionInput, ActionRegistry};
use crate::core::control::Control;
use crate::core::engine::{ActionDef, ActionId, Engine};
use crate::core::error::Error;
use crate::core::interop::{tool_entry, ToolFormat, ToolInfo};
use crate::core::schema::Schema;

/// The manifest of every registered action in `format` (a `ToolFormat` name): fresh plain
/// objects each time (the caller's to extend); an unknown format is `invalid_spec`.
pub(crate) fn tools(
    engine: &Engine<JsValue>,
    registry: &ActionRegistry,
    format: &JsValue,
) -> Result<JsValue, Error> {
    let name = format
        .as_string()
        .unwrap_or_else(|| "(not a string)".into());
    let format = ToolFormat::parse(&name)?;
    let list = Array::new();
    if !engine.is_disposed() {
        for (id, def, control, _) in engine.actions() {
            list.push(&tool_js(registry, id, def, control, format));
        }
    }
    Ok(list.into())
}

/// One action as a WebMCP tool, everything but `execute`; `None` when it is not registered.
pub(crate) fn webmcp_tool_js(
    engine: &Engine<JsValue>,
    registry: &ActionRegistry,
    action: ActionId,
) -> Option<JsValue> {
    let (id, def, control, _) = engine.action_by_id(action)?;
    Some(tool_js(registry, id, def, control, ToolFormat::WebMcp))
}

/// One action's entry in `format`, a fresh plain object.
fn tool_js(
    registry: &ActionRegistry,
    id: ActionId,
    def: &ActionDef,
    control: Control,
    format: ToolFormat,
) -> JsValue {
    // The entry is a fresh tree, so no borrow of the registry is held while serde writes it.
    let entry = registry
        .with(id, |a| {
            tool_entry(format, &tool_info(def, control, Some(&a.input)))
        })
        .unwrap_or_else(|| tool_entry(format, &tool_info(def, control, None)));
    entry
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .unwrap_or(JsValue::NULL)
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
