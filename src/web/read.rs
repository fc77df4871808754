//! Reading JavaScript input as [`Value`]s, in one crossing each way.
//!
//! The walk is JavaScript's (`src/js/read.js`: the rules of what is plain JSON data, the size
//! count, the frozen copy and the tool-call shapes are documented and tested there); it hands
//! over a tape, which [`core::tape`](crate::core::tape) decodes. Writing values back to
//! JavaScript is [`convert`](super::convert)'s.

use wasm_bindgen::JsValue;

use super::js;
use crate::core::error::Error;
use crate::core::tape::{self, Call};
use crate::core::value::Value;

pub use crate::core::tape::{Field, ToolCall as ToolCallFields};

/// Reads a JS value as plain JSON data. `budget` is the largest JSON size (in UTF-8 bytes)
/// that is acceptable; going past it is `args_too_large` even before the walk ends.
pub fn read_value(value: &JsValue, budget: usize) -> Result<Value, Error> {
    tape::decode_value(text(&js::read_value_tape(value, budget as f64)), budget)
}

/// A tape's text. The reader writes UTF-8; anything else is not its tape, and reads as the
/// empty tape, which decodes as unreadable.
fn text(tape: &[u8]) -> &str {
    std::str::from_utf8(tape).unwrap_or_default()
}

/// An `invoke` call, read in one crossing by [`read_call`].
pub struct CallFields {
    /// `name`.
    pub name: Field,
    /// `args`: `None` when undefined; else the value and its frozen JS copy, or why it is not
    /// plain JSON data within the budget.
    pub args: Option<Result<(Value, JsValue), Error>>,
    /// `callId`; when absent, the engine makes one.
    pub call_id: Field,
    /// `callId`'s JS string, when it was a string within the bound.
    pub call_id_js: Option<JsValue>,
    /// `confirmToken`.
    pub confirm_token: Field,
    /// `decline`, truthy.
    pub decline: bool,
    /// `reason`: the user's words beside a decline (SPEC §12).
    pub reason: Field,
}

/// Reads an `invoke` call object (see [`CallFields`]); `budget` as in [`read_value`]. Every
/// property is read once, in the order `name`, `args`, `callId`, `confirmToken`, `decline`,
/// `reason`;
/// a getter that throws reads as `undefined`; a `name`, `callId` or `confirmToken` longer than
/// [`MAX_FIELD_BYTES`](crate::core::tape::MAX_FIELD_BYTES) reads as [`Field::Other`], never
/// copied into wasm memory.
pub fn read_call(call: &JsValue, budget: usize) -> CallFields {
    let reading = js::read_call(call, budget as f64);
    let Call {
        name,
        call_id,
        confirm_token,
        decline,
        reason,
        args,
    } = tape::decode_call(text(&reading.tape()), budget);
    // The copy and the id's string are read only when the tape says there is one.
    let call_id_js = matches!(call_id, Field::Text(_)).then(|| reading.call_id());
    CallFields {
        name,
        args: args.map(|args| args.map(|value| (value, reading.copy()))),
        call_id,
        call_id_js,
        confirm_token,
        decline,
        reason,
    }
}

/// Reads a provider tool call: its shape, id, name and arguments; `max` is `maxArgsBytes`;
/// `ag_ui`: the app said it is AG-UI's (whose shape is OpenAI Chat's).
pub fn read_tool_call(call: &JsValue, max: usize, ag_ui: bool) -> ToolCallFields {
    tape::decode_tool_call(text(&js::read_tool_call_tape(call, max as f64, ag_ui)), max)
}
