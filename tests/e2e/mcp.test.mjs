// MCP, checked with the MCP TypeScript SDK's own schemas (issue 23): every `tools("mcp")` entry
// parses as its `Tool` (and the list as a `tools/list` result), and every answer
// `handleToolCall` gives to MCP `tools/call` params parses as its `CallToolResult`, for every
// gate a call can reach. The page runs the real package; the SDK's zod schemas run here in node,
// on what the page returned. A parse that strips a key would hide a field MCP does not know, so
// each parse must also give back exactly what it was handed.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import {
  CallToolRequestSchema, CallToolResultSchema, ListToolsResultSchema, ToolSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { launch, openFixture, waitCard, clickPart, sleep, waitArmed } from "./harness.mjs";

let env, p;
before(async () => {
  env = await launch();
  p = await openFixture(env);
});
after(async () => { await env?.close(); });

/** In the page: an instance with one action of every kind a manifest or a result can differ by. */
function defineAll() {
  const { Coworkkit } = window.coworkkit;
  const ck = new Coworkkit({ confirmTimeoutMs: 5000, armDelayMs: 50 });
  const object = (properties, required = Object.keys(properties)) => ({ type: "object", properties, required });
  ck.defineAction({
    name: "searchDocs", description: "Search the docs.", readOnly: true, idempotent: true,
    input: { ...object({ query: { type: "string", minLength: 1 }, limit: { type: "integer", minimum: 1, maximum: 50 } }, ["query"]), additionalProperties: false },
    run: ({ query }) => ({ hits: [query] }),
  });
  ck.defineAction({
    name: "archiveThread", description: "Archive a mail thread.", control: "soft",
    input: object({ threadId: { type: "string" }, folder: { enum: ["old", "done"] } }, ["threadId"]),
    run: ({ threadId }) => ({ archived: threadId }),
  });
  ck.defineAction({
    name: "deleteProject", description: "Permanently delete a project.", control: "hard",
    input: object({ projectId: { type: "string" } }), confirmationSummary: () => "Delete it?",
    run: () => "deleted",
  });
  ck.defineAction({ name: "refresh", description: "Reload the inbox.", run: () => undefined });
  ck.defineAction({ name: "secret", description: "Look up a secret.", shareResult: false, run: () => "s3cret" });
  ck.defineAction({ name: "count", description: "Count.", run: () => ({ n: 10n, at: new Date(0) }) });
  ck.defineAction({ name: "explode", description: "Fail.", run: () => { throw new Error("boom"); } });
  ck.defineAction({
    name: "nested", description: "Nested input.",
    input: object({ items: { type: "array", items: object({ id: { type: "string" }, qty: { type: ["integer", "null"] } }) }, mode: { const: "all" } }, ["items"]),
    run: (a) => a,
  });
  ck.defineAction({ name: "fillField", description: "Fill the page field.", element: "#field", operation: "fill" });
  return ck;
}

test("every tools(\"mcp\") entry is an MCP Tool, with no key the SDK's ToolSchema does not know", async () => {
  const tools = await p.evaluate(async (src) => {
    const ck = new Function(`return (${src})()`)();
    try { return ck.tools("mcp"); } finally { ck.dispose(); }
  }, defineAll.toString());
  assert.equal(tools.length, 9);
  for (const tool of tools) {
    const parsed = ToolSchema.safeParse(tool);
    assert.ok(parsed.success, `${tool.name}: ${parsed.error}`);
    assert.deepEqual(parsed.data, tool, `${tool.name}: the parse kept every key`);
  }
  assert.deepEqual(ListToolsResultSchema.parse({ tools }), { tools });
  // The hints the manifest promises (SPEC §7.1) are the SDK's own fields.
  const hints = Object.fromEntries(tools.map((t) => [t.name, t.annotations]));
  assert.equal(hints.searchDocs.readOnlyHint, true);
  assert.equal(hints.searchDocs.idempotentHint, true);
  assert.equal(hints.deleteProject.destructiveHint, true);
  assert.equal(hints.archiveThread.destructiveHint, false);
});

