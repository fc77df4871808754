#![cfg(target_arch = "wasm32")]
//! Browser tests of the hard confirmation card: structure, accessibility, lifecycle.
//!
//! A trusted click cannot be produced from inside the page, so the Confirm path that *does*
//! confirm is covered by the Playwright suite; here we show that everything the page (or an
//! agent) can synthesise does not confirm.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use coworkkit::core::card::{approver_notice, CardModel, Labels};
use coworkkit::web::card::{CardLayer, Decision};
use gloo_timers::future::TimeoutFuture;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{
    Element, Event, EventInit, HtmlButtonElement, HtmlElement, KeyboardEvent, KeyboardEventInit,
    MouseEvent, MouseEventInit, ShadowRoot,
};

wasm_bindgen_test_configure!(run_in_browser);

fn document() -> web_sys::Document {
    web_sys::window().unwrap().document().unwrap()
}

/// A fresh container in the page for each test.
fn container() -> Element {
    let div = document().create_element("div").unwrap();
    document().body().unwrap().append_child(&div).unwrap();
    div
}

fn model(summary: &str) -> CardModel {
    CardModel::new(
        "deleteProject",
        Some(summary.to_string()),
        "Deletes the project.",
        js_sys::Date::now() + 120_000.0,
    )
}

type Log = Rc<RefCell<Vec<Decision>>>;

/// The flag the instance raises while it performs an element action; down in these tests.
fn not_acting() -> Rc<Cell<bool>> {
    Rc::default()
}

fn recorder() -> (Log, Rc<dyn Fn(Decision)>) {
    let log: Log = Rc::default();
    let sink = log.clone();
    (log, Rc::new(move |d| sink.borrow_mut().push(d)))
}

/// A test's container, removed from the page when the test ends (after the layer, which is
/// declared after it and so dropped first).
struct Container(Element);

impl std::ops::Deref for Container {
    type Target = Element;
    fn deref(&self) -> &Element {
        &self.0
    }
}

impl Drop for Container {
    fn drop(&mut self) {
        self.0.remove();
    }
}

/// A layer in a fresh container showing `card` (Confirm arms after `arm_ms`), and the log of
/// the decisions it delivers.
fn shown_armed_after(card: CardModel, arm_ms: f64) -> (Container, CardLayer, Log) {
    let container = Container(container());
    let layer = CardLayer::new(&container, &Labels::default(), arm_ms, not_acting()).unwrap();
    let (log, on_decision) = recorder();
    layer.show(card, on_decision).unwrap();
    (container, layer, log)
}

/// [`shown_armed_after`] 500 ms.
fn shown(card: CardModel) -> (Container, CardLayer, Log) {
    shown_armed_after(card, 500.0)
}

fn part(root: &ShadowRoot, name: &str) -> Element {
    root.query_selector(&format!("[part={name}]"))
        .unwrap()
        .unwrap_or_else(|| panic!("no part {name}"))
}

fn button(root: &ShadowRoot, name: &str) -> HtmlButtonElement {
    part(root, name).unchecked_into()
}

fn text(element: &Element) -> String {
    element.text_content().unwrap_or_default()
}

fn is_hidden(element: &Element) -> bool {
    element.unchecked_ref::<HtmlElement>().hidden()
}

async fn settle() {
    TimeoutFuture::new(0).await;
}

#[wasm_bindgen_test]
fn host_is_appended_with_a_closed_shadow_root() {
    let container = container();
    let layer = CardLayer::new(&container, &Labels::default(), 500.0, not_acting()).unwrap();
    assert_eq!(container.child_element_count(), 1);
    let host = container.first_element_child().unwrap();
    assert_eq!(
        host.get_attribute("data-coworkkit").as_deref(),
        Some("card")
    );
    // `host.shadowRoot` from JS: null for a closed root.
    let from_js = js_sys::Reflect::get(&host, &"shadowRoot".into()).unwrap();
    assert!(from_js.is_null());
    let root = layer.shadow_root_for_tests();
    assert_eq!(root.mode(), web_sys::ShadowRootMode::Closed);
    assert_eq!(root.host(), host);
    // One stylesheet, adopted (a constructed sheet, which a strict CSP does not block); one
    // dialog.
    let sheets = js_sys::Reflect::get(&root, &"adoptedStyleSheets".into()).unwrap();
    assert_eq!(js_sys::Array::from(&sheets).length(), 1);
    assert_eq!(root.query_selector_all("style").unwrap().length(), 0);
    assert_eq!(root.query_selector_all("dialog").unwrap().length(), 1);
    assert!(!layer.is_open());
    drop(layer);
    container.remove();
}

