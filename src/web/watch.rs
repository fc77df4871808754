//! The Watch panel (SPEC §6): a live timeline of the instance's action records.
//!
//! `mountWatchPanel(element?)` draws `<coworkkit-watch data-coworkkit="watch">` into `element`
//! (default: the `container` option, else `document.body`) with a closed shadow root. The rows
//! and their text come from the plain [`WatchModel`]; this module only turns it into DOM, every
//! string through `textContent`. Each record delivered to `onActionRecord` is also pushed, at the
//! same moment, to every mounted panel (a panel starts empty: the SDK stores no records).
//!
//! - Rows, newest first: time, action, control badge, gate badge, the door (`invoke`,
//!   `tool_call` or `webmcp`), outcome, duration, and the arguments in a `<details>`. The last [`WATCH_ROWS_MAX`] rows are kept; older ones leave
//!   the page.
//! - Filter buttons (All and one per gate, `aria-pressed`), each with the count of records of
//!   that gate since the panel was mounted.
//! - "Copy JSON Lines" writes the kept rows that pass the filter, oldest first, one
//!   `JSON.stringify(record)` per line, to `navigator.clipboard` when it is available; the
//!   handle's `jsonLines()` returns the same text. A record that `JSON.stringify` cannot
//!   serialize (a `BigInt` or cyclic `run` result) is written as `null`.
//! - A row's record may carry the person's words for a "no" (`note`, shown quoted) and the
//!   grant a soft call fired on (`grant`, SPEC §12).
//! - Above the timeline, while any live, the grants (SPEC §12): each one's action, match (the
//!   JSON the app gave, or "any arguments"), uses and expiry ([`GrantRow`]), and a Revoke button
//!   that ends it (any click: ending a permission is always safe).
//!
//! Theming: the card's custom properties (`--ck-bg`, `--ck-fg`, `--ck-muted`, `--ck-accent`,
//! `--ck-radius`, `--ck-font`) and `--ck-watch-height` (default `24rem`). Parts: `panel`,
//! `heading`, `copy`, `filters`, `filter`, `count`, `rows`, `row`, `time`, `action`,
//! `chip control` (with `data-control`), `chip gate` (with `data-gate`), `via` (the door the
//! call came through, with `data-via`), `outcome`, `duration`, `note`, `grant`, `args`; for the
//! grants, `grants`, `grant-row` (with `data-grant`, its id), `grant-action`, `grant-match`,
//! `grant-uses`, `grant-until`, `revoke`.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use js_sys::JSON;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::Element;

use super::convert::get;
use super::dom::{el, set_hidden, shadow_host};
use super::js;
use super::listener::EventListener;
use crate::core::record::{ActionRecord, Gate};
use crate::core::watch::{lines, GrantRow, WatchModel, WatchRow, RECORD_GATES, WATCH_ROWS_MAX};

const CSS: &str = concat!(
    ":host{all:initial;display:block}",
    "section{--bg:var(--ck-bg,#fff);--fg:var(--ck-fg,#1d1d1f);--mu:var(--ck-muted,#6e6e73);",
    "--ac:var(--ck-accent,#d70015);--r:var(--ck-radius,14px);--ln:rgba(128,128,128,.3);",
    "box-sizing:border-box;display:flex;flex-direction:column;",
    "max-height:var(--ck-watch-height,24rem);padding:12px;border:1px solid var(--ln);",
    "border-radius:var(--r);background:var(--bg);color:var(--fg);",
    "font:13px/1.4 var(--ck-font,system-ui,-apple-system,'Segoe UI',Roboto,sans-serif)}",
    "@media(prefers-color-scheme:dark){section{--bg:var(--ck-bg,#1f1f22);",
    "--fg:var(--ck-fg,#f5f5f7);--mu:var(--ck-muted,#a1a1a6);--ac:var(--ck-accent,#ff453a)}}",
    "header,[part=filters],li{display:flex;flex-wrap:wrap;align-items:baseline;gap:4px 8px}",
    "h2{margin:0 auto 0 0;font-size:14px;font-weight:650}",
    "button{font:inherit;padding:2px 8px;border:1px solid var(--ln);",
    "border-radius:calc(var(--r)*.6);background:none;color:inherit;cursor:pointer}",
    "button:focus-visible{outline:2px solid var(--ac);outline-offset:1px}",
    "[aria-pressed=true]{background:var(--fg);color:var(--bg)}",
    "[part=filters]{margin:8px 0}",
    "ol,ul{list-style:none;margin:0;padding:0;overflow:auto}",
    "li{padding:6px 0;border-top:1px solid var(--ln)}li[hidden]{display:none}",
    "time,[part=outcome],[part=duration]{color:var(--mu);font-variant-numeric:tabular-nums}",
    "[part=action]{font-weight:600;overflow-wrap:anywhere}",
    "[part=via]{font-size:11px;color:var(--mu)}",
    "[part~=chip]{font-size:11px;padding:0 6px;border:1px solid;border-radius:8px}",
    "[data-control=hard],span[data-gate=rejected],span[data-gate=cancelled],",
    "span[data-gate=timeout]{color:var(--ac)}",
    "span[data-gate=fired],span[data-gate=confirmed]{color:#1a7f37}",
    "span[data-gate=needs_hand_mode]{color:#9a6700}",
    "details{flex-basis:100%}summary{cursor:pointer;color:var(--mu)}",
    "[part=note]{flex-basis:100%;font-style:italic;overflow-wrap:anywhere}",
    "[part=grant]{font-size:11px;color:var(--mu)}",
    "[part=grants]{margin:8px 0 0;padding:8px;border:1px solid var(--ln);",
    "border-radius:calc(var(--r)*.6)}[part=grants][hidden]{display:none}",
    "h3{margin:0 0 4px;font-size:13px;font-weight:650}",
    "[part=grant-match]{overflow-wrap:anywhere}",
    "[part=grant-uses],[part=grant-until]{color:var(--mu)}",
    "pre{margin:4px 0 0;white-space:pre-wrap;overflow-wrap:anywhere;max-height:12rem;",
    "overflow:auto}",
);

