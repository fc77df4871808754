//! The constructor's options, read once into a typed struct (SPEC §2).
//!
//! Read property by property through js-sys rather than with serde's `from_value`: serde's
//! invalid-type messages print floats, and linking Rust's float formatting for them would cost
//! more of the size budget than the whole of the reading here. Every message is the SDK's own,
//! with code `invalid_spec`.

use js_sys::{Function, Object};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::Element;

use super::convert::get;
use super::js::number_text;
use super::registry::read_control;
use crate::core::card::Labels;
use crate::core::control::Control;
use crate::core::engine::Config;
use crate::core::error::Error;

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
        }
        Ok(Options {
            config,
            arm_delay_ms: number(&options, "armDelayMs", 500.0, 0.0)?,
            on_record: function(&options, "onActionRecord")?,
            approver: function(&options, "approver")?,
            container,
            labels,
        })
    }
}
