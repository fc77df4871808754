// @ts-check
/**
 * @file Builders of the objects the SDK hands out: on every call (the outcome, its error, the
 * record and its outcome, `run`'s `ctx`), each in one crossing; and a tool call's answer in its
 * provider's shape (SPEC §7).
 *
 * They hold no logic: every value is decided in Rust. What they guarantee (tested in
 * tests/js/objects.test.mjs and, for the tool result, tests/js/toolcall.test.mjs): the fields
 * come in the order SPEC §3 and §6 give, an optional field is absent (not `undefined`) when not
 * given, and every object but the `ctx` is frozen. The tool result carries the outcome as
 * compact JSON text, with a one-line instruction for the gates where the model's next step is
 * not obvious (every outcome that is not `ok` carries its own, SPEC §12). Building them from Rust
 * one `Reflect.set` at a time cost a crossing per field.
 *
 * A gate, level, door, status, assurance or code comes from Rust as its number (codes.js names
 * each list), so no string of a fixed set is decoded from wasm memory on a call.
 */
import {
  SHAPE_OPENAI_CHAT, SHAPE_OPENAI_RESPONSES, SHAPE_ANTHROPIC, SHAPE_MCP, SHAPE_AG_UI, GATES, CONTROLS,
  CONTROL_SOURCES, VIAS, STATUSES, ASSURANCES, CODES, RUN_RETURNED, RUN_THREW, RUN_LATER,
} from "./codes.js";

/** @typedef {import("./codes.js").Gate} Gate */
/** @typedef {import("./codes.js").Control} Control */
/** @typedef {import("./codes.js").ControlSource} ControlSource */
/** @typedef {import("./codes.js").Via} Via */
/** @typedef {import("./codes.js").Status} Status */
/** @typedef {import("./codes.js").Assurance} Assurance */
/** @typedef {import("./codes.js").Code} Code */
/** @typedef {import("./passkey.js").Receipt} Receipt */
/** @typedef {import("./passkey.js").Verification} Verification */

/**
 * The string of ASCII text given as its bytes (a call id the engine made), eight char codes to a
 * `String.fromCharCode` call. wasm-bindgen writes a Rust string through `TextDecoder.decode`,
 * and `String.fromCharCode.apply` over the bytes costs as much: about 0.3 µs a call each in
 * Chromium, against 0.1 µs for this, on a path (every open `invoke`) that costs 3–4 µs in all.
 * @param {Uint8Array} bytes ASCII only
 * @returns {string}
 */
export function ckAscii(bytes) {
  const n = bytes.length, whole = n - (n % 8);
  let text = "";
  for (let i = 0; i < whole; i += 8) {
    text += String.fromCharCode(bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3], bytes[i + 4], bytes[i + 5], bytes[i + 6], bytes[i + 7]);
  }
  for (let i = whole; i < n; i++) text += String.fromCharCode(bytes[i]);
  return text;
}

/**
 * `{ callId, gate, ok, result?, error?, confirmToken?, expiresAt?, instruction? }`, frozen; a
 * terminal outcome that is not `ok` carries `instruction` ({@link ckNextStep}).
 * @param {string} callId
 * @param {number} gate a `GATES` index
 * @param {boolean} ok
 * @param {unknown} result
 * @param {{ code: Code, message: string } | undefined} error
 * @param {string | undefined} confirmToken
 * @param {number | undefined} expiresAt
 */
export function ckOutcome(callId, gate, ok, result, error, confirmToken, expiresAt) {
  /** @type {{ callId: string, gate: Gate, ok: boolean, result?: unknown, error?: unknown, confirmToken?: string, expiresAt?: number, instruction?: string }} */
  const o = { callId, gate: GATES[gate], ok };
  if (result !== undefined) o.result = result;
  if (error !== undefined) o.error = error;
  if (confirmToken !== undefined) o.confirmToken = confirmToken;
  if (expiresAt !== undefined) o.expiresAt = expiresAt;
  if (!ok && o.gate !== "needs_confirmation") o.instruction = ckNextStep(o.gate, error?.code);
  return Object.freeze(o);
}

