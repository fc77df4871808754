//! The browser side: everything that touches `JsValue`, web-sys and js-sys.

pub mod api;
pub mod card;
mod cells;
pub mod convert;
pub mod hand;
pub mod interop;
pub mod js;
pub mod listener;
pub mod read;
pub mod timer;
pub mod types;
pub mod watch;

use wasm_bindgen::prelude::*;

/// Runs once when the module is instantiated: installs the panic hook (default feature), so a
/// bug shows as a readable console error rather than `unreachable`.
#[wasm_bindgen(start)]
pub fn start() {
    #[cfg(feature = "console_error_panic_hook")]
    console_error_panic_hook::set_once();
}
