//! `RefCell` borrows with one panic location for the whole web module, and `static` cells.
//!
//! `RefCell::borrow` and `borrow_mut` are `#[track_caller]`: every call site stores its own
//! 16-byte panic `Location` (file, line, column) in the wasm, about ninety of them here, and
//! gzip cannot squeeze their line numbers. Borrowing through [`Borrows`] gives every site the
//! one location in this file: −0.9 KB gzip of the SPEC §9 budget, with the code that passed
//! them. A conflicting borrow is a bug either way and panics the same; only the line the panic
//! names changes.

use core::cell::{Ref, RefCell, RefMut};

/// `read()` for `borrow()`, `write()` for `borrow_mut()`, as a `RefCell` does them.
pub(crate) trait Borrows<T> {
    /// `RefCell::borrow`.
    fn read(&self) -> Ref<'_, T>;
    /// `RefCell::borrow_mut`.
    fn write(&self) -> RefMut<'_, T>;
}

impl<T> Borrows<T> for RefCell<T> {
    fn read(&self) -> Ref<'_, T> {
        self.borrow()
    }

    fn write(&self) -> RefMut<'_, T> {
        self.borrow_mut()
    }
}

/// A `static` for the wasm build, in place of std's `thread_local!` (the crate is `no_std`):
/// `with` lends the value as `LocalKey::with` does.
pub(crate) struct OneThread<T>(pub T);

// SAFETY: wasm32-unknown-unknown without the atomics feature has one thread, so a value here is
// never reached from two threads (the same assumption as the allocator's, `arena::Global`).
#[cfg(not(target_feature = "atomics"))]
unsafe impl<T> Sync for OneThread<T> {}

impl<T> OneThread<T> {
    /// Calls `f` with the value.
    pub(crate) fn with<R>(&self, f: impl FnOnce(&T) -> R) -> R {
        f(&self.0)
    }
}
