//! The browser side: everything that touches `JsValue`, web-sys and js-sys.
//!
//! [`api`] is the JavaScript surface and nothing else; it delegates to one [`Instance`] per
//! `Coworkkit`, the only code that holds the engine and the parts together and the loop that
//! carries out what the engine asks. Every other module is a part with one job that never takes
//! the instance back:
//! - what comes in: [`spec`] (every reader of options and action specs), [`read`] (a call's
//!   arguments, through `src/js/read.js`), [`request`] (the one path of the three doors);
//! - what is kept: [`registry`] (the actions' JS-side pieces), [`answers`] (promises owed);
//! - what goes out: [`objects`] (outcome, record, proposal), [`events`], [`manifest`] (tools);
//! - the page: [`card`], [`hand`] (Hand mode's UI), [`element`] (element actions), [`watch`],
//!   [`webmcp`], [`passkey`] (the browser's passkey prompt);
//! - small helpers: [`convert`], [`dom`], [`js`] (the bindings of `src/js/`), [`listener`],
//!   [`standard`] (Standard Schema), [`time`], [`types`] (the `.d.ts`).
//!
//! [`Instance`]: instance::Instance

mod answers;
pub mod api;
pub mod card;
mod convert;
mod dom;
mod element;
mod events;
mod frame;
mod hand;
mod instance;
pub mod js;
mod listener;
mod manifest;
mod objects;
mod passkey;
mod read;
mod registry;
mod request;
mod spec;
mod standard;
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

/// Every error the SDK throws to JavaScript: an `Error` with a stable `code` property (SPEC §2)
/// and the message `coworkkit: <message> (code: <code>)` ([`Error::thrown_message`]).
impl From<Error> for JsValue {
    fn from(error: Error) -> JsValue {
        let thrown = js_sys::Error::new(&error.thrown_message());
        convert::set(&thrown, "code", error.code());
        thrown.into()
    }
}
