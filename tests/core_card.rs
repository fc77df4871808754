#![cfg(not(target_arch = "wasm32"))]
//! Host tests of the card's plain model: every string the card shows.

use coworkkit::core::card::{
    approver_notice, cancel_all_text, countdown_text, position_text, reason_text, summary_text,
    title_from_name, CardModel, Labels, REASON_MAX_CHARS, SUMMARY_MAX_CHARS,
};
use proptest::prelude::*;

#[test]
fn titles_read_like_words() {
    assert_eq!(title_from_name("deleteProject"), "Delete project");
    assert_eq!(title_from_name("purge_cache-v2"), "Purge cache v2");
    assert_eq!(title_from_name("purgeCacheV2"), "Purge cache v2");
    assert_eq!(title_from_name("exportCSVFile"), "Export CSV file");
    assert_eq!(title_from_name("getUserID"), "Get user ID");
    assert_eq!(title_from_name("DeleteAll"), "Delete all");
    assert_eq!(title_from_name("wipe.all__now"), "Wipe all now");
    assert_eq!(title_from_name("v2Cache"), "V2 cache");
    assert_eq!(title_from_name("x"), "X");
    assert_eq!(title_from_name("A"), "A");
    assert_eq!(title_from_name(""), "");
    assert_eq!(title_from_name("--"), "");
    // Other characters pass through unchanged and never split a word.
    assert_eq!(title_from_name("éditerProjet"), "éditer projet");
    assert_eq!(title_from_name("ÉTAT_Δx"), "ÉTAT Δx");
}

#[test]
fn summary_falls_back_to_description() {
    assert_eq!(summary_text(None, "Deletes it."), "Deletes it.");
    assert_eq!(
        summary_text(Some(String::new()), "Deletes it."),
        "Deletes it."
    );
    assert_eq!(
        summary_text(Some("  \n ".into()), "Deletes it."),
        "Deletes it."
    );
    assert_eq!(
        summary_text(Some("Delete p1?".into()), "Deletes it."),
        "Delete p1?"
    );
}

#[test]
fn summary_is_capped_in_chars_not_bytes() {
    let exact = "é".repeat(SUMMARY_MAX_CHARS);
    assert_eq!(summary_text(Some(exact.clone()), ""), exact);

    let long = "é".repeat(SUMMARY_MAX_CHARS + 1);
    let shown = summary_text(Some(long), "");
    assert_eq!(shown.chars().count(), SUMMARY_MAX_CHARS);
    assert!(shown.ends_with('…'));
    assert!(shown.starts_with("éé"));

    let long_description = "a".repeat(2000);
    assert_eq!(
        summary_text(None, &long_description).chars().count(),
        SUMMARY_MAX_CHARS
    );
}

#[test]
fn summary_drops_characters_that_disguise_text() {
    // An agent-chosen argument with a right-to-left override would display reversed.
    let spoof = "Delete \u{202E}gpj.exe\u{202C} now?\u{200B}\u{2066}x\u{2069}\u{0007}";
    assert_eq!(summary_text(Some(spoof.into()), ""), "Delete gpj.exe now?x");
    // Newlines stay: they are visible layout (a tab is a space, and a line's leading spaces
    // go: see summary_collapses_blank_lines_and_spaces).
    assert_eq!(summary_text(Some("a\n\tb".into()), ""), "a\nb");
    // HTML is just text here; the renderer uses textContent.
    assert_eq!(
        summary_text(Some("<img src=x onerror=alert(1)>".into()), ""),
        "<img src=x onerror=alert(1)>"
    );
}

#[test]
fn countdown_rounds_seconds_up() {
    assert_eq!(countdown_text(120_000.0), "Expires in 2:00");
    assert_eq!(countdown_text(119_000.0), "Expires in 1:59");
    assert_eq!(countdown_text(118_001.0), "Expires in 1:59");
    assert_eq!(countdown_text(5_000.0), "Expires in 0:05");
    assert_eq!(countdown_text(1.0), "Expires in 0:01");
    assert_eq!(countdown_text(600_000.0), "Expires in 10:00");
    assert_eq!(countdown_text(3_723_000.0), "Expires in 1:02:03");
    assert_eq!(countdown_text(0.0), "Expired");
    assert_eq!(countdown_text(-5.0), "Expired");
    assert_eq!(countdown_text(f64::NAN), "Expired");
    assert!(countdown_text(f64::INFINITY).starts_with("Expires in "));
}

#[test]
fn position_only_when_more_wait() {
    assert_eq!(position_text(1, 0), None);
    assert_eq!(position_text(1, 1), None);
    assert_eq!(position_text(1, 3).as_deref(), Some("1 of 3"));
    assert_eq!(position_text(12, 100).as_deref(), Some("12 of 100"));
}

#[test]
fn approver_notice_names_the_roles() {
    let roles = |r: &[&str]| r.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        approver_notice(&roles(&["admin"])),
        "Only admin can confirm this."
    );
    assert_eq!(
        approver_notice(&roles(&["admin", "owner"])),
        "Only admin or owner can confirm this."
    );
    assert_eq!(
        approver_notice(&roles(&["admin", "owner", "editor"])),
        "Only admin, owner or editor can confirm this."
    );
    assert_eq!(approver_notice(&[]), "No one can confirm this.");
}

#[test]
fn model_constructor_and_restriction() {
    let model = CardModel::new("deleteProject", None, "Deletes the project.", 1e12);
    assert_eq!(model.title, "Delete project");
    assert_eq!(model.summary, "Deletes the project.");
    assert_eq!((model.position, model.total), (1, 1));
    assert!(model.confirm_allowed);
    assert_eq!(model.notice, None);
    assert_eq!(Labels::default().confirm, "Confirm");
    assert_eq!(Labels::default().cancel, "Cancel");

    let restricted = model.restrict_to(&["admin".to_string()]);
    assert!(!restricted.confirm_allowed);
    assert_eq!(
        restricted.notice.as_deref(),
        Some("Only admin can confirm this.")
    );
}