/**
 * The outcome of `ckOutcome`, already resolved: what `invoke` returns for a call answered at
 * once (an open action with a synchronous `run`, a rejection), in one crossing.
 * @param {string} callId
 * @param {number} gate a `GATES` index
 * @param {boolean} ok
 * @param {unknown} result
 * @param {{ code: Code, message: string } | undefined} error
 * @param {string | undefined} confirmToken
 * @param {number | undefined} expiresAt
 */
export function ckResolvedOutcome(callId, gate, ok, result, error, confirmToken, expiresAt) {
  return Promise.resolve(ckOutcome(callId, gate, ok, result, error, confirmToken, expiresAt));
}

/** How one `run` went: `how` a `RUN_*` code, `value` what it returned, threw or gave to wait for. */
export class RunReport {
  /**
   * @param {number} how
   * @param {unknown} value
   */
  constructor(how, value) {
    this.how = how;
    this.value = value;
  }
}

/**
 * Calls an action's `run` with the frozen args and its `ctx` (see `ckContext`) and reports how it
 * went: `RUN_RETURNED`, `RUN_THREW`, or `RUN_LATER` for a thenable (an object whose `then` reads
 * as a function; a `then` whose read throws is none), with what `run` returned or threw as it is.
 * The throw is caught here: an import that may throw is wrapped by the glue in a closure and an
 * `arguments` object on every call.
 * @param {(args: unknown, ctx: unknown) => unknown} run
 * @param {unknown} args
 * @param {string} callId
 * @param {number} control a `CONTROLS` index
 * @param {unknown} approver
 * @param {AbortSignal} signal
 * @param {Receipt | undefined} receipt a `verify: "passkey"` call's (passkey.js `ckReceipt`)
 * @returns {RunReport}
 */
export function ckRun(run, args, callId, control, approver, signal, receipt) {
  let ran;
  try {
    ran = run(args, ckContext(callId, control, approver, signal, receipt));
  } catch (e) {
    return new RunReport(RUN_THREW, e);
  }
  if (typeof ran !== "object" || ran === null) return new RunReport(RUN_RETURNED, ran);
  let then;
  try { then = /** @type {{ then?: unknown }} */ (ran).then; } catch { /* not a thenable */ }
  return new RunReport(typeof then === "function" ? RUN_LATER : RUN_RETURNED, ran);
}

/**
 * Calls `f(payload)`: the app's `onActionRecord` (`sink`) or an event listener, app code whose
 * throw is logged and goes no further. (From Rust, `Function.prototype.call` goes through the
 * glue's wrapper for imports that may throw, which costs more than the call.)
 * @param {(payload: unknown) => unknown} f
 * @param {unknown} payload
 * @param {boolean} sink
 */
export function ckDeliver(f, payload, sink) {
  try {
    f(payload);
  } catch (e) {
    console.error(sink ? "coworkkit: onActionRecord threw; the call is unaffected" : "coworkkit: an event listener threw", e);
  }
}

/**
 * `{ code, message }`, frozen.
 * @param {number} code a `CODES` index
 * @param {string} message
 */
export function ckError(code, message) {
  return Object.freeze({ code: CODES[code], message });
}

