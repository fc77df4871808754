//! The event bus: `ck.on(event, fn)` listeners and the `onActionRecord` sink (SPEC §2, §6).
//!
//! Listeners and the sink are app code: a throw is caught and logged, and never reaches the
//! call that caused the event. The list of listeners is copied out before any of them runs, so
//! a listener may subscribe, unsubscribe or dispose the instance from inside.

use std::cell::{Cell, RefCell};

use js_sys::Function;
use wasm_bindgen::prelude::*;

use super::js;

/// The events of `ck.on`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EventKind {
    /// A hard proposal waits for a person.
    Proposal,
    /// A hard proposal settled.
    Resolved,
    /// An action record.
    Record,
    /// Hand mode changed.
    HandMode,
    /// The live grants changed (SPEC §12): made, used, revoked, expired, or all ended.
    Grants,
}

impl EventKind {
    /// `"proposal" | "resolved" | "record" | "handmode" | "grants"`.
    pub(crate) fn parse(name: &str) -> Option<EventKind> {
        Some(match name {
            "proposal" => EventKind::Proposal,
            "resolved" => EventKind::Resolved,
            "record" => EventKind::Record,
            "handmode" => EventKind::HandMode,
            "grants" => EventKind::Grants,
            _ => return None,
        })
    }
}

struct Subscriber {
    id: u32,
    kind: EventKind,
    callback: Function,
}

/// Listeners by event, and the record sink.
pub(crate) struct EventBus {
    subscribers: RefCell<Vec<Subscriber>>,
    next: Cell<u32>,
    /// `onActionRecord`.
    sink: Option<Function>,
}

impl EventBus {
    /// A bus whose records also go to `sink`.
    pub(crate) fn new(sink: Option<Function>) -> Self {
        EventBus {
            subscribers: RefCell::default(),
            next: Cell::new(0),
            sink,
        }
    }

    /// Adds a listener; returns its id for [`unsubscribe`](Self::unsubscribe).
    pub(crate) fn subscribe(&self, kind: EventKind, callback: Function) -> u32 {
        let id = self.next.get();
        self.next.set(id.wrapping_add(1));
        self.subscribers
            .borrow_mut()
            .push(Subscriber { id, kind, callback });
        id
    }

    /// Removes a listener; a second call does nothing.
    pub(crate) fn unsubscribe(&self, id: u32) {
        self.subscribers.borrow_mut().retain(|s| s.id != id);
    }

    /// Whether the listener `id` is still subscribed.
    pub(crate) fn is_subscribed(&self, id: u32) -> bool {
        self.subscribers.borrow().iter().any(|s| s.id == id)
    }

    /// Calls every listener of `kind` with `payload`, in subscription order.
    pub(crate) fn emit(&self, kind: EventKind, payload: &JsValue) {
        let mut listeners = Vec::new();
        for s in self.subscribers.borrow().iter() {
            if s.kind == kind {
                listeners.push(s.callback.clone());
            }
        }
        for f in listeners {
            call_listener(&f, payload);
        }
    }

    /// Delivers a record: to the sink first, then to the `record` listeners.
    pub(crate) fn record(&self, record: &JsValue) {
        if let Some(sink) = &self.sink {
            js::deliver(sink, record, true);
        }
        self.emit(EventKind::Record, record);
    }
}

/// Calls one listener, logging a throw.
pub(crate) fn call_listener(f: &Function, payload: &JsValue) {
    js::deliver(f, payload, false);
}