#[wasm_bindgen_test]
fn shown_card_is_a_modal_alertdialog_with_parts() {
    let (_container, layer, _log) = shown(model("Delete p1 and its 12 tasks?"));
    let root = layer.shadow_root_for_tests();

    let dialog = part(&root, "card");
    assert_eq!(dialog.tag_name(), "DIALOG");
    assert_eq!(dialog.get_attribute("role").as_deref(), Some("alertdialog"));
    assert_eq!(dialog.get_attribute("aria-modal").as_deref(), Some("true"));
    assert!(dialog.has_attribute("open"));
    assert!(dialog.matches(":modal").unwrap());
    assert!(layer.is_open());

    let labelledby = dialog.get_attribute("aria-labelledby").unwrap();
    let title = root.get_element_by_id(&labelledby).unwrap();
    assert_eq!(title.get_attribute("part").as_deref(), Some("title"));
    assert_eq!(text(&title), "Delete project");
    let describedby = dialog.get_attribute("aria-describedby").unwrap();
    let summary = root.get_element_by_id(&describedby).unwrap();
    assert_eq!(summary.get_attribute("part").as_deref(), Some("summary"));
    assert_eq!(text(&summary), "Delete p1 and its 12 tasks?");

    let countdown = part(&root, "countdown");
    assert_eq!(countdown.get_attribute("aria-live").as_deref(), Some("off"));
    assert!(
        text(&countdown).starts_with("Expires in "),
        "{}",
        text(&countdown)
    );

    let cancel = button(&root, "cancel");
    let confirm = button(&root, "confirm");
    assert_eq!(cancel.type_(), "button");
    assert_eq!(confirm.type_(), "button");
    assert_eq!(text(&cancel), "Cancel");
    assert_eq!(text(&confirm), "Confirm");
    assert!(!confirm.disabled());
    // Alone: no "1 of N", no notice.
    assert!(is_hidden(&part(&root, "position")));
    assert!(is_hidden(&part(&root, "notice")));
}

#[wasm_bindgen_test]
fn summary_html_is_shown_as_text() {
    let evil = "<img src=x onerror=\"window.__ck_pwned=1\"><b>bold</b>";
    let (_container, layer, _log) = shown(model(evil));
    let root = layer.shadow_root_for_tests();
    let summary = part(&root, "summary");
    assert_eq!(text(&summary), evil);
    assert_eq!(summary.child_element_count(), 0);
    assert!(root.query_selector("img").unwrap().is_none());
    assert!(root.query_selector("b").unwrap().is_none());
}

#[wasm_bindgen_test]
fn initial_focus_is_on_cancel() {
    let (_container, layer, _log) = shown(model("s"));
    let root = layer.shadow_root_for_tests();
    let cancel: Element = button(&root, "cancel").into();
    assert_eq!(root.active_element(), Some(cancel));
}

