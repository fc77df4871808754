//! The JavaScript that ships beside the wasm, as Rust sees it: one binding per function, and the
//! codes that cross with them.
//!
//! Each job is a module file under `src/js/` (JSDoc-typed, checked by `tsc --checkJs --strict`,
//! unit-tested in node under `tests/js/`; `scripts/test-js` runs both):
//! - `read.js`: the one-pass reader of what an agent sends (an `invoke` call and its args, a
//!   provider tool call), which hands over a tape for [`core::tape`](crate::core::tape) to
//!   decode ([`read`](super::read) puts the two together);
//! - `objects.js`: the objects handed out (outcome, record, `ctx`, a tool call's answer), built
//!   in one crossing each;
//! - `page.js`: which element an agent may touch, and the touch; the SDK's host elements and
//!   their stylesheets; the Watch panel (bound in [`watch`](super::watch));
//! - `passkey.js`: a passkey confirmation's statement, prompt and receipt;
//! - `codes.js`: the codes below, named once for the JS side.
//!
//! What a function guarantees is documented once, in its JS file, beside the code that keeps
//! the promise; the Rust side here says what it is called with and what comes back.
//!
//! Few files, each a whole job: the glue imports every bound module at once, and the server of
//! `wasm-bindgen-test-runner` (tiny_http) can leave a request unanswered when a page opens more
//! than about four connections at a time, which hangs the browser tests.

use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;

use crate::core::tape::Shape;

/// Click the element: the operations [`hand`] takes are the `OP_*` of codes.js.
pub const OP_CLICK: u8 = 0;
/// Fill an `<input>` or `<textarea>`.
pub const OP_FILL: u8 = 1;
/// Choose an option of a `<select>`.
pub const OP_SELECT: u8 = 2;

/// `run` returned a value: a [`RunReport`]'s `how` is one of the `RUN_*` of codes.js.
pub const RUN_RETURNED: u8 = 0;
/// `run` threw.
pub const RUN_THREW: u8 = 1;
/// `run` returned a thenable.
pub const RUN_LATER: u8 = 2;

/// No element matches: [`hand`] answers the first check an element failed with one of the
/// `ELEMENT_*` of codes.js.
pub const ELEMENT_MISSING: u8 = 0;
/// Not in the document.
pub const ELEMENT_DETACHED: u8 = 1;
/// Inside the SDK's own DOM.
pub const ELEMENT_OWN_DOM: u8 = 2;
/// Inert.
pub const ELEMENT_INERT: u8 = 3;
/// Hidden, not rendered or of no size.
pub const ELEMENT_HIDDEN: u8 = 4;
/// Disabled.
pub const ELEMENT_DISABLED: u8 = 5;
/// Not an HTML element (click).
pub const ELEMENT_NOT_HTML: u8 = 6;
/// Not an editable `<input>` or `<textarea>` (fill).
pub const ELEMENT_NOT_EDITABLE: u8 = 7;
/// Not a `<select>` (select).
pub const ELEMENT_NOT_SELECT: u8 = 8;
/// No enabled option has the value or label asked for (select).
pub const ELEMENT_NO_OPTION: u8 = 9;

// Nothing in Rust reads codes.js; wasm-bindgen copies a module file into the package only when
// something is bound from it, and the modules below import it.
#[wasm_bindgen(module = "/src/js/codes.js")]
extern "C" {
    #[wasm_bindgen(thread_local_v2, js_name = MAX_DEPTH)]
    static SHIPS_CODES_JS: f64;
}

