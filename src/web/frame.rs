//! "A frame has been painted": the signal the card's arm delay counts from (SPEC §4.2).
//!
//! A [`requestAnimationFrame`](https://developer.mozilla.org/docs/Web/API/Window/requestAnimationFrame)
//! callback runs before the browser paints the frame it belongs to; the callback of the frame
//! after it runs once that frame was painted. So [`AfterPaint`] asks for two frames in a row
//! and reports the time of the second. A hidden document gets no frames at all, and a page
//! whose main thread is busy gets its frames late: either way nothing is reported until the
//! person could have seen what was drawn.

use std::cell::Cell;
use std::rc::Rc;

use js_sys::Function;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::Window;

/// Two animation frames in a row; dropping it cancels the one still requested.
pub(crate) struct AfterPaint {
    window: Window,
    /// The frame requested now (the first, then the second).
    id: Rc<Cell<i32>>,
    _first: Closure<dyn FnMut()>,
    _second: Closure<dyn FnMut()>,
}

impl AfterPaint {
    /// Calls `painted` with `performance.now()` in the callback of the second frame from now,
    /// in a microtask after it (so `painted` may drop this handle or ask for another); `None`
    /// where the page has no window or refuses the request.
    pub(crate) fn new(window: &Window, painted: impl FnOnce(f64) + 'static) -> Option<AfterPaint> {
        let mut painted = Some(painted);
        let clock = window.performance()?;
        let second = Closure::<dyn FnMut()>::new(move || {
            let at = clock.now();
            if let Some(painted) = painted.take() {
                wasm_bindgen_futures::spawn_local(async move { painted(at) });
            }
        });
        let second_fn: Function = second.as_ref().unchecked_ref::<Function>().clone();
        let id = Rc::new(Cell::new(0));
        let (next, requester) = (id.clone(), window.clone());
        let first = Closure::<dyn FnMut()>::new(move || {
            if let Ok(requested) = requester.request_animation_frame(&second_fn) {
                next.set(requested);
            }
        });
        id.set(
            window
                .request_animation_frame(first.as_ref().unchecked_ref())
                .ok()?,
        );
        Some(AfterPaint {
            window: window.clone(),
            id,
            _first: first,
            _second: second,
        })
    }
}

impl Drop for AfterPaint {
    fn drop(&mut self) {
        let _ = self.window.cancel_animation_frame(self.id.get());
    }
}
