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
//!
//! One part reads rather than builds: `ckReadCall` (and `ckReadValue`) walk an `invoke` call
//! and its args in one crossing, by the rules that [`convert`](super::convert) documents, and
//! hand Rust a tape of what they found. The walk refuses what is not plain JSON data and stops
//! at the size limit, as SPEC §3.6 asks; everything about the call itself (an absent or bad
//! `callId`, a bad token, the gate) is still decided in Rust from the tape. `ckReadToolCall`
//! does the same for a provider tool call: it finds the shape, id and name, and reads the
//! arguments (JSON text through `JSON.parse`) exactly as `invoke`'s args are read.
//!
//! The reasons behind the JS live here and in `convert`, in one place; `scripts/build-pkg`
//! minifies what ships.

use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;
use web_sys::{Element, Node, ShadowRoot};

#[wasm_bindgen(inline_js = r##"
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
function ckCallId() {
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
function ckGet(o, k) {
  try { return Reflect.get(o, k); } catch { return undefined; }
}
let ckLone;
function ckUtf8(s) {
  let n = s.length;
  ckLone = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    n += c < 0x800 ? 1 : 2;
    if ((c & 0xf800) !== 0xd800) continue;
    if (c < 0xdc00 && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i++;
    else ckLone = true;
  }
  return n;
}
function ckWellFormed(s) {
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xdc00 && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00 && c >= 0xd800) out += s[i] + s[++i];
    else out += (c & 0xf800) === 0xd800 ? "\ufffd" : s[i];
  }
  return out;
}
function ckText(s) {
  const n = ckUtf8(s);
  return n + ":" + (ckLone ? ckWellFormed(s) : s);
}
function ckField(v) {
  return typeof v === "string" ? "s" + ckText(v) : v === undefined || v === null ? "u" : "x";
}
const ckBits = new DataView(new ArrayBuffer(8));
const ckHex8 = (i) => ckBits.getUint32(i).toString(16).padStart(8, "0");
class CkArgs {
  constructor(budget, copy) {
    this.budget = budget;
    this.spent = 0;
    this.copy = copy;
    this.tape = "";
    this.trail = [];
  }
  all(v) {
    try { return this.read(v, 0); } catch (e) { if (e !== this) throw e; }
  }
  spend(n) {
    if ((this.spent += n) <= this.budget) return;
    this.tape = "#" + this.spent + ";";
    throw this;
  }
  fail(why) {
    this.tape = "!" + why + this.trail.reduce((p, k) => p + (typeof k === "number" ? "[" + k + "]" : "." + k), "args");
    throw this;
  }
  read(v, depth) {
    if (depth > 64) this.fail(0);
    switch (typeof v) {
      case "string": {
        const n = ckUtf8(v);
        if (ckLone) v = ckWellFormed(v);
        this.spend(n + 2);
        this.tape += "s" + n + ":" + v;
        return v;
      }
      case "number":
        if (!Number.isFinite(v)) this.fail(1);
        this.spend(Number.isInteger(v) && Math.abs(v) < 1e15 ? String(Math.abs(v)).length + (v < 0) : 25);
        if (Number.isSafeInteger(v) && !Object.is(v, -0)) this.tape += "i" + v + ";";
        else {
          ckBits.setFloat64(0, v);
          this.tape += "d" + ckHex8(0) + ckHex8(4);
        }
        return v;
      case "boolean":
        this.spend(v ? 4 : 5);
        this.tape += v ? "t" : "f";
        return v;
      case "undefined": this.fail(2);
      case "function": this.fail(3);
      case "symbol": this.fail(4);
      case "bigint": this.fail(5);
    }
    if (v === null) {
      this.spend(4);
      this.tape += "n";
      return v;
    }
    let kind = 6;
    try {
      const p = Array.isArray(v) || Object.getPrototypeOf(v);
      if (p === true) kind = 1;
      else if (p === null || Object.getPrototypeOf(p) === null) kind = 2;
    } catch {
      kind = 7;
    }
    if (kind === 1) return this.array(v, depth);
    if (kind === 2) return this.object(v, depth);
    this.fail(kind);
  }
  array(v, depth) {
    const len = ckGet(v, "length");
    if (!Number.isInteger(len) || len < 0 || len > 4294967295) this.fail(8);
    this.spend(len > 0 ? len + 1 : 2);
    this.tape += "[" + len + ":";
    const out = this.copy ? new Array(len) : null;
    for (let i = 0; i < len; i++) {
      this.trail.push(i);
      let item;
      try { item = v[i]; } catch { this.fail(9); }
      if (item === undefined) this.fail(2);
      item = this.read(item, depth + 1);
      if (out) out[i] = item;
      this.trail.pop();
    }
    this.tape += "]";
    return out && Object.freeze(out);
  }
  object(v, depth) {
    let keys;
    try { keys = Object.keys(v); } catch { this.fail(7); }
    const out = this.copy ? {} : null;
    let marked = null;
    this.spend(2);
    this.tape += "{" + keys.length + ":";
    for (let i = 0; i < keys.length; i++) {
      let key = keys[i], item;
      try { item = v[key]; } catch { this.fail(9); }
      if (item === undefined) continue;
      const n = ckUtf8(key);
      if (ckLone) key = ckWellFormed(key);
      if (key.includes("\uFFFD")) {
        if ((marked ??= new Set()).has(key)) { this.trail.push(key); this.fail("a"); }
        marked.add(key);
      }
      this.spend(n + 4);
      this.tape += n + ":" + key;
      this.trail.push(key);
      item = this.read(item, depth + 1);
      this.trail.pop();
      if (!out) continue;
      if (key in out) Object.defineProperty(out, key, { value: item, enumerable: true, writable: true, configurable: true });
      else out[key] = item;
    }
    this.tape += "}";
    return out && Object.freeze(out);
  }
}
let ckCopy, ckId;
export function ckReadValue(value, budget) {
  const reader = new CkArgs(budget, false);
  reader.all(value);
  return reader.tape;
}
export function ckReadCall(call, budget) {
  const name = ckGet(call, "name");
  const raw = ckGet(call, "args");
  let copy, args = "u";
  if (raw !== undefined) {
    const reader = new CkArgs(budget, true);
    copy = reader.all(raw);
    args = reader.tape;
  }
  let id = ckGet(call, "callId");
  let idTape = ckField(id);
  if (typeof id !== "string") {
    id = ckCallId();
    idTape += id.length + ":" + id;
  }
  const token = ckGet(call, "confirmToken");
  const decline = ckGet(call, "decline");
  ckCopy = copy;
  ckId = id;
  return ckField(name) + idTape + ckField(token) + (decline ? "1" : "0") + args;
}
export function ckReadToolCall(call, max) {
  const budget = max * 4 + 4096;
  let refusal = "";
  const read = (from, key, args) => {
    const v = ckGet(from, key);
    if (typeof v === "string") {
      if (v.length <= budget) return v;
      refusal ||= "#" + v.length + ";";
    } else if (v === undefined) return v;
    else if (args && v !== null) {
      const tape = ckReadValue(v, max);
      if (!"#!".includes(tape[0])) return [tape];
      refusal ||= tape;
    }
    return null;
  };
  const type = read(call, "type"), id = read(call, "id"), callId = read(call, "call_id"),
    name = read(call, "name"), useId = read(call, "tool_use_id"),
    args = read(call, "arguments", 1), input = read(call, "input", 1), fn = ckGet(call, "function");
  let fnName, fnArgs, tape;
  let isFn = false;
  try { isFn = typeof fn === "object" && fn !== null && !Array.isArray(fn); } catch {} // a revoked Proxy
  if (isFn) {
    fnName = read(fn, "name");
    fnArgs = read(fn, "arguments", 1);
  }
  let kind = type === "function_call" ? 1 : type === "tool_use" ? 2 : type === "function" && isFn ? 0 : -1;
  const known = kind >= 0;
  if (!known) kind = callId !== undefined ? 1 : input !== undefined || useId !== undefined ? 2 : 0;
  const raw = kind === 1 ? args : kind === 2 ? input : fnArgs;
  if (refusal) tape = refusal;
  else if (!known) tape = "?not a tool call coworkkit knows: expected OpenAI Chat {id, type: \"function\", function: {name, arguments}}, OpenAI Responses {type: \"function_call\", call_id, name, arguments} or Anthropic {type: \"tool_use\", id, name, input}";
  else if (typeof raw === "string") {
    ckUtf8(raw);
    const text = ckLone ? ckWellFormed(raw) : raw;
    if (/^(\x85|[^\S\ufeff])*$/.test(text)) tape = "{0:}";
    else {
      let parsed;
      try { parsed = JSON.parse(text); } catch (e) {
        const m = ckGet(e, "message");
        tape = "?args: not valid JSON: " + (typeof m === "string" ? m : "");
      }
      tape ||= ckReadValue(parsed, max);
    }
  } else tape = raw ? raw[0] : "{0:}";
  if (!"{#!?".includes(tape[0])) tape = "?args: a tool call's arguments must be a JSON object";
  return kind + ckField(kind === 1 ? callId : id) + ckField(kind === 0 && fnName !== undefined ? fnName : name) + tape;
}
export function ckTakeCopy() {
  const copy = ckCopy;
  ckCopy = undefined;
  return copy;
}
export function ckTakeId() {
  const id = ckId;
  ckId = undefined;
  return id;
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
function ckInside(e, selector) {
  for (;;) {
    if (e.closest(selector)) return true;
    const root = e.getRootNode();
    if (!(root instanceof ShadowRoot)) return false;
    e = root.host;
  }
}
function ckShown(e) {
  try { if (e.checkVisibility?.({ visibilityProperty: true, checkVisibilityCSS: true }) === false) return false; } catch {}
  const visible = getComputedStyle(e).visibility === "visible", r = e.getBoundingClientRect();
  return visible && r.width > 0 && r.height > 0;
}
const ckTrim = (s) => s.replace(/^(\x85|[^\S\ufeff])+|(\x85|[^\S\ufeff])+$/g, "");
export function ckHand(target, op, value, act) {
  const e = typeof target === "string" ? document.querySelector(target) : target;
  if (!e) return 0;
  if (!e.isConnected) return 1;
  if (ckInside(e, "[data-coworkkit]")) return 2;
  if (ckInside(e, "[inert]")) return 3;
  if (ckInside(e, "[hidden]") || !ckShown(e)) return 4;
  if (e.matches(":disabled") || e.getAttribute("aria-disabled") === "true") return 5;
  const input = e instanceof HTMLInputElement;
  if (!(op === 0 ? e instanceof HTMLElement
    : op === 1 ? (input || e instanceof HTMLTextAreaElement) && e.matches(":read-write")
    : e instanceof HTMLSelectElement)) return 6 + op;
  let index;
  if (op === 2 && value !== undefined) {
    const options = Array.from(e.options).filter((o) => !o.matches(":disabled"));
    const o = options.find((o) => ckWellFormed(o.value) === value)
      ?? options.find((o) => ckTrim(ckWellFormed(o.label)) === ckTrim(value));
    if (!o) return 9;
    index = o.index;
  }
  if (!act) return;
  if (op === 0) return e.click();
  const [Class, key] = op === 2 ? [HTMLSelectElement, "selectedIndex"] : [input ? HTMLInputElement : HTMLTextAreaElement, "value"];
  Object.getOwnPropertyDescriptor(Class.prototype, key).set.call(e, op === 2 ? index : value);
  for (const kind of ["input", "change"]) e.dispatchEvent(new Event(kind, { bubbles: true, composed: true }));
  return op === 2 ? ckWellFormed(e.value) : value;
}
export function ckSettle(value, callback) {
  Promise.resolve(value).then((v) => callback(true, v), (e) => callback(false, e));
}
function ckInstruction(action, gate) {
  switch (gate) {
    case "needs_confirmation": return "Not done yet. Ask the user whether to go ahead; on a yes, call " + action + " again with the same arguments plus this confirmToken; on a no, call it with the confirmToken and decline: true.";
    case "needs_hand_mode": return "Not done: the user has not let the agent use this page (Hand mode is off). Ask them to turn it on, then try again.";
    case "cancelled": return "Not done: it was cancelled. Do not retry unless the user asks.";
    case "timeout": return "Not done: nobody confirmed it in time.";
  }
}
export function ckAnswer(outcome, kind, id, action) {
  return outcome.then((o) => {
    const e = o.error, c = { gate: o.gate, ok: o.ok }, instruction = ckInstruction(action, o.gate);
    if ("result" in o) c.result = o.result;
    if (e !== undefined) c.error = { code: e.code, message: e.message };
    if (o.confirmToken !== undefined) c.confirmToken = o.confirmToken;
    if (instruction !== undefined) c.instruction = instruction;
    let text;
    try { text = JSON.stringify(c); } catch { delete c.result; text = JSON.stringify(c); }
    id ??= o.callId;
    return kind === 0 ? { role: "tool", tool_call_id: id, content: text }
      : kind === 1 ? { type: "function_call_output", call_id: id, output: text }
      : { type: "tool_result", tool_use_id: id, content: text, is_error: !o.ok && o.gate !== "needs_confirmation" };
  });
}
export function ckTakeResolve(promise) {
  const resolve = promise.ckResolve;
  delete promise.ckResolve;
  return resolve;
}
"##)]
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

    /// Reads a JS value as plain JSON data in one pass and returns it as a tape (see
    /// [`convert`](crate::web::convert)); `budget` as in `read_value`.
    #[wasm_bindgen(js_name = ckReadValue)]
    pub fn read_value_tape(value: &JsValue, budget: f64) -> String;

    /// Reads an `invoke` call in one pass: its `name`, `args` (as [`read_value_tape`] does,
    /// also building the frozen copy), `callId`, `confirmToken` and `decline`, as one tape.
    /// When `callId` is not a string the tape offers a fresh id in the engine's format, `ck_`
    /// + 32 hex digits from `crypto.getRandomValues` (drawn 1 KiB at a time).
    #[wasm_bindgen(js_name = ckReadCall)]
    pub fn read_call_tape(call: &JsValue, budget: f64) -> String;

    /// Reads a provider tool call in one pass (see [`convert`](crate::web::convert)): its
    /// shape, id, name and arguments, the arguments read as [`read_value_tape`] reads them.
    #[wasm_bindgen(js_name = ckReadToolCall)]
    pub fn read_tool_call_tape(call: &JsValue, max: f64) -> String;

    /// The frozen copy of the args the last [`read_call_tape`] read; `undefined` after a
    /// failure. Taking it clears it, so no agent object outlives its call here.
    #[wasm_bindgen(js_name = ckTakeCopy)]
    pub fn take_copy() -> JsValue;

    /// The JS string of the `callId` (given or fresh) the last [`read_call_tape`] read.
    #[wasm_bindgen(js_name = ckTakeId)]
    pub fn take_id() -> JsValue;

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

    /// Resolves an element action's target (an `Element`, or a selector for
    /// `document.querySelector`) and checks it can take operation `op` (0 click, 1 fill, 2
    /// select), in the order and by the rules of [`hand`](super::hand)'s module docs; for a
    /// select with `value`, also finds the enabled option whose value is `value`, else whose
    /// trimmed label is (trimmed as Rust's `str::trim`, strings compared as Rust sees them:
    /// lone surrogates as U+FFFD). Returns the failed check's number (0–8: the index in
    /// `hand::UNAVAILABLE`; 9: no such option), else `undefined` unless `act`; with `act`,
    /// performs the operation: `click()`, or the native setter of `value` / `selectedIndex`
    /// (from the class prototype, past a framework's own setter on the element) followed by
    /// bubbling, composed `input` and `change` events, and returns `undefined`, the value set,
    /// or the select's new `value`.
    #[wasm_bindgen(catch, js_name = ckHand)]
    pub fn hand(
        target: &JsValue,
        op: u8,
        value: Option<&str>,
        act: bool,
    ) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(js_name = ckSettle)]
    fn settle(value: &JsValue, callback: JsValue);

    /// The provider's tool-result message (SPEC §7) for the outcome `outcome` resolves to:
    /// `kind` 0 is OpenAI Chat `{role: "tool", tool_call_id, content}`, 1 OpenAI Responses
    /// `{type: "function_call_output", call_id, output}`, 2 Anthropic `{type: "tool_result",
    /// tool_use_id, content, is_error}`; `id` defaults to the outcome's `callId`. The content
    /// is the compact JSON of `{gate, ok, result?, error?, confirmToken?, instruction?}`,
    /// without `result` when the run's value is not JSON (a cycle, a BigInt): the model gets
    /// the rest. `instruction` is one line telling the model what to do next, for the gates
    /// where that is not obvious (`needs_confirmation` names `action`). `is_error`: the call
    /// did not do its work, except for a soft call's first answer, which is a normal step.
    /// The outcome is the SDK's own frozen object, so the copying is plain JS.
    #[wasm_bindgen(js_name = ckAnswer)]
    pub fn answer(outcome: &Promise, kind: u8, id: Option<String>, action: &str) -> Promise;

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

#[wasm_bindgen]
extern "C" {
    /// `globalThis`. `js_sys::global()` probes four names (`globalThis`, `self`, `window`,
    /// `global`) with an import and glue each; every browser the SDK runs in has the first.
    #[wasm_bindgen(thread_local_v2, js_name = globalThis)]
    static GLOBAL_THIS: JsValue;
}

#[wasm_bindgen]
extern "C" {
    /// `String(n)`: how JavaScript prints a number, for `core::value::write_number` in the
    /// wasm build (a wasm test holds it to `JSON.stringify`).
    #[wasm_bindgen(js_name = String)]
    pub fn number_text(n: f64) -> String;
}

/// The global object (`globalThis`).
pub fn global() -> JsValue {
    GLOBAL_THIS.with(JsValue::clone)
}

/// The page's `Window`; `None` outside a page (a worker), as `web_sys::window()`.
pub fn window() -> Option<web_sys::Window> {
    global().dyn_into().ok()
}
