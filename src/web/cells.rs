//! `RefCell` borrows with one panic location for the whole web module.
//!
//! `RefCell::borrow` and `borrow_mut` are `#[track_caller]`: every call site stores its own
//! 16-byte panic `Location` (file, line, column) in the wasm, about ninety of them here, and
//! gzip cannot squeeze their line numbers. Borrowing through [`Borrows`] gives every site the
//! one location in this file: −0.9 KB gzip of the SPEC §9 budget, with the code that passed
//! them. A conflicting borrow is a bug either way and panics the same; only the line the panic
//! names changes.

use std::cell::{Ref, RefCell, RefMut};

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
