//! The browser side: everything that touches `JsValue`, web-sys and js-sys.
//!
//! [`api`] is the JavaScript surface and nothing else; it delegates to one [`Instance`] per
//! `Coworkkit`, whose parts each have one job: the [`registry`] of actions and their JS-side
//! pieces, the [`events`] bus, the [`effects`] performer that carries out what the engine asks,
//! and the page features built on them ([`card`], [`hand`], [`watch`], [`interop`]).
//!
//! [`Instance`]: instance::Instance

pub mod api;
pub mod card;
mod convert;
mod dom;
mod effects;
mod events;
mod hand;
mod instance;
mod interop;
pub mod js;
mod listener;
mod options;
mod read;
mod registry;
pub mod time;
mod types;
mod watch;
mod webmcp;

use wasm_bindgen::prelude::*;

use crate::core::error::Error;

/// Runs once when the module is instantiated: installs the panic hook (default feature), so a
/// bug shows as a readable console error rather than `unreachable`.
#[wasm_bindgen(start)]
pub fn start() {
    #[cfg(feature = "console_error_panic_hook")]
    console_error_panic_hook::set_once();
}

/// Every error the SDK throws to JavaScript: an `Error` with the human message and a stable
/// `code` property (SPEC §2).
impl From<Error> for JsValue {
    fn from(error: Error) -> JsValue {
        let thrown = js_sys::Error::new(&error.message());
        convert::set(&thrown, "code", error.code());
        thrown.into()
    }
}
