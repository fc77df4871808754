//! What the card's listeners hear, judged: the browser's side of SPEC §4.2. The rules are
//! [`Arming`](crate::core::arming::Arming)'s; this file tells it what happened (the frame that
//! was painted, every trusted press, click and key with its own time, where the card is) and
//! shows what it decided (Confirm armed or not, and why not when the person can help it).

use std::rc::Rc;

use wasm_bindgen::JsCast;
use web_sys::{DomRect, Element, Event, KeyboardEvent, MouseEvent};

use super::{Decision, Input, Parts};
use crate::core::arming::{Geometry, Hold, Key, Verdict};
use crate::web::time::{now, timeout};

/// A box as Geometry keeps it.
fn rect(r: DomRect) -> (f64, f64, f64, f64) {
    (r.x(), r.y(), r.width(), r.height())
}

impl Parts {
    /// When `event` happened, on the `performance.now()` clock: its own time stamp, which is
    /// earlier than now when the main thread was busy; now if a browser gives none.
    fn time_of(&self, event: &Event) -> f64 {
        let (stamp, performance_now) = (event.time_stamp(), self.performance.now());
        if stamp > 0.0 && stamp < performance_now {
            stamp
        } else {
            performance_now
        }
    }

    /// Where the window, the card and Confirm are now.
    fn geometry(&self) -> Geometry {
        let screen =
            |v: Result<wasm_bindgen::JsValue, _>| v.ok().and_then(|v| v.as_f64()).unwrap_or(0.0);
        Geometry {
            window: (
                screen(self.window.screen_x()),
                screen(self.window.screen_y()),
            ),
            confirm: rect(self.confirm.get_bounding_client_rect()),
            card: rect(self.dialog.get_bounding_client_rect()),
        }
    }

    /// The card's content changed (or it was just shown): the arm delay starts again.
    pub(super) fn content_changed(self: &Rc<Self>) {
        self.arming.borrow_mut().restart();
        self.disarm();
    }

    /// Shows Confirm disarmed and waits for the next painted frame to count from. For a card
    /// whose arming has already started again (an ignored input, a hold that changed).
    fn disarm(self: &Rc<Self>) {
        self.arm_timer.replace(None);
        let _ = self.confirm.set_attribute("data-armed", "false");
        let _ = self.confirm.set_attribute("aria-disabled", "true");
        if let Some(frame) = self.frame.borrow().as_ref() {
            frame.request();
        }
    }

    /// A frame of the current content was painted at `at`: what holds the delay is looked at
    /// again, the hint says why when the person can help it, and the delay counts from here
    /// if nothing holds it.
    pub(super) fn painted(self: &Rc<Self>, at: f64) {
        if !self.dialog.open() {
            return;
        }
        let (hidden, unfocused) = self.attention();
        let summary = &self.summary;
        let overflows = self.summary_overflows();
        let unread = overflows && !self.card.read_to_end.get() && !self.scrolled_to_end();
        if overflows {
            let _ = summary.set_attribute("tabindex", "0");
        } else {
            let _ = summary.remove_attribute("tabindex");
        }
        {
            let mut arming = self.arming.borrow_mut();
            arming.set_hold(Hold::Hidden, hidden);
            arming.set_hold(Hold::Unfocused, unfocused);
            arming.set_hold(Hold::Unread, unread);
        }
        // The hint is content too: when it appears or goes, the next frame is the one seen.
        if self.show_hint() {
            return self.disarm();
        }
        let geometry = self.geometry();
        let armed_at = self.arming.borrow_mut().painted(at, geometry);
        if let Some(armed_at) = armed_at {
            let confirm = self.confirm.clone();
            let wait = armed_at - self.performance.now();
            self.arm_timer.replace(Some(timeout(wait, move || {
                let _ = confirm.set_attribute("data-armed", "true");
                let _ = confirm.remove_attribute("aria-disabled");
            })));
        }
    }

