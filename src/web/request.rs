//! One path for every call, whichever door it came through: `invoke` (SPEC §3), a provider's
//! tool call (SPEC §7) or a WebMCP tool's `execute` (SPEC §7.2). Each door reads its input once
//! into an [`Arrival`]; [`prepare`] then applies the rules the doors share, each in one place and
//! with the action's name looked up once:
//! - the call id: absent, the engine makes one; else a non-empty string of at most 256 bytes;
//! - the confirm fields: on the `invoke` door, the call's own `confirmToken` (a string, else
//!   `bad_token`), `decline` and `reason` (a string, else `invalid_args`); on the tool doors,
//!   taken out of a soft action's arguments (the names its soft manifest adds: `confirmToken`,
//!   `decline`, `declineReason`), so the token binds the action's own arguments;
//! - with Hand mode armed, an element action whose element cannot take its operation is refused
//!   on arrival (`element_unavailable`), the page untouched;
//! - the snapshot (the frozen copy `run`, the card, events and the record share) is the door
//!   reader's copy when it made one of exactly these arguments, else written from them here;
//! - the action's Standard Schema, if any, is handed back to be run before the engine sees the
//!   call (it is library code, run with no borrow held).
//!
//! The engine's own checks (unknown action, args size and schema, idempotency, levels) follow
//! in [`Engine::invoke`](crate::core::engine::Engine::invoke).

use std::rc::Rc;

use wasm_bindgen::prelude::*;

use super::convert::write_frozen;
use super::element;
use super::read::{CallFields, Field, ToolCallFields};
use super::registry::ActionRegistry;
use super::standard::StandardSchema;
use crate::core::control::Control;
use crate::core::engine::{ActionId, InvokeRequest};
use crate::core::error::Error;
use crate::core::interop::{take_confirm_fields, ConfirmFields};
use crate::core::record::Via;
use crate::core::value::Value;

/// The longest call id accepted, in UTF-8 bytes.
const MAX_CALL_ID_BYTES: usize = 256;

/// A call as its door read it.
pub(crate) struct Arrival {
    pub(crate) via: Via,
    pub(crate) name: String,
    /// The arguments, or why they could not be read as plain JSON data within the budget.
    pub(crate) args: Result<Value, Error>,
    /// The frozen copy of exactly `args` the door's reader made, if it made one.
    pub(crate) copy: Option<JsValue>,
    /// The call id as given (absent: the engine makes one).
    pub(crate) call_id: Field,
    /// The JS string of `call_id` when the door read one, so the call's `ctx`, outcome and
    /// record carry the agent's own string.
    pub(crate) call_id_js: Option<JsValue>,
    /// `invoke`: the call's `confirmToken`, `decline` and `reason`. The tool doors: `None`, a
    /// soft action's arguments carry them.
    pub(crate) confirm: Option<(Field, bool, Field)>,
    /// Why the door itself refuses the call, before any other rule (a WebMCP tool withdrawn
    /// from its model context).
    pub(crate) refused: Option<Error>,
}

impl Arrival {
    /// An `invoke` call.
    pub(crate) fn invoke(fields: CallFields) -> Arrival {
        let (args, copy) = match fields.args {
            None => (Ok(Value::Object(Vec::new())), None),
            Some(Ok((value, copy))) => (Ok(value), Some(copy)),
            Some(Err(error)) => (Err(error), None),
        };
        Arrival {
            via: Via::Invoke,
            // A name that is not a string (or is longer than any name) matches no action.
            name: match fields.name {
                Field::Text(name) => name,
                _ => String::new(),
            },
            args,
            copy,
            call_id: fields.call_id,
            call_id_js: fields.call_id_js,
            confirm: Some((fields.confirm_token, fields.decline, fields.reason)),
            refused: None,
        }
    }

    /// A provider tool call; its id is the call id.
    pub(crate) fn tool_call(call: ToolCallFields) -> Arrival {
        Arrival {
            via: Via::ToolCall,
            name: call.name,
            args: call.args,
            copy: None,
            call_id: call.id.map_or(Field::Absent, Field::Text),
            call_id_js: None,
            confirm: None,
            refused: None,
        }
    }