#[wasm_bindgen_test]
async fn synthetic_confirm_clicks_do_nothing() {
    let (_container, layer, log) = shown_armed_after(model("s"), 50.0);
    let root = layer.shadow_root_for_tests();
    let confirm = button(&root, "confirm");
    assert_eq!(
        confirm.get_attribute("data-armed").as_deref(),
        Some("false")
    );

    // Early, and after the arm delay: element.click() and dispatchEvent are untrusted.
    confirm.click();
    // Armed a frame or two after the delay (SPEC §4.2: from a painted frame).
    for _ in 0..100 {
        if confirm.get_attribute("data-armed").as_deref() == Some("true") {
            break;
        }
        TimeoutFuture::new(30).await;
    }
    assert_eq!(confirm.get_attribute("data-armed").as_deref(), Some("true"));
    // On the armed card, first the whole gesture a script can make: a press then a single click
    // (SPEC §4.2's pointer shape, untrusted); then element.click() and a dispatched click; then
    // focus moved to Confirm by Tab, and Enter and Space on it. None confirms, and none delays
    // the card either: an untrusted event is no input at all, so Confirm stays armed.
    let press = Event::new_with_event_init_dict("pointerdown", &{
        let init = EventInit::new();
        init.set_bubbles(true);
        init
    })
    .unwrap();
    confirm.dispatch_event(&press).unwrap();
    let single = MouseEventInit::new();
    single.set_bubbles(true);
    single.set_detail(1);
    let click = MouseEvent::new_with_mouse_event_init_dict("click", &single).unwrap();
    confirm.dispatch_event(&click).unwrap();
    settle().await;
    assert!(log.borrow().is_empty(), "a script's press and click");
    confirm.click();
    let init = MouseEventInit::new();
    init.set_bubbles(true);
    init.set_cancelable(true);
    let click = MouseEvent::new_with_mouse_event_init_dict("click", &init).unwrap();
    confirm.dispatch_event(&click).unwrap();
    press_tab(button(&root, "cancel").unchecked_ref(), false);
    for key in ["Enter", " "] {
        let init = KeyboardEventInit::new();
        init.set_key(key);
        init.set_bubbles(true);
        init.set_cancelable(true);
        let event = KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap();
        confirm.dispatch_event(&event).unwrap();
    }
    settle().await;
    assert!(log.borrow().is_empty());
    assert!(layer.is_open());
    assert_eq!(
        confirm.get_attribute("data-armed").as_deref(),
        Some("true"),
        "untrusted events delayed the card"
    );

    // The card is still undecided: Cancel still works.
    button(&root, "cancel").click();
    settle().await;
    assert_eq!(*log.borrow(), vec![Decision::Cancel { reason: None }]);
}

/// A delay past what the browser's timer takes (2³¹ − 1 ms) keeps Confirm unarmed: it is not
/// read as 0.
#[wasm_bindgen_test]
async fn a_huge_arm_delay_does_not_arm_at_once() {
    let (_container, layer, _log) = shown_armed_after(model("s"), 3.0e9);
    let confirm = button(&layer.shadow_root_for_tests(), "confirm");
    TimeoutFuture::new(50).await;
    assert_eq!(
        confirm.get_attribute("data-armed").as_deref(),
        Some("false")
    );
}

#[wasm_bindgen_test]
async fn cancel_click_cancels_once() {
    let (_container, layer, log) = shown(model("s"));
    let cancel = button(&layer.shadow_root_for_tests(), "cancel");
    // Any click on Cancel counts (cancelling is always safe), delivered in a microtask.
    cancel.click();
    assert!(
        log.borrow().is_empty(),
        "decisions are delivered after the listener returns"
    );
    cancel.click();
    settle().await;
    assert_eq!(*log.borrow(), vec![Decision::Cancel { reason: None }]);
}

#[wasm_bindgen_test]
async fn escape_cancels_and_keeps_the_dialog_for_the_caller() {
    let (_container, layer, log) = shown(model("s"));
    let dialog = part(&layer.shadow_root_for_tests(), "card");
    // What the browser fires for Escape: a cancelable `cancel` event on the dialog.
    let init = EventInit::new();
    init.set_cancelable(true);
    let cancel = Event::new_with_event_init_dict("cancel", &init).unwrap();
    dialog.dispatch_event(&cancel).unwrap();
    assert!(cancel.default_prevented());
    settle().await;
    assert_eq!(*log.borrow(), vec![Decision::Cancel { reason: None }]);
    assert!(layer.is_open(), "the caller closes or shows the next card");
}

#[wasm_bindgen_test]
async fn dialog_closed_by_anything_else_cancels() {
    let (_container, layer, log) = shown(model("s"));
    let dialog: web_sys::HtmlDialogElement =
        part(&layer.shadow_root_for_tests(), "card").unchecked_into();
    dialog.close();
    TimeoutFuture::new(20).await;
    assert_eq!(*log.borrow(), vec![Decision::Cancel { reason: None }]);
}

