//! The Watch panel (SPEC §6): a live timeline of the instance's action records.
//!
//! `mountWatchPanel(element?)` draws `<coworkkit-watch data-coworkkit="watch">` into `element`
//! (default: the `container` option, else `document.body`) with a closed shadow root. The rows
//! and their text come from the plain [`WatchModel`]; this module only turns it into DOM, every
//! string through `textContent`. Each record delivered to `onActionRecord` is also pushed, at the
//! same moment, to every mounted panel (a panel starts empty: the SDK stores no records).
//!
//! - Rows, newest first: time, action, control badge, gate badge, outcome, duration, and the
//!   arguments in a `<details>`. The last [`WATCH_ROWS_MAX`] rows are kept; older ones leave
//!   the page.
//! - Filter buttons (All and one per gate, `aria-pressed`), each with the count of records of
//!   that gate since the panel was mounted.
//! - "Copy JSON Lines" writes the kept rows that pass the filter, oldest first, one
//!   `JSON.stringify(record)` per line, to `navigator.clipboard` when it is available; the
//!   handle's `jsonLines()` returns the same text. A record that `JSON.stringify` cannot
//!   serialize (a `BigInt` or cyclic `run` result) is written as `null`.
//!
//! Theming: the card's custom properties (`--ck-bg`, `--ck-fg`, `--ck-muted`, `--ck-accent`,
//! `--ck-radius`, `--ck-font`) and `--ck-watch-height` (default `24rem`). Parts: `panel`,
//! `heading`, `copy`, `filters`, `filter`, `count`, `rows`, `row`, `time`, `action`,
//! `chip control` (with `data-control`), `chip gate` (with `data-gate`), `outcome`,
//! `duration`, `args`.

use alloc::boxed::Box;
use alloc::rc::{Rc, Weak};
use alloc::string::String;
use alloc::vec::Vec;
use core::cell::RefCell;

use js_sys::{Object, JSON};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Element, Node};

use super::api::{js_error, Coworkkit, Inner};
use super::cells::Borrows;
use super::convert::{get, set};
use super::js;
use super::listener::EventListener;
use crate::core::error::Error;
use crate::core::record::{ActionRecord, Gate};
use crate::core::value::push_decimal;
use crate::core::watch::{WatchModel, WatchRow, RECORD_GATES, WATCH_ROWS_MAX};

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
    "ol{list-style:none;margin:0;padding:0;overflow:auto}",
    "li{padding:6px 0;border-top:1px solid var(--ln)}li[hidden]{display:none}",
    "time,[part=outcome],[part=duration]{color:var(--mu);font-variant-numeric:tabular-nums}",
    "[part=action]{font-weight:600;overflow-wrap:anywhere}",
    "[part~=chip]{font-size:11px;padding:0 6px;border:1px solid;border-radius:8px}",
    "[data-control=hard],span[data-gate=rejected],span[data-gate=cancelled],",
    "span[data-gate=timeout]{color:var(--ac)}",
    "span[data-gate=fired],span[data-gate=confirmed]{color:#1a7f37}",
    "span[data-gate=needs_hand_mode]{color:#9a6700}",
    "details{flex-basis:100%}summary{cursor:pointer;color:var(--mu)}",
    "pre{margin:4px 0 0;white-space:pre-wrap;overflow-wrap:anywhere;max-height:12rem;",
    "overflow:auto}",
);

/// What each row keeps beside its text: the record as delivered, and its `<li>`.
struct RowPayload {
    record: JsValue,
    li: Element,
}

