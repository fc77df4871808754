//! When the card's Confirm may count: the input protection of SPEC §4.2, as a plain state
//! machine that the browser layer feeds with what happened and when.
//!
//! A trusted click proves that input reached Confirm, not that the person meant this call. The
//! browsers guard their own permission prompts against the ways a real person's input lands on
//! the wrong decision (Chromium's input-event activation protector, Firefox's dialog enable
//! delay, Android's obscured-touch filter); [`Arming`] does at least as much:
//!
//! - **Armed from what the person could see.** The delay counts from the first frame painted
//!   after the card's current content was set ([`Arming::painted`]), and only while nothing
//!   [holds](Hold) it: a hidden document, an unfocused window, a summary not read to its end,
//!   Confirm covered. Until a frame comes, Confirm is not armed, however long ago the card
//!   was opened: a page whose main thread stayed busy cannot hand an old click a fresh card.
//! - **Every change starts it again** ([`Arming::restart`]): new content, a changed "1 of N"
//!   row, a new label or notice, and any change of the card's size or of Confirm's place on
//!   the screen ([`Geometry`], compared at every input and on the card's tick).
//! - **The whole gesture after arming.** A pointer confirms only when its press and its click
//!   both land on Confirm after arming, as one single click (`detail` 1). The keyboard
//!   confirms only with a key press that is not a repeat, on Confirm, after focus reached
//!   Confirm by a key or a press made while the card was armed. A press or key that reaches the
//!   card while it is not armed, and every input these rules ignore, start the delay again: a
//!   person still typing or clicking keeps Confirm disarmed.
//!
//! Times are milliseconds on one monotonic clock (the page's `performance.now()`), and every
//! input carries the time it happened (the event's own `timeStamp`), not the time it was
//! handled. Only inputs the browser marks trusted are handed in: an untrusted event neither
//! confirms nor delays.

/// What keeps the delay from counting, besides a frame not yet painted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hold {
    /// The document is hidden (another tab, a minimized window).
    Hidden,
    /// The window does not have focus: the person is looking elsewhere.
    Unfocused,
    /// The summary is taller than its box and has not been scrolled to its end.
    Unread,
    /// The browser reports Confirm covered, transformed or faded.
    Covered,
}

impl Hold {
    /// Every hold, in the order the card explains them.
    pub const ALL: [Hold; 4] = [Hold::Unread, Hold::Covered, Hold::Hidden, Hold::Unfocused];

    fn bit(self) -> u8 {
        match self {
            Hold::Hidden => 1,
            Hold::Unfocused => 2,
            Hold::Unread => 4,
            Hold::Covered => 8,
        }
    }

    /// What the card tells the person while this hold keeps Confirm from arming.
    pub fn text(self) -> &'static str {
        match self {
            Hold::Unread => "Scroll to the end of the text to confirm.",
            Hold::Covered => "Confirm is covered by something else on the page.",
            Hold::Hidden | Hold::Unfocused => "Confirm arms once this window is in front.",
        }
    }
}

/// Where the card and its Confirm are, in CSS pixels: the window's place on the screen, and
/// Confirm's and the card's boxes in the window. Any difference between the frame the delay
/// counts from and an input means the person may have aimed at something else.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Geometry {
    /// `window.screenX`, `window.screenY`.
    pub window: (f64, f64),
    /// Confirm's bounding box: x, y, width, height.
    pub confirm: (f64, f64, f64, f64),
    /// The card's bounding box: x, y, width, height.
    pub card: (f64, f64, f64, f64),
}

/// Which key a key press was, as far as the rules care.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    /// Enter or Space: activates the focused button.
    Activate,
    /// Tab or Shift+Tab: moves focus inside the card.
    Tab,
    /// Anything else (typing, arrows, Escape).
    Other,
}

/// What the card does with an input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// It confirms the card.
    Confirm,
    /// It counts for nothing and started the delay again (Confirm looks disarmed now).
    Ignored,
    /// It is none of Confirm's business (a press elsewhere on an armed card).
    Pass,
}

/// Where the delay stands.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Count {
    /// Waiting for a painted frame of the current content.
    Frame,
    /// Counting from this frame, seen with this geometry.
    From(f64, Geometry),
}

/// A pointer press that may become a confirming click.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Press {
    None,
    /// Pressed on Confirm while it was armed.
    OnArmedConfirm,
}

/// The arm state of one card (see the [module docs](self)).
#[derive(Clone, Debug)]
pub struct Arming {
    delay: f64,
    count: Count,
    holds: u8,
    press: Press,
    /// Focus reached Confirm by a key or a press made while the card was armed.
    focus_earned: bool,
}