#[wasm_bindgen(module = "/src/js/read.js")]
extern "C" {
    /// Reads a JS value as plain JSON data in one pass, within `budget` bytes; returns its tape
    /// (UTF-8 bytes).
    #[wasm_bindgen(js_name = ckReadValue)]
    pub fn read_value_tape(value: &JsValue, budget: f64) -> Vec<u8>;

    /// What [`read_call`] read: its tape, the frozen copy of its args and its `callId` string.
    pub type CallReading;

    /// The call's tape (UTF-8 bytes), copied out of the reader's shared buffer: read it first.
    #[wasm_bindgen(method, getter)]
    pub fn tape(this: &CallReading) -> Vec<u8>;

    /// The frozen copy of the args; `undefined` when there were none or they were refused.
    #[wasm_bindgen(method, getter)]
    pub fn copy(this: &CallReading) -> JsValue;

    /// The `callId` string, when the call had one within the bound; else `undefined`.
    #[wasm_bindgen(method, getter, js_name = callId)]
    pub fn call_id(this: &CallReading) -> JsValue;

    /// Reads an `invoke` call in one pass (`name`, `args`, `callId`, `confirmToken`,
    /// `decline`), building the frozen copy of its args.
    #[wasm_bindgen(js_name = ckReadCall)]
    pub fn read_call(call: &JsValue, budget: f64) -> CallReading;

    /// Reads a provider tool call in one pass: its shape, id, name and arguments (`max` is
    /// `maxArgsBytes`; `ag_ui`: read it as AG-UI's); returns its tape (UTF-8 bytes).
    #[wasm_bindgen(js_name = ckReadToolCall)]
    pub fn read_tool_call_tape(call: &JsValue, max: f64, ag_ui: bool) -> Vec<u8>;
}

/// `page.js`: element actions, and the SDK's own hosts (the Watch panel's class is bound in
/// [`watch`](super::watch)).
#[wasm_bindgen(module = "/src/js/page.js")]
extern "C" {
    /// Resolves an element action's target (an `Element`, or a selector for
    /// `document.querySelector`) and checks it can take operation `op` (an `OP_*` code) by the
    /// rules of [`element`](super::element)'s module docs; for a select with `value`, also finds the
    /// option. Returns the failed check's `ELEMENT_*` code, else `undefined` unless `act`; with
    /// `act`, performs the operation and returns `undefined`, the value set, or the select's
    /// new `value`.
    #[wasm_bindgen(catch, js_name = ckHand)]
    pub fn hand(
        target: &JsValue,
        op: u8,
        value: Option<&str>,
        act: bool,
    ) -> Result<JsValue, JsValue>;

    /// A `<tag data-coworkkit=kind>` appended to `parent`, with a closed shadow root styled with
    /// `kind`'s sheet (`card`, `hand`, `switch` or `watch`); the root.
    #[wasm_bindgen(js_name = ckShadowRoot, catch)]
    pub fn shadow_root(
        parent: &web_sys::Node,
        tag: &str,
        kind: &str,
    ) -> Result<web_sys::ShadowRoot, JsValue>;
}