/// The panel's model and the elements that show it, shared with its listeners.
struct PanelState {
    model: WatchModel<RowPayload>,
    rows: Element,
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
#[derive(Default)]
pub(crate) struct WatchPanels {
    next: u32,
    list: Vec<Panel>,
}

fn set_hidden(element: &Element, hidden: bool) {
    let _ = element.toggle_attribute_with_force("hidden", hidden);
}

fn count_text(n: u64) -> String {
    let mut s = String::new();
    push_decimal(&mut s, n);
    s
}

impl PanelState {
    fn push<R>(&mut self, record: &ActionRecord<R>, js: &JsValue) -> Result<(), JsValue> {
        let gate = record.gate.as_str();
        // Made at the end of the list, then moved to the top: newest first.
        let first = self.rows.first_child();
        let li = js::el(
            &self.rows,
            "li",
            &["part\nrow\ndata-gate\n", gate].concat(),
            None,
        );
        let tz = js_sys::Date::new(&record.settled_at.into()).get_timezone_offset();
        let row = WatchRow::from_record(
            record,
            tz,
            RowPayload {
                record: js.clone(),
                li: li.clone(),
            },
        );
        let text =
            |parent: &Node, tag, attrs: &str, value: &str| js::el(parent, tag, attrs, Some(value));
        text(&li, "time", "part\ntime", &row.time);
        text(&li, "span", "part\naction", &row.action);
        let control = row.control.as_str();
        text(
            &li,
            "span",
            &["part\nchip control\ndata-control\n", control].concat(),
            control,
        );
        text(
            &li,
            "span",
            &["part\nchip gate\ndata-gate\n", gate].concat(),
            gate,
        );
        text(&li, "span", "part\noutcome", &row.outcome);
        text(&li, "span", "part\nduration", &row.duration);
        let details = js::el(&li, "details", "part\nargs", None);
        text(&details, "summary", "", "args");
        let args =
            JSON::stringify_with_replacer_and_space(&get(js, "args"), &JsValue::NULL, &2.into())
                .ok()
                .and_then(|s| s.as_string())
                .unwrap_or_default();
        text(&details, "pre", "", &args);

        let pushed = self.model.push(row);
        set_hidden(&li, !pushed.visible);
        self.rows.insert_before(&li, first.as_ref())?;
        if let Some(old) = pushed.evicted {
            old.payload.li.remove();
        }
        self.show_counts();
        Ok(())
    }

    fn show_counts(&self) {
        for (gate, _, count) in &self.filters {
            let n = gate.map_or(self.model.total(), |g| self.model.count(g));
            count.set_text_content(Some(&count_text(n)));
        }
    }

    fn set_filter(&mut self, gate: Option<Gate>) {
        self.model.set_filter(gate);
        for (g, button, _) in &self.filters {
            let _ = button.set_attribute("aria-pressed", if *g == gate { "true" } else { "false" });
        }
        for row in self.model.rows() {
            set_hidden(&row.payload.li, !self.model.matches(row.gate));
        }
    }