#[wasm_bindgen_test]
async fn close_delivers_no_decision_and_returns_focus() {
    let container = container();
    let before: HtmlElement = document()
        .create_element("button")
        .unwrap()
        .unchecked_into();
    container.append_child(&before).unwrap();
    before.focus().unwrap();
    let before_element: &Element = &before;
    assert_eq!(document().active_element().as_ref(), Some(before_element));

    let layer = CardLayer::new(&container, &Labels::default(), 500.0, not_acting()).unwrap();
    let (log, on_decision) = recorder();
    layer.show(model("s"), on_decision).unwrap();
    let root = layer.shadow_root_for_tests();
    assert_ne!(document().active_element().as_ref(), Some(before_element));

    // A Cancel already queued is dropped by close(); the dialog's own `close` event is not
    // mistaken for a decision either.
    button(&root, "cancel").click();
    layer.close();
    assert!(!layer.is_open());
    assert_eq!(document().active_element().as_ref(), Some(before_element));
    TimeoutFuture::new(20).await;
    assert!(log.borrow().is_empty());
    drop(layer);
    container.remove();
}

#[wasm_bindgen_test]
async fn position_shows_and_updates() {
    let mut card = model("s");
    card.position = 1;
    card.total = 3;
    let (_container, layer, _log) = shown(card);
    let position = part(&layer.shadow_root_for_tests(), "position");
    assert!(!is_hidden(&position));
    assert_eq!(text(&position), "1 of 3");
    layer.update_position(1, 2);
    assert_eq!(text(&position), "1 of 2");
    layer.update_position(1, 1);
    assert!(is_hidden(&position));
}

#[wasm_bindgen_test]
fn confirm_disabled_with_notice_when_not_allowed() {
    let card = model("s").restrict_to(&["admin".to_string()]);
    let (_container, layer, _log) = shown(card);
    let root = layer.shadow_root_for_tests();
    assert!(button(&root, "confirm").disabled());
    let notice = part(&root, "notice");
    assert!(!is_hidden(&notice));
    assert_eq!(text(&notice), approver_notice(&["admin".to_string()]));
    assert_eq!(text(&notice), "Only admin can confirm this.");
    let describedby = part(&root, "card")
        .get_attribute("aria-describedby")
        .unwrap();
    assert!(describedby.split(' ').any(|id| id == notice.id()));

    // Showing an allowed card next clears both.
    let (_log, on_decision) = recorder();
    layer.show(model("t"), on_decision).unwrap();
    assert!(!button(&root, "confirm").disabled());
    assert!(is_hidden(&notice));
}

fn press_tab(target: &Element, shift: bool) -> KeyboardEvent {
    let init = KeyboardEventInit::new();
    init.set_key("Tab");
    init.set_shift_key(shift);
    init.set_bubbles(true);
    init.set_cancelable(true);
    let event = KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap();
    target.dispatch_event(&event).unwrap();
    event
}

#[wasm_bindgen_test]
fn tab_stays_inside_the_card() {
    let (_container, layer, _log) = shown(model("s"));
    let root = layer.shadow_root_for_tests();
    let cancel: Element = button(&root, "cancel").into();
    let confirm: Element = button(&root, "confirm").into();
    let reason = part(&root, "reason");

    // Forward: Cancel → Confirm → the reason field → Cancel; backward the other way.
    assert!(press_tab(&cancel, false).default_prevented());
    assert_eq!(root.active_element().as_ref(), Some(&confirm));
    press_tab(&confirm, false);
    assert_eq!(root.active_element().as_ref(), Some(&reason));
    press_tab(&reason, false);
    assert_eq!(root.active_element().as_ref(), Some(&cancel));
    press_tab(&cancel, true);
    assert_eq!(root.active_element().as_ref(), Some(&reason));
    press_tab(&reason, true);
    assert_eq!(root.active_element().as_ref(), Some(&confirm));
    press_tab(&confirm, true);
    assert_eq!(root.active_element().as_ref(), Some(&cancel));

    // With Confirm disabled, the field and Cancel are the stops.
    let (_log, on_decision) = recorder();
    layer
        .show(model("s").restrict_to(&["owner".to_string()]), on_decision)
        .unwrap();
    press_tab(&cancel, false);
    assert_eq!(root.active_element().as_ref(), Some(&reason));
    press_tab(&reason, false);
    assert_eq!(root.active_element().as_ref(), Some(&cancel));
    press_tab(&cancel, true);
    assert_eq!(root.active_element().as_ref(), Some(&reason));

    // With "Cancel all" shown, it comes between the field and Cancel.
    layer.update_position(1, 3);
    let all: Element = button(&root, "cancel-all").into();
    press_tab(&reason, false);
    assert_eq!(root.active_element().as_ref(), Some(&all));
    press_tab(&all, false);
    assert_eq!(root.active_element().as_ref(), Some(&cancel));
}

