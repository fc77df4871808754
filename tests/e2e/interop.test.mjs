// Agent interoperability (SPEC §7) through the real package, in every engine: manifests
// for every format checked against golden objects and the providers' documented shapes, every
// provider's tool-call round trip, re-sent calls, MCP hints, Standard Schema inputs with real
// zod and valibot, and the README's LLM loops run against a scripted model.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { launch, openFixture, waitCard, clickPart, sleep, TEST_TIMEOUT, waitArmed, confirmCard } from "./harness.mjs";

let env, p;
before(async () => {
  env = await launch();
  p = await openFixture(env);
  // The golden test defines its actions through this source, shared with the page.
  await p.evaluate((src) => { window.defineFourSrc = src; }, defineFour.toString());
});
after(async () => { await env?.close(); });

/**
 * Runs `fn` in the page with a fresh instance `ck` (its records and per-action run counts) and
 * the `define` helper; `ck` is disposed afterwards unless `keep` is set.
 */
function inPage(fn, arg, { keep = false } = {}) {
  return p.evaluate(async ({ src, arg, keep }) => {
    const { Coworkkit } = window.coworkkit;
    const records = [];
    const runs = {};
    const ck = new Coworkkit({ onActionRecord: (r) => records.push(r), confirmTimeoutMs: 5000, armDelayMs: 50 });
    const define = (spec) => ck.defineAction({
      run: (args) => { runs[spec.name] = (runs[spec.name] ?? 0) + 1; return { done: spec.name, args }; },
      ...spec,
    });
    window.last = { ck, records, runs };
    try {
      return await new Function("ck", "records", "runs", "define", "arg", `return (${src})(ck, records, runs, define, arg);`)(ck, records, runs, define, arg);
    } finally {
      if (!keep) ck.dispose();
    }
  }, { src: fn.toString(), arg, keep });
}

// ---- manifests ------------------------------------------------------------------------------

const SOFT_NOTE = "This asks first: the first call does not run it but returns needs_confirmation with a confirmToken. Ask the user; on a yes, call it again with the same arguments plus confirmToken; on a no, call it with confirmToken and decline: true (and declineReason, if they said why).";
const HARD_NOTE = "A person confirms this on screen before it runs: wait for the outcome and do not call it again.";
const SOFT_PARAMS = {
  confirmToken: { type: "string", description: "Only after the user said yes: the confirmToken from the needs_confirmation answer." },
  decline: { type: "boolean", description: "With confirmToken, when the user said no." },
  declineReason: { type: "string", description: "With decline: true, why the user said no, in their own words (at most 200 characters)." },
};
const SUMMARY = "SECRET-SUMMARY: delete p1 and its 12 tasks?";

/** Four actions covering every control, hint and input case. */
function defineFour(ck, define, summary) {
  define({
    name: "searchDocs", description: "Search the docs.", readOnly: true, idempotent: true,
    input: { type: "object", properties: { query: { type: "string", minLength: 1 } }, required: ["query"], additionalProperties: false },
  });
  define({
    name: "archiveThread", description: "Archive a mail thread", control: "soft",
    input: { type: "object", properties: { threadId: { type: "string" } }, required: ["threadId"] },
  });
  define({
    name: "deleteProject", description: "Permanently delete a project.", control: "hard",
    input: { type: "object", properties: { projectId: { type: "string" } }, required: ["projectId"] },
    confirmationSummary: () => summary,
  });
  define({ name: "refresh", description: "Reload the inbox." });
}

const search = { type: "object", properties: { query: { type: "string", minLength: 1 } }, required: ["query"], additionalProperties: false };
const archive = { type: "object", properties: { threadId: { type: "string" } }, required: ["threadId"] };
const archiveSoft = { type: "object", properties: { threadId: { type: "string" }, ...SOFT_PARAMS }, required: ["threadId"] };
const del = { type: "object", properties: { projectId: { type: "string" } }, required: ["projectId"] };
const none = { type: "object", properties: {} };
const words = {
  searchDocs: "Search the docs.",
  archiveThread: `Archive a mail thread. ${SOFT_NOTE}`,
  deleteProject: `Permanently delete a project. ${HARD_NOTE}`,
  refresh: "Reload the inbox.",
};
const params = { searchDocs: search, archiveThread: archiveSoft, deleteProject: del, refresh: none };
const names = ["searchDocs", "archiveThread", "deleteProject", "refresh"];

const GOLDEN = {
  json: [
    { name: "searchDocs", description: "Search the docs.", control: "open", inputSchema: search, readOnly: true, idempotent: true },
    { name: "archiveThread", description: "Archive a mail thread", control: "soft", inputSchema: archive, readOnly: false, idempotent: false },
    { name: "deleteProject", description: "Permanently delete a project.", control: "hard", inputSchema: del, readOnly: false, idempotent: false },
    { name: "refresh", description: "Reload the inbox.", control: "open", inputSchema: none, readOnly: false, idempotent: false },
  ],
  openai: names.map((n) => ({ type: "function", function: { name: n, description: words[n], parameters: params[n] } })),
  "openai-responses": names.map((n) => ({ type: "function", name: n, description: words[n], parameters: params[n], strict: false })),
  anthropic: names.map((n) => ({ name: n, description: words[n], input_schema: params[n] })),
  "ag-ui": names.map((n) => ({ name: n, description: words[n], parameters: params[n] })),
  mcp: [
    { name: "searchDocs", description: words.searchDocs, inputSchema: search, annotations: { readOnlyHint: true, idempotentHint: true } },
    { name: "archiveThread", description: words.archiveThread, inputSchema: archiveSoft, annotations: { destructiveHint: false } },
    { name: "deleteProject", description: words.deleteProject, inputSchema: del, annotations: { destructiveHint: true } },
    { name: "refresh", description: words.refresh, inputSchema: none, annotations: { destructiveHint: false } },
  ],
};

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/; // OpenAI's and Anthropic's documented tool-name rule
const only = (object, keys, what) => {
  for (const k of Object.keys(object)) assert.ok(keys.includes(k), `${what}: unexpected key ${k}`);
};
const objectSchema = (s, what) => {
  assert.equal(s.type, "object", `${what}: the root schema is an object schema`);
  if ("properties" in s) assert.equal(typeof s.properties, "object");
  if ("required" in s) assert.ok(Array.isArray(s.required) && s.required.every((r) => typeof r === "string"));
  assert.ok(!("$schema" in s));
};
/** The documented shape of each provider's tool definition. */
const SHAPES = {
  json(t) {
    only(t, ["name", "description", "control", "inputSchema", "readOnly", "idempotent"], "json");
    assert.ok(["open", "soft", "hard"].includes(t.control));
    objectSchema(t.inputSchema, "json");
  },
  openai(t) { // Chat Completions: { type: "function", function: { name, description?, parameters?, strict? } }
    only(t, ["type", "function"], "openai");
    assert.equal(t.type, "function");
    only(t.function, ["name", "description", "parameters", "strict"], "openai.function");
    assert.match(t.function.name, TOOL_NAME);
    assert.equal(typeof t.function.description, "string");
    objectSchema(t.function.parameters, "openai");
  },
  "openai-responses"(t) { // Responses: { type: "function", name, description?, parameters, strict }
    only(t, ["type", "name", "description", "parameters", "strict"], "openai-responses");
    assert.equal(t.type, "function");
    assert.match(t.name, TOOL_NAME);
    assert.equal(t.strict, false);
    objectSchema(t.parameters, "openai-responses");
  },
  anthropic(t) { // Messages: { name, description?, input_schema: { type: "object", ... } }
    only(t, ["name", "description", "input_schema"], "anthropic");
    assert.match(t.name, TOOL_NAME);
    objectSchema(t.input_schema, "anthropic");
  },
  "ag-ui"(t) { // AG-UI Tool: { name, description, parameters?, metadata? }
    only(t, ["name", "description", "parameters", "metadata"], "ag-ui");
    assert.match(t.name, TOOL_NAME);
    assert.equal(typeof t.description, "string");
    objectSchema(t.parameters, "ag-ui");
  },
  mcp(t) { // tools/list: { name, title?, description?, inputSchema: { type: "object" }, annotations? }
    only(t, ["name", "title", "description", "inputSchema", "outputSchema", "annotations"], "mcp");
    objectSchema(t.inputSchema, "mcp");
    only(t.annotations, ["title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"], "mcp.annotations");
    for (const v of Object.values(t.annotations)) assert.equal(typeof v, "boolean");
  },
};

