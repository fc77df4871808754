// The rules of a provider tool call (src/js/read.js reads it, src/js/objects.js answers it): the provider shapes (AG-UI when named), arguments as text or as an
// object, blank and missing arguments, strings refused by their length, which refusal wins,
// the read order; then the tool result it shapes for each provider.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ckReadToolCall, NOT_AG_UI, NOT_AN_OBJECT, UNKNOWN_SHAPE } from "../../src/js/read.js";
import { ckAnswer, ckCompact, ckError, ckInstruction, ckNextStep, ckOutcome } from "../../src/js/objects.js";
import { CODES, GATES, SHAPE_AG_UI, SHAPE_AI_SDK, SHAPE_ANTHROPIC, SHAPE_MCP, SHAPE_OPENAI_CHAT, SHAPE_OPENAI_RESPONSES } from "../../src/js/codes.js";

const MAX = 64;
/** Strings longer than this many UTF-16 units are refused unread. */
const LONGEST = MAX * 4 + 4096;
/** The tool call's tape, as text (decoded at once: the reader's buffer is reused). */
const read = (call, max = MAX) => new TextDecoder().decode(ckReadToolCall(call, max));
const chat = (args, extra = {}) => ({ id: "call_1", type: "function", function: { name: "getTask", arguments: args }, ...extra });
const responses = (args, extra = {}) => ({ type: "function_call", call_id: "fc_1", name: "getTask", arguments: args, ...extra });
const anthropic = (input, extra = {}) => ({ type: "tool_use", id: "tu_1", name: "getTask", input, ...extra });
const mcp = (args, extra = {}) => ({ name: "getTask", arguments: args, ...extra });
const aiSdk = (input, extra = {}) => ({ toolCallId: "call_9", toolName: "getTask", input, ...extra });
/** The tape's arguments part, after the shape digit and the id and name fields. */
function argsOf(call, max) {
  const t = read(call, max);
  let at = 1; // past the shape's digit
  for (let field = 0; field < 2; field++) {
    if (t[at] !== "s") { at++; continue; }
    const colon = t.indexOf(":", at);
    // The length is in UTF-8 bytes.
    for (let bytes = Number(t.slice(at + 1, colon)), i = (at = colon + 1); bytes > 0; i = at) {
      const c = String.fromCodePoint(/** @type {number} */ (t.codePointAt(i)));
      bytes -= Buffer.byteLength(c);
      at += c.length;
    }
  }
  return t.slice(at);
}
const jsonError = (text) => { try { JSON.parse(text); } catch (e) { return e.message; } };

test("the three shapes: the shape's digit, the call id and the tool name, then the arguments", () => {
  assert.equal(read(chat('{"a":1}')), "0s6:call_1s7:getTask{1:1:ai1;}");
  assert.equal(read(responses('{"a":1}')), "1s4:fc_1s7:getTask{1:1:ai1;}");
  assert.equal(read(anthropic({ a: 1 })), "2s4:tu_1s7:getTask{1:1:ai1;}");
  assert.equal(SHAPE_OPENAI_CHAT, 0);
  assert.equal(SHAPE_OPENAI_RESPONSES, 1);
  assert.equal(SHAPE_ANTHROPIC, 2);
  assert.equal(read(mcp({ a: 1 })), "3us7:getTask{1:1:ai1;}", "MCP: no id of its own");
  assert.equal(SHAPE_MCP, 3);
  assert.equal(read(aiSdk({ a: 1 })), "4s6:call_9s7:getTask{1:1:ai1;}", "the AI SDK's onToolCall");
  assert.equal(SHAPE_AI_SDK, 4);
});

