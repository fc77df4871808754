//! The pure-Rust core: no web-sys, tested with plain `cargo test`.
//!
//! One seam, in the wasm build only: `value::write_number` asks `web::js::number_text` (the
//! browser's `String(n)`) to print a number that is not a safe integer rather than carry its
//! own digit generation; the host build keeps the Rust printer, tested against Rust's
//! formatting, and a wasm test holds the browser's to `JSON.stringify`.
//!
//! Everything that decides anything lives here; `web` only performs the effects.

pub mod card;
pub mod control;
pub mod engine;
pub mod error;
pub(crate) mod float;
mod idmap;
pub mod interop;
pub mod record;
pub mod schema;
pub mod tape;
pub mod value;
pub mod watch;