test("tools(format): golden manifests in every format, in each provider's documented shape", { timeout: TEST_TIMEOUT }, async () => {
  const r = await inPage((ck, records, runs, define, summary) => {
    const defineFour = new Function("return " + window.defineFourSrc)();
    defineFour(ck, define, summary);
    const formats = ["json", "openai", "openai-responses", "anthropic", "mcp", "ag-ui"];
    const manifests = Object.fromEntries(formats.map((f) => [f, ck.tools(f)]));
    // Fresh, plain, mutable objects every time.
    const a = ck.tools("openai"); a[0].function.strict = true; a.push(1);
    const errors = ["gemini", "", undefined, 42].map((f) => { try { ck.tools(f); return null; } catch (e) { return [e instanceof Error, e.code]; } });
    return { manifests, again: ck.tools("openai"), errors };
  }, SUMMARY);
  for (const [format, golden] of Object.entries(GOLDEN)) {
    assert.deepEqual(r.manifests[format], golden, `golden ${format}`);
    for (const entry of r.manifests[format]) SHAPES[format](entry);
  }
  assert.deepEqual(r.again, GOLDEN.openai, "an earlier manifest's mutation changes nothing");
  assert.ok(!JSON.stringify(r.manifests).includes("SECRET"), "the confirmation summary is in no manifest");
  assert.deepEqual(r.errors, Array(4).fill([true, "invalid_spec"]));
});

// ---- tool calls -----------------------------------------------------------------------------

const parse = (result) => JSON.parse(result.content ?? result.output);

test("OpenAI Chat: a tool call in, a tool message out; arguments as a string or an object", { timeout: TEST_TIMEOUT }, async () => {
  const r = await inPage(async (ck, records, runs, define) => {
    define({ name: "searchDocs", description: "Search.", input: { type: "object", properties: { query: { type: "string" } }, required: ["query"] } });
    const asString = await ck.handleToolCall({ id: "call_1", type: "function", function: { name: "searchDocs", arguments: "{\"query\":\"wasm\"}" } });
    const asObject = await ck.handleToolCall({ id: "call_2", type: "function", function: { name: "searchDocs", arguments: { query: "rust" } } });
    const invalid = await ck.handleToolCall({ id: "call_3", type: "function", function: { name: "searchDocs", arguments: "{\"query\":7}" } });
    const unknown = await ck.handleToolCall({ id: "call_4", type: "function", function: { name: "nope", arguments: "{}" } });
    return { asString, asObject, invalid, unknown, runs: runs.searchDocs, callIds: records.map((x) => x.callId) };
  });
  assert.deepEqual(Object.keys(r.asString), ["role", "tool_call_id", "content"]);
  assert.equal(r.asString.role, "tool");
  assert.equal(r.asString.tool_call_id, "call_1");
  assert.deepEqual(parse(r.asString), { gate: "fired", ok: true, result: { done: "searchDocs", args: { query: "wasm" } } });
  assert.deepEqual(parse(r.asObject).result.args, { query: "rust" });
  assert.deepEqual(parse(r.invalid), { gate: "rejected", ok: false, error: { code: "invalid_args", message: "args.query: expected string" }, instruction: "Not done: the arguments are not valid (error.message says where). Fix them, then call again." });
  assert.equal(parse(r.unknown).error.code, "unknown_action");
  assert.equal(r.runs, 2);
  assert.deepEqual(r.callIds, ["call_1", "call_2", "call_3", "call_4"], "the provider's id is the callId");
});

test("OpenAI Responses: soft confirmation through function_call / function_call_output", { timeout: TEST_TIMEOUT }, async () => {
  const r = await inPage(async (ck, records, runs, define) => {
    define({ name: "archiveThread", description: "Archive.", control: "soft", input: { type: "object", properties: { threadId: { type: "string" } }, required: ["threadId"], additionalProperties: false } });
    const first = await ck.handleToolCall({ type: "function_call", id: "fc_1", call_id: "call_a", name: "archiveThread", arguments: "{\"threadId\":\"t1\"}", status: "completed" });
    const token = JSON.parse(first.output).confirmToken;
    const forged = await ck.handleToolCall({ type: "function_call", call_id: "call_x", name: "archiveThread", arguments: JSON.stringify({ threadId: "t1", confirmToken: "ckt_forged" }) });
    const yes = await ck.handleToolCall({ type: "function_call", call_id: "call_b", name: "archiveThread", arguments: JSON.stringify({ threadId: "t1", confirmToken: token }) });
    const again = await ck.handleToolCall({ type: "function_call", call_id: "call_b", name: "archiveThread", arguments: JSON.stringify({ threadId: "t1", confirmToken: token }) });
    return { first, forged, yes, again, runs: runs.archiveThread, records: records.map((x) => [x.callId, x.gate, x.reason ?? null]) };
  });
  assert.deepEqual(Object.keys(r.first), ["type", "call_id", "output"]);
  assert.equal(r.first.type, "function_call_output");
  assert.equal(r.first.call_id, "call_a");
  const first = parse(r.first);
  assert.equal(first.gate, "needs_confirmation");
  assert.match(first.confirmToken, /^[\w-]{22,}$/);
  assert.match(first.instruction, /Ask the user.*archiveThread.*confirmToken/);
  assert.equal(parse(r.forged).error.code, "bad_token");
  assert.equal(r.yes.call_id, "call_b");
  assert.deepEqual(parse(r.yes), { gate: "confirmed", ok: true, result: { done: "archiveThread", args: { threadId: "t1" } } });
  assert.deepEqual(r.again, r.yes);
  assert.equal(r.runs, 1);
  assert.deepEqual(r.records, [["call_x", "rejected", "bad_token"], ["call_a", "confirmed", null]]);
});