test("the AI SDK's call: `type` absent, \"tool-input-available\" or \"tool-call\", its id `toolCallId`, its name `toolName`, its arguments `input`", () => {
  assert.equal(read(aiSdk({}, { type: "tool-call" })), "4s6:call_9s7:getTask{0:}", "generateText's toolCalls items");
  assert.equal(read(aiSdk({ a: 1 }, { type: "tool-input-available", providerMetadata: {} })), "4s6:call_9s7:getTask{1:1:ai1;}",
    "the stream chunk useChat hands onToolCall as its toolCall");
  assert.equal(read(aiSdk('{"a":1}')), "4s6:call_9s7:getTask{1:1:ai1;}", "input as text too");
  assert.equal(read(aiSdk(undefined)), "4s6:call_9s7:getTask{0:}");
  assert.equal(read(aiSdk({}, { dynamic: true, providerExecuted: false, name: "other", id: "x", arguments: "{}" })), "4s6:call_9s7:getTask{0:}",
    "its own id and name win; other fields are read but not used");
  assert.equal(read({ toolName: "getTask", input: {} }), "4us7:getTask{0:}", "without an id the engine makes one");
  assert.equal(read({ toolCallId: "c", input: {} }), "4s1:cu{0:}", "without a name: unknown_action in Rust");
  assert.equal(argsOf(aiSdk([1])), NOT_AN_OBJECT);
  assert.equal(argsOf(aiSdk({ f() {} })), "!3args.f");
  assert.equal(read(aiSdk({}, { type: "tool-result" })), "4s6:call_9s7:getTask" + UNKNOWN_SHAPE, "another type: none, answered as the AI SDK's");
  assert.equal(read(aiSdk({}, { type: "tool_use", id: "tu" })), "2s2:tuu{0:}", "Anthropic's type wins: its id, its (absent) name");
});

test("MCP's params are only `name` and `arguments`: a field of another shape makes it that shape, or none", () => {
  assert.equal(read({ name: "getTask" }), "3us7:getTask{0:}", "no arguments: {}");
  assert.equal(read(mcp('{"a":1}')), "3us7:getTask{1:1:ai1;}", "arguments as text too");
  assert.equal(read(mcp({}, { _meta: { progressToken: 1 } })), "3us7:getTask{0:}", "`_meta` is not read");
  assert.equal(argsOf(mcp([1])), NOT_AN_OBJECT);
  for (const [extra, tape] of [
    [{ id: "c" }, "0s1:cs7:getTask"], [{ call_id: "c" }, "1s1:cs7:getTask"], [{ input: {} }, "2us7:getTask"],
    [{ tool_use_id: "t" }, "2us7:getTask"], [{ type: "tool" }, "0us7:getTask"], [{ function: null }, "0us7:getTask"],
  ]) assert.equal(read(mcp({}, extra)), tape + UNKNOWN_SHAPE, JSON.stringify(extra));
  assert.equal(read({ name: 5, arguments: {} }), "0uu" + UNKNOWN_SHAPE, "a name that is not a string");
  // An invoke call sent to the tool door is none: as MCP it would run without its args or id.
  assert.equal(read({ name: "getTask", args: { a: 1 } }), "0us7:getTask" + UNKNOWN_SHAPE);
  assert.equal(read({ name: "getTask", callId: "c1" }), "0us7:getTask" + UNKNOWN_SHAPE);
  assert.equal(read({ name: "getTask", args: undefined, callId: undefined }), "3us7:getTask{0:}", "undefined is not there");
});

test("arguments may be JSON text or an object, in every shape", () => {
  assert.equal(read(chat({ a: [1] })), "0s6:call_1s7:getTask{1:1:a[1:i1;]}");
  assert.equal(read(responses({ a: [1] })), "1s4:fc_1s7:getTask{1:1:a[1:i1;]}");
  assert.equal(read(anthropic('{"a":[1]}')), "2s4:tu_1s7:getTask{1:1:a[1:i1;]}");
});

test("the id and name: Chat names the tool in `function` (else at the top), Responses' id is `call_id`", () => {
  assert.equal(read({ id: "c", type: "function", name: "top", function: { arguments: "{}" } }), "0s1:cs3:top{0:}");
  assert.equal(read({ id: "c", type: "function", name: "top", function: { name: "inner", arguments: "{}" } }), "0s1:cs5:inner{0:}");
  assert.equal(read(responses("{}", { id: "ignored" })), "1s4:fc_1s7:getTask{0:}");
  assert.equal(read(chat("{}", { id: 7 })), "0us7:getTask{0:}", "an id that is not a string is absent");
  assert.equal(read(anthropic({}, { name: ["x"] })), "2s4:tu_1u{0:}");
  assert.equal(read(anthropic({}, { id: "t\ud800" })), "2s4:t\ufffds7:getTask{0:}");
});