/// The builders of `objects.js`. A gate, level, door, status or code goes over as its number
/// (`Gate as u8`, an index of [`CODES`](crate::core::error::CODES), …; codes.js names each list
/// in the same order), so no string of a fixed set is decoded on a call.
#[wasm_bindgen(module = "/src/js/objects.js")]
extern "C" {
    /// The JS string of ASCII text, from its bytes (see [`ascii`]).
    #[wasm_bindgen(js_name = ckAscii)]
    fn ascii_in(bytes: &[u8]) -> JsValue;

    /// A grant: `{ id, action, createdAt, expiresAt, maxUses?, uses, match? }`, frozen.
    #[wasm_bindgen(js_name = ckGrant)]
    pub fn grant(
        id: &str,
        action: &str,
        created_at: f64,
        expires_at: f64,
        max_uses: Option<u32>,
        uses: u32,
        matching: &JsValue,
    ) -> JsValue;

    /// `{ callId, gate, ok, result?, error?, confirmToken?, expiresAt?, instruction? }`, frozen
    /// (`instruction`: what the model should do next, on every terminal outcome not `ok`).
    #[wasm_bindgen(js_name = ckOutcome)]
    pub fn outcome(
        call_id: &JsValue,
        gate: u8,
        ok: bool,
        result: &JsValue,
        error: &JsValue,
        confirm_token: Option<String>,
        expires_at: Option<f64>,
    ) -> JsValue;

    /// A promise already resolved with the outcome [`outcome`] builds from the same fields (a
    /// `Promise`, typed as a `JsValue` so that both builders share one caller in Rust).
    #[wasm_bindgen(js_name = ckResolvedOutcome)]
    pub fn resolved_outcome(
        call_id: &JsValue,
        gate: u8,
        ok: bool,
        result: &JsValue,
        error: &JsValue,
        confirm_token: Option<String>,
        expires_at: Option<f64>,
    ) -> JsValue;

    /// How one [`run`] went.
    pub type RunReport;

    /// A `RUN_*` code: `run` returned, threw, or gave a thenable.
    #[wasm_bindgen(method, getter)]
    pub fn how(this: &RunReport) -> u8;

    /// What `run` returned, threw, or gave to wait for, as it is.
    #[wasm_bindgen(method, getter)]
    pub fn value(this: &RunReport) -> JsValue;

    /// Calls `run(args, ctx)`, the `ctx` being built of the other arguments (`receipt`:
    /// `undefined`, or a passkey call's [`receipt`]), and reports how it went.
    #[wasm_bindgen(js_name = ckRun)]
    pub fn run(
        run: &Function,
        args: &JsValue,
        call_id: &JsValue,
        control: u8,
        approver: &JsValue,
        signal: &JsValue,
        receipt: &JsValue,
    ) -> RunReport;

    /// Calls `f(payload)`, the app's `onActionRecord` (`sink`) or an event listener; a throw
    /// is logged with `console.error`, naming which, and goes no further.
    #[wasm_bindgen(js_name = ckDeliver)]
    pub fn deliver(f: &Function, payload: &JsValue, sink: bool);

    /// `{ code, message }`, frozen.
    #[wasm_bindgen(js_name = ckError)]
    pub fn error(code: Option<u8>, message: &str) -> JsValue;

    /// The action record of SPEC §6, frozen; its `id` is `<sessionId>.<seq>`, its `outcome`
    /// `{ status, value? }`, `{ status, code, message }` or `{ status }`; `assurance` always,
    /// as its number (`Assurance as u8`); `note` and `grant` (SPEC §12) only when given.
    #[wasm_bindgen(js_name = ckRecord)]
    pub fn record(
        seq: f64,
        session_id: &JsValue,
        call_id: &JsValue,
        action: &JsValue,
        control: u8,
        control_source: u8,
        gate: u8,
        status: u8,
        value: &JsValue,
        code: Option<u8>,
        message: Option<String>,
        args: &JsValue,
        approver: &JsValue,
        reason: Option<u8>,
        via: u8,
        started_at: f64,
        settled_at: f64,
        verification: &JsValue,
        assurance: u8,
        note: Option<String>,
        grant: Option<String>,
    ) -> JsValue;

    #[wasm_bindgen(js_name = ckAnswer)]
    fn answer_in(outcome: &Promise, shape: u8, id: Option<String>, action: &str) -> Promise;

    /// The compact outcome (`{gate, ok, result?, error?, confirmToken?, instruction?}`) of the
    /// outcome that `outcome` resolves to: what a WebMCP tool's `execute` resolves to.
    #[wasm_bindgen(js_name = ckCompact)]
    pub fn compact(outcome: &Promise, action: &str) -> Promise;
}

