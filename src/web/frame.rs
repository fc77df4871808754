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

/// Two animation frames in a row, asked for again and again with one pair of closures (made
/// once: a card is shown on the path a person waits through). Dropping it cancels the frame
/// still requested.
pub(crate) struct AfterPaint {
    window: Window,
    /// The frame requested now (the first, then the second), or 0 when none is.
    id: Rc<Cell<i32>>,
    first: Closure<dyn FnMut()>,
    _second: Closure<dyn FnMut()>,
}

impl AfterPaint {
    /// Calls `painted` with `performance.now()` in the callback of the second frame after each
    /// [`AfterPaint::request`], in a microtask after it (so `painted` may request again or drop
    /// this handle); `None` where the page has no performance clock.
    pub(crate) fn new(window: &Window, painted: Rc<dyn Fn(f64)>) -> Option<AfterPaint> {
        let clock = window.performance()?;
        let id = Rc::new(Cell::new(0));
        let done = id.clone();
        let second = Closure::<dyn FnMut()>::new(move || {
            done.set(0);
            let (at, painted) = (clock.now(), painted.clone());
            wasm_bindgen_futures::spawn_local(async move { painted(at) });
        });
        let second_fn: Function = second.as_ref().unchecked_ref::<Function>().clone();
        let (next, requester) = (id.clone(), window.clone());
        let first = Closure::<dyn FnMut()>::new(move || {
            next.set(requester.request_animation_frame(&second_fn).unwrap_or(0));
        });
        Some(AfterPaint {
            window: window.clone(),
            id,
            first,
            _second: second,
        })
    }

    /// Asks for the two frames from now, forgetting any asked for before.
    pub(crate) fn request(&self) {
        self.cancel();
        let first = self.first.as_ref().unchecked_ref();
        self.id
            .set(self.window.request_animation_frame(first).unwrap_or(0));
    }

    /// Forgets the frames asked for: no report comes of them.
    pub(crate) fn cancel(&self) {
        let id = self.id.replace(0);
        if id != 0 {
            let _ = self.window.cancel_animation_frame(id);
        }
    }
}

impl Drop for AfterPaint {
    fn drop(&mut self) {
        self.cancel();
    }
}