test("blank, null or missing arguments are no arguments: {}", () => {
  for (const blank of ["", "  ", "\n\t\r", "\u0085", "\u00a0\u2028\u3000"]) {
    assert.equal(argsOf(chat(blank)), "{0:}", JSON.stringify(blank));
  }
  assert.equal(argsOf(chat(null)), "{0:}");
  assert.equal(argsOf(chat(undefined)), "{0:}");
  assert.equal(argsOf(anthropic(undefined)), "{0:}");
  // U+FEFF is not white space to Rust's str::trim, so it is text (and not JSON).
  assert.equal(argsOf(chat("\ufeff")), "?args: not valid JSON: " + jsonError("\ufeff"));
});

test("arguments that are not a JSON object are refused; text that is not JSON, with the parser's message", () => {
  for (const args of ["[1]", "1", '"s"', "null", [1], "true"]) assert.equal(argsOf(chat(args)), NOT_AN_OBJECT, String(args));
  assert.equal(argsOf(responses("{")), "?args: not valid JSON: " + jsonError("{"));
  assert.equal(argsOf(anthropic({ f() {} })), "!3args.f");
});

test("arguments text is read with lone surrogates as U+FFFD, then parsed", () => {
  assert.equal(argsOf(chat('{"k\ud800":"v\udc00"}')), "{1:4:k\ufffds4:v\ufffd}");
});

test("parsed arguments are read as args: the depth limit and the budget hold", () => {
  assert.equal(argsOf(chat('{"s":"' + "x".repeat(60) + '"}'), 64), "#68;");
  assert.equal(argsOf(chat('{"a":' + "[".repeat(70) + "]".repeat(70) + "}"), 1000), "!0args.a" + "[0]".repeat(64));
});

test("a string field longer than 4 × max + 4096 is refused by its length, unread", () => {
  const long = "x".repeat(LONGEST + 1);
  assert.equal(argsOf(chat("{}", { id: long })), "#" + (LONGEST + 1) + ";");
  assert.equal(read(responses("{}", { name: long })), "1s4:fc_1u#" + (LONGEST + 1) + ";");
  assert.equal(argsOf(chat(" ".repeat(LONGEST + 1))), "#" + (LONGEST + 1) + ";", "blank or not");
  assert.equal(argsOf(chat(" ".repeat(LONGEST))), "{0:}", "at the limit it is read");
  assert.equal(read({ type: long }), "0uu#" + (LONGEST + 1) + ";", "the type too: a refusal beats an unknown shape");
});

test("which refusal wins: the first in the read order, used by the shape or not", () => {
  const long = "y".repeat(LONGEST + 5);
  // `id` is read before `arguments`.
  assert.equal(argsOf(responses({ f() {} }, { id: long })), "#" + (LONGEST + 5) + ";");
  // `arguments` before `input`, whichever the shape uses.
  assert.equal(argsOf(anthropic({ b: 1n }, { arguments: { s: Symbol() } })), "!4args.s");
  // An unused field's refusal still stands.
  assert.equal(argsOf(chat("{}", { input: { f() {} } })), "!3args.f");
  // `function`'s fields come last.
  assert.equal(argsOf({ id: "c", type: "function", input: [NaN], function: { name: long, arguments: "{}" } }), "!1args[0]");
});

test("every field is read once, in order; a throwing read is undefined", () => {
  const seen = [];
  const spy = (o, prefix) => new Proxy(o, { get: (t, k) => { seen.push(prefix + String(k)); return t[k]; } });
  read(spy({ id: "c", type: "function", function: spy({ name: "n", arguments: "{}" }, "function.") }, ""));
  assert.deepEqual(seen, ["type", "id", "call_id", "name", "tool_use_id", "arguments", "input", "toolCallId", "toolName", "args", "callId", "function", "function.name", "function.arguments"]);
  const boom = () => { throw new Error("no"); };
  assert.equal(read(new Proxy({}, { get: boom })), "0uu" + UNKNOWN_SHAPE);
  assert.equal(read({ type: "tool_use", get id() { throw new Error(); }, name: "n", input: {} }), "2us1:n{0:}");
});

test("a call of no known shape is refused and answered in the closest shape", () => {
  assert.equal(read({ call_id: "c", name: "n", arguments: "{}" }), "1s1:cs1:n" + UNKNOWN_SHAPE);
  assert.equal(read({ id: "t", name: "n", input: {} }), "2s1:ts1:n" + UNKNOWN_SHAPE);
  assert.equal(read({ tool_use_id: "t" }), "2uu" + UNKNOWN_SHAPE);
  assert.equal(read({ id: "c", name: "n" }), "0s1:cs1:n" + UNKNOWN_SHAPE);
  assert.equal(read({ id: "c", type: "function", function: "getTask" }), "0s1:cu" + UNKNOWN_SHAPE, "`function` must be an object");
  assert.equal(read({ id: "c", type: "function", function: [] }), "0s1:cu" + UNKNOWN_SHAPE);
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  assert.equal(read({ id: "c", type: "function", function: proxy }), "0s1:cu" + UNKNOWN_SHAPE, "a revoked Proxy, without a throw");
  assert.equal(read(null), "0uu" + UNKNOWN_SHAPE);
  assert.equal(read("a string"), "0uu" + UNKNOWN_SHAPE);
});