    /// Shows the hint for the first hold the person can do something about, or hides it;
    /// true when that changed what the card shows. (A disabled Confirm is drawn faded, which
    /// the browser's visibility report counts as covered: no hint then.)
    fn show_hint(&self) -> bool {
        // A Confirm this person may not use says so in the notice; nothing more to do there.
        let text = if self.card.confirm_allowed.get() {
            let arming = self.arming.borrow();
            [Hold::Unread, Hold::Covered]
                .into_iter()
                .find(|&hold| arming.holds(hold))
                .map(Hold::text)
        } else {
            None
        };
        let shown = !self.hint.has_attribute("hidden");
        if self.hint.text_content().filter(|_| shown).as_deref() == text {
            return false;
        }
        self.hint.set_text_content(text);
        crate::web::dom::set_hidden(&self.hint, text.is_none());
        let _ = match text {
            Some(_) => self.confirm.set_attribute("aria-describedby", "ck-hint"),
            None => self.confirm.remove_attribute("aria-describedby"),
        };
        true
    }

    /// Whether the summary is scrolled to its end.
    fn scrolled_to_end(&self) -> bool {
        let summary = &self.summary;
        f64::from(summary.scroll_top() + summary.client_height())
            >= f64::from(summary.scroll_height()) - 1.0
    }

    /// Whether the document is hidden, and whether the window lacks focus, now.
    fn attention(&self) -> (bool, bool) {
        let document = self.window.document();
        let hidden = document.as_ref().is_none_or(|d| d.hidden());
        let unfocused = !document.is_some_and(|d| d.has_focus().unwrap_or(false));
        (hidden, unfocused)
    }

    /// The card's tick: if the window, the card or Confirm moved or changed size since the
    /// frame the delay counts from, or the page was hidden, shown, focused or left without an
    /// event saying so, the delay starts again.
    pub(super) fn check_place(self: &Rc<Self>) {
        let geometry = self.geometry();
        let (hidden, unfocused) = self.attention();
        let changed = {
            let mut arming = self.arming.borrow_mut();
            let moved = arming.moved(geometry);
            let seen_before = (arming.holds(Hold::Hidden), arming.holds(Hold::Unfocused));
            if seen_before != (hidden, unfocused) {
                arming.set_hold(Hold::Hidden, hidden);
                arming.set_hold(Hold::Unfocused, unfocused);
            }
            moved || seen_before != (hidden, unfocused)
        };
        if changed {
            self.disarm();
        }
    }

    /// What the browser reports of Confirm's visibility (IntersectionObserver v2): covered,
    /// or whole again at `time`.
    pub(super) fn seen(self: &Rc<Self>, visible: bool, time: f64) {
        // Observed before this card was shown (the previous one closing): not about it.
        if time < self.card.shown_at.get() {
            return;
        }
        let changed = {
            let mut arming = self.arming.borrow_mut();
            let before = arming.holds(Hold::Covered);
            arming.set_hold(Hold::Covered, !visible);
            before == visible
        };
        if changed {
            self.disarm();
        }
    }

    /// Whether Confirm may be judged at all: allowed for this person, not waiting for a
    /// passkey prompt, not expired, and not while the SDK acts on the page.
    fn confirm_possible(&self) -> bool {
        let card = &self.card;
        card.confirm_allowed.get()
            && !card.waiting.get()
            && now() < card.expires_at.get()
            && !self.acting.get()
    }