/// The passkey prompt's glue (`passkey.js`): every job in it is the browser's own (SHA-256,
/// `navigator.credentials.get`, base64url through `btoa` and `atob`).
#[wasm_bindgen(module = "/src/js/passkey.js")]
extern "C" {
    /// The statement a passkey signs for one call, as canonical JSON (SPEC §4.1).
    #[wasm_bindgen(js_name = ckStatement)]
    pub fn statement(
        origin: &str,
        rp_id: &str,
        action: &str,
        args: &JsValue,
        call_id: &str,
        session_id: &str,
        nonce: &str,
        issued_at: f64,
        expires_at: f64,
    ) -> String;

    /// The ids `passkey.credentials` answered (a value or a promise), checked: resolves to
    /// them, or rejects saying why none can be used (`NotFoundError`: there are none).
    #[wasm_bindgen(js_name = ckPasskeyIds)]
    pub fn passkey_ids(answer: &JsValue) -> Promise;

    /// Asks the browser for a user-verified assertion by one of the ids `answer` gives (as
    /// [`passkey_ids`]) over the SHA-256 of `statement`; resolves to a [`PasskeyAssertion`],
    /// rejects as [`passkey_ids`] does or with what the browser threw.
    #[wasm_bindgen(js_name = ckPasskeyAsk)]
    pub fn passkey_ask(
        statement: &str,
        rp_id: &str,
        answer: &JsValue,
        timeout_ms: f64,
        signal: &web_sys::AbortSignal,
    ) -> Promise;

    /// What [`passkey_ask`] resolves to.
    pub type PasskeyAssertion;

    /// The credential's id, base64url.
    #[wasm_bindgen(method, getter, js_name = credentialId)]
    pub fn credential_id(this: &PasskeyAssertion) -> String;

    /// Its authenticator data.
    #[wasm_bindgen(method, getter, js_name = authenticatorData)]
    pub fn authenticator_data(this: &PasskeyAssertion) -> Vec<u8>;

    /// The assertion in the `PublicKeyCredential.toJSON()` shape.
    #[wasm_bindgen(method, getter)]
    pub fn credential(this: &PasskeyAssertion) -> JsValue;

    /// The ids the prompt was asked with.
    #[wasm_bindgen(method, getter)]
    pub fn allowed(this: &PasskeyAssertion) -> Vec<String>;

    /// `{ statement, credential }`, deeply frozen (`credential` a fresh object of the SDK's).
    #[wasm_bindgen(js_name = ckReceipt)]
    pub fn receipt(statement: &str, credential: &JsValue) -> JsValue;

    /// A record's `verification`: `{ method: "passkey", credentialId, receipt }`, frozen.
    #[wasm_bindgen(js_name = ckVerification)]
    pub fn verification(credential_id: &str, receipt: &JsValue) -> JsValue;
}

/// The JS string of `text`: for ASCII text (a call id the engine made) from its bytes, else
/// through wasm-bindgen's `TextDecoder`, whose fixed cost per call is the larger for short text.
pub fn ascii(text: &str) -> JsValue {
    if text.is_ascii() {
        ascii_in(text.as_bytes())
    } else {
        JsValue::from_str(text)
    }
}

/// The provider's tool-result message (SPEC §7), in `shape`, for the outcome that `outcome`
/// resolves to: `{role: "tool", tool_call_id, content}`, `{type: "function_call_output",
/// call_id, output}` or `{type: "tool_result", tool_use_id, content, is_error}`, the content
/// being the outcome as compact JSON plus a next-step instruction. `id` defaults to the
/// outcome's `callId`.
pub fn answer(outcome: &Promise, shape: Shape, id: Option<String>, action: &str) -> Promise {
    answer_in(outcome, shape as u8, id, action)
}

#[wasm_bindgen]
extern "C" {
    /// `String(n)`: how JavaScript prints a number. The engine measures JSON sizes and prints
    /// the numbers of its messages with it (`Config::number_text`), so both agree with what the
    /// page's `JSON.stringify` writes (Rust's `f64` `Display` writes `1e21` in full, and `1e-7`
    /// as `0.0000001`); a wasm test holds it to `JSON.stringify`.
    #[wasm_bindgen(js_name = String)]
    pub fn number_text(n: f64) -> String;
}

/// The page's `Window`; `None` outside a page (a worker), as `web_sys::window()`.
pub fn window() -> Option<web_sys::Window> {
    js_sys::global().dyn_into().ok()
}