/// A row's cells after the `<li>`, in [`WatchRow::cells`] order: tag, part, and the `data-`
/// attribute that repeats the cell's text (none when empty).
const CELLS: [(&str, &str, &str); 7] = [
    ("time", "time", ""),
    ("span", "action", ""),
    ("span", "chip control", "data-control"),
    ("span", "chip gate", "data-gate"),
    ("span", "via", "data-via"),
    ("span", "outcome", ""),
    ("span", "duration", ""),
];

/// What the panel hears when Revoke is clicked: the grant's id (`ckg_<n>`).
pub(crate) type OnRevoke = Rc<dyn Fn(&str)>;

/// A live grant as the panel lists it: its id, the text of its row, and its `match` as JSON (or
/// "any arguments").
pub(crate) struct GrantLine<'a> {
    pub(crate) id: String,
    pub(crate) row: GrantRow<'a>,
    pub(crate) matching: String,
}

/// What the model keeps of each row: the record as delivered, and its `<li>`.
struct RowPayload {
    record: JsValue,
    li: Element,
}

/// The panel's model and the elements that show it, shared with its listeners.
pub(crate) struct PanelState {
    model: WatchModel<RowPayload>,
    rows: Element,
    /// The grants' section and its list.
    grants: (Element, Element),
    /// `None` is "All".
    filters: Vec<(Option<Gate>, Element, Element)>,
}

type Shared = Rc<RefCell<PanelState>>;

/// One mounted panel: its host (removed on drop), its state and its listeners.
struct Panel {
    id: u32,
    host: Element,
    state: Shared,
    _listeners: Vec<EventListener>,
}

impl Drop for Panel {
    fn drop(&mut self) {
        self.host.remove();
    }
}

/// The instance's mounted panels.
pub(crate) struct WatchPanels {
    next: Cell<u32>,
    list: RefCell<Vec<Panel>>,
    on_revoke: OnRevoke,
}

impl WatchPanels {
    /// No panel yet; a Revoke click on any panel goes to `on_revoke`.
    pub(crate) fn new(on_revoke: OnRevoke) -> WatchPanels {
        WatchPanels {
            next: Cell::new(0),
            list: RefCell::default(),
            on_revoke,
        }
    }

    /// Draws a panel into `parent`; returns its id (for [`unmount`](Self::unmount) and
    /// [`json_lines`](Self::json_lines)). The caller then shows it the live grants.
    pub(crate) fn mount(&self, parent: &Element) -> Result<u32, JsValue> {
        let (host, state, listeners) = build_panel(parent, &self.on_revoke)?;
        let id = self.next.get();
        self.next.set(id.wrapping_add(1));
        self.list.borrow_mut().push(Panel {
            id,
            host,
            state,
            _listeners: listeners,
        });
        Ok(id)
    }

    /// Removes a panel; a second call does nothing.
    pub(crate) fn unmount(&self, id: u32) {
        // Taken out under the borrow, dropped (removing its DOM) after it.
        let gone = {
            let mut list = self.list.borrow_mut();
            let at = list.iter().position(|p| p.id == id);
            at.map(|i| list.remove(i))
        };
        drop(gone);
    }