    /// Every listener of the card: judges `event` by what was heard (see the module docs).
    pub(super) fn hear(self: &Rc<Self>, input: Input, event: Event) {
        match input {
            Input::Confirm => {
                if !event.is_trusted() || !self.confirm_possible() {
                    return;
                }
                let detail = event.unchecked_ref::<MouseEvent>().detail();
                let (at, geometry) = (self.time_of(&event), self.geometry());
                let verdict = self.arming.borrow_mut().click(at, detail, geometry);
                self.act_on(verdict);
            }
            Input::Press => {
                if !event.is_trusted() || self.acting.get() {
                    return;
                }
                let on_confirm = event.target().as_ref()
                    == Some(self.confirm.unchecked_ref::<web_sys::EventTarget>());
                let (at, geometry) = (self.time_of(&event), self.geometry());
                let verdict = self
                    .arming
                    .borrow_mut()
                    .pointer_down(at, on_confirm, geometry);
                self.act_on(verdict);
            }
            Input::Cancel => {
                let reason = self.reason_for(&event);
                self.decide(Decision::Cancel { reason });
            }
            // Keep the dialog open and decide.
            Input::Escape => {
                event.prevent_default();
                let reason = self.reason_for(&event);
                self.decide(Decision::Cancel { reason });
            }
            // Closed by anything but `CardLayer::close` (which forgets the handler first): for
            // example a browser that ignores the prevented `cancel` on a repeated Escape.
            Input::Close => {
                if !self.dialog.open() {
                    self.decide(Decision::Cancel { reason: None });
                }
            }
            Input::CancelAll => {
                if event.is_trusted() {
                    let reason = self.reason_for(&event);
                    self.decide(Decision::CancelAll { reason });
                }
            }
            Input::Key => self.key(event.unchecked_into()),
            // Only the browser's own events: a script's `scroll`, `blur` or `focus` proves
            // nothing, and must not hold the card disarmed either.
            Input::Scroll => {
                if event.is_trusted() && !self.card.read_to_end.get() && self.scrolled_to_end() {
                    self.card.read_to_end.set(true);
                    let held = self.arming.borrow().holds(Hold::Unread);
                    if held {
                        self.arming.borrow_mut().set_hold(Hold::Unread, false);
                        self.disarm();
                    }
                }
            }
            // The window lost or gained focus, or the page was hidden or shown: whatever the
            // person saw before, the delay counts from the next frame they can see.
            Input::Attention => {
                if event.is_trusted() {
                    self.content_changed();
                }
            }
        }
    }

    /// What an accepted or ignored input does.
    fn act_on(self: &Rc<Self>, verdict: Verdict) {
        match verdict {
            Verdict::Confirm => self.confirm_now(),
            Verdict::Ignored => self.disarm(),
            Verdict::Pass => {}
        }
    }

    /// A key pressed inside the card. Tab and Shift+Tab cycle through the focus ring, so focus
    /// never leaves the card for the browser's UI (the physical key counts too: WebKitGTK
    /// reports Shift+Tab, GTK's ISO_Left_Tab, as key "Unidentified", code "Tab"). Enter in the
    /// reason field sends it: a Cancel, never a Confirm. Enter or Space on Confirm confirms when
    /// the arming rules accept it.
    fn key(self: &Rc<Self>, event: KeyboardEvent) {
        let (key, code) = (event.key(), event.code());
        let active = self.root.active_element();
        let in_field = active.as_ref() == Some(self.reason.unchecked_ref::<Element>());
        if in_field && key == "Enter" && !event.is_composing() {
            event.prevent_default();
            let reason = self.reason_for(&event);
            return self.decide(Decision::Cancel { reason });
        }
        let tab = key == "Tab" || code == "Tab";
        let on_confirm = active.as_ref() == Some(self.confirm.unchecked_ref::<Element>());
        let activate = key == "Enter" || key == " ";
        let (at, trusted) = (self.time_of(&event), event.is_trusted());
        if on_confirm && activate {
            // The browser's own activation of Confirm (a click with no pointer) never follows:
            // the key itself is judged.
            event.prevent_default();
            if !self.confirm_possible() {
                return;
            }
        }
        if trusted && !self.acting.get() {
            let kind = match (tab, activate) {
                (true, _) => Key::Tab,
                (false, true) => Key::Activate,
                _ => Key::Other,
            };
            let geometry = self.geometry();
            let verdict =
                self.arming
                    .borrow_mut()
                    .key_down(at, kind, event.repeat(), on_confirm, geometry);
            self.act_on(verdict);
        }
        if !tab {
            return;
        }
        event.prevent_default();
        let ring = self.focus_ring();
        let at_index = ring
            .iter()
            .position(|e| active.as_ref() == Some(e.unchecked_ref::<Element>()));
        let next = match (at_index, event.shift_key()) {
            (Some(i), false) => (i + 1) % ring.len(),
            (Some(i), true) => (i + ring.len() - 1) % ring.len(),
            (None, _) => ring.len() - 1 - usize::from(self.card.confirm_allowed.get()),
        };
        let target = ring[next].clone();
        let to_confirm = target.unchecked_ref::<Element>() == self.confirm.unchecked_ref();
        if trusted {
            let geometry = self.geometry();
            self.arming
                .borrow_mut()
                .focus_moved(at, to_confirm, geometry);
        }
        let _ = target.focus();
    }
}
