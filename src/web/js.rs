//! Small JavaScript builders for the objects the SDK hands out on every call.
//!
//! Building an outcome or a record from Rust one `Reflect.set` at a time cost a boundary
//! crossing per field (and a string decode per key); these functions take the fields as
//! arguments and build the frozen object in one crossing. They hold no logic: every value is
//! decided in Rust; field order and presence match SPEC §3 and §6.
//!
//! The same holds for the SDK's DOM (`ckHost`, `ckEl`: one crossing per element instead of one
//! per attribute, and fewer distinct imports in the JS glue) and for "later" (`ckSettle`, in
//! place of an async executor in the wasm).

use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;
use web_sys::{Element, Node, ShadowRoot};

#[wasm_bindgen(inline_js = r#"
export function ckOutcome(callId, gate, ok, result, error, confirmToken, expiresAt) {
  const o = { callId, gate, ok };
  if (result !== undefined) o.result = result;
  if (error !== undefined) o.error = error;
  if (confirmToken !== undefined) o.confirmToken = confirmToken;
  if (expiresAt !== undefined) o.expiresAt = expiresAt;
  return Object.freeze(o);
}
export function ckError(code, message) {
  return Object.freeze({ code, message });
}
const ckHex = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));
const ckPool = new Uint8Array(1024);
let ckUsed = ckPool.length;
export function ckCallId() {
  if (ckUsed + 16 > ckPool.length) { crypto.getRandomValues(ckPool); ckUsed = 0; }
  let id = "ck_";
  for (let i = 0; i < 16; i++) id += ckHex[ckPool[ckUsed++]];
  return id;
}
export function ckRecord(id, sessionId, callId, action, control, controlSource, gate, outcome, args, approver, reason, startedAt, settledAt) {
  if (typeof id === "number") id = sessionId + "." + id;
  const r = { v: 1, id, sessionId, callId, action, control, controlSource, gate, outcome, args };
  if (approver !== undefined) r.approver = approver;
  if (reason !== undefined) r.reason = reason;
  r.startedAt = startedAt;
  r.settledAt = settledAt;
  return Object.freeze(r);
}
export function ckRecordOutcome(status, value, code, message) {
  const o = { status };
  if (status === "ok") { if (value !== undefined) o.value = value; }
  else if (status === "error") { o.code = code; o.message = message; }
  return Object.freeze(o);
}
export function ckContext(callId, control, approver, signal) {
  return { callId, control, approver, signal };
}
export function ckKind(v) {
  switch (typeof v) {
    case "string": return 3;
    case "number": return 2;
    case "boolean": return 1;
    case "undefined": return 6;
    case "function": return 7;
    case "symbol": return 10;
    case "bigint": return 11;
  }
  if (v === null) return 0;
  try {
    if (Array.isArray(v)) return 4;
    const p = Object.getPrototypeOf(v);
    return p === null || Object.getPrototypeOf(p) === null ? 5 : 8;
  } catch {
    return 9;
  }
}
export function ckDeferred() {
  let resolve;
  const promise = new Promise((r) => { resolve = r; });
  promise.ckResolve = resolve;
  return promise;
}
export function ckHost(parent, tag, kind, css) {
  const host = parent.ownerDocument.createElement(tag);
  host.setAttribute("data-coworkkit", kind);
  const root = host.attachShadow({ mode: "closed" });
  ckEl(root, "style", "", css);
  return root;
}
export function ckEl(parent, tag, attrs, text) {
  const e = parent.ownerDocument.createElement(tag);
  const a = attrs.split("\n");
  for (let i = 0; i + 1 < a.length; i += 2) e.setAttribute(a[i], a[i + 1]);
  if (text !== undefined) e.textContent = text;
  parent.appendChild(e);
  return e;
}
export function ckSettle(value, callback) {
  Promise.resolve(value).then((v) => callback(true, v), (e) => callback(false, e));
}
export function ckTakeResolve(promise) {
  const resolve = promise.ckResolve;
  delete promise.ckResolve;
  return resolve;
}
"#)]
extern "C" {
    /// `{ callId, gate, ok, result?, error?, confirmToken?, expiresAt? }`, frozen.
    #[wasm_bindgen(js_name = ckOutcome)]
    pub fn outcome(
        call_id: &JsValue,
        gate: &JsValue,
        ok: bool,
        result: &JsValue,
        error: &JsValue,
        confirm_token: Option<String>,
        expires_at: Option<f64>,
    ) -> JsValue;

    /// `{ code, message }`, frozen.
    #[wasm_bindgen(js_name = ckError)]
    pub fn error(code: &JsValue, message: &str) -> JsValue;

    /// A fresh call id, `ck_` + 32 hex digits from `crypto.getRandomValues` (drawn 1 KiB at a
    /// time), the format the engine uses for the ids it makes.
    #[wasm_bindgen(js_name = ckCallId)]
    pub fn call_id() -> JsValue;

    /// The action record of SPEC §6, frozen. `id` may be a number `n`, meaning
    /// `sessionId + "." + n`.
    #[wasm_bindgen(js_name = ckRecord)]
    pub fn record(
        id: &JsValue,
        session_id: &JsValue,
        call_id: &JsValue,
        action: &JsValue,
        control: &JsValue,
        control_source: &JsValue,
        gate: &JsValue,
        outcome: &JsValue,
        args: &JsValue,
        approver: &JsValue,
        reason: &JsValue,
        started_at: f64,
        settled_at: f64,
    ) -> JsValue;

    /// A record's `outcome`: `{ status, value? }`, `{ status, code, message }` or `{ status }`.
    #[wasm_bindgen(js_name = ckRecordOutcome)]
    pub fn record_outcome(
        status: &JsValue,
        value: &JsValue,
        code: &JsValue,
        message: &JsValue,
    ) -> JsValue;

    /// The `ctx` that `run` receives.
    #[wasm_bindgen(js_name = ckContext)]
    pub fn context(
        call_id: &JsValue,
        control: &JsValue,
        approver: &JsValue,
        signal: &JsValue,
    ) -> JsValue;

    /// What kind of JS value this is, in one crossing (see [`Kind`](crate::web::convert)):
    /// 0 null, 1 boolean, 2 number, 3 string, 4 array, 5 plain object, 6 undefined,
    /// 7 function, 8 other object, 9 unreadable (a Proxy whose trap throws), 10 symbol,
    /// 11 BigInt.
    #[wasm_bindgen(js_name = ckKind)]
    pub fn kind(value: &JsValue) -> u8;

    /// A pending promise that carries its resolver until [`take_resolve`] removes it.
    #[wasm_bindgen(js_name = ckDeferred)]
    pub fn deferred() -> Promise;

    /// A `<tag data-coworkkit=kind>` (not yet in the page) with a closed shadow root that
    /// holds a `<style>` of `css`; returns the root (its `host()` is the element).
    #[wasm_bindgen(js_name = ckHost)]
    pub fn host(parent: &Node, tag: &str, kind: &str, css: &str) -> ShadowRoot;

    /// Creates `<tag>` in `parent`'s document, sets `attrs` (names and values alternating,
    /// separated by `\n`: `"part\nrow\nhidden\n"`), sets `textContent` when `text` is given
    /// (never markup), appends it to `parent` and returns it. One crossing per element.
    #[wasm_bindgen(js_name = ckEl)]
    pub fn el(parent: &Node, tag: &str, attrs: &str, text: Option<&str>) -> Element;

    #[wasm_bindgen(js_name = ckSettle)]
    fn settle(value: &JsValue, callback: JsValue);

    /// Takes the resolver off a promise made by [`deferred`].
    #[wasm_bindgen(js_name = ckTakeResolve)]
    pub fn take_resolve(promise: &Promise) -> Function;
}

/// Calls `f(true, value)` — or `f(false, reason)` if `value` is a thenable that rejects — in a
/// microtask once `value` has settled; a plain value settles at once, so this is also "run `f`
/// in a microtask". One boxed callback type for every use: an async block per call site would
/// bring in wasm-bindgen-futures' executor and a task type per site.
pub fn when_settled(value: &JsValue, f: Box<dyn FnOnce(bool, JsValue)>) {
    settle(
        value,
        Closure::once_into_js(move |ok: bool, v: JsValue| f(ok, v)),
    );
}
