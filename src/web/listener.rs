//! An owned DOM event listener: the closure lives exactly as long as the registration.
//!
//! STYLE habit 3: every closure handed to the browser has an owner whose `Drop` gives it back.
//! See MDN, [`addEventListener`](https://developer.mozilla.org/docs/Web/API/EventTarget/addEventListener).

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{Event, EventTarget};

/// A listener registered on `target` for `kind`; dropping it removes the listener and frees
/// the closure.
#[must_use = "dropping the listener removes it at once"]
pub struct EventListener {
    target: EventTarget,
    kind: &'static str,
    closure: Closure<dyn FnMut(Event)>,
}

impl EventListener {
    /// Registers `callback` for `kind` events on `target`.
    pub fn new(
        target: &EventTarget,
        kind: &'static str,
        callback: impl FnMut(Event) + 'static,
    ) -> Self {
        Self::boxed(target, kind, Box::new(callback))
    }

    /// The registration itself, built once for every closure type.
    fn boxed(target: &EventTarget, kind: &'static str, callback: Box<dyn FnMut(Event)>) -> Self {
        let closure = Closure::wrap(callback);
        let _ = target.add_event_listener_with_callback(kind, closure.as_ref().unchecked_ref());
        EventListener {
            target: target.clone(),
            kind,
            closure,
        }
    }
}

impl Drop for EventListener {
    fn drop(&mut self) {
        let _ = self
            .target
            .remove_event_listener_with_callback(self.kind, self.closure.as_ref().unchecked_ref());
    }
}
