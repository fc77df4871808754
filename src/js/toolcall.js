// @ts-check
/**
 * @file A provider's tool call in, the provider's tool result out (SPEC §7).
 *
 * What it guarantees, each rule tested in tests/js/toolcall.test.mjs:
 * - It recognises three shapes: OpenAI Chat `{id, type: "function", function: {name,
 *   arguments}}`, OpenAI Responses `{type: "function_call", call_id, name, arguments}` and
 *   Anthropic `{type: "tool_use", id, name, input}`. Anything else is refused, and answered in
 *   the closest shape.
 * - It reads the call's fields once each, in one order: `type`, `id`, `call_id`, `name`,
 *   `tool_use_id`, `arguments`, `input`, then `function`'s `name` and `arguments`; a read that
 *   throws reads as `undefined`, as in args.js.
 * - A string field longer than 4 × `max` + 4096 UTF-16 units is refused by its length, before it
 *   is copied or parsed. `arguments` and `input` that are not strings are read as args (args.js,
 *   with `max` as the budget) whether or not the shape uses them. The first refusal of any field,
 *   in the read order, is the one that stands.
 * - Arguments given as JSON text are read with lone surrogates as U+FFFD, then `JSON.parse`d
 *   and read as args. Text that Rust's `str::trim` would leave empty, `null` or no arguments at
 *   all are no arguments (`{}`); arguments that are not a JSON object are refused.
 * - The answer carries the outcome as compact JSON text, with a one-line instruction for the
 *   gates where the model's next step is not obvious.
 *
 * The call reaches Rust as one tape: the shape's digit, its id and name as fields, then its
 * arguments as a value or a refusal (format: src/core/tape.rs).
 */
import {
  TAG_OBJECT, TAG_OBJECT_END, TAG_LENGTH_END, TAG_NUMBER_END, TAG_TOO_LARGE, TAG_NOT_JSON,
  TAG_REFUSED, SHAPE_OPENAI_CHAT, SHAPE_OPENAI_RESPONSES, SHAPE_ANTHROPIC,
} from "./codes.js";
import { asRustSees, ckReadValue, field, rustBlank, safeGet } from "./args.js";

/** The tape of no arguments: an empty object. */
const NO_ARGS = TAG_OBJECT + 0 + TAG_LENGTH_END + TAG_OBJECT_END;

export const UNKNOWN_SHAPE = TAG_REFUSED + "not a tool call coworkkit knows: expected OpenAI Chat {id, type: \"function\", function: {name, arguments}}, OpenAI Responses {type: \"function_call\", call_id, name, arguments} or Anthropic {type: \"tool_use\", id, name, input}";
export const NOT_AN_OBJECT = TAG_REFUSED + "args: a tool call's arguments must be a JSON object";

/**
 * Whether `tape` is a tool call's arguments as Rust takes them: an object or a refusal.
 * @param {string} tape
 */
const isArgsTape = (tape) => [TAG_OBJECT, TAG_TOO_LARGE, TAG_NOT_JSON, TAG_REFUSED].includes(tape[0]);

/**
 * Reads a provider tool call; `max` is `maxArgsBytes`. Returns its tape.
 * @param {unknown} call
 * @param {number} max
 * @returns {string}
 */
export function ckReadToolCall(call, max) {
  const longest = max * 4 + 4096;
  let refusal = "";
  /**
   * One field: a string within `longest`, `undefined`, or (for arguments, `args` set) the tape
   * of a value that is not a string; `null` for anything refused or not of use.
   * @param {unknown} from
   * @param {string} key
   * @param {boolean} [args]
   * @returns {string | [string] | null | undefined}
   */
  const read = (from, key, args) => {
    const v = safeGet(from, key);
    if (typeof v === "string") {
      if (v.length <= longest) return v;
      refusal ||= TAG_TOO_LARGE + v.length + TAG_NUMBER_END;
    } else if (v === undefined) return v;
    else if (args && v !== null) {
      const tape = ckReadValue(v, max);
      if (tape[0] !== TAG_TOO_LARGE && tape[0] !== TAG_NOT_JSON) return [tape];
      refusal ||= tape;
    }
    return null;
  };
  const type = read(call, "type"), id = read(call, "id"), callId = read(call, "call_id"),
    name = read(call, "name"), useId = read(call, "tool_use_id"),
    args = read(call, "arguments", true), input = read(call, "input", true),
    fn = safeGet(call, "function");
  let fnName, fnArgs;
  let isFn = false;
  try { isFn = typeof fn === "object" && fn !== null && !Array.isArray(fn); } catch {} // a revoked Proxy
  if (isFn) {
    fnName = read(fn, "name");
    fnArgs = read(fn, "arguments", true);
  }
  const given = type === "function_call" ? SHAPE_OPENAI_RESPONSES
    : type === "tool_use" ? SHAPE_ANTHROPIC
    : type === "function" && isFn ? SHAPE_OPENAI_CHAT
    : undefined;
  // An unknown call is answered in the shape it looks closest to.
  const shape = given ?? (callId !== undefined ? SHAPE_OPENAI_RESPONSES
    : input !== undefined || useId !== undefined ? SHAPE_ANTHROPIC
    : SHAPE_OPENAI_CHAT);
  const raw = shape === SHAPE_OPENAI_RESPONSES ? args : shape === SHAPE_ANTHROPIC ? input : fnArgs;
  let tape;
  if (refusal) tape = refusal;
  else if (given === undefined) tape = UNKNOWN_SHAPE;
  else if (typeof raw === "string") tape = parsedArgs(raw, max);
  else tape = raw ? raw[0] : NO_ARGS;
  if (!isArgsTape(tape)) tape = NOT_AN_OBJECT;
  const callName = shape === SHAPE_OPENAI_CHAT && fnName !== undefined ? fnName : name;
  return shape + field(shape === SHAPE_OPENAI_RESPONSES ? callId : id) + field(callName) + tape;
}