/**
 * The action record of SPEC §6, frozen; its `id` is `sessionId` and `seq` joined by a dot, its
 * `outcome` is `ckRecordOutcome` of the four outcome fields; `assurance` always (after
 * `verification`, as SPEC §6 lists it); `note` and `grant` only when given.
 * @param {number} seq the record's number in its session
 * @param {string} sessionId
 * @param {string} callId
 * @param {string} action
 * @param {number} control a `CONTROLS` index
 * @param {number} controlSource a `CONTROL_SOURCES` index
 * @param {number} gate a `GATES` index
 * @param {number} status the outcome's, a `STATUSES` index
 * @param {unknown} value the outcome's value (status `ok`)
 * @param {number | undefined} code the outcome's code (status `error`), a `CODES` index
 * @param {string | undefined} message the outcome's message (status `error`)
 * @param {unknown} args
 * @param {unknown} approver
 * @param {number | undefined} reason a `CODES` index
 * @param {number} via a `VIAS` index
 * @param {number} startedAt
 * @param {number} settledAt
 * @param {Verification | undefined} verification a `verify: "passkey"` call's (passkey.js `ckVerification`)
 * @param {number} assurance what let it run, an `ASSURANCES` index (Rust decides it: `core::record::Assurance`)
 * @param {string | undefined} note the person's reason for a no (SPEC §12)
 * @param {string | undefined} grant the id of the grant that let a soft call fire (SPEC §12)
 */
export function ckRecord(seq, sessionId, callId, action, control, controlSource, gate, status, value, code, message, args, approver, reason, via, startedAt, settledAt, verification, assurance, note, grant) {
  const outcome = ckRecordOutcome(status, value, code, message);
  /** @type {{ v: 1, id: string, sessionId: string, callId: string, action: string, control: Control, controlSource: ControlSource, gate: Gate, outcome: unknown, args: unknown, approver?: unknown, reason?: Code, via?: Via, verification?: Verification, assurance?: Assurance, note?: string, grant?: string, startedAt?: number, settledAt?: number }} */
  const r = {
    v: 1, id: sessionId + "." + seq, sessionId, callId, action, control: CONTROLS[control],
    controlSource: CONTROL_SOURCES[controlSource], gate: GATES[gate], outcome, args,
  };
  if (approver !== undefined) r.approver = approver;
  if (reason !== undefined) r.reason = CODES[reason];
  r.via = VIAS[via];
  if (verification !== undefined) r.verification = verification;
  r.assurance = ASSURANCES[assurance];
  if (note !== undefined) r.note = note;
  if (grant !== undefined) r.grant = grant;
  r.startedAt = startedAt;
  r.settledAt = settledAt;
  return Object.freeze(r);
}

/**
 * A grant as the SDK hands it out (`ck.grant`, `ck.grants()`, the `grants` event; SPEC §12):
 * `{ id, action, createdAt, expiresAt, maxUses?, uses, match? }`, frozen, `match` (the SDK's
 * deeply frozen copy) only when it names arguments.
 * @param {string} id
 * @param {string} action
 * @param {number} createdAt
 * @param {number} expiresAt
 * @param {number | undefined} maxUses
 * @param {number} uses
 * @param {unknown} match
 */
export function ckGrant(id, action, createdAt, expiresAt, maxUses, uses, match) {
  return Object.freeze({
    id, action, createdAt, expiresAt,
    ...(maxUses === undefined ? {} : { maxUses }),
    uses,
    ...(match === undefined ? {} : { match }),
  });
}

/**
 * A record's `outcome`: `{ status: "ok", value? }`, `{ status: "error", code, message }` or
 * `{ status }`, frozen.
 * @param {number} status a `STATUSES` index
 * @param {unknown} value
 * @param {number | undefined} code a `CODES` index
 * @param {string | undefined} message
 */
export function ckRecordOutcome(status, value, code, message) {
  /** @type {{ status: Status, value?: unknown, code?: Code, message?: string }} */
  const o = { status: STATUSES[status] };
  if (o.status === "ok") { if (value !== undefined) o.value = value; }
  else if (o.status === "error") { o.code = code === undefined ? undefined : CODES[code]; o.message = message; }
  return Object.freeze(o);
}

/**
 * The `ctx` that `run` receives: `{ callId, control, approver, signal, receipt? }`.
 * @param {string} callId
 * @param {number} control a `CONTROLS` index
 * @param {unknown} approver
 * @param {AbortSignal} signal
 * @param {Receipt | undefined} receipt
 */