test("Anthropic: tool_use → tool_result; decline cancels; shareResult: false hides the result", { timeout: TEST_TIMEOUT }, async () => {
  const r = await inPage(async (ck, records, runs, define) => {
    define({ name: "archiveThread", description: "Archive.", control: "soft" });
    define({ name: "readSecret", description: "Read.", shareResult: false });
    const first = await ck.handleToolCall({ type: "tool_use", id: "toolu_1", name: "archiveThread", input: { threadId: "t9" } });
    const token = JSON.parse(first.content).confirmToken;
    const no = await ck.handleToolCall({ type: "tool_use", id: "toolu_2", name: "archiveThread", input: { threadId: "t9", confirmToken: token, decline: true } });
    const hidden = await ck.handleToolCall({ type: "tool_use", id: "toolu_3", name: "readSecret", input: {} });
    return { first, no, hidden, runs, records: records.map((x) => [x.callId, x.action, x.gate]) };
  });
  assert.deepEqual(Object.keys(r.first), ["type", "tool_use_id", "content", "is_error"]);
  assert.equal(r.first.type, "tool_result");
  assert.equal(r.first.tool_use_id, "toolu_1");
  assert.equal(r.first.is_error, false, "asking first is a normal step, not an error");
  const no = parse(r.no);
  assert.equal(no.gate, "cancelled");
  assert.match(no.instruction, /cancelled/);
  assert.equal(r.no.is_error, true);
  assert.deepEqual(parse(r.hidden), { gate: "fired", ok: true });
  assert.equal(r.hidden.is_error, false);
  assert.deepEqual(r.runs, { readSecret: 1 });
  assert.deepEqual(r.records, [["toolu_1", "archiveThread", "cancelled"], ["toolu_3", "readSecret", "fired"]]);
});

test("tool results: compact content in a fixed key order, in each provider's shape, is_error", { timeout: TEST_TIMEOUT }, async () => {
  const r = await inPage(async (ck, records, runs, define) => {
    define({ name: "search", description: "Search.", input: { type: "object", properties: { q: { type: "string" } }, required: ["q"] } });
    define({ name: "archiveThread", description: "Archive.", control: "soft" });
    define({ name: "cyclic", description: "A value that is not JSON.", run: () => { const o = {}; o.self = o; return o; } });
    define({ name: "big", description: "A BigInt.", run: () => 10n });
    const fired = await ck.handleToolCall({ id: "call_1", type: "function", function: { name: "search", arguments: "{\"q\":\"x\"}" } });
    const rejected = await ck.handleToolCall({ type: "function_call", call_id: "call_2", name: "search", arguments: "{\"q\":1}" });
    const asks = await ck.handleToolCall({ type: "tool_use", id: "toolu_3", name: "archiveThread", input: {} });
    const cyclic = await ck.handleToolCall({ type: "tool_use", id: "toolu_4", name: "cyclic", input: {} });
    const big = await ck.handleToolCall({ id: "call_5", type: "function", function: { name: "big", arguments: "" } });
    const text = (x) => JSON.stringify(x);
    return { fired: text(fired), rejected: text(rejected), asks: text(asks), cyclic: text(cyclic), big: text(big) };
  });
  assert.equal(r.fired, JSON.stringify({ role: "tool", tool_call_id: "call_1", content: '{"gate":"fired","ok":true,"result":{"done":"search","args":{"q":"x"}}}' }));
  assert.equal(r.rejected, JSON.stringify({ type: "function_call_output", call_id: "call_2", output: '{"gate":"rejected","ok":false,"error":{"code":"invalid_args","message":"args.q: expected string"},"instruction":"Not done: the arguments are not valid (error.message says where). Fix them, then call again."}' }));
  const asks = JSON.parse(r.asks);
  assert.deepEqual(Object.keys(asks), ["type", "tool_use_id", "content", "is_error"]);
  assert.equal(asks.is_error, false, "asking first is a normal step");
  const content = JSON.parse(asks.content);
  assert.deepEqual(Object.keys(content), ["gate", "ok", "confirmToken", "instruction"]);
  assert.match(content.instruction, /Ask the user.*archiveThread/);
  assert.equal(r.cyclic, JSON.stringify({ type: "tool_result", tool_use_id: "toolu_4", content: '{"gate":"fired","ok":true}', is_error: false }), "a value that is not JSON is left out");
  assert.equal(r.big, JSON.stringify({ role: "tool", tool_call_id: "call_5", content: '{"gate":"fired","ok":true}' }));
});

test("tool results: the line telling the model what to do next, word for word, per gate (SPEC §12: on every outcome that is not ok)", { timeout: TEST_TIMEOUT }, async () => {
  const r = await p.evaluate(async () => {
    const { Coworkkit } = window.coworkkit;
    const ck = new Coworkkit({ confirmTimeoutMs: 80, armDelayMs: 50 });
    const button = document.createElement("button");
    document.body.append(button);
    try {
      ck.defineAction({ name: "tidyDesk", description: "Tidy.", control: "soft", run: () => 1 });
      ck.defineAction({ name: "burnIt", description: "Burn.", control: "hard", run: () => 1 });
      ck.defineAction({ name: "pressIt", description: "Press.", element: button, operation: "click" });
      ck.defineAction({ name: "ping", description: "Ping.", run: () => 1 });
      const content = async (c) => {
        const x = await ck.handleToolCall(c);
        const c2 = JSON.parse(x.content ?? x.output);
        return [c2.gate, c2.instruction ?? null];
      };
      const ask = await ck.handleToolCall({ type: "tool_use", id: "i1", name: "tidyDesk", input: { a: 1 } });
      const token = JSON.parse(ask.content).confirmToken;
      const ask2 = await ck.handleToolCall({ type: "tool_use", id: "i2", name: "tidyDesk", input: { a: 2 } });
      const token2 = JSON.parse(ask2.content).confirmToken;
      return [
        [JSON.parse(ask.content).gate, JSON.parse(ask.content).instruction],
        await content({ type: "tool_use", id: "i3", name: "tidyDesk", input: { a: 1, confirmToken: token } }),
        await content({ type: "function_call", call_id: "i4", name: "tidyDesk", arguments: JSON.stringify({ a: 2, confirmToken: token2, decline: true }) }),
        await content({ id: "i5", type: "function", function: { name: "burnIt", arguments: "{}" } }),
        await content({ id: "i6", type: "function", function: { name: "pressIt", arguments: "{}" } }),
        await content({ id: "i7", type: "function", function: { name: "ping", arguments: "{}" } }),
        await content({ id: "i8", type: "function", function: { name: "nope", arguments: "{}" } }),
      ];
    } finally {
      ck.dispose();
      button.remove();
    }
  });
  assert.deepEqual(r, [
    ["needs_confirmation", "Not done yet. Ask the user whether to go ahead; on a yes, call tidyDesk again with the same arguments plus this confirmToken; on a no, call it with the confirmToken and decline: true, and the user's reason, if they gave one, as declineReason."],
    ["confirmed", null],
    ["cancelled", "Not done: the user said no, so it was cancelled; the reason they gave, if any, is in error.message. Do not retry or ask again unless the user brings it up."],
    ["timeout", "Not done: nobody confirmed it in time. Ask the user before trying again."],
    ["needs_hand_mode", "Not done: the user has not let the agent use this page (Hand mode is off). Ask them to turn it on, then try again."],
    ["fired", null],
    ["rejected", "Not done: there is no tool by that name. Use one of the tools you were given."],
  ]);
});