/** An outcome as ckOutcome makes it: not ok and terminal, it carries its instruction. */
const outcome = (o) => Promise.resolve(Object.freeze({
  callId: "ck_1", ...o, ...(!o.ok && o.gate !== "needs_confirmation" ? { instruction: ckNextStep(o.gate, o.error?.code) } : {}),
}));

test("the tool result, in each provider's shape; the id defaults to the outcome's callId", async () => {
  const fired = { gate: "fired", ok: true, result: { n: 1 } };
  assert.deepEqual(await ckAnswer(outcome(fired), SHAPE_OPENAI_CHAT, "call_1", "getTask"),
    { role: "tool", tool_call_id: "call_1", content: '{"gate":"fired","ok":true,"result":{"n":1}}' });
  assert.deepEqual(await ckAnswer(outcome(fired), SHAPE_OPENAI_RESPONSES, undefined, "getTask"),
    { type: "function_call_output", call_id: "ck_1", output: '{"gate":"fired","ok":true,"result":{"n":1}}' });
  assert.deepEqual(await ckAnswer(outcome(fired), SHAPE_ANTHROPIC, "tu_1", "getTask"),
    { type: "tool_result", tool_use_id: "tu_1", content: '{"gate":"fired","ok":true,"result":{"n":1}}', is_error: false });
  assert.deepEqual(await ckAnswer(outcome(fired), SHAPE_MCP, undefined, "getTask"),
    { content: [{ type: "text", text: '{"gate":"fired","ok":true,"result":{"n":1}}' }], structuredContent: { gate: "fired", ok: true, result: { n: 1 } }, isError: false });
});

test("the AI SDK's answer is what addToolOutput takes: { tool, toolCallId, output }, output the outcome as JSON data", async () => {
  const date = new Date(0);
  assert.deepEqual(await ckAnswer(outcome({ gate: "fired", ok: true, result: { at: date } }), SHAPE_AI_SDK, "call_9", "getTask"),
    { tool: "getTask", toolCallId: "call_9", output: { gate: "fired", ok: true, result: { at: date.toJSON() } } });
  const soft = await ckAnswer(outcome({ gate: "needs_confirmation", ok: false, confirmToken: "tok", expiresAt: 5 }), SHAPE_AI_SDK, undefined, "archiveThread");
  assert.deepEqual(soft, { tool: "archiveThread", toolCallId: "ck_1", output: { gate: "needs_confirmation", ok: false, confirmToken: "tok", instruction: ckInstruction("archiveThread", "needs_confirmation") } });
  const rejected = await ckAnswer(outcome({ gate: "rejected", ok: false, error: { code: "invalid_args", message: "m" } }), SHAPE_AI_SDK, "c", "x");
  assert.deepEqual(rejected, { tool: "x", toolCallId: "c", output: { gate: "rejected", ok: false, error: { code: "invalid_args", message: "m" }, instruction: ckNextStep("rejected", "invalid_args") } }, "no output-error: the model reads the gate");
  const bigint = await ckAnswer(outcome({ gate: "fired", ok: true, result: 1n }), SHAPE_AI_SDK, "c", "x");
  assert.deepEqual(bigint.output, { gate: "fired", ok: true });
});

