//! Time in the browser: the wall clock the engine runs on, and the delays handed to
//! gloo-timers.

use gloo_timers::callback::Timeout;

/// Epoch milliseconds (`Date.now()`), the clock of every deadline the engine keeps.
pub fn now() -> f64 {
    js_sys::Date::now()
}

/// A delay in whole milliseconds that a timer keeps as given.
///
/// The HTML timer steps convert a delay to a 32-bit signed integer, and gloo-timers casts its
/// `u32` to `i32` on the way: a delay past `i32::MAX` ms would wrap negative and fire at once
/// (a huge `armDelayMs` would arm the card immediately, a far expiry would tick in a loop). So
/// every delay is capped here, rounded up (a timer that fires early is useless to a deadline),
/// and NaN or a negative delay is 0.
pub fn delay_ms(ms: f64) -> u32 {
    if ms.is_nan() || ms <= 0.0 {
        0
    } else if ms >= f64::from(i32::MAX) {
        i32::MAX as u32
    } else {
        ms.ceil() as u32
    }
}

/// Runs `callback` once after `ms` milliseconds (capped, see [`delay_ms`]); dropping the
/// returned handle clears the timer.
pub fn timeout(ms: f64, callback: impl FnOnce() + 'static) -> Timeout {
    Timeout::new(delay_ms(ms), callback)
}