test("Anthropic: a hard tool_use waits for a real click on the card", { timeout: TEST_TIMEOUT }, async () => {
  await inPage((ck, records, runs, define) => {
    define({ name: "deleteProject", description: "Delete a project.", control: "hard", confirmationSummary: () => "Delete p1?" });
    window.settled = null;
    window.pendingResult = ck.handleToolCall({ type: "tool_use", id: "toolu_h", name: "deleteProject", input: { projectId: "p1" } })
      .then((x) => (window.settled = x));
  }, null, { keep: true });
  await waitCard(p, (s) => s.open && s.summary === "Delete p1?");
  await sleep(100);
  assert.equal(await p.evaluate(() => window.settled), null, "nothing resolves before the person decides");
  await confirmCard(p);
  const r = await p.evaluate(async () => {
    const result = await window.pendingResult;
    const again = await window.last.ck.handleToolCall({ type: "tool_use", id: "toolu_h", name: "deleteProject", input: { projectId: "p1" } });
    const out = { result, again, runs: window.last.runs.deleteProject };
    window.last.ck.dispose();
    return out;
  });
  assert.equal(r.result.tool_use_id, "toolu_h");
  assert.equal(r.result.is_error, false);
  assert.deepEqual(parse(r.result), { gate: "confirmed", ok: true, result: { done: "deleteProject", args: { projectId: "p1" } } });
  assert.deepEqual(r.again, r.result);
  assert.equal(r.runs, 1);
});