test("MCP's result: structuredContent is the text's JSON, isError as Anthropic's is_error", async () => {
  const date = new Date(0);
  const fired = await ckAnswer(outcome({ gate: "fired", ok: true, result: { at: date, skip: undefined } }), SHAPE_MCP, undefined, "x");
  assert.deepEqual(fired.structuredContent, { gate: "fired", ok: true, result: { at: date.toJSON() } }, "JSON data, whatever run returned");
  assert.deepEqual(JSON.parse(fired.content[0].text), fired.structuredContent);
  const soft = await ckAnswer(outcome({ gate: "needs_confirmation", ok: false, confirmToken: "tok" }), SHAPE_MCP, undefined, "a");
  assert.equal(soft.isError, false);
  assert.equal(soft.structuredContent.confirmToken, "tok");
  const rejected = await ckAnswer(outcome({ gate: "rejected", ok: false, error: { code: "invalid_args", message: "m" } }), SHAPE_MCP, undefined, "a");
  assert.equal(rejected.isError, true);
  const bigint = await ckAnswer(outcome({ gate: "fired", ok: true, result: 1n }), SHAPE_MCP, undefined, "a");
  assert.deepEqual(bigint.structuredContent, { gate: "fired", ok: true });
});

test("the content: error and token copied, an instruction where the next step is not obvious, no non-JSON result", async () => {
  const soft = await ckAnswer(outcome({ gate: "needs_confirmation", ok: false, confirmToken: "tok", expiresAt: 5 }), SHAPE_ANTHROPIC, "t", "archiveThread");
  assert.deepEqual(JSON.parse(soft.content), { gate: "needs_confirmation", ok: false, confirmToken: "tok", instruction: ckInstruction("archiveThread", "needs_confirmation") });
  assert.match(JSON.parse(soft.content).instruction, /call archiveThread again with the same arguments plus this confirmToken/);
  assert.equal(soft.is_error, false, "a soft call's first answer is a normal step");
  const rejected = await ckAnswer(outcome({ gate: "rejected", ok: false, error: { code: "invalid_args", message: "args.a: no", extra: 1 } }), SHAPE_ANTHROPIC, "t", "x");
  assert.deepEqual(JSON.parse(rejected.content), { gate: "rejected", ok: false, error: { code: "invalid_args", message: "args.a: no" }, instruction: ckNextStep("rejected", "invalid_args") });
  assert.equal(rejected.is_error, true);
  const bigint = await ckAnswer(outcome({ gate: "fired", ok: true, result: { n: 1n } }), SHAPE_OPENAI_CHAT, "c", "x");
  assert.equal(bigint.content, '{"gate":"fired","ok":true}');
  const cyclic = { a: 1 };
  cyclic.self = cyclic;
  assert.equal((await ckAnswer(outcome({ gate: "fired", ok: true, result: cyclic }), SHAPE_OPENAI_CHAT, "c", "x")).content, '{"gate":"fired","ok":true}');
  const failed = await ckAnswer(outcome({ gate: "fired", ok: false, error: { code: "run_failed", message: "m" } }), SHAPE_ANTHROPIC, "t", "x");
  assert.equal(failed.is_error, true);
});

test("every outcome that is not ok carries its instruction, and every tool-result shape carries it; ok outcomes none", async () => {
  const code = (name) => CODES.indexOf(name);
  const cases = [
    [GATES.indexOf("cancelled"), ckError(code("declined"), 'the user cancelled this call, saying: "Not the client one"'), /the user said no.*Do not retry/],
    [GATES.indexOf("cancelled"), ckError(code("cancelled_by_user"), "m"), /cancelled\. Do not retry/],
    [GATES.indexOf("timeout"), ckError(code("expired"), "m"), /Ask the user before trying again/],
    [GATES.indexOf("needs_hand_mode"), ckError(code("hand_mode_off"), "m"), /Hand mode is off/],
    [GATES.indexOf("rejected"), ckError(code("invalid_args"), "args.a: no"), /Fix them/],
    [GATES.indexOf("rejected"), ckError(code("token_expired"), "m"), /without confirmToken and ask the user again/],
    [GATES.indexOf("rejected"), ckError(code("unknown_action"), "m"), /no tool by that name/],
    [GATES.indexOf("rejected"), ckError(code("invalid_grant"), "m"), /error\.message says why/],
    [GATES.indexOf("confirmed"), ckError(code("run_failed"), "boom"), /error\.message says why/],
  ];
  for (const [gate, error, line] of cases) {
    const o = ckOutcome("c1", gate, false, undefined, error, undefined, undefined);
    assert.match(o.instruction, line, `${o.gate} ${error.code}`);
    assert.equal(Object.keys(o).at(-1), "instruction");
    for (const shape of [SHAPE_OPENAI_CHAT, SHAPE_OPENAI_RESPONSES, SHAPE_ANTHROPIC, SHAPE_MCP, SHAPE_AI_SDK, SHAPE_AG_UI]) {
      const answer = await ckAnswer(Promise.resolve(o), shape, "t", "x");
      const content = shape === SHAPE_MCP ? answer.structuredContent
        : shape === SHAPE_AI_SDK ? answer.output
        : JSON.parse(answer.content ?? answer.output);
      assert.equal(content.instruction, o.instruction, `shape ${shape}`);
      assert.deepEqual(content.error, { code: error.code, message: error.message });
    }
    assert.equal((await ckCompact(Promise.resolve(o), "x")).instruction, o.instruction, "WebMCP");
  }
  // The declined outcome quotes the person's words in its message, as the engine wrote it.
  const declined = await ckCompact(Promise.resolve(ckOutcome("c", GATES.indexOf("cancelled"), false, undefined, cases[0][1], undefined, undefined)), "x");
  assert.match(declined.error.message, /"Not the client one"/);
  for (const gate of ["fired", "confirmed"]) {
    assert.equal("instruction" in ckOutcome("c", GATES.indexOf(gate), true, 1, undefined, undefined, undefined), false, gate);
  }
  const asked = ckOutcome("c", GATES.indexOf("needs_confirmation"), false, undefined, undefined, "tok", 5);
  assert.equal("instruction" in asked, false, "a soft call's first answer: its tool result says how to ask");
  assert.match(ckInstruction("archiveThread", "needs_confirmation"), /declineReason/);
});