export function ckContext(callId, control, approver, signal, receipt) {
  /** @type {{ callId: string, control: Control, approver: unknown, signal: AbortSignal, receipt?: Receipt }} */
  const ctx = { callId, control: CONTROLS[control], approver, signal };
  if (receipt !== undefined) ctx.receipt = receipt;
  return ctx;
}

/**
 * The outcome as the SDK resolves it (its own frozen object: the reads here cannot throw).
 * @typedef {object} Outcome
 * @property {string} callId
 * @property {Gate} gate
 * @property {boolean} ok
 * @property {unknown} [result]
 * @property {{ code: Code, message: string }} [error]
 * @property {string} [confirmToken]
 * @property {string} [instruction]
 */

/**
 * The tool result's content, before it becomes JSON text.
 * @typedef {object} Content
 * @property {Gate} gate
 * @property {boolean} ok
 * @property {unknown} [result]
 * @property {{ code: Code, message: string }} [error]
 * @property {string} [confirmToken]
 * @property {string} [instruction]
 */

/**
 * @typedef {{ role: "tool", tool_call_id: string, content: string }
 *   | { type: "function_call_output", call_id: string, output: string }
 *   | { type: "tool_result", tool_use_id: string, content: string, is_error: boolean }
 *   | { content: [{ type: "text", text: string }], structuredContent: Content, isError: boolean }
 *   | { tool: string, toolCallId: string, output: Content }
 *   | { id: string, role: "tool", toolCallId: string, content: string }} ToolResult
 */

/**
 * What the model should do next after an outcome that is not `ok` (SPEC §12): for every
 * terminal gate, and for a rejection, what to fix (by its code). A person's "no" (`declined`,
 * with their words in the error's message when they gave some) says not to ask again.
 * @param {Gate} gate
 * @param {Code | undefined} code
 * @returns {string}
 */
export function ckNextStep(gate, code) {
  switch (gate) {
    case "needs_hand_mode": return "Not done: the user has not let the agent use this page (Hand mode is off). Ask them to turn it on, then try again.";
    case "cancelled": return code === "declined"
      ? "Not done: the user said no, so it was cancelled; the reason they gave, if any, is in error.message. Do not retry or ask again unless the user brings it up."
      : "Not done: it was cancelled. Do not retry unless the user asks.";
    case "timeout": return "Not done: nobody confirmed it in time. Ask the user before trying again.";
    case "rejected": switch (code) {
      case "unknown_action": return "Not done: there is no tool by that name. Use one of the tools you were given.";
      case "invalid_args": return "Not done: the arguments are not valid (error.message says where). Fix them, then call again.";
      case "args_too_large": return "Not done: the arguments are too large. Send less.";
      case "bad_token": return "Not done: this confirmToken does not belong to this call. Use the one returned for exactly these arguments, or call without it and ask the user again.";
      case "token_expired": return "Not done: the confirmation expired. Call again without confirmToken and ask the user again.";
      case "call_id_conflict": return "Not done: this call id belongs to another call. Use a new one.";
      case "too_many_pending": return "Not done: too many calls already wait for the user. Let them answer first.";
      case "element_unavailable": return "Not done: the page element it needs is missing, hidden or disabled. Tell the user.";
    }
  }
  return "Not done: error.message says why. Do not retry it unchanged; tell the user.";
}

/**
 * A tool result's line for the model after an outcome of `action` that is not `ok`: for a soft
 * call's first answer, how to ask the user and come back (through a tool door, where the user's
 * reason travels as `declineReason`); for any other, {@link ckNextStep}, which the outcome itself
 * carries as `instruction`.
 * @param {string} action
 * @param {Gate} gate
 * @param {Code} [code]
 * @returns {string}
 */
export function ckInstruction(action, gate, code) {
  if (gate === "needs_confirmation") return "Not done yet. Ask the user whether to go ahead; on a yes, call " + action + " again with the same arguments plus this confirmToken; on a no, call it with the confirmToken and decline: true, and the user's reason, if they gave one, as declineReason.";
  return ckNextStep(gate, code);
}