test("a re-sent provider call does not run twice, in flight or settled, in every shape", { timeout: TEST_TIMEOUT }, async () => {
  const r = await inPage(async (ck, records, runs, define) => {
    let release;
    const gate = new Promise((resolve) => (release = resolve));
    ck.defineAction({
      name: "sendEmail", description: "Send an email.",
      run: async (args) => { runs.sendEmail = (runs.sendEmail ?? 0) + 1; await gate; return { sent: args.to }; },
    });
    const calls = [
      { id: "call_1", type: "function", function: { name: "sendEmail", arguments: "{\"to\":\"a@x\"}" } },
      { type: "function_call", call_id: "call_2", name: "sendEmail", arguments: "{\"to\":\"b@x\"}" },
      { type: "tool_use", id: "toolu_3", name: "sendEmail", input: { to: "c@x" } },
    ];
    const inFlight = calls.flatMap((c) => [ck.handleToolCall(c), ck.handleToolCall(structuredClone(c))]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const whileRunning = runs.sendEmail;
    release();
    const first = await Promise.all(inFlight);
    const later = await Promise.all(calls.map((c) => ck.handleToolCall(c)));
    // The same id with other arguments is a conflict, not a second run.
    const conflict = await ck.handleToolCall({ id: "call_1", type: "function", function: { name: "sendEmail", arguments: "{\"to\":\"evil@x\"}" } });
    return { first, later, whileRunning, runs: runs.sendEmail, conflict, records: records.length };
  });
  assert.equal(r.whileRunning, 3);
  assert.equal(r.runs, 3, "each call ran exactly once");
  for (let i = 0; i < 3; i++) {
    assert.deepEqual(r.first[2 * i], r.first[2 * i + 1]);
    assert.deepEqual(r.later[i], r.first[2 * i]);
  }
  assert.deepEqual(parse(r.first[0]), { gate: "fired", ok: true, result: { sent: "a@x" } });
  assert.equal(parse(r.conflict).error.code, "call_id_conflict");
  assert.equal(r.records, 4, "three runs and the conflict");
});

test("malformed calls are rejected outcomes in the closest shape, never a throw", { timeout: TEST_TIMEOUT }, async () => {
  const r = await inPage(async (ck, records, runs, define) => {
    define({ name: "ping", description: "Ping." });
    const cases = [
      { id: "call_1", type: "function", function: { name: "ping", arguments: "{not json" } },
      { type: "function_call", call_id: "call_2", name: "ping", arguments: "[1,2]" },
      { type: "tool_use", id: "toolu_3", name: "ping", input: { when: new Date(0) } },
      { call_id: "call_4", name: "ping" },
      { id: "x", input: {} },
      { hello: "world" },
      42,
      null,
      { id: "call_8", type: "function", function: { name: "ping", arguments: JSON.stringify({ pad: "x".repeat(300000) }) } },
      { id: "y".repeat(300), type: "function", function: { name: "ping", arguments: "{}" } },
    ];
    const out = [];
    for (const c of cases) {
      try { out.push(await ck.handleToolCall(c)); } catch (e) { out.push({ threw: String(e) }); }
    }
    // The arguments of a tool call are refused exactly as `invoke` refuses the same args: the
    // path starts at `args`, and the size counted is theirs, not the whole call's.
    const same = [];
    const inputs = [{ when: new Date(0) }, { pad: "x".repeat(300000) }, { deep: { list: [1, () => 0] } }];
    for (const [i, input] of inputs.entries()) {
      const tool = await ck.handleToolCall({ type: "tool_use", id: `toolu_s${i}`, name: "ping", input });
      const text = await ck.handleToolCall({ id: `call_s${i}`, type: "function", function: { name: "ping", arguments: { ...input } } });
      const direct = await ck.invoke({ name: "ping", args: input });
      same.push([JSON.parse(tool.content).error, JSON.parse(text.content).error, direct.error]);
    }
    return { out, same, runs: runs.ping ?? 0, records: records.map((x) => x.gate) };
  });
  const [badJson, notObject, notPlain, responsesLike, anthropicLike, nothing, number, nul, huge, longId] = r.out;
  assert.equal(badJson.tool_call_id, "call_1");
  assert.equal(parse(badJson).error.code, "invalid_args");
  assert.match(parse(badJson).error.message, /not valid JSON/);
  assert.equal(notObject.call_id, "call_2");
  assert.match(parse(notObject).error.message, /must be a JSON object/);
  assert.equal(notPlain.tool_use_id, "toolu_3");
  assert.equal(notPlain.is_error, true);
  assert.equal(parse(notPlain).error.code, "invalid_args");
  assert.equal(responsesLike.type, "function_call_output");
  assert.equal(responsesLike.call_id, "call_4");
  assert.match(parse(responsesLike).error.message, /not a tool call coworkkit knows/);
  assert.equal(anthropicLike.type, "tool_result");
  assert.equal(anthropicLike.tool_use_id, "x");
  for (const x of [nothing, number, nul]) {
    assert.equal(x.role, "tool");
    assert.match(x.tool_call_id, /^ck_/);
    assert.equal(parse(x).gate, "rejected");
  }
  assert.equal(parse(huge).error.code, "args_too_large");
  for (const [tool, text, direct] of r.same) {
    assert.deepEqual(tool, { code: direct.code, message: direct.message });
    assert.deepEqual(text, tool);
  }
  assert.match(r.same[0][0].message, /^args\.when: /);
  assert.match(r.same[1][0].message, /^args are \d+ bytes of JSON, more than the 65536 allowed$/);
  assert.match(r.same[2][0].message, /^args\.deep\.list\[1\]: is a function/);
  assert.equal(parse(longId).error.code, "invalid_args");
  assert.equal(r.runs, 0);
  assert.equal(r.records.length, 10 + 3 * 3);
  assert.ok(r.records.every((g) => g === "rejected"));
});

test("revoked proxies anywhere in a provider call are rejected outcomes, never a throw", { timeout: TEST_TIMEOUT }, async () => {
  const r = await inPage(async (ck, records, runs, define) => {
    define({ name: "ping", description: "Ping." });
    const revoked = () => { const { proxy, revoke } = Proxy.revocable({}, {}); revoke(); return proxy; };
    const cases = [
      revoked(),
      { id: "call_f", type: "function", function: revoked() },
      { id: "call_a", type: "function", function: { name: "ping", arguments: revoked() } },
      { type: "tool_use", id: "toolu_i", name: "ping", input: revoked() },
      { type: "function_call", call_id: "call_r", name: "ping", arguments: { nested: revoked() } },
    ];
    const out = [];
    for (const c of cases) {
      try { out.push(await ck.handleToolCall(c)); } catch (e) { out.push({ threw: String(e) }); }
    }
    return { out, runs: runs.ping ?? 0, records: records.map((x) => x.gate) };
  });
  for (const x of r.out) assert.equal(x.threw, undefined, x.threw);
  assert.deepEqual(r.out.map((x) => parse(x).gate), Array(5).fill("rejected"));
  assert.equal(r.out[1].tool_call_id, "call_f");
  assert.equal(r.out[3].tool_use_id, "toolu_i");
  assert.equal(r.out[4].call_id, "call_r");
  assert.equal(r.runs, 0);
  assert.deepEqual(r.records, Array(5).fill("rejected"));
});

test("reading a provider call: whitespace, names, precedence of refusals, ids, soft fields and read order", { timeout: TEST_TIMEOUT }, async () => {
  const r = await inPage(async (ck, records, runs, define) => {
    define({ name: "ping", description: "Ping." });
    define({ name: "tidy", description: "Tidy.", control: "soft" });
    const content = (x) => JSON.parse(x.content ?? x.output);
    const id = (x) => x.tool_call_id ?? x.call_id ?? x.tool_use_id;
    const brief = (x) => { const c = content(x); return [id(x), c.gate, c.error ? [c.error.code, c.error.message] : c.result?.args ?? null]; };
    const call = async (c) => brief(await ck.handleToolCall(c));
    const chat = (i, args, extra) => ({ id: i, type: "function", function: { name: "ping", arguments: args }, ...extra });
    const parseError = (text) => { try { JSON.parse(text); } catch (e) { return "args: not valid JSON: " + e.message; } };
    const out = {};
    // Arguments: only what Rust's `str::trim` strips counts as "no arguments".
    out.blank = [];
    for (const [i, a] of ["  \n\t ", "\u0085\u3000\u2028", "\uFEFF", null, undefined].entries()) {
      out.blank.push(await call(chat("b" + i, a)));
    }
    out.bom = parseError("\uFEFF");
    out.anthropicText = await call({ type: "tool_use", id: "a1", name: "ping", input: "{\"a\":true}" });
    out.anthropicBlank = await call({ type: "tool_use", id: "a2", name: "ping", input: " " });
    out.responsesNone = await call({ type: "function_call", call_id: "a3", name: "ping" });
    out.notObject = await Promise.all([chat("a4", "7"), chat("a5", 7), chat("a6", [1]), chat("a7", false), chat("a8", "null")].map(call));
    // Which name, which shape.
    out.shapes = await Promise.all([
      { id: "n1", type: "function", name: "ping", function: { arguments: "{}" } },
      { id: "n2", type: "function", name: "ping", function: { name: 5, arguments: "{}" } },
      { id: "n3", type: "function", name: "ping", function: [1] },
      { id: "n4", type: "function", call_id: "cc", function: { name: "ping" } },
      { type: "function_call", call_id: "n5", name: "ping", function: { name: "nope" }, input: { x: 1 } },
      { type: 7, tool_use_id: "n6", name: "ping" },
      { type: "tool_use", id: 5, name: "ping", input: {} },
      { call_id: null, name: "ping", arguments: "{}" },
      { type: "function", id: "n9", function: () => 0, input: null },
    ].map(call));
    // Which refusal wins: every field is read in a fixed order and the first refusal stands,
    // even in a field the shape does not use; huge strings are counted by their length.
    const huge = "x".repeat(300000);
    out.refusals = await Promise.all([
      chat("r1", "{not json", { input: { bad: () => 0 } }),
      { type: "tool_use", id: "r2", name: "ping", input: { a: 1 }, arguments: { x: NaN } },
      { id: "r3", type: "function", function: { name: huge, arguments: "{}" } },
      { type: "y".repeat(280000), id: "r4", input: { f() {} } },
      { type: "tool_use", id: "r5", name: "ping", input: { a: () => 0 }, function: { arguments: { b: NaN } } },
      { hello: 1, id: "r6", arguments: { f: Symbol() } },
      { type: "function_call", call_id: "r7", name: "ping", arguments: JSON.stringify({ pad: huge }) },
      { type: "function_call", call_id: "r8", name: "ping", arguments: "[" + "[".repeat(70) + "]".repeat(71) },
      { type: "tool_use", id: "z".repeat(270000), name: "ping", input: {} },
    ].map(call));
    out.hugeLength = JSON.stringify({ pad: huge }).length;
    // JSON text within the string budget is measured as `invoke` measures the same args.
    const mid = { pad: "é".repeat(40000), n: [1.5, -0, 1e300] };
    out.mid = [content(await ck.handleToolCall(chat("m1", JSON.stringify(mid)))).error, (await ck.invoke({ name: "ping", args: mid })).error];
    // Lone surrogates: in JSON text they read as U+FFFD before parsing (so two such keys are one
    // key, the last one); escaped, they parse to two keys that collide, as with `invoke`.
    const lone = "{\"\uD800\":1,\"\uDC00\":2,\"s\":\"a\uDBFF\"}";
    out.loneText = await call(chat("l1", lone));
    const escaped = "{\"\\uD800\":1,\"\\uDC00\":2}";
    out.loneEscaped = [content(await ck.handleToolCall(chat("l2", escaped))).error, (await ck.invoke({ name: "ping", args: JSON.parse(escaped) })).error];
    out.loneValue = await call({ type: "tool_use", id: "l3", name: "ping", input: { s: "a\uD800b" } });
    // Ids.
    out.ids = await Promise.all([
      { type: "tool_use", id: "t\uD800", name: "ping", input: {} },
      { type: "tool_use", id: "", name: "ping", input: {} },
      { type: "tool_use", id: "é".repeat(128), name: "ping", input: {} },
      { type: "tool_use", id: "é".repeat(129), name: "ping", input: {} },
      { type: "tool_use", get id() { throw new Error("no"); }, name: "ping", input: {} },
    ].map(call));
    out.idRecords = records.slice(-5).map((x) => [x.callId.startsWith("ck_") ? "ck_" : x.callId, x.gate]);
    // Soft fields: taken out of a soft action's arguments only.
    out.soft = [];
    out.soft.push(await call({ type: "tool_use", id: "s1", name: "tidy", input: { x: 1, confirmToken: 7 } }));
    const ask = await ck.handleToolCall({ type: "tool_use", id: "s2", name: "tidy", input: { x: 1, confirmToken: null, decline: "no" } });
    out.soft.push(brief(ask));
    const token = content(ask).confirmToken;
    out.soft.push(await call({ type: "tool_use", id: "s3", name: "tidy", input: { x: 1, decline: "no", confirmToken: token } }));
    out.soft.push(await call({ type: "tool_use", id: "s4", name: "tidy", input: { x: 2, decline: true } }));
    out.soft.push(await call({ type: "tool_use", id: "", name: "tidy", input: { x: 3, confirmToken: 7 } }));
    out.soft.push(await call({ type: "tool_use", id: "s6", name: "ping", input: { confirmToken: "abc", decline: true } }));
    // The order every property is read in (a getter may count or change things).
    const log = [];
    const spy = (name, target) => new Proxy(target, { get(t, k, rcv) { log.push(name + String(k)); return Reflect.get(t, k, rcv); } });
    await ck.handleToolCall(spy("", { type: "function", id: "o1", function: spy("function.", { name: "ping", arguments: spy("arguments.", { q: 1 }) }), input: spy("input.", { i: 2 }) }));
    await ck.handleToolCall(spy("", { type: "tool_use", id: "o2", name: "ping", arguments: "{}", input: spy("input.", { i: 2 }) }));
    out.log = log;
    return { out, runs: runs.ping ?? 0 };
  });
  const o = r.out;
  const bom = ["b2", "rejected", ["invalid_args", o.bom]];
  assert.deepEqual(o.blank, [["b0", "fired", {}], ["b1", "fired", {}], bom, ["b3", "fired", {}], ["b4", "fired", {}]]);
  assert.deepEqual(o.anthropicText, ["a1", "fired", { a: true }]);
  assert.deepEqual(o.anthropicBlank, ["a2", "fired", {}]);
  assert.deepEqual(o.responsesNone, ["a3", "fired", {}]);
  const NOT_OBJECT = ["invalid_args", "args: a tool call's arguments must be a JSON object"];
  assert.deepEqual(o.notObject, ["a4", "a5", "a6", "a7", "a8"].map((i) => [i, "rejected", NOT_OBJECT]));
  const UNKNOWN_SHAPE = ["invalid_args", "not a tool call coworkkit knows: expected OpenAI Chat {id, type: \"function\", function: {name, arguments}}, OpenAI Responses {type: \"function_call\", call_id, name, arguments}, Anthropic {type: \"tool_use\", id, name, input}, AI SDK {toolCallId, toolName, input} or MCP tools/call params {name, arguments}"];
  const [n1, n2, n3, n4, n5, n6, n7, n8, n9] = o.shapes;
  assert.deepEqual(n1, ["n1", "fired", {}]);
  assert.deepEqual(n2, ["n2", "rejected", ["unknown_action", "no action named `` is registered"]]);
  assert.deepEqual(n3, ["n3", "rejected", UNKNOWN_SHAPE]);
  assert.deepEqual(n4, ["n4", "fired", {}]);
  assert.deepEqual(n5, ["n5", "fired", {}]);
  assert.match(n6[0], /^ck_/);
  assert.deepEqual(n6.slice(1), ["rejected", UNKNOWN_SHAPE]);
  assert.match(n7[0], /^ck_/);
  assert.deepEqual(n7.slice(1), ["fired", {}]);
  assert.match(n8[0], /^ck_/);
  assert.deepEqual(n8.slice(1), ["rejected", UNKNOWN_SHAPE]);
  assert.deepEqual(n9, ["n9", "rejected", UNKNOWN_SHAPE]);
  const [r1, r2, r3, r4, r5, r6, r7, r8, r9] = o.refusals;
  const notJson = (path, what) => ["invalid_args", `${path}: ${what}, not JSON data`];
  assert.deepEqual(r1, ["r1", "rejected", notJson("args.bad", "is a function")]);
  assert.deepEqual(r2, ["r2", "rejected", notJson("args.x", "is not a finite number")]);
  const tooLarge = (n) => ["args_too_large", `args are ${n} bytes of JSON, more than the 65536 allowed`];
  assert.match(r3[0], /^r3$/);
  assert.deepEqual(r3.slice(1), ["rejected", tooLarge(300000)]);
  assert.deepEqual(r4, ["r4", "rejected", tooLarge(280000)]);
  assert.deepEqual(r5, ["r5", "rejected", notJson("args.a", "is a function")]);
  assert.deepEqual(r6, ["r6", "rejected", notJson("args.f", "is a symbol")]);
  assert.deepEqual(r7, ["r7", "rejected", tooLarge(o.hugeLength)]);
  assert.deepEqual(r8, ["r8", "rejected", notJson("args" + "[0]".repeat(65), "is nested too deeply (or is cyclic)")]);
  assert.match(r9[0], /^ck_/);
  assert.deepEqual(r9.slice(1), ["rejected", tooLarge(270000)]);
  assert.equal(o.mid[0].code, "args_too_large");
  assert.deepEqual(o.mid[0], o.mid[1]);
  assert.deepEqual(o.loneText, ["l1", "fired", { "\uFFFD": 2, s: "a\uFFFD" }]);
  assert.equal(o.loneEscaped[0].code, "invalid_args");
  assert.match(o.loneEscaped[0].message, /^args\.\uFFFD: is a key that another key of the object also reads as/);
  assert.deepEqual(o.loneEscaped[0], { code: o.loneEscaped[1].code, message: o.loneEscaped[1].message });
  assert.deepEqual(o.loneValue, ["l3", "fired", { s: "a\uFFFDb" }]);
  const BAD_ID = ["invalid_args", "the tool call's id must be a non-empty string of at most 256 bytes"];
  const [i0, i1, i2, i3, i4] = o.ids;
  assert.deepEqual(i0, ["t\uFFFD", "fired", {}]);
  assert.deepEqual(i1, ["", "rejected", BAD_ID]);
  assert.deepEqual(i2, ["é".repeat(128), "fired", {}]);
  assert.deepEqual(i3, ["é".repeat(129), "rejected", BAD_ID]);
  assert.match(i4[0], /^ck_/);
  assert.deepEqual(i4.slice(1), ["fired", {}]);
  assert.deepEqual(o.idRecords, [["t\uFFFD", "fired"], ["ck_", "rejected"], ["é".repeat(128), "fired"], ["ck_", "rejected"], ["ck_", "fired"]]);
  const BAD_TOKEN = "confirmToken does not match this call (unknown, or issued for other args or another action)";
  assert.deepEqual(o.soft, [
    ["s1", "rejected", ["bad_token", BAD_TOKEN]],
    ["s2", "needs_confirmation", null],
    ["s3", "confirmed", { x: 1, decline: "no" }],
    ["s4", "rejected", ["bad_token", BAD_TOKEN]],
    ["", "rejected", BAD_ID],
    ["s6", "fired", { confirmToken: "abc", decline: true }],
  ]);
  assert.deepEqual(o.log, [
    "type", "id", "call_id", "name", "tool_use_id", "arguments", "input", "input.i", "toolCallId", "toolName", "args", "callId", "function", "function.name", "function.arguments", "arguments.q",
    "type", "id", "call_id", "name", "tool_use_id", "arguments", "input", "input.i", "toolCallId", "toolName", "args", "callId", "function",
  ]);
});

// ---- MCP ------------------------------------------------------------------------------------

test("controlFromMcpAnnotations: MCP defaults, and the round trip through tools(\"mcp\")", { timeout: TEST_TIMEOUT }, async () => {
  const r = await inPage((ck, records, runs, define) => {
    const { controlFromMcpAnnotations: c } = window.coworkkit;
    const cases = [undefined, null, {}, { readOnlyHint: true }, { readOnlyHint: true, destructiveHint: true },
      { destructiveHint: false }, { destructiveHint: true }, { readOnlyHint: false }, { readOnlyHint: "yes" },
      { destructiveHint: false, idempotentHint: true }, { destructiveHint: 0 }].map((a) => c(a));
    define({ name: "look", description: "Look.", readOnly: true });
    define({ name: "tidy", description: "Tidy.", control: "soft" });
    define({ name: "burn", description: "Burn.", control: "hard" });
    define({ name: "poke", description: "Poke." });
    const roundTrip = ck.tools("mcp").map((t) => [t.name, c(t.annotations)]);
    return { cases, roundTrip };
  });
  assert.deepEqual(r.cases, ["hard", "hard", "hard", "open", "open", "soft", "hard", "hard", "hard", "soft", "hard"]);
  // An open action that is not read-only cannot be said in MCP hints: it comes back soft.
  assert.deepEqual(r.roundTrip, [["look", "open"], ["tidy", "soft"], ["burn", "hard"], ["poke", "soft"]]);
});

// ---- Standard Schema ------------------------------------------------------------------------

test("Standard Schema: zod validates, its JSON Schema export feeds the manifests, run sees the original args", { timeout: TEST_TIMEOUT }, async () => {
  const r = await inPage(async (ck, records, runs) => {
    const { z } = await import("/node_modules/zod/index.js");
    const seen = [];
    ck.defineAction({
      name: "createTask", description: "Create a task.",
      input: z.object({ title: z.string().trim().min(1), count: z.number().int().optional() }),
      run: (args) => { seen.push([args, Object.isFrozen(args)]); return "ok"; },
    });
    const bad = await ck.invoke({ name: "createTask", args: { title: 1, count: 1.5 } });
    const good = await ck.invoke({ name: "createTask", args: { title: "  padded  " } });
    const viaTool = await ck.handleToolCall({ id: "call_z", type: "function", function: { name: "createTask", arguments: "{\"title\":\"\"}" } });
    return { bad, good, viaTool, seen, tools: ck.tools("openai"), mcp: ck.tools("mcp"), records: records.map((x) => [x.gate, x.reason ?? null]) };
  });
  assert.equal(r.bad.gate, "rejected");
  assert.equal(r.bad.error.code, "invalid_args");
  assert.equal(r.bad.error.message,
    "args.title: Invalid input: expected string, received number; args.count: Invalid input: expected int, received number");
  assert.equal(r.good.gate, "fired");
  assert.deepEqual(r.seen, [[{ title: "  padded  " }, true]], "the snapshot as sent, not zod's trimmed output");
  assert.equal(parse(r.viaTool).error.code, "invalid_args");
  assert.match(parse(r.viaTool).error.message, /^args\.title: Too small/);
  assert.deepEqual(r.tools[0].function.parameters, {
    type: "object",
    properties: { title: { type: "string", minLength: 1 }, count: { type: "integer", minimum: -9007199254740991, maximum: 9007199254740991 } },
    required: ["title"],
  });
  SHAPES.openai(r.tools[0]);
  SHAPES.mcp(r.mcp[0]);
  assert.deepEqual(r.records, [["rejected", "invalid_args"], ["fired", null], ["rejected", "invalid_args"]]);
});

test("Standard Schema: valibot validates; without an export the manifest is permissive unless inputJsonSchema is given", { timeout: TEST_TIMEOUT }, async () => {
  const r = await inPage(async (ck, records, runs, define) => {
    const v = await import("/node_modules/valibot/dist/index.mjs");
    const schema = v.object({ title: v.string(), tags: v.array(v.string()) });
    define({ name: "tagNote", description: "Tag a note.", input: schema });
    define({ name: "tagNote2", description: "Tag a note.", control: "soft", input: schema,
      inputJsonSchema: { type: "object", properties: { title: { type: "string" } }, required: ["title"] } });
    const bad = await ck.invoke({ name: "tagNote", args: { title: 1, tags: ["a", 2] } });
    const good = await ck.invoke({ name: "tagNote", args: { title: "n", tags: ["a"] } });
    const soft = await ck.handleToolCall({ type: "tool_use", id: "toolu_v", name: "tagNote2", input: { title: "n", tags: [], confirmToken: null } });
    let badSpec;
    try { define({ name: "broken", description: "x", input: { "~standard": { version: 1 } } }); } catch (e) { badSpec = e.code; }
    return { bad, good, soft, badSpec, tools: ck.tools("anthropic") };
  });
  assert.equal(r.bad.error.code, "invalid_args");
  assert.equal(r.bad.error.message,
    "args.title: Invalid type: Expected string but received 1; args.tags[1]: Invalid type: Expected string but received 2");
  assert.equal(r.good.gate, "fired");
  assert.equal(parse(r.soft).gate, "needs_confirmation", "the reserved soft fields are not the schema's business");
  assert.equal(r.badSpec, "invalid_spec");
  assert.deepEqual(r.tools[0].input_schema, { type: "object" });
  assert.deepEqual(r.tools[1].input_schema, {
    type: "object", properties: { title: { type: "string" }, ...SOFT_PARAMS }, required: ["title"],
  });
  for (const t of r.tools) SHAPES.anthropic(t);
});

test("Standard Schema: an async validate is awaited before the gate; a throwing one rejects", { timeout: TEST_TIMEOUT }, async () => {
  const r = await inPage(async (ck, records, runs, define) => {
    const { z } = await import("/node_modules/zod/index.js");
    const taken = new Set(["ann"]);
    define({
      name: "claimName", description: "Claim a user name.", control: "soft",
      input: z.object({ user: z.string() }).refine(async ({ user }) => {
        await new Promise((resolve) => setTimeout(resolve, 10));
        return !taken.has(user);
      }, { message: "is taken", path: ["user"] }),
    });
    define({ name: "explode", description: "x", input: { "~standard": { version: 1, vendor: "t", validate: () => { throw new Error("boom"); } } } });
    define({ name: "rejectsLater", description: "x", input: { "~standard": { version: 1, vendor: "t", validate: () => Promise.reject(new Error("later")) } } });
    const taken1 = await ck.invoke({ name: "claimName", args: { user: "ann" } });
    const ask = await ck.handleToolCall({ type: "tool_use", id: "toolu_1", name: "claimName", input: { user: "bob" } });
    const token = JSON.parse(ask.content).confirmToken;
    const yes = await ck.handleToolCall({ type: "tool_use", id: "toolu_2", name: "claimName", input: { user: "bob", confirmToken: token } });
    const explode = await ck.invoke({ name: "explode", args: {} });
    const later = await ck.invoke({ name: "rejectsLater", args: {} });
    return { taken1, ask: JSON.parse(ask.content).gate, yes: JSON.parse(yes.content), explode, later, runs };
  });
  assert.equal(r.taken1.gate, "rejected");
  assert.equal(r.taken1.error.message, "args.user: is taken");
  assert.equal(r.ask, "needs_confirmation");
  assert.equal(r.yes.gate, "confirmed");
  assert.deepEqual(r.yes.result, { done: "claimName", args: { user: "bob" } });
  assert.deepEqual([r.explode.error.code, r.explode.error.message], ["invalid_args", "args: the input schema's validate threw: boom"]);
  assert.deepEqual([r.later.error.code, r.later.error.message], ["invalid_args", "args: the input schema's validate threw: later"]);
  assert.deepEqual(r.runs, { claimName: 1 });
});

// ---- the README's loops ---------------------------------------------------------------------

/** The fenced block tagged ```js <tag> in README.md. */
function readmeBlock(tag) {
  const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
  const m = readme.match(new RegExp("```js " + tag + "\\n([\\s\\S]*?)```"));
  assert.ok(m, `README.md has a \`\`\`js ${tag} block`);
  return m[1];
}

/**
 * Runs a README block in the page with `ck`, a scripted provider client and a console that
 * collects what the block logs. The scripted model plays one conversation: the user asks to
 * archive t1; the model calls the tool; told to ask first, it asks; the user says yes; it calls
 * again with the token; it reports. It checks what it was sent at every step.
 */
function runReadme(code, provider) {
  return p.evaluate(async ({ code, provider }) => {
    const { Coworkkit } = window.coworkkit;
    const records = [];
    const ck = new Coworkkit({ onActionRecord: (r) => records.push(r) });
    const logs = [];
    const problems = [];
    const expect = (ok, what) => { if (!ok) problems.push(what); };
    let token = null;
    // Each step sees the request and answers as the model would, in the provider's own shape.
    const openaiSteps = [
      (req) => {
        const tool = req.tools.find((t) => t.function.name === "archiveThread");
        expect(tool && "confirmToken" in tool.function.parameters.properties, "soft tool advertises confirmToken");
        return { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "archiveThread", arguments: "{\"threadId\":\"t1\"}" } }] };
      },
      (req) => {
        const last = req.messages.at(-1);
        expect(last.role === "tool" && last.tool_call_id === "call_1", "tool message answers call_1");
        const content = JSON.parse(last.content);
        expect(content.gate === "needs_confirmation", "first answer asks for confirmation");
        token = content.confirmToken;
        return { role: "assistant", content: "Shall I archive thread t1?" };
      },
      (req) => {
        expect(req.messages.at(-1).content === "Yes, go ahead.", "the user's yes");
        return { role: "assistant", content: null, tool_calls: [{ id: "call_2", type: "function", function: { name: "archiveThread", arguments: JSON.stringify({ threadId: "t1", confirmToken: token }) } }] };
      },
      (req) => {
        const content = JSON.parse(req.messages.at(-1).content);
        expect(content.gate === "confirmed" && content.result.archived === "t1", "confirmed with the result");
        return { role: "assistant", content: "Done: thread t1 is archived." };
      },
    ];
    const anthropicSteps = [
      (req) => {
        const tool = req.tools.find((t) => t.name === "archiveThread");
        expect(tool && "confirmToken" in tool.input_schema.properties, "soft tool advertises confirmToken");
        return { content: [{ type: "text", text: "Let me do that." }, { type: "tool_use", id: "toolu_1", name: "archiveThread", input: { threadId: "t1" } }], stop_reason: "tool_use" };
      },
      (req) => {
        const block = req.messages.at(-1).content[0];
        expect(block.type === "tool_result" && block.tool_use_id === "toolu_1" && block.is_error === false, "tool_result answers toolu_1");
        const content = JSON.parse(block.content);
        expect(content.gate === "needs_confirmation", "first answer asks for confirmation");
        token = content.confirmToken;
        return { content: [{ type: "text", text: "Shall I archive thread t1?" }], stop_reason: "end_turn" };
      },
      (req) => {
        expect(req.messages.at(-1).content === "Yes, go ahead.", "the user's yes");
        return { content: [{ type: "tool_use", id: "toolu_2", name: "archiveThread", input: { threadId: "t1", confirmToken: token } }], stop_reason: "tool_use" };
      },
      (req) => {
        const content = JSON.parse(req.messages.at(-1).content[0].content);
        expect(content.gate === "confirmed" && content.result.archived === "t1", "confirmed with the result");
        return { content: [{ type: "text", text: "Done: thread t1 is archived." }], stop_reason: "end_turn" };
      },
    ];
    const steps = provider === "openai" ? openaiSteps : anthropicSteps;
    const model = async (req) => {
      const step = steps.shift();
      if (!step) throw new Error("the model was called more often than scripted");
      // What a real client would send over the wire: plain JSON.
      return step(JSON.parse(JSON.stringify(req)));
    };
    const openai = { chat: { completions: { create: async (req) => ({ choices: [{ message: await model(req) }] }) } } };
    const anthropic = { messages: { create: model } };
    const console = { log: (...a) => logs.push(a.join(" ")) };
    const AsyncFunction = (async () => {}).constructor;
    try {
      await new AsyncFunction("ck", "openai", "anthropic", "console", code)(ck, openai, anthropic, console);
    } finally {
      ck.dispose();
    }
    return { logs, problems, left: steps.length, records: records.map((r) => [r.action, r.callId, r.gate, r.args]) };
  }, { code, provider });
}

for (const provider of ["openai", "anthropic"]) {
  test(`README: the ${provider} loop runs against a scripted model`, { timeout: TEST_TIMEOUT }, async () => {
    const r = await runReadme(readmeBlock(`readme-${provider}`), provider);
    assert.deepEqual(r.problems, []);
    assert.equal(r.left, 0, "the whole conversation was played");
    assert.deepEqual(r.logs, ["Shall I archive thread t1?", "Done: thread t1 is archived."]);
    const first = provider === "openai" ? "call_1" : "toolu_1";
    assert.deepEqual(r.records, [["archiveThread", first, "confirmed", { threadId: "t1" }]]);
  });
}

test("no page errors", { timeout: TEST_TIMEOUT }, () => {
  assert.deepEqual(p.problems, []);
});
