//! coworkkit: gate an AI agent's calls into a web app.
//!
//! Two rooms, one door: [`core`] is pure Rust (no browser types) and holds every rule;
//! `web` turns the engine's effects into DOM, timers and JavaScript calls.
#![deny(missing_docs)]

pub mod core;

#[cfg(target_arch = "wasm32")]
pub mod web;
