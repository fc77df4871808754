//! coworkkit: gate an AI agent's calls into a web app.
//!
//! Two rooms, one door: [`core`] is pure Rust (no browser types) and holds every rule;
//! `web` turns the engine's effects into DOM, timers and JavaScript calls.
//!
//! `no_std` (with `alloc`) so that the shipped wasm links no std: std's panic handler formats
//! the message (for nobody to read on wasm32-unknown-unknown) and pulled ~5 KB of panic and
//! `fmt` code into the wasm. The shipped build (`--features shipped`, set by `scripts/build-pkg`)
//! traps instead, which is what a panic under `panic = "abort"` already did; every other build
//! (host, tests, the panic hook's) links std and its handler.
#![no_std]
#![deny(missing_docs)]

extern crate alloc;
#[cfg(not(all(feature = "shipped", target_arch = "wasm32")))]
extern crate std;

pub mod core;

/// The wasm build's allocator (public for its host tests; not part of the JS surface).
#[doc(hidden)]
pub mod arena;

#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: arena::Global = arena::Global::linear_memory();

#[cfg(target_arch = "wasm32")]
pub mod web;

#[cfg(all(feature = "shipped", target_arch = "wasm32"))]
#[panic_handler]
fn panic(_: &::core::panic::PanicInfo<'_>) -> ! {
    ::core::arch::wasm32::unreachable()
}

#[cfg(all(
    feature = "shipped",
    feature = "console_error_panic_hook",
    target_arch = "wasm32"
))]
compile_error!("`shipped` has its own panic handler: build it with --no-default-features");