/**
 * Arguments given as JSON text, read as args.
 * @param {string} raw
 * @param {number} max
 * @returns {string}
 */
function parsedArgs(raw, max) {
  const text = asRustSees(raw);
  if (rustBlank(text)) return NO_ARGS;
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    const m = safeGet(e, "message");
    return TAG_REFUSED + "args: not valid JSON: " + (typeof m === "string" ? m : "");
  }
  return ckReadValue(parsed, max);
}

/**
 * The outcome as the SDK resolves it (its own frozen object: the reads here cannot throw).
 * @typedef {object} Outcome
 * @property {string} callId
 * @property {string} gate
 * @property {boolean} ok
 * @property {unknown} [result]
 * @property {{ code: string, message: string }} [error]
 * @property {string} [confirmToken]
 */

/**
 * The tool result's content, before it becomes JSON text.
 * @typedef {object} Content
 * @property {string} gate
 * @property {boolean} ok
 * @property {unknown} [result]
 * @property {{ code: string, message: string }} [error]
 * @property {string} [confirmToken]
 * @property {string} [instruction]
 */

/**
 * @typedef {{ role: "tool", tool_call_id: string, content: string }
 *   | { type: "function_call_output", call_id: string, output: string }
 *   | { type: "tool_result", tool_use_id: string, content: string, is_error: boolean }} ToolResult
 */

/**
 * What the model should do next, for the gates where that is not obvious from the outcome.
 * @param {string} action
 * @param {string} gate
 * @returns {string | undefined}
 */
export function ckInstruction(action, gate) {
  switch (gate) {
    case "needs_confirmation": return "Not done yet. Ask the user whether to go ahead; on a yes, call " + action + " again with the same arguments plus this confirmToken; on a no, call it with the confirmToken and decline: true.";
    case "needs_hand_mode": return "Not done: the user has not let the agent use this page (Hand mode is off). Ask them to turn it on, then try again.";
    case "cancelled": return "Not done: it was cancelled. Do not retry unless the user asks.";
    case "timeout": return "Not done: nobody confirmed it in time.";
  }
}

/**
 * The provider's tool-result message for the outcome `outcome` resolves to, in `shape`; `id`
 * defaults to the outcome's `callId`. The content is the compact JSON of `{gate, ok, result?,
 * error?, confirmToken?, instruction?}`, without `result` when the run's value is not JSON (a
 * cycle, a BigInt): the model gets the rest. `is_error`: the call did not do its work, except
 * for a soft call's first answer, which is a normal step.
 * @param {Promise<Outcome>} outcome
 * @param {number} shape a `SHAPE_*` code
 * @param {string | undefined} id
 * @param {string} action
 * @returns {Promise<ToolResult>}
 */
export function ckAnswer(outcome, shape, id, action) {
  return outcome.then((o) => {
    const e = o.error, instruction = ckInstruction(action, o.gate);
    /** @type {Content} */
    const c = { gate: o.gate, ok: o.ok };
    if ("result" in o) c.result = o.result;
    if (e !== undefined) c.error = { code: e.code, message: e.message };
    if (o.confirmToken !== undefined) c.confirmToken = o.confirmToken;
    if (instruction !== undefined) c.instruction = instruction;
    let text;
    try { text = JSON.stringify(c); } catch { delete c.result; text = JSON.stringify(c); }
    const to = id ?? o.callId;
    return shape === SHAPE_OPENAI_CHAT ? { role: "tool", tool_call_id: to, content: text }
      : shape === SHAPE_OPENAI_RESPONSES ? { type: "function_call_output", call_id: to, output: text }
      : { type: "tool_result", tool_use_id: to, content: text, is_error: !o.ok && o.gate !== "needs_confirmation" };
  });
}