proptest! {
    #[test]
    fn summary_never_exceeds_the_cap(s in ".{0,700}", d in ".{0,700}") {
        let shown = summary_text(Some(s), &d);
        prop_assert!(shown.chars().count() <= SUMMARY_MAX_CHARS);
        let overrides = '\u{202A}'..='\u{202E}';
        prop_assert!(!shown.chars().any(|c| overrides.contains(&c)));
    }

    #[test]
    fn titles_never_panic_and_keep_letters(name in "[A-Za-z][A-Za-z0-9_-]{0,63}") {
        let title = title_from_name(&name);
        let letters = |s: &str| s.chars().filter(|c| c.is_alphanumeric()).count();
        prop_assert_eq!(letters(&title), letters(&name));
    }

    #[test]
    fn countdown_is_total(ms in proptest::num::f64::ANY) {
        let text = countdown_text(ms);
        prop_assert!(text == "Expired" || text.starts_with("Expires in "));
    }
}

#[test]
fn a_reason_is_one_clean_line() {
    assert_eq!(reason_text("Not now"), Some("Not now".into()));
    assert_eq!(
        reason_text("  It has\n\tclient   work\r\nin it  "),
        Some("It has client work in it".into())
    );
    // Bidi overrides, zero-width and other invisible characters go, as from the summary.
    assert_eq!(
        reason_text("evil\u{202E}txt.exe \u{200B}\u{2066}ok\u{FEFF}"),
        Some("eviltxt.exe ok".into())
    );
    assert_eq!(reason_text("a\u{0}b\u{7}c"), Some("a b c".into()));
    // Blank is none.
    for blank in ["", "   ", "\n\t", "\u{200B}\u{202E}", " \u{FEFF} "] {
        assert_eq!(reason_text(blank), None, "{blank:?}");
    }
}

#[test]
fn a_reason_is_capped_in_characters_with_an_ellipsis() {
    let exact = "é".repeat(REASON_MAX_CHARS);
    assert_eq!(reason_text(&exact), Some(exact.clone()));
    let cut = reason_text(&format!("{exact}z")).unwrap();
    assert_eq!(cut.chars().count(), REASON_MAX_CHARS);
    assert!(cut.ends_with("é…"));
    // A cut that falls after a space drops the space.
    let words = format!("{} {}", "a".repeat(REASON_MAX_CHARS - 1), "b".repeat(10));
    let cut = reason_text(&words).unwrap();
    assert_eq!(cut, format!("{}…", "a".repeat(REASON_MAX_CHARS - 1)));
    // A huge input is read no further than the cap needs.
    let huge = "x".repeat(50_000_000);
    let started = std::time::Instant::now();
    assert_eq!(
        reason_text(&huge).unwrap().chars().count(),
        REASON_MAX_CHARS
    );
    assert!(started.elapsed().as_millis() < 500);
}

#[test]
fn cancel_all_reads_its_count_only_when_several_wait() {
    let label = Labels::default().cancel_all;
    assert_eq!(cancel_all_text(&label, 0), None);
    assert_eq!(cancel_all_text(&label, 1), None);
    assert_eq!(cancel_all_text(&label, 2).as_deref(), Some("Cancel all 2"));
    assert_eq!(
        cancel_all_text(&label, 16).as_deref(),
        Some("Cancel all 16")
    );
    assert_eq!(
        cancel_all_text("Alle abbrechen", 3).as_deref(),
        Some("Alle abbrechen 3")
    );
    assert_eq!(
        Labels::default().reason,
        "Tell the assistant why (optional)"
    );
}

proptest! {
    #[test]
    fn a_reason_never_holds_a_line_break_a_disguising_character_or_too_much(raw in ".{0,400}") {
        if let Some(r) = reason_text(&raw) {
            prop_assert!(r.chars().count() <= REASON_MAX_CHARS);
            prop_assert!(!r.chars().any(|c| c.is_control()));
            let disguising = |c: char| matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{206F}' | '\u{FEFF}' | '\u{061C}');
            prop_assert!(!r.chars().any(disguising), "a disguising character in {:?}", r);
            prop_assert_eq!(r.trim(), r.as_str());
            prop_assert!(!r.contains("  "));
        }
    }
}

#[test]
fn summary_collapses_blank_lines_and_spaces() {
    // An argument cannot push the app's own words out of sight (SPEC §4.2).
    let pushed = format!("Delete p1{} and all its tasks?", "\n".repeat(200));
    assert_eq!(
        summary_text(Some(pushed), "d"),
        "Delete p1\n\nand all its tasks?"
    );
    let spaced = format!("Delete{}p1", " ".repeat(300));
    assert_eq!(summary_text(Some(spaced), "d"), "Delete p1");
    assert_eq!(
        summary_text(Some("  a \t b  \n  \n \t\n  c  \n\n".into()), "d"),
        "a b\n\nc"
    );
    // One line break stays one; tabs are spaces; a blank line made of spaces is blank.
    assert_eq!(summary_text(Some("a\nb\t\tc".into()), "d"), "a\nb c");
    // Invisible characters are removed before the runs are counted.
    assert_eq!(
        summary_text(Some("a\n\u{200B}\n\u{200B}\nb".into()), "d"),
        "a\n\nb"
    );
    // The cap counts what is left after collapsing.
    let long = format!("{}{}", "\n".repeat(1000), "x".repeat(400));
    assert_eq!(summary_text(Some(long), "d"), "x".repeat(400));
}