    fn json_lines(&self) -> String {
        self.model.json_lines(|row| {
            JSON::stringify(&row.record)
                .ok()
                .and_then(|s| s.as_string())
                .unwrap_or_else(|| "null".into())
        })
    }
}

/// Writes `text` to `navigator.clipboard` when the page may; a refusal is ignored (the text
/// stays available through the handle's `jsonLines()`).
fn copy_to_clipboard(text: &str) {
    let Some(window) = js::window() else {
        return;
    };
    let clipboard = get(&window.navigator(), "clipboard");
    let Ok(write) = get(&clipboard, "writeText").dyn_into::<js_sys::Function>() else {
        return;
    };
    if let Ok(promise) = write.call1(&clipboard, &text.into()) {
        if promise.is_instance_of::<js_sys::Promise>() {
            // Handles a rejection, so a refused write is not an unhandled rejection.
            super::js::when_settled(&promise, Box::new(|_, _| {}));
        }
    }
}

fn build_panel(parent: &Element) -> Result<(Element, Shared, Vec<EventListener>), JsValue> {
    let root = js::host(parent, "coworkkit-watch", "watch", CSS);
    let host = root.host();
    let el = |parent: &Node, tag, attrs: &str, text| js::el(parent, tag, attrs, text);
    let section = el(
        &root,
        "section",
        "part\npanel\naria-label\nAgent activity",
        None,
    );
    let header = el(&section, "header", "", None);
    el(&header, "h2", "part\nheading", Some("Agent activity"));
    let copy = el(
        &header,
        "button",
        "part\ncopy\ntype\nbutton",
        Some("Copy JSON Lines"),
    );
    let bar = el(
        &section,
        "div",
        "part\nfilters\nrole\ngroup\naria-label\nFilter by gate",
        None,
    );
    let mut filters = Vec::with_capacity(RECORD_GATES.len() + 1);
    for gate in core::iter::once(None).chain(RECORD_GATES.iter().copied().map(Some)) {
        let name = gate.map_or("all", Gate::as_str);
        let pressed = if gate.is_none() { "true" } else { "false" };
        let attrs = [
            "part\nfilter\ntype\nbutton\ndata-gate\n",
            name,
            "\naria-pressed\n",
            pressed,
        ]
        .concat();
        let button = el(&bar, "button", &attrs, None);
        el(&button, "span", "", Some(name));
        button.append_with_str_1(" ")?;
        let count = el(&button, "span", "part\ncount", Some("0"));
        filters.push((gate, button, count));
    }
    let rows = el(&section, "ol", "part\nrows", None);
    let state: Shared = Rc::new(RefCell::new(PanelState {
        model: WatchModel::new(WATCH_ROWS_MAX),
        rows,
        filters,
    }));

    let mut listeners = Vec::with_capacity(RECORD_GATES.len() + 2);
    let weak = Rc::downgrade(&state);
    listeners.push(EventListener::new(&copy, "click", move |_| {
        if let Some(state) = weak.upgrade() {
            let lines = state.read().json_lines();
            copy_to_clipboard(&lines);
        }
    }));
    let buttons: Vec<(Option<Gate>, Element)> = state
        .read()
        .filters
        .iter()
        .map(|(g, b, _)| (*g, b.clone()))
        .collect();
    for (gate, button) in buttons {
        let weak = Rc::downgrade(&state);
        listeners.push(EventListener::new(&button, "click", move |_| {
            if let Some(state) = weak.upgrade() {
                state.write().set_filter(gate);
            }
        }));
    }
    parent.append_child(&host)?;
    Ok((host, state, listeners))
}

impl Inner {
    /// Shows `record` (`js` is the object `onActionRecord` receives) on every mounted panel.
    pub(crate) fn feed_watch<R>(&self, record: &ActionRecord<R>, js: &JsValue) {
        for panel in &self.watch.read().list {
            if let Err(e) = panel.state.write().push(record, js) {
                web_sys::console::error_2(
                    &"coworkkit: the Watch panel could not draw a row".into(),
                    &e,
                );
            }
        }
    }

    /// Removes every panel (from `dispose()`).
    pub(crate) fn dispose_watch(&self) {
        let panels = core::mem::take(&mut *self.watch.write());
        drop(panels);
    }
}

#[wasm_bindgen]
impl Coworkkit {
    /// Draws a Watch panel into `element` (default: the `container` option, else
    /// `document.body`). The handle's `dispose()` removes it; `jsonLines()` returns what "Copy
    /// JSON Lines" copies.
    #[wasm_bindgen(js_name = mountWatchPanel, unchecked_return_type = "WatchPanelHandle")]
    pub fn mount_watch_panel(&self, element: Option<Element>) -> Result<JsValue, JsValue> {
        let inner = &self.inner;
        if inner.disposed.get() {
            return Err(js_error(&Error::Disposed));
        }
        let parent = element
            .or_else(|| inner.container.clone())
            .or_else(|| js::window()?.document()?.body().map(Into::into))
            .ok_or_else(|| JsValue::from_str("coworkkit: no element to mount the panel in"))?;
        let (host, state, listeners) = build_panel(&parent)?;
        let weak_state: Weak<RefCell<PanelState>> = Rc::downgrade(&state);
        let id = {
            let mut panels = inner.watch.write();
            let id = panels.next;
            panels.next += 1;
            panels.list.push(Panel {
                id,
                host,
                state,
                _listeners: listeners,
            });
            id
        };
        let weak = Rc::downgrade(inner);
        let dispose = Closure::<dyn FnMut()>::new(move || {
            if let Some(inner) = weak.upgrade() {
                // Taken out under the borrow, dropped (removing its DOM) after it.
                let gone = {
                    let list = &mut inner.watch.write().list;
                    let at = list.iter().position(|p| p.id == id);
                    at.map(|i| list.remove(i))
                };
                drop(gone);
            }
        });
        let json_lines = Closure::<dyn FnMut() -> String>::new(move || {
            weak_state
                .upgrade()
                .map(|state| state.read().json_lines())
                .unwrap_or_default()
        });
        let handle = Object::new();
        set(&handle, "dispose", dispose.into_js_value());
        set(&handle, "jsonLines", json_lines.into_js_value());
        Ok(Object::freeze(&handle).into())
    }
}
