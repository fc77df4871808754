//! The Watch panel (SPEC §6): a live timeline of the instance's action records, and its live
//! grants (SPEC §12).
//!
//! The panel is drawn by `src/js/page.js` from the very objects the app receives (each record
//! as `onActionRecord` gets it, the grants as `ck.grants()` gives them): it is a reader of the
//! public shapes and decides nothing. This module holds the instance's mounted panels, feeds
//! them, and hands a Revoke click to the instance (`ck.revokeGrant`). What a panel shows and
//! how it is themed is documented in `page.js`.

use std::cell::{Cell, RefCell};

use js_sys::{Array, Function};
use wasm_bindgen::prelude::*;
use web_sys::Element;

#[wasm_bindgen(module = "/src/js/page.js")]
extern "C" {
    /// One panel in the page (`CkWatchPanel`).
    #[derive(Clone)]
    type CkWatchPanel;

    /// Draws an empty panel at the end of `parent`; a Revoke click calls `on_revoke` with the
    /// grant's id.
    #[wasm_bindgen(constructor, catch)]
    fn new(parent: &Element, on_revoke: &Function) -> Result<CkWatchPanel, JsValue>;

    /// Shows a record (the object `onActionRecord` receives) as the newest row.
    #[wasm_bindgen(method)]
    fn push(this: &CkWatchPanel, record: &JsValue);

    /// Lists the live grants (as `ck.grants()` gives them), replacing what was listed.
    #[wasm_bindgen(method, js_name = showGrants)]
    fn show_grants(this: &CkWatchPanel, grants: &Array);

    /// Its `jsonLines` method: the kept records that pass the filter, as JSON Lines (empty
    /// once the panel is removed).
    #[wasm_bindgen(method, getter, js_name = jsonLines)]
    fn json_lines(this: &CkWatchPanel) -> Function;

    /// Takes the panel out of the page.
    #[wasm_bindgen(method)]
    fn remove(this: &CkWatchPanel);
}

/// The instance's mounted panels, each with its id (for its handle).
pub(crate) struct WatchPanels {
    next: Cell<u32>,
    list: RefCell<Vec<(u32, CkWatchPanel)>>,
    /// What every panel's Revoke calls: `(grantId: string) => void`.
    on_revoke: Function,
}

impl WatchPanels {
    /// No panel yet; a Revoke click on any panel goes to `on_revoke`.
    pub(crate) fn new(on_revoke: Function) -> WatchPanels {
        WatchPanels {
            next: Cell::new(0),
            list: RefCell::default(),
            on_revoke,
        }
    }

    /// Draws a panel into `parent`; returns its id (for [`unmount`](Self::unmount)) and its
    /// handle's `jsonLines`, the panel's own method bound to it. The caller then shows it the
    /// live grants.
    pub(crate) fn mount(&self, parent: &Element) -> Result<(u32, Function), JsValue> {
        let panel = CkWatchPanel::new(parent, &self.on_revoke)?;
        let json_lines = panel.json_lines().bind0(&panel);
        let id = self.next.get();
        self.next.set(id.wrapping_add(1));
        self.list.borrow_mut().push((id, panel));
        Ok((id, json_lines))
    }

    /// Removes a panel; a second call does nothing.
    pub(crate) fn unmount(&self, id: u32) {
        let gone = {
            let mut list = self.list.borrow_mut();
            let at = list.iter().position(|(i, _)| *i == id);
            at.map(|i| list.remove(i))
        };
        if let Some((_, panel)) = gone {
            panel.remove();
        }
    }

    /// Shows `record` (the object `onActionRecord` receives) on every panel.
    pub(crate) fn feed(&self, record: &JsValue) {
        for (_, panel) in self.list.borrow().iter() {
            panel.push(record);
        }
    }

    /// Shows the live grants on every panel, replacing what they showed.
    pub(crate) fn show_grants(&self, grants: &Array) {
        for (_, panel) in self.list.borrow().iter() {
            panel.show_grants(grants);
        }
    }

    /// Removes every panel (from `dispose()`).
    pub(crate) fn clear(&self) {
        for (_, panel) in self.list.take() {
            panel.remove();
        }
    }
}

/// An instance collected without `dispose()` takes its panels out of the page too.
impl Drop for WatchPanels {
    fn drop(&mut self) {
        self.clear();
    }
}