    /// Shows `record` (`js` is the object `onActionRecord` receives) on every panel.
    pub(crate) fn feed<R>(&self, record: &ActionRecord<R>, js: &JsValue) {
        for panel in self.list.borrow().iter() {
            panel.state.borrow_mut().push(record, js);
        }
    }

    /// What a panel's handle's `jsonLines()` reads: its JSON Lines, or nothing once it is gone.
    pub(crate) fn json_lines(&self, id: u32) -> String {
        // The list is not borrowed while records print: a record's `toJSON` may run app code,
        // which may dispose of panels.
        let state = {
            let list = self.list.borrow();
            list.iter().find(|p| p.id == id).map(|p| p.state.clone())
        };
        state.map(|s| json_lines(&s)).unwrap_or_default()
    }

    /// Shows the live grants on every panel, replacing what they showed.
    pub(crate) fn show_grants(&self, grants: &[GrantLine<'_>]) {
        for panel in self.list.borrow().iter() {
            panel.state.borrow().show_grants(grants);
        }
    }

    /// Removes every panel (from `dispose()`).
    pub(crate) fn clear(&self) {
        let panels = self.list.take();
        drop(panels);
    }
}

impl PanelState {
    fn push<R>(&mut self, record: &ActionRecord<R>, js: &JsValue) {
        let gate = record.gate.as_str();
        // Made at the end of the list, then moved to the top: newest first.
        let li = el(
            &self.rows,
            "li",
            &[("part", "row"), ("data-gate", gate)],
            "",
        );
        let tz = js_sys::Date::new(&record.settled_at.into()).get_timezone_offset();
        let row = WatchRow::from_record(record, tz);
        for ((tag, part, data), text) in CELLS.iter().zip(row.cells()) {
            el(&li, tag, &[("part", part), (data, text)], text);
        }
        if let Some(note) = &record.note {
            el(&li, "q", &[("part", "note")], note);
        }
        if let Some(grant) = record.grant {
            el(
                &li,
                "span",
                &[("part", "grant")],
                &format!("on grant {grant}"),
            );
        }
        let details = el(&li, "details", &[("part", "args")], "");
        el(&details, "summary", &[], "args");
        let args =
            JSON::stringify_with_replacer_and_space(&get(js, "args"), &JsValue::NULL, &2.into())
                .ok()
                .and_then(|s| s.as_string())
                .unwrap_or_default();
        el(&details, "pre", &[], &args);

        let payload = RowPayload {
            record: js.clone(),
            li: li.clone(),
        };
        let pushed = self.model.push(record.gate, payload);
        set_hidden(&li, !pushed.visible);
        let _ = self.rows.prepend_with_node_1(&li);
        if let Some(old) = pushed.evicted {
            old.li.remove();
        }
        self.show_counts();
    }