    /// A WebMCP tool's `execute(input)`: a fresh call (WebMCP gives none an id). The input
    /// must be a JSON object (`undefined` and `null` are `{}`).
    pub(crate) fn webmcp(name: &str, input: Result<Value, Error>) -> Arrival {
        let args = input.and_then(|value| match value {
            object @ Value::Object(_) => Ok(object),
            _ => Err(Error::InvalidArgs(
                "args: a tool's input must be a JSON object".into(),
            )),
        });
        Arrival {
            via: Via::WebMcp,
            name: name.to_owned(),
            args,
            copy: None,
            call_id: Field::Absent,
            call_id_js: None,
            confirm: None,
            refused: None,
        }
    }
}

/// A call ready for the engine.
pub(crate) struct Prepared {
    pub(crate) request: InvokeRequest<JsValue>,
    /// The JS string of the call id, when the door read one that is the id's text.
    pub(crate) call_id_js: Option<JsValue>,
    /// The action's Standard Schema, when it has one and nothing refused the call yet: to be
    /// run on the arguments before the engine sees the call.
    pub(crate) standard: Option<StandardSchema>,
}

/// Applies the rules every door shares (see the module docs) and builds the engine's request.
/// `action` is what the call's name resolved to (its id and level), looked up once by the
/// caller; `hand_mode` whether Hand mode is armed.
pub(crate) fn prepare(
    arrival: Arrival,
    action: Option<(ActionId, Control)>,
    hand_mode: bool,
    registry: &ActionRegistry,
) -> Prepared {
    let Arrival {
        via,
        name,
        mut args,
        copy,
        call_id,
        call_id_js,
        confirm,
        refused,
    } = arrival;
    let mut rejection = refused;
    let call_id = match call_id {
        Field::Absent => None,
        Field::Text(id) if !id.is_empty() && id.len() <= MAX_CALL_ID_BYTES => Some(id),
        _ => {
            rejection.get_or_insert(call_id_error(via));
            None
        }
    };
    let fields = match (confirm, action, &mut args) {
        (Some((token, decline, reason)), ..) => confirm_fields(token, decline, reason),
        (None, Some((_, Control::Soft)), Ok(args)) => take_confirm_fields(args),
        (None, ..) => ConfirmFields::default(),
    };
    if let Some(error) = fields.error {
        rejection.get_or_insert(error);
    }
    let pieces = action
        .and_then(|(id, _)| registry.with(id, |a| (a.element.clone(), a.input.standard.clone())));
    let (element, standard) = pieces.unwrap_or_default();
    if rejection.is_none() && hand_mode {
        if let Some(target) = &element {
            rejection = element::rejection(target, args.as_ref().ok());
        }
    }
    let standard = standard.filter(|_| rejection.is_none() && args.is_ok());
    // A copy the reader made is of the arguments before a soft action's fields came out, so
    // it stands only where nothing was taken out (the `invoke` door).
    let snapshot = match (copy, &args) {
        (Some(copy), _) => Some(copy),
        (None, Ok(args)) => Some(write_frozen(args)),
        (None, Err(_)) => None,
    };
    // A lone surrogate was read as U+FFFD: the JS string is then not the id's text.
    let call_id_js = call_id_js.filter(|_| {
        call_id
            .as_deref()
            .is_some_and(|id| !id.chars().any(|c| c == char::REPLACEMENT_CHARACTER))
    });
    Prepared {
        request: InvokeRequest {
            name,
            action: action.map(|(id, _)| id),
            args: args.map(Rc::new),
            snapshot,
            via,
            call_id,
            confirm_token: fields.token,
            decline: fields.decline,
            reason: fields.reason,
            host_rejection: rejection,
        },
        call_id_js,
        standard,
    }
}

/// The confirm fields as an `invoke` call carried them.
fn confirm_fields(token: Field, decline: bool, reason: Field) -> ConfirmFields {
    let mut fields = ConfirmFields {
        decline,
        ..ConfirmFields::default()
    };
    match token {
        Field::Absent => {}
        Field::Text(token) => fields.token = Some(token),
        Field::Other => fields.error = Some(Error::BadToken),
    }
    match reason {
        Field::Absent => {}
        Field::Text(reason) => fields.reason = Some(reason),
        Field::Other => {
            let error = Error::InvalidArgs("reason must be a string".into());
            fields.error.get_or_insert(error);
        }
    }
    fields
}

/// A call id that breaks the rule, in the words of its door.
fn call_id_error(via: Via) -> Error {
    let what = match via {
        Via::Invoke | Via::WebMcp => "callId",
        Via::ToolCall => "the tool call's id",
    };
    Error::InvalidArgs(format!(
        "{what} must be a non-empty string of at most {MAX_CALL_ID_BYTES} bytes"
    ))
}