/**
 * The compact outcome `{gate, ok, result?, error?, confirmToken?, instruction?}` and its JSON
 * text: without `result` when the run's value is not JSON (a cycle, a BigInt), so the agent
 * gets the rest.
 * @param {Outcome} o
 * @param {string} action
 * @returns {{ content: Content, text: string }}
 */
function compact(o, action) {
  const e = o.error, instruction = o.gate === "needs_confirmation" ? ckInstruction(action, o.gate) : o.instruction;
  /** @type {Content} */
  const content = { gate: o.gate, ok: o.ok };
  if ("result" in o) content.result = o.result;
  if (e !== undefined) content.error = { code: e.code, message: e.message };
  if (o.confirmToken !== undefined) content.confirmToken = o.confirmToken;
  if (instruction !== undefined) content.instruction = instruction;
  let text;
  try { text = JSON.stringify(content); } catch { delete content.result; text = JSON.stringify(content); }
  return { content, text };
}

/**
 * A fresh message id: a random UUID (version 4), from `crypto.getRandomValues`, which every
 * page has (`crypto.randomUUID` only a secure context).
 * @returns {string}
 */
export function freshId() {
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The provider's tool-result message for the outcome `outcome` resolves to, in `shape`; `id`
 * defaults to the outcome's `callId`. The content is the compact outcome as JSON text (see
 * `compact`). `is_error` (MCP: `isError`): the call did not do its work, except for a soft
 * call's first answer, which is a normal step. MCP's `CallToolResult` has no id (the JSON-RPC
 * response carries it) and gives the outcome twice, as the spec asks of structured content: as
 * text, and as `structuredContent`. The Vercel AI SDK's answer is what `addToolOutput` takes,
 * `{ tool, toolCallId, output }` (`tool` the name called), its `output` the outcome itself:
 * the model reads the gate and the instruction, so no call is an `output-error`. Both objects
 * are parsed back from the text, so they are JSON data whatever `run` returned. AG-UI's is a
 * `tool` message, `{ id, role: "tool", toolCallId, content }`, with a fresh message id; it
 * leaves out AG-UI's optional `error`, as OpenAI's answer has no flag: the content says how it
 * went, and the model reads the instruction there.
 * @param {Promise<Outcome>} outcome
 * @param {number} shape a `SHAPE_*` code
 * @param {string | undefined} id
 * @param {string} action
 * @returns {Promise<ToolResult>}
 */
export function ckAnswer(outcome, shape, id, action) {
  return outcome.then((o) => {
    const { text } = compact(o, action);
    const to = id ?? o.callId;
    const failed = !o.ok && o.gate !== "needs_confirmation";
    return shape === SHAPE_OPENAI_CHAT ? { role: "tool", tool_call_id: to, content: text }
      : shape === SHAPE_OPENAI_RESPONSES ? { type: "function_call_output", call_id: to, output: text }
      : shape === SHAPE_ANTHROPIC ? { type: "tool_result", tool_use_id: to, content: text, is_error: failed }
      : shape === SHAPE_MCP ? { content: [{ type: "text", text }], structuredContent: JSON.parse(text), isError: failed }
      : shape === SHAPE_AG_UI ? { id: freshId(), role: "tool", toolCallId: to, content: text }
      : { tool: action, toolCallId: to, output: JSON.parse(text) };
  });
}

/**
 * What a WebMCP tool's `execute` resolves to (SPEC §7.2): the compact outcome itself, the object
 * a tool result's content is the JSON of. It stays JSON-serializable (the browser hands the
 * agent its JSON), so it never turns into the bare `UnknownError` of a failed execution.
 * @param {Promise<Outcome>} outcome
 * @param {string} action
 * @returns {Promise<Content>}
 */
export function ckCompact(outcome, action) {
  return outcome.then((o) => compact(o, action).content);
}