test("AG-UI's call, named by the app: OpenAI Chat's shape read as AG-UI's; any other shape refused, still AG-UI's", () => {
  const agUi = (call, max = MAX) => new TextDecoder().decode(ckReadToolCall(call, max, true));
  assert.equal(SHAPE_AG_UI, 5);
  // As @ag-ui/client assembles it from TOOL_CALL_START / ARGS / END (arguments the joined deltas).
  assert.equal(agUi(chat('{"a":1}')), "5s6:call_1s7:getTask{1:1:ai1;}");
  assert.equal(agUi(chat("", { encryptedValue: "e", metadata: { m: 1 } })), "5s6:call_1s7:getTask{0:}", "no deltas: no arguments");
  assert.equal(read(chat('{"a":1}')), "0s6:call_1s7:getTask{1:1:ai1;}", "unnamed, the same call is OpenAI Chat's");
  for (const other of [anthropic({}), responses("{}"), aiSdk({}), mcp({}), { id: "x", type: "function", name: "getTask" }]) {
    const tape = agUi(other);
    assert.equal(tape[0], "5", JSON.stringify(other));
    assert.ok(tape.endsWith(NOT_AG_UI), JSON.stringify(other));
  }
  assert.match(NOT_AG_UI, /not an AG-UI tool call: expected \{id, type: "function", function: \{name, arguments\}\}/);
  // Its arguments follow OpenAI Chat's rules: an array is no object.
  assert.ok(agUi(chat("[1]")).endsWith(NOT_AN_OBJECT));
});

test("AG-UI's answer: a tool message { id, role: \"tool\", toolCallId, content } with a fresh UUID each time", async () => {
  const o = () => outcome({ gate: "fired", ok: true, result: { n: 1 } });
  const a = await ckAnswer(o(), SHAPE_AG_UI, "call_1", "getTask");
  const b = await ckAnswer(o(), SHAPE_AG_UI, "call_1", "getTask");
  assert.deepEqual(Object.keys(a), ["id", "role", "toolCallId", "content"]);
  assert.equal(a.role, "tool");
  assert.equal(a.toolCallId, "call_1");
  assert.equal(a.content, '{"gate":"fired","ok":true,"result":{"n":1}}');
  assert.match(a.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.notEqual(a.id, b.id, "a message id is never reused");
  const soft = await ckAnswer(outcome({ gate: "needs_confirmation", ok: false, confirmToken: "tok", expiresAt: 5 }), SHAPE_AG_UI, "call_2", "archiveThread");
  assert.deepEqual(JSON.parse(soft.content), { gate: "needs_confirmation", ok: false, confirmToken: "tok", instruction: ckInstruction("archiveThread", "needs_confirmation") });
  const rejected = await ckAnswer(outcome({ gate: "rejected", ok: false, error: { code: "invalid_args", message: "m" } }), SHAPE_AG_UI, undefined, "x");
  assert.equal(rejected.toolCallId, "ck_1", "no id of its own: the outcome's callId");
  assert.equal("error" in rejected, false, "how it went is in the content, as in OpenAI's answer");
});
