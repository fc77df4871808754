#![cfg(not(target_arch = "wasm32"))]
//! The card's input protection (SPEC §4.2) as the core decides it: `Arming`, fed the inputs a
//! person (or an agent driving the browser) makes, each at its own time.

use coworkkit::core::arming::{Arming, Geometry, Hold, Key, Verdict};
use proptest::prelude::*;

const DELAY: f64 = 500.0;

fn at_rest() -> Geometry {
    Geometry {
        window: (0.0, 0.0),
        confirm: (300.0, 400.0, 96.0, 36.0),
        card: (100.0, 100.0, 448.0, 360.0),
    }
}

/// A card whose first frame was painted at 1000.
fn painted() -> Arming {
    let mut arming = Arming::new(DELAY);
    assert_eq!(arming.painted(1000.0, at_rest()), Some(1000.0 + DELAY));
    arming
}

/// A pointer's press and click on Confirm at `at`.
fn press_and_click(arming: &mut Arming, at: f64) -> Verdict {
    match arming.pointer_down(at, true, at_rest()) {
        Verdict::Pass => arming.click(at + 80.0, 1, at_rest()),
        other => other,
    }
}

#[test]
fn nothing_is_armed_before_a_frame_was_painted() {
    let mut arming = Arming::new(DELAY);
    // However late the input comes, a card that was never painted is not armed: a busy main
    // thread delivers a click made before the card could be seen.
    assert!(!arming.armed(1_000_000.0, at_rest()));
    assert_eq!(press_and_click(&mut arming, 1_000_000.0), Verdict::Ignored);
}

#[test]
fn the_delay_counts_from_the_painted_frame() {
    let mut arming = painted();
    assert!(!arming.armed(1000.0 + DELAY - 1.0, at_rest()));
    assert!(arming.armed(1000.0 + DELAY, at_rest()));
    assert_eq!(press_and_click(&mut arming, 1600.0), Verdict::Confirm);
}

#[test]
fn a_later_frame_does_not_move_the_start() {
    let mut arming = painted();
    assert_eq!(arming.painted(1300.0, at_rest()), Some(1000.0 + DELAY));
}

#[test]
fn a_restart_waits_for_a_new_frame_and_a_full_delay() {
    let mut arming = painted();
    arming.restart();
    assert!(!arming.armed(5000.0, at_rest()));
    assert_eq!(arming.painted(5000.0, at_rest()), Some(5000.0 + DELAY));
    assert!(!arming.armed(5000.0 + DELAY - 1.0, at_rest()));
    assert_eq!(
        press_and_click(&mut arming, 5000.0 + DELAY),
        Verdict::Confirm
    );
}

#[test]
fn a_press_made_before_arming_never_confirms() {
    let mut arming = painted();
    // Pressed during the delay, released after it: the whole gesture must come after arming.
    assert_eq!(
        arming.pointer_down(1400.0, true, at_rest()),
        Verdict::Ignored
    );
    assert_eq!(arming.click(1600.0, 1, at_rest()), Verdict::Ignored);
}

#[test]
fn a_press_elsewhere_does_not_carry_a_click_on_confirm() {
    let mut arming = painted();
    assert_eq!(arming.pointer_down(1600.0, false, at_rest()), Verdict::Pass);
    assert_eq!(arming.click(1650.0, 1, at_rest()), Verdict::Ignored);
}

#[test]
fn a_click_without_its_press_does_not_confirm() {
    let mut arming = painted();
    assert_eq!(arming.click(1600.0, 1, at_rest()), Verdict::Ignored);
}

#[test]
fn a_press_counts_for_one_click_only() {
    let mut arming = painted();
    assert_eq!(press_and_click(&mut arming, 1600.0), Verdict::Confirm);
    assert_eq!(arming.click(1700.0, 1, at_rest()), Verdict::Ignored);
}

#[test]
fn a_double_click_never_confirms() {
    let mut arming = painted();
    assert_eq!(arming.pointer_down(1600.0, true, at_rest()), Verdict::Pass);
    assert_eq!(arming.click(1650.0, 2, at_rest()), Verdict::Ignored);
    // And it started the delay again.
    assert!(!arming.armed(1700.0, at_rest()));
}

#[test]
fn an_ignored_input_starts_the_delay_again() {
    let mut arming = painted();
    assert_eq!(
        arming.key_down(1200.0, Key::Other, false, false, at_rest()),
        Verdict::Ignored
    );
    assert_eq!(arming.painted(1250.0, at_rest()), Some(1250.0 + DELAY));
    assert!(!arming.armed(1600.0, at_rest()));
    assert!(arming.armed(1750.0, at_rest()));
}