fn type_reason(root: &ShadowRoot, text: &str) -> web_sys::HtmlInputElement {
    let field: web_sys::HtmlInputElement = part(root, "reason").unchecked_into();
    field.set_value(text);
    field
}

#[wasm_bindgen_test]
fn the_reason_field_is_labelled_bounded_and_empty_for_every_card() {
    let (_container, layer, _log) = shown(model("s"));
    let root = layer.shadow_root_for_tests();
    let label = part(&root, "reason-label");
    assert_eq!(label.tag_name(), "LABEL");
    assert!(text(&label).starts_with("Tell the assistant why (optional)"));
    let field = type_reason(&root, "not this one");
    assert_eq!(field.type_(), "text");
    assert_eq!(field.max_length(), 200);
    assert_eq!(field.closest("label").unwrap().as_ref(), Some(&label));
    // The next card starts empty: words typed for one card never go with another.
    let (_log, on_decision) = recorder();
    layer.show(model("t"), on_decision).unwrap();
    assert_eq!(field.value(), "");
    // Initial focus stays on Cancel.
    assert_eq!(
        root.active_element().and_then(|e| e.get_attribute("part")),
        Some("cancel".into())
    );
}

#[wasm_bindgen_test]
async fn an_untrusted_cancel_carries_no_reason() {
    let (_container, layer, log) = shown(model("s"));
    let root = layer.shadow_root_for_tests();
    type_reason(&root, "words the page put there");
    // Script can cancel (cancelling is always safe), but its click speaks for no one.
    button(&root, "cancel").click();
    settle().await;
    assert_eq!(*log.borrow(), vec![Decision::Cancel { reason: None }]);
}

#[wasm_bindgen_test]
async fn enter_in_the_reason_field_is_a_cancel_never_a_confirm() {
    let (_container, layer, log) = shown_armed_after(model("s"), 0.0);
    let root = layer.shadow_root_for_tests();
    let field = type_reason(&root, "because");
    field.focus().unwrap();
    let init = KeyboardEventInit::new();
    init.set_key("Enter");
    init.set_bubbles(true);
    init.set_cancelable(true);
    let enter = KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap();
    field.dispatch_event(&enter).unwrap();
    settle().await;
    // Untrusted here (a script's key), so no words; a person's Enter carries them (e2e).
    assert_eq!(*log.borrow(), vec![Decision::Cancel { reason: None }]);
}

#[wasm_bindgen_test]
async fn cancel_all_shows_only_while_several_wait_and_counts_only_a_trusted_click() {
    let (_container, layer, log) = shown(model("s"));
    let root = layer.shadow_root_for_tests();
    let all = button(&root, "cancel-all");
    assert!(is_hidden(&all), "one card: Cancel alone");
    layer.update_position(1, 3);
    assert!(!is_hidden(&all));
    assert_eq!(text(&all), "Cancel all 3");
    layer.update_position(1, 2);
    assert_eq!(text(&all), "Cancel all 2");
    // No "Confirm all" anywhere.
    let everything = text(&part(&root, "card"));
    assert!(!everything.contains("Confirm all"), "{everything}");
    assert_eq!(root.query_selector_all("button").unwrap().length(), 3);
    // A script's click on it does nothing; the card stays undecided.
    all.click();
    settle().await;
    assert!(log.borrow().is_empty());
    layer.update_position(1, 1);
    assert!(is_hidden(&all));
}

#[wasm_bindgen_test]
async fn the_reason_label_and_cancel_all_words_are_the_apps() {
    let container = Container(container());
    let labels = Labels {
        reason: "Dites pourquoi".into(),
        cancel_all: "Tout annuler".into(),
        ..Labels::default()
    };
    let layer = CardLayer::new(&container, &labels, 500.0, not_acting()).unwrap();
    let (_log, on_decision) = recorder();
    layer.show(model("s"), on_decision).unwrap();
    layer.update_position(1, 4);
    let root = layer.shadow_root_for_tests();
    assert_eq!(text(&part(&root, "reason-label")), "Dites pourquoi");
    assert_eq!(text(&part(&root, "cancel-all")), "Tout annuler 4");
}

