//! The promises `invoke` returned, waiting for their answers: the table between a call's
//! [`Ticket`] and the JS promise its caller holds. A leaf: the instance hands it answers already
//! built as JS values.

use std::cell::RefCell;

use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;

use crate::core::engine::Ticket;

/// Answers owed and answers early.
#[derive(Default)]
pub(crate) struct Answers {
    /// Resolvers of the calls that did not answer while their `invoke` drained (hard and async
    /// ones).
    waiters: RefCell<Vec<(Ticket, Function)>>,
    /// Answers that arrived while `invoke` was still draining, before it made a promise: the
    /// promise it returns, already resolved.
    early: RefCell<Vec<(Ticket, Promise)>>,
}

impl Answers {
    /// The promise of `invoke` for `ticket`, once its effects drained: resolved already when
    /// the answer came during the drain (an open action with a synchronous `run`, every
    /// rejection), else resolved when [`answer`](Self::answer) comes.
    pub(crate) fn promise_for(&self, ticket: Ticket) -> Promise {
        let early = take(&mut self.early.borrow_mut(), ticket);
        if let Some(promise) = early {
            return promise;
        }
        let mut resolver = None;
        let promise = Promise::new(&mut |resolve, _reject| resolver = Some(resolve));
        if let Some(resolve) = resolver {
            self.waiters.borrow_mut().push((ticket, resolve));
        }
        promise
    }

    /// Whether an answer is owed: its caller waits, so the instance must stay alive.
    pub(crate) fn owed(&self) -> bool {
        !self.waiters.borrow().is_empty()
    }

    /// Whether the caller of `ticket` already holds its promise (else the answer is early, and
    /// [`answer_early`](Self::answer_early) keeps it).
    pub(crate) fn is_waiting(&self, ticket: Ticket) -> bool {
        self.waiters.borrow().iter().any(|(t, _)| *t == ticket)
    }

    /// Resolves the promise of `ticket` with `outcome` (nothing when none waits).
    pub(crate) fn answer(&self, ticket: Ticket, outcome: &JsValue) {
        let resolve = take(&mut self.waiters.borrow_mut(), ticket);
        if let Some(resolve) = resolve {
            // The resolver runs no app code itself: reactions come in a later microtask.
            let _ = resolve.call1(&JsValue::UNDEFINED, outcome);
        }
    }

    /// Keeps the promise that `invoke` will return for `ticket`, already resolved.
    pub(crate) fn answer_early(&self, ticket: Ticket, resolved: Promise) {
        self.early.borrow_mut().push((ticket, resolved));
    }
}

/// Takes `ticket`'s entry out of `list`.
fn take<T>(list: &mut Vec<(Ticket, T)>, ticket: Ticket) -> Option<T> {
    let at = list.iter().position(|(t, _)| *t == ticket)?;
    Some(list.swap_remove(at).1)
}