#[test]
fn typing_that_runs_into_the_card_keeps_it_disarmed() {
    let mut arming = Arming::new(DELAY);
    let mut t = 1000.0;
    arming.painted(t, at_rest());
    // A key every 100 ms for three seconds, Tab and Enter among them: each lands on a disarmed
    // card and starts the delay again, frames being painted all along.
    let keys = [Key::Other, Key::Tab, Key::Other, Key::Activate];
    for i in 0..30 {
        t += 100.0;
        arming.painted(t - 50.0, at_rest());
        let on_confirm = i % 4 == 3;
        let verdict = arming.key_down(t, keys[i % 4], false, on_confirm, at_rest());
        assert_ne!(verdict, Verdict::Confirm, "key {i} confirmed");
        if keys[i % 4] == Key::Tab {
            arming.focus_moved(t, true, at_rest());
        }
    }
}

#[test]
fn the_keyboard_confirms_after_focus_was_brought_to_confirm_in_the_armed_card() {
    let mut arming = painted();
    assert_eq!(
        arming.key_down(1600.0, Key::Tab, false, false, at_rest()),
        Verdict::Pass
    );
    arming.focus_moved(1600.0, true, at_rest());
    assert_eq!(
        arming.key_down(1700.0, Key::Activate, false, true, at_rest()),
        Verdict::Confirm
    );
}

#[test]
fn focus_on_confirm_that_the_armed_card_did_not_earn_does_not_confirm() {
    let mut arming = painted();
    // Focus was already on Confirm (moved there before arming, or by the page).
    assert_eq!(
        arming.key_down(1700.0, Key::Activate, false, true, at_rest()),
        Verdict::Ignored
    );
    // A Tab pressed while disarmed earns nothing either.
    let mut arming = painted();
    arming.focus_moved(1200.0, true, at_rest());
    assert_eq!(
        arming.key_down(1700.0, Key::Activate, false, true, at_rest()),
        Verdict::Ignored
    );
}

#[test]
fn a_repeated_key_never_confirms() {
    let mut arming = painted();
    arming.focus_moved(1600.0, true, at_rest());
    assert_eq!(
        arming.key_down(1700.0, Key::Activate, true, true, at_rest()),
        Verdict::Ignored
    );
}

#[test]
fn a_click_without_a_pointer_is_judged_as_a_key() {
    // Assistive technology activates a button with a click of detail 0.
    let mut arming = painted();
    assert_eq!(arming.click(1600.0, 0, at_rest()), Verdict::Ignored);
    let mut arming = painted();
    arming.focus_moved(1600.0, true, at_rest());
    assert_eq!(arming.click(1650.0, 0, at_rest()), Verdict::Confirm);
}

#[test]
fn a_press_on_confirm_in_the_armed_card_earns_focus() {
    let mut arming = painted();
    assert_eq!(arming.pointer_down(1600.0, true, at_rest()), Verdict::Pass);
    assert_eq!(
        arming.key_down(1700.0, Key::Activate, false, true, at_rest()),
        Verdict::Confirm
    );
}

#[test]
fn a_restart_forgets_the_press_and_the_focus() {
    let mut arming = painted();
    arming.pointer_down(1600.0, true, at_rest());
    arming.restart();
    arming.painted(1700.0, at_rest());
    assert_eq!(arming.click(2300.0, 1, at_rest()), Verdict::Ignored);
    let mut arming = painted();
    arming.focus_moved(1600.0, true, at_rest());
    arming.restart();
    arming.painted(1700.0, at_rest());
    assert_eq!(
        arming.key_down(2300.0, Key::Activate, false, true, at_rest()),
        Verdict::Ignored
    );
}

#[test]
fn a_hold_keeps_it_disarmed_and_its_end_counts_from_the_next_frame() {
    for hold in Hold::ALL {
        let mut arming = painted();
        arming.set_hold(hold, true);
        assert!(arming.holds(hold));
        assert!(!arming.armed(9000.0, at_rest()), "{hold:?}");
        assert_eq!(arming.painted(9000.0, at_rest()), None, "{hold:?}");
        arming.set_hold(hold, false);
        assert!(!arming.armed(9000.0, at_rest()), "{hold:?}");
        assert_eq!(arming.painted(9100.0, at_rest()), Some(9100.0 + DELAY));
        assert!(!hold.text().is_empty());
    }
}

#[test]
fn setting_a_hold_already_set_changes_nothing() {
    let mut arming = painted();
    arming.set_hold(Hold::Unread, false);
    assert!(arming.armed(1600.0, at_rest()));
}

#[test]
fn a_card_that_moved_is_not_armed() {
    let moved = [
        Geometry {
            window: (10.0, 0.0),
            ..at_rest()
        },
        Geometry {
            confirm: (300.0, 430.0, 96.0, 36.0),
            ..at_rest()
        },
        Geometry {
            card: (100.0, 100.0, 448.0, 390.0),
            ..at_rest()
        },
    ];
    for geometry in moved {
        let mut arming = painted();
        assert!(!arming.armed(1600.0, geometry));
        assert_eq!(
            arming.pointer_down(1600.0, true, geometry),
            Verdict::Ignored
        );
        let mut arming = painted();
        assert!(arming.moved(geometry));
        assert!(!arming.armed(1600.0, at_rest()));
        assert!(
            !arming.moved(geometry),
            "a waiting card has nothing to compare"
        );
    }
    let mut arming = painted();
    assert!(!arming.moved(at_rest()));
}