#[wasm_bindgen_test]
async fn countdown_ticks_every_second() {
    let mut card = model("s");
    card.expires_at = js_sys::Date::now() + 2_500.0;
    let (_container, layer, _log) = shown(card);
    let countdown = part(&layer.shadow_root_for_tests(), "countdown");
    assert_eq!(text(&countdown), "Expires in 0:03");
    TimeoutFuture::new(1_100).await;
    assert_eq!(text(&countdown), "Expires in 0:02");
    TimeoutFuture::new(2_000).await;
    assert_eq!(text(&countdown), "Expired");
}

#[wasm_bindgen_test]
async fn a_decision_for_one_card_never_lands_on_the_next() {
    let container = container();
    let layer = CardLayer::new(&container, &Labels::default(), 500.0, not_acting()).unwrap();
    let (log_a, on_a) = recorder();
    layer.show(model("a"), on_a).unwrap();
    let root = layer.shadow_root_for_tests();
    button(&root, "cancel").click();
    // Card B replaces A before A's decision is delivered.
    let (log_b, on_b) = recorder();
    layer.show(model("b"), on_b).unwrap();
    settle().await;
    assert!(log_a.borrow().is_empty());
    assert!(log_b.borrow().is_empty());
    assert_eq!(text(&part(&root, "summary")), "b");
    // B is live.
    button(&root, "cancel").click();
    settle().await;
    assert_eq!(*log_b.borrow(), vec![Decision::Cancel { reason: None }]);
    drop(layer);
    container.remove();
}

#[wasm_bindgen_test]
async fn on_decision_may_show_the_next_card_or_drop_the_layer() {
    let container = container();
    let slot: Rc<RefCell<Option<CardLayer>>> = Rc::new(RefCell::new(Some(
        CardLayer::new(&container, &Labels::default(), 500.0, not_acting()).unwrap(),
    )));
    let decisions: Log = Rc::default();

    // First decision shows the next card from inside the callback; the second drops the layer.
    let on_second: Rc<dyn Fn(Decision)> = {
        let (slot, decisions) = (slot.clone(), decisions.clone());
        Rc::new(move |d| {
            decisions.borrow_mut().push(d);
            slot.borrow_mut().take();
        })
    };
    let on_first: Rc<dyn Fn(Decision)> = {
        let (slot, decisions) = (slot.clone(), decisions.clone());
        Rc::new(move |d| {
            decisions.borrow_mut().push(d);
            let mut layer = slot.borrow_mut();
            let layer = layer.as_mut().unwrap();
            layer.close();
            layer.show(model("second"), on_second.clone()).unwrap();
        })
    };
    slot.borrow_mut()
        .as_mut()
        .unwrap()
        .show(model("first"), on_first)
        .unwrap();
    let root = slot.borrow().as_ref().unwrap().shadow_root_for_tests();

    button(&root, "cancel").click();
    settle().await;
    assert_eq!(text(&part(&root, "summary")), "second");
    assert!(slot.borrow().as_ref().unwrap().is_open());

    button(&root, "cancel").click();
    settle().await;
    assert!(slot.borrow().is_none());
    assert_eq!(container.child_element_count(), 0, "drop removes the host");
    assert_eq!(
        *decisions.borrow(),
        vec![
            Decision::Cancel { reason: None },
            Decision::Cancel { reason: None }
        ]
    );
    container.remove();
}

#[wasm_bindgen_test]
fn drop_removes_the_host() {
    let (container, layer, _log) = shown(model("s"));
    let host = container.first_element_child().unwrap();
    drop(layer);
    assert_eq!(container.child_element_count(), 0);
    assert!(!host.is_connected());
    container.remove();
}

#[wasm_bindgen_test]
fn show_fails_cleanly_when_the_container_is_detached() {
    let detached = document().create_element("div").unwrap();
    let layer = CardLayer::new(&detached, &Labels::default(), 500.0, not_acting()).unwrap();
    let (_log, on_decision) = recorder();
    assert!(layer.show(model("s"), on_decision).is_err());
    assert!(!layer.is_open());
}