test("every answer to MCP tools/call params is an MCP CallToolResult, whatever the gate", async () => {
  const r = await p.evaluate(async (src) => {
    const ck = window.ck = new Function(`return (${src})()`)();
    // What an MCP server's tools/call handler receives as `request.params`.
    const call = (name, args) => ck.handleToolCall(args === undefined ? { name } : { name, arguments: args });
    const out = {};
    out.fired = await call("searchDocs", { query: "wasm" });
    out.noArgs = await call("refresh");
    out.nested = await call("nested", { items: [{ id: "a", qty: null }], mode: "all" });
    out.invalid = await call("searchDocs", { query: "" });
    out.notObject = await call("searchDocs", [1]);
    out.textArgs = await call("searchDocs", '{"query":"as text"}');
    out.unknown = await call("nope", {});
    out.ask = await call("archiveThread", { threadId: "t1" });
    out.confirmed = await call("archiveThread", { threadId: "t1", confirmToken: out.ask.structuredContent.confirmToken });
    const ask2 = await call("archiveThread", { threadId: "t2" });
    out.declined = await call("archiveThread", { threadId: "t2", confirmToken: ask2.structuredContent.confirmToken, decline: true });
    out.forged = await call("archiveThread", { threadId: "t3", confirmToken: `ckt_${"1".repeat(32)}` });
    out.secret = await call("secret");
    out.notJson = await call("count");
    out.failed = await call("explode");
    out.handsOff = await call("fillField", { value: "x" });
    window.hard = [];
    call("deleteProject", { projectId: "p1" }).then((x) => window.hard.push(x));
    return out;
  }, defineAll.toString());
  await waitCard(p, (s) => s.open);
  await waitArmed(p);
  await clickPart(p, "confirm");
  await p.evaluate(() => { window.ck.handleToolCall({ name: "deleteProject", arguments: { projectId: "p2" } }).then((x) => window.hard.push(x)); });
  await waitCard(p, (s) => s.open);
  await sleep(100);
  await clickPart(p, "cancel");
  const hard = await p.evaluate(async () => {
    for (let i = 0; i < 100 && window.hard.length < 2; i++) await new Promise((f) => setTimeout(f, 20));
    window.ck.dispose();
    return window.hard;
  });
  [r.hardConfirmed, r.hardCancelled] = hard;

  for (const [key, result] of Object.entries(r)) {
    const parsed = CallToolResultSchema.safeParse(result);
    assert.ok(parsed.success, `${key}: ${parsed.error}`);
    assert.deepEqual(parsed.data, result, `${key}: the parse kept every key`);
    assert.equal(result.content.length, 1, key);
    assert.deepEqual(JSON.parse(result.content[0].text), result.structuredContent, `${key}: the text is the structured content`);
  }
  const gate = (key) => [r[key].structuredContent.gate, r[key].structuredContent.error?.code ?? null, r[key].isError];
  assert.deepEqual(gate("fired"), ["fired", null, false]);
  assert.deepEqual(r.fired.structuredContent.result, { hits: ["wasm"] });
  assert.deepEqual(gate("noArgs"), ["fired", null, false]);
  assert.deepEqual(r.nested.structuredContent.result, { items: [{ id: "a", qty: null }], mode: "all" });
  assert.deepEqual(gate("invalid"), ["rejected", "invalid_args", true]);
  assert.deepEqual(gate("notObject"), ["rejected", "invalid_args", true]);
  assert.deepEqual(gate("textArgs"), ["fired", null, false]);
  assert.deepEqual(gate("unknown"), ["rejected", "unknown_action", true]);
  assert.deepEqual(gate("ask"), ["needs_confirmation", null, false]);
  assert.match(r.ask.structuredContent.confirmToken, /^ckt_/);
  assert.deepEqual(gate("confirmed"), ["confirmed", null, false]);
  assert.deepEqual(r.confirmed.structuredContent.result, { archived: "t1" });
  assert.deepEqual(gate("declined"), ["cancelled", "declined", true]);
  assert.deepEqual(gate("forged"), ["rejected", "bad_token", true]);
  assert.deepEqual(gate("secret"), ["fired", null, false]);
  assert.ok(!("result" in r.secret.structuredContent), "shareResult: false");
  assert.deepEqual(gate("notJson"), ["fired", null, false]);
  assert.ok(!("result" in r.notJson.structuredContent), "a result that is not JSON is left out");
  assert.deepEqual(gate("failed"), ["fired", "run_failed", true]);
  assert.deepEqual(gate("handsOff"), ["needs_hand_mode", "hand_mode_off", true]);
  assert.deepEqual(gate("hardConfirmed"), ["confirmed", null, false]);
  assert.equal(r.hardConfirmed.structuredContent.result, "deleted");
  assert.deepEqual(gate("hardCancelled"), ["cancelled", "cancelled_by_user", true]);
  assert.deepEqual(p.problems.splice(0), []);
});

test("the params handed over are what the SDK's CallToolRequestSchema gives an MCP server", async () => {
  // An MCP server's handler gets `request.params` as the SDK parsed it, `_meta` and all.
  const request = CallToolRequestSchema.parse({
    method: "tools/call", params: { name: "searchDocs", arguments: { query: "q" }, _meta: { progressToken: 7 } },
  });
  const result = await p.evaluate(async ({ src, params }) => {
    const ck = new Function(`return (${src})()`)();
    try { return await ck.handleToolCall(params); } finally { ck.dispose(); }
  }, { src: defineAll.toString(), params: request.params });
  assert.deepEqual(CallToolResultSchema.parse(result), result);
  assert.deepEqual(result.structuredContent, { gate: "fired", ok: true, result: { hits: ["q"] } });
});
