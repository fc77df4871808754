//! The pure-Rust core: no wasm-bindgen, no web-sys, tested with plain `cargo test`.
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
