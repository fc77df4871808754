//! The pure-Rust core: no wasm-bindgen, no web-sys, tested with plain `cargo test`.
//!
//! Everything that decides anything lives here; `web` only performs the effects. What the core
//! cannot do without a browser comes in as a value: time and randomness as inputs to the
//! engine, and the printing of numbers in messages as [`engine::Config::number_text`].

pub mod arming;
pub mod card;
pub mod control;
pub mod engine;
pub mod error;
pub mod grant;
pub mod ids;
pub mod interop;
pub mod passkey;
pub mod record;
pub mod schema;
pub mod tape;
pub mod value;
