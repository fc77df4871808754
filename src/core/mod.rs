//! The pure-Rust core: no web-sys, tested with plain `cargo test`.
//!
//! One exception, in the wasm only: `value::write_number` prints a number that is not a safe
//! integer through the browser's `String(n)` (one import) rather than carry its own digit
//! generation; the host build keeps the Rust printer, tested against Rust's formatting, and a
//! wasm test holds the browser's to `JSON.stringify`.
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
pub mod value;
pub mod watch;
