#![cfg(not(target_arch = "wasm32"))]
//! Control levels and their resolution (SPEC §1).

use coworkkit::core::control::{reads_destructive, resolve_control, Control, ControlSource};

#[test]
fn destructive_name_table() {
    let table: &[(&str, bool)] = &[
        ("deleteProject", true),
        ("DELETE_all", true),
        ("user.remove2", true),
        ("HTMLDropZone", true), // html, drop, zone
        ("purge-cache", true),
        ("destroy", true),
        ("Erase", true),
        ("wipeDisk", true),
        ("truncateTable", true),
        ("revokeToken", true),
        ("resetPassword", true),
        ("clearAll", true),
        ("terminateVm", true),
        ("kill9", true),
        ("unlinkFile", true),
        ("uninstallApp", true),
        ("overwriteFile", true),
        ("discardDraft", true),
        ("cancelOrder", true),
        ("order2cancel", true),
        ("XMLReset", true),
        ("getDELETEStatus", true), // get, delete, status
        ("readProject", false),
        ("listFiles", false),
        ("deleted", false),  // one word, not "delete"
        ("undelete", false), // one word
        ("dropdownOpen", false),
        ("removal", false),
        ("cancellation", false),
        ("clearance", false),
        ("HTMLDropzone", false), // html, dropzone
        ("archive", false),
        ("", false),
        ("a", false),
    ];
    for (name, expected) in table {
        assert_eq!(reads_destructive(name), *expected, "{name}");
    }
}

#[test]
fn declared_control_always_wins() {
    assert_eq!(
        resolve_control(Some(Control::Open), "deleteProject", Control::Hard),
        (Control::Open, ControlSource::Declared)
    );
    assert_eq!(
        resolve_control(Some(Control::Hard), "read", Control::Open),
        (Control::Hard, ControlSource::Declared)
    );
}

#[test]
fn destructive_name_is_the_stricter_of_soft_and_default() {
    assert_eq!(
        resolve_control(None, "deleteProject", Control::Open),
        (Control::Soft, ControlSource::DestructiveName)
    );
    assert_eq!(
        resolve_control(None, "deleteProject", Control::Soft),
        (Control::Soft, ControlSource::DestructiveName)
    );
    assert_eq!(
        resolve_control(None, "deleteProject", Control::Hard),
        (Control::Hard, ControlSource::DestructiveName)
    );
}

#[test]
fn default_control_applies_otherwise() {
    assert_eq!(
        resolve_control(None, "readProject", Control::Soft),
        (Control::Soft, ControlSource::Default)
    );
    assert_eq!(
        resolve_control(None, "readProject", Control::Open),
        (Control::Open, ControlSource::Default)
    );
}

#[test]
fn control_names_round_trip_and_stricter_is_max() {
    for c in [Control::Open, Control::Soft, Control::Hard] {
        assert_eq!(Control::parse(c.as_str()), Some(c));
    }
    assert_eq!(Control::parse("Hard"), None);
    assert_eq!(Control::parse(""), None);
    assert!(Control::Open < Control::Soft && Control::Soft < Control::Hard);
    assert_eq!(ControlSource::DestructiveName.as_str(), "destructive_name");
    assert_eq!(ControlSource::Declared.as_str(), "declared");
    assert_eq!(ControlSource::Default.as_str(), "default");
}