#[test]
fn a_negative_or_nan_delay_is_zero() {
    assert_eq!(Arming::new(-5.0).delay(), 0.0);
    assert_eq!(Arming::new(f64::NAN).delay(), 0.0);
}

/// One input of a generated sequence.
#[derive(Clone, Debug)]
enum Step {
    Paint,
    Restart,
    Hold(usize, bool),
    Press(bool),
    Click(i32),
    Key(u8, bool, bool),
    Tab(bool),
    Move,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        Just(Step::Paint),
        Just(Step::Restart),
        (0..4usize, any::<bool>()).prop_map(|(h, on)| Step::Hold(h, on)),
        any::<bool>().prop_map(Step::Press),
        (0..3i32).prop_map(Step::Click),
        (0..3u8, any::<bool>(), any::<bool>()).prop_map(|(k, r, c)| Step::Key(k, r, c)),
        any::<bool>().prop_map(Step::Tab),
        Just(Step::Move),
    ]
}

proptest! {
    /// Whatever a person or an agent does, in any order and at any pace: a confirm is always a
    /// single gesture whose every part came at least a full delay after a frame painted with
    /// nothing holding it and nothing changed since, and it starts with a press on Confirm or
    /// focus brought there while armed.
    #[test]
    fn every_confirm_comes_a_full_delay_after_a_clean_frame(
        steps in prop::collection::vec((step(), 0.0..400.0f64), 1..80)
    ) {
        let mut arming = Arming::new(DELAY);
        let mut t = 0.0;
        let mut geometry = at_rest();
        // Our own model of the rules: when the delay started (None while waiting for a frame)
        // and the holds.
        let mut from: Option<f64> = None;
        let mut holds = [false; 4];
        let mut press_at: Option<f64> = None;
        let mut focus_at: Option<f64> = None;
        for (step, dt) in steps {
            t += dt;
            let clear = !holds.iter().any(|&h| h);
            let armed_model = |from: Option<f64>, at: f64| clear && from.is_some_and(|f| at - f >= DELAY);
            match step {
                Step::Paint => {
                    if clear && from.is_none() { from = Some(t); }
                    arming.painted(t, geometry);
                }
                Step::Restart => { arming.restart(); from = None; press_at = None; focus_at = None; }
                Step::Hold(h, on) => {
                    let hold = Hold::ALL[h];
                    if holds[h] != on { from = None; press_at = None; focus_at = None; }
                    holds[h] = on;
                    arming.set_hold(hold, on);
                }
                Step::Press(on_confirm) => {
                    let ok = armed_model(from, t);
                    let v = arming.pointer_down(t, on_confirm, geometry);
                    prop_assert_eq!(v == Verdict::Ignored, !ok);
                    if ok { press_at = on_confirm.then_some(t); focus_at = on_confirm.then_some(t); }
                    else { from = None; press_at = None; focus_at = None; }
                }
                Step::Click(detail) => {
                    let v = arming.click(t, detail, geometry);
                    if v == Verdict::Confirm {
                        let start = from.expect("confirmed with no clean frame");
                        prop_assert!(clear && t - start >= DELAY);
                        match detail {
                            1 => prop_assert!(press_at.is_some_and(|p| p - start >= DELAY)),
                            0 => prop_assert!(focus_at.is_some_and(|f| f - start >= DELAY)),
                            _ => prop_assert!(false, "a double click confirmed"),
                        }
                    } else {
                        from = None; focus_at = None;
                    }
                    press_at = None;
                }
                Step::Key(k, repeat, on_confirm) => {
                    let key = [Key::Activate, Key::Tab, Key::Other][usize::from(k)];
                    let ok = armed_model(from, t);
                    let v = arming.key_down(t, key, repeat, on_confirm, geometry);
                    if v == Verdict::Confirm {
                        let start = from.expect("confirmed with no clean frame");
                        prop_assert!(ok && !repeat && on_confirm && key == Key::Activate);
                        prop_assert!(focus_at.is_some_and(|f| f - start >= DELAY));
                    }
                    if v == Verdict::Ignored { from = None; press_at = None; focus_at = None; }
                }
                Step::Tab(to_confirm) => {
                    let ok = armed_model(from, t);
                    arming.focus_moved(t, to_confirm, geometry);
                    focus_at = (to_confirm && ok).then_some(t);
                }
                Step::Move => {
                    geometry.confirm.1 += 1.0;
                    if arming.moved(geometry) || from.is_some() { from = None; press_at = None; focus_at = None; }
                }
            }
        }
    }
}
