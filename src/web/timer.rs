//! Owned timers: a `setTimeout` or `setInterval` whose closure lives exactly as long as the
//! handle, and which is cleared when the handle drops (STYLE habit 3).
//!
//! In place of gloo-timers, which needs std (the crate is `no_std`). The spec keeps timeouts
//! and intervals in one map of active timers, so `clearTimeout` clears either kind; one clear
//! import serves both. See MDN,
//! [`setTimeout`](https://developer.mozilla.org/docs/Web/API/Window/setTimeout) and
//! [`clearTimeout`](https://developer.mozilla.org/docs/Web/API/Window/clearTimeout).

use alloc::boxed::Box;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = setTimeout)]
    fn set_timeout(handler: &JsValue, ms: i32) -> JsValue;

    #[wasm_bindgen(js_name = setInterval)]
    fn set_interval(handler: &JsValue, ms: i32) -> JsValue;

    #[wasm_bindgen(js_name = clearTimeout)]
    fn clear_timeout(id: &JsValue);
}

/// A delay the browser takes as given: it reads one past `i32::MAX` ms as 0 (the HTML spec
/// converts it to a 32-bit signed integer), so a huge `armDelayMs` would arm the card at once.
fn delay(ms: u32) -> i32 {
    i32::try_from(ms).unwrap_or(i32::MAX)
}

/// A scheduled timeout or interval; dropping it clears the timer and frees the closure.
#[must_use = "dropping the timer clears it at once"]
pub struct Timer {
    id: JsValue,
    _closure: Closure<dyn FnMut()>,
}

impl Timer {
    /// Runs `callback` once, `ms` milliseconds from now.
    pub fn timeout(ms: u32, callback: impl FnOnce() + 'static) -> Self {
        let closure = Closure::once(callback);
        let id = set_timeout(closure.as_ref(), delay(ms));
        Timer {
            id,
            _closure: closure,
        }
    }

    /// Runs `callback` every `ms` milliseconds.
    pub fn interval(ms: u32, callback: impl FnMut() + 'static) -> Self {
        let closure = Closure::<dyn FnMut()>::wrap(Box::new(callback));
        let id = set_interval(closure.as_ref(), delay(ms));
        Timer {
            id,
            _closure: closure,
        }
    }
}

impl Drop for Timer {
    fn drop(&mut self) {
        clear_timeout(&self.id);
    }
}