impl Arming {
    /// A card arming after `delay_ms` (negative or NaN counts as 0), waiting for its first
    /// painted frame.
    pub fn new(delay_ms: f64) -> Arming {
        Arming {
            delay: if delay_ms > 0.0 { delay_ms } else { 0.0 },
            count: Count::Frame,
            holds: 0,
            press: Press::None,
            focus_earned: false,
        }
    }

    /// The delay, in milliseconds.
    pub fn delay(&self) -> f64 {
        self.delay
    }

    /// Starts the delay again from the next painted frame: new content, or an input ignored.
    /// A press under way and focus earned so far no longer count.
    pub fn restart(&mut self) {
        self.count = Count::Frame;
        self.press = Press::None;
        self.focus_earned = false;
    }

    /// A frame of the current content was painted at `at`, with the card at `geometry`. The
    /// delay counts from the first such frame while nothing holds it; returns when Confirm
    /// arms, if it will (the caller shows it armed then).
    pub fn painted(&mut self, at: f64, geometry: Geometry) -> Option<f64> {
        if self.holds != 0 {
            return None;
        }
        if self.count == Count::Frame {
            self.count = Count::From(at, geometry);
        }
        match self.count {
            Count::From(from, _) => Some(from + self.delay),
            Count::Frame => None,
        }
    }

    /// Sets or clears `hold`; a change starts the delay again (a cleared hold counts from the
    /// next frame).
    pub fn set_hold(&mut self, hold: Hold, on: bool) {
        let holds = if on {
            self.holds | hold.bit()
        } else {
            self.holds & !hold.bit()
        };
        if holds != self.holds {
            self.holds = holds;
            self.restart();
        }
    }

    /// Whether `hold` is on.
    pub fn holds(&self, hold: Hold) -> bool {
        self.holds & hold.bit() != 0
    }

    /// Whether an input made at `at` with the card at `geometry` finds Confirm armed.
    pub fn armed(&self, at: f64, geometry: Geometry) -> bool {
        match self.count {
            Count::From(from, seen) => {
                self.holds == 0 && at - from >= self.delay && seen == geometry
            }
            Count::Frame => false,
        }
    }

    /// The card's tick: the card is now at `geometry`. A move or resize since the frame the
    /// delay counts from starts it again; returns true then.
    pub fn moved(&mut self, geometry: Geometry) -> bool {
        match self.count {
            Count::From(_, seen) if seen != geometry => {
                self.restart();
                true
            }
            _ => false,
        }
    }

    /// A trusted pointer press at `at`, on Confirm or elsewhere on the card.
    pub fn pointer_down(&mut self, at: f64, on_confirm: bool, geometry: Geometry) -> Verdict {
        if !self.armed(at, geometry) {
            self.restart();
            return Verdict::Ignored;
        }
        // A press moves focus to what it lands on.
        self.focus_earned = on_confirm;
        self.press = if on_confirm {
            Press::OnArmedConfirm
        } else {
            Press::None
        };
        Verdict::Pass
    }

    /// A trusted click on Confirm at `at`; `detail` is the event's click count (0 for a
    /// click that no pointer made: assistive technology, or a key on a focused button).
    pub fn click(&mut self, at: f64, detail: i32, geometry: Geometry) -> Verdict {
        let press = std::mem::replace(&mut self.press, Press::None);
        let ok = self.armed(at, geometry)
            && match detail {
                // No pointer: judged as a key on Confirm is.
                0 => self.focus_earned,
                1 => press == Press::OnArmedConfirm,
                _ => false,
            };
        if ok {
            Verdict::Confirm
        } else {
            self.restart();
            Verdict::Ignored
        }
    }

    /// A trusted key press at `at`: `key`, whether it is an auto-`repeat`, whether focus is
    /// on Confirm.
    pub fn key_down(
        &mut self,
        at: f64,
        key: Key,
        repeat: bool,
        on_confirm: bool,
        geometry: Geometry,
    ) -> Verdict {
        if !self.armed(at, geometry) {
            self.restart();
            return Verdict::Ignored;
        }
        match key {
            Key::Activate if on_confirm => {
                if !repeat && self.focus_earned {
                    Verdict::Confirm
                } else {
                    self.restart();
                    Verdict::Ignored
                }
            }
            _ => Verdict::Pass,
        }
    }

    /// Focus moved inside the card by a key press made at `at` (the caller moves it: Tab);
    /// it landed on Confirm or elsewhere.
    pub fn focus_moved(&mut self, at: f64, to_confirm: bool, geometry: Geometry) {
        self.focus_earned = to_confirm && self.armed(at, geometry);
    }
}