    fn show_grants(&self, grants: &[GrantLine<'_>]) {
        let (section, list) = &self.grants;
        list.set_text_content(None);
        for grant in grants {
            let li = el(
                list,
                "li",
                &[("part", "grant-row"), ("data-grant", &grant.id)],
                "",
            );
            let row = &grant.row;
            el(&li, "span", &[("part", "grant-action")], row.action);
            el(&li, "code", &[("part", "grant-match")], &grant.matching);
            el(&li, "span", &[("part", "grant-uses")], &row.uses);
            el(&li, "span", &[("part", "grant-until")], &row.until);
            let label = format!("Revoke the grant of {}", row.action);
            let attrs = [
                ("part", "revoke"),
                ("type", "button"),
                ("data-grant", grant.id.as_str()),
                ("aria-label", label.as_str()),
            ];
            el(&li, "button", &attrs, "Revoke");
        }
        set_hidden(section, grants.is_empty());
    }

    fn show_counts(&self) {
        for (gate, _, count) in &self.filters {
            let n = gate.map_or(self.model.total(), |g| self.model.count(g));
            count.set_text_content(Some(&js::number_text(n as f64)));
        }
    }

    fn set_filter(&mut self, gate: Option<Gate>) {
        self.model.set_filter(gate);
        for (g, button, _) in &self.filters {
            let _ = button.set_attribute("aria-pressed", if *g == gate { "true" } else { "false" });
        }
        for (gate, row) in self.model.rows() {
            set_hidden(&row.li, !self.model.matches(*gate));
        }
    }
}

/// The kept records that pass the panel's filter, oldest first, each as `JSON.stringify` prints
/// the very object the app's sink received (`null` when it cannot: a `BigInt` result). The
/// state is not borrowed while they print: a run's result may have a `toJSON`, app code that
/// may call the SDK and so feed this very panel.
fn json_lines(state: &Shared) -> String {
    let records: Vec<JsValue> = state
        .borrow()
        .model
        .passing()
        .map(|row| row.record.clone())
        .collect();
    lines(records.iter().map(|record| {
        // The args' pretty printer, without the indent: the same binding, not a second.
        JSON::stringify_with_replacer_and_space(record, &JsValue::NULL, &JsValue::UNDEFINED)
            .ok()
            .and_then(|s| s.as_string())
            .unwrap_or_else(|| "null".into())
    }))
}

/// Writes `text` to `navigator.clipboard` when the page may; a refusal is ignored (the text
/// stays available through the handle's `jsonLines()`).
fn copy_to_clipboard(text: &str) {
    let Some(window) = js::window() else {
        return;
    };
    // `undefined` outside a secure context.
    let clipboard = window.navigator().clipboard();
    if clipboard.is_undefined() {
        return;
    }
    let promise = clipboard.write_text(text);
    // Awaited so that a refused write is handled, not an unhandled rejection.
    wasm_bindgen_futures::spawn_local(async move {
        let _ = JsFuture::from(promise).await;
    });
}

/// What a panel button does.
#[derive(Clone, Copy)]
enum ButtonAction {
    Copy,
    /// Show one gate; `None` is "All".
    Filter(Option<Gate>),
}

fn build_panel(
    parent: &Element,
    on_revoke: &OnRevoke,
) -> Result<(Element, Shared, Vec<EventListener>), JsValue> {
    let (host, root) = shadow_host(parent, "coworkkit-watch", "watch", CSS)?;
    let section = el(
        &root,
        "section",
        &[("part", "panel"), ("aria-label", "Agent activity")],
        "",
    );
    let header = el(&section, "header", &[], "");
    el(&header, "h2", &[("part", "heading")], "Agent activity");
    let copy = el(
        &header,
        "button",
        &[("part", "copy"), ("type", "button")],
        "Copy JSON Lines",
    );
    let grants = el(
        &section,
        "section",
        &[
            ("part", "grants"),
            ("aria-labelledby", "ck-grants"),
            ("hidden", ""),
        ],
        "",
    );
    el(
        &grants,
        "h3",
        &[("id", "ck-grants")],
        "Allowed without asking",
    );
    let grant_list = el(&grants, "ul", &[], "");
    let bar = el(
        &section,
        "div",
        &[
            ("part", "filters"),
            ("role", "group"),
            ("aria-label", "Filter by gate"),
        ],
        "",
    );
    let mut filters = Vec::with_capacity(RECORD_GATES.len() + 1);
    for gate in std::iter::once(None).chain(RECORD_GATES.iter().copied().map(Some)) {
        let name = gate.map_or("all", Gate::as_str);
        let pressed = if gate.is_none() { "true" } else { "false" };
        let attrs = [
            ("part", "filter"),
            ("type", "button"),
            ("data-gate", name),
            ("aria-pressed", pressed),
        ];
        let button = el(&bar, "button", &attrs, "");
        el(&button, "span", &[], name);
        let _ = button.append_with_str_1(" ");
        let count = el(&button, "span", &[("part", "count")], "0");
        filters.push((gate, button, count));
    }
    let rows = el(&section, "ol", &[("part", "rows")], "");
    let state: Shared = Rc::new(RefCell::new(PanelState {
        model: WatchModel::new(WATCH_ROWS_MAX),
        rows,
        grants: (grants, grant_list.clone()),
        filters,
    }));

    // One closure type for every button, told which button it serves.
    let listen = |button: &Element, action: ButtonAction| {
        let weak = Rc::downgrade(&state);
        EventListener::new(button, "click", move |_| {
            if let Some(state) = weak.upgrade() {
                match action {
                    ButtonAction::Copy => copy_to_clipboard(&json_lines(&state)),
                    ButtonAction::Filter(gate) => state.borrow_mut().set_filter(gate),
                }
            }
        })
    };
    // One listener for every Revoke button, however often the list is redrawn.
    let on_revoke = on_revoke.clone();
    let revoke = EventListener::new(&grant_list, "click", move |event| {
        let button = event
            .target()
            .and_then(|t| t.dyn_into::<Element>().ok())
            .and_then(|e| e.closest("[part=revoke]").ok().flatten());
        if let Some(id) = button.and_then(|b| b.get_attribute("data-grant")) {
            on_revoke(&id);
        }
    });
    let mut listeners = vec![listen(&copy, ButtonAction::Copy), revoke];
    for (gate, button, _) in &state.borrow().filters {
        listeners.push(listen(button, ButtonAction::Filter(*gate)));
    }
    Ok((host, state, listeners))
}
