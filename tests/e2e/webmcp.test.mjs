// WebMCP (SPEC §7.2): the actions as tools of the browser's own agent, driven end to end the way
// that agent drives them: `getTools()` to see them, `executeTool(tool, input)` to call them.
// In Chromium (Debian's, behind --enable-features=WebMCP) the client is Chromium's own
// `document.modelContext`; Firefox and WebKit have none, so the same tests run through a
// minimal standard-shaped model context that mirrors Chromium's behaviour
// (tests/e2e/fixtures/model-context.js, on `navigator.modelContext`). One test runs the SDK
// against the npm `@mcp-b/webmcp-polyfill` as a third implementation, and one against a page
// with no model context at all (in Chromium: a second browser without the flag).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { launch, openFixture, waitCard, clickPart, click, onPart, cardState, waitFor, sleep, onlyIn, ENGINE, TEST_TIMEOUT, waitArmed } from "./harness.mjs";

/** The README's WebMCP example, as written. */
const README_BLOCK = readFileSync(new URL("../../README.md", import.meta.url), "utf8").match(/```js readme-webmcp\n([\s\S]*?)```/)?.[1];
const POLYFILL = readFileSync(new URL("./fixtures/model-context.js", import.meta.url), "utf8");
const MCP_B = readFileSync(createRequire(import.meta.url).resolve("@mcp-b/webmcp-polyfill/iife"), "utf8");
const SUMMARY = "SECRET-SUMMARY: delete p1 and its 12 tasks?";
const ARM_MS = 100;

/**
 * The in-page half: `kit.setup(options)` makes an instance with one action of each kind (its
 * runs in `kit.runs`, its records in `kit.records`); `kit.exec(name, input)` is the browser's
 * agent: it looks the tool up with `getTools()` and calls `executeTool`, and answers
 * `{ text, out }` (the result string and its JSON) or `{ error }` (a rejection, as its name and
 * message); `kit.start(key, name, input)` does the same without waiting, into `kit.calls`.
 */
function pageKit(summary) {
  const kit = (window.kit = {});
  kit.mc = () => document.modelContext ?? navigator.modelContext;
  kit.clicks = 0;
  document.querySelector("#outside").addEventListener("click", () => { kit.clicks += 1; });
  const arm = document.createElement("button");
  arm.id = "arm";
  arm.textContent = "Let the agent help";
  arm.addEventListener("click", () => kit.ck.armHandMode());
  document.body.append(arm);

  kit.setup = (options = {}) => {
    const { Coworkkit } = window.coworkkit;
    const records = (kit.records = []);
    const runs = (kit.runs = []);
    const ck = new Coworkkit({
      armDelayMs: 100, confirmTimeoutMs: 10000, approver: () => ({ id: "ann", role: "admin" }),
      onActionRecord: (r) => records.push(r), ...options,
    });
    const run = (name, result) => (args, ctx) => {
      runs.push({ name, args, callId: ctx.callId });
      return result ? result(args) : { done: name, args };
    };
    const object = (properties, required = Object.keys(properties)) => ({ type: "object", properties, required, additionalProperties: false });
    ck.defineAction({
      name: "readDoc", description: "Read a document.", control: "open", readOnly: true,
      input: object({ docId: { type: "string", minLength: 1 } }), run: run("readDoc"),
    });
    ck.defineAction({
      name: "searchPosts", description: "Search the forum's posts.", control: "open", readOnly: true, untrustedContent: true,
      input: object({ query: { type: "string" } }), run: run("searchPosts", () => ({ n: 10n })), // not JSON
    });
    ck.defineAction({
      name: "archiveThread", description: "Archive a thread.", control: "soft",
      input: object({ threadId: { type: "string" } }), run: run("archiveThread"),
    });
    // No control: soft by its name (and a console.warn).
    ck.defineAction({ name: "removeTag", description: "Remove a tag everywhere.", input: object({ tag: { type: "string" } }), run: run("removeTag") });
    ck.defineAction({
      name: "deleteProject", description: "Permanently delete a project.", control: "hard", approvers: ["admin"],
      input: object({ projectId: { type: "string", maxLength: 40 } }), confirmationSummary: () => summary, run: run("deleteProject"),
    });
    ck.defineAction({ name: "pressOutside", description: "Press the page's button.", element: "#outside", operation: "click" });
    kit.ck = ck;
    return ck;
  };
  kit.tools = async () => (await kit.mc().getTools()).map(({ window: w, ...rest }) => ({ ...rest, ownWindow: w === window }));
  kit.names = async () => (await kit.mc().getTools()).map((t) => t.name);
  kit.exec = async (name, input) => {
    const tool = (await kit.mc().getTools()).find((t) => t.name === name);
    if (!tool) return { missing: name };
    try {
      const text = await kit.mc().executeTool(tool, input);
      let out;
      try { out = JSON.parse(text); } catch { out = null; }
      return { text, out };
    } catch (e) {
      return { error: `${e.name}: ${e.message}` };
    }
  };
  kit.calls = {};
  kit.start = (key, name, input) => {
    kit.calls[key] = null;
    kit.exec(name, input).then((r) => { kit.calls[key] = r; });
  };
  /** Disposes the instance; the page's model context must then list no tool. */
  kit.clear = async () => {
    kit.ck?.dispose();
    kit.ck = null;
    return kit.names();
  };
}

let env, bare, p;
before(async () => {
  env = await launch({ chromium: { args: ["--enable-features=WebMCP"] } });
  // Where there is no model context: Chromium without the flag; the other engines as they are.
  bare = ENGINE === "chromium" ? await launch() : env;
  p = await openFixture(env);
  if (ENGINE !== "chromium") await p.addScript({ content: POLYFILL });
  await p.addScript({ content: `(${pageKit})(${JSON.stringify(SUMMARY)});` });
});
after(async () => {
  if (bare !== env) await bare?.close();
  await env?.close();
});

/** Runs `fn` in the page with a fresh instance (`setup` options `options`), then disposes it. */
async function withInstance(fn, arg, options = {}) {
  try {
    return await p.evaluate(async ({ src, arg, options }) => {
      const ck = kit.setup(options);
      return new Function("ck", "arg", `return (${src})(ck, arg);`)(ck, arg);
    }, { src: fn.toString(), arg, options });
  } finally {
    assert.deepEqual(await p.evaluate(() => kit.clear()), [], "ck.dispose() left no tool behind");
  }
}
const exec = (name, input) => p.evaluate(([n, i]) => kit.exec(n, i), [name, input]);
const start = (key, name, input) => p.evaluate(([k, n, i]) => kit.start(k, n, i), [key, name, input]);
const result = (key) => waitFor(p, (k) => kit.calls[k], key, 8000);
const pending = (key) => p.evaluate((k) => kit.calls[k] === null, key);
const runs = () => p.evaluate(() => kit.runs.map((r) => r.name));
const records = () => p.evaluate(() => kit.records.map(({ action, control, gate, via, reason }) => ({ action, control, gate, via, ...(reason ? { reason } : {}) })));
const noProblems = () => assert.deepEqual(p.problems.splice(0), []);
const setup = (options) => p.evaluate((o) => { kit.setup(o); }, options);
const expose = (options) => p.evaluate((o) => { kit.exposure = kit.ck.exposeToModelContext(o); return kit.exposure.ready; }, options);

test("the client: Chromium's own document.modelContext, else the standard-shaped fixture", { timeout: TEST_TIMEOUT }, async () => {
  const where = await p.evaluate(() => ({
    document: typeof document.modelContext, navigator: typeof navigator.modelContext,
    methods: ["registerTool", "getTools", "executeTool"].filter((m) => typeof kit.mc()[m] === "function"),
    native: typeof document.modelContext === "object" && /\[native code\]/.test(String(document.modelContext.registerTool)),
  }));
  assert.deepEqual(where.methods, ["registerTool", "getTools", "executeTool"]);
  if (ENGINE === "chromium") assert.deepEqual([where.document, where.native], ["object", true], "Chromium's own implementation");
  else assert.deepEqual([where.document, where.navigator], ["undefined", "object"], "the fixture, on navigator");
});

test("getTools() lists every action with title, description, schema and hints; never the summary", { timeout: TEST_TIMEOUT }, async () => {
  const r = await withInstance(async (ck) => {
    const exposure = ck.exposeToModelContext();
    const ready = await exposure.ready;
    const tools = await kit.tools();
    // A hard card waiting (its summary drawn) changes nothing in what the agent can read.
    kit.start("hard", "deleteProject", { projectId: "p1" });
    while (ck.pending().length === 0) await new Promise((r) => setTimeout(r, 10));
    const whileCard = await kit.tools();
    for (const q of ck.pending()) ck.cancel(q.id);
    exposure.dispose();
    exposure.dispose(); // idempotent
    return { ready, keys: Object.keys(exposure).sort(), tools, whileCard, mcp: ck.tools("mcp"), after: await kit.names() };
  });
  assert.equal(r.ready, undefined);
  assert.deepEqual(r.keys, ["dispose", "ready"]);
  const byName = Object.fromEntries(r.mcp.map((t) => [t.name, t]));
  assert.deepEqual(r.tools.map((t) => t.name), ["archiveThread", "deleteProject", "pressOutside", "readDoc", "removeTag", "searchPosts"]);
  const hints = {
    readDoc: [true, false, false], searchPosts: [true, false, true], archiveThread: [false, true, false],
    removeTag: [false, true, false], deleteProject: [false, true, false], pressOutside: [false, false, false],
  };
  const titles = { readDoc: "Read doc", searchPosts: "Search posts", archiveThread: "Archive thread", removeTag: "Remove tag", deleteProject: "Delete project", pressOutside: "Press outside" };
  for (const t of r.tools) {
    assert.equal(t.title, titles[t.name], t.name);
    assert.equal(t.description, byName[t.name].description, `${t.name}: the MCP manifest's description`);
    assert.deepEqual(t.inputSchema, byName[t.name].inputSchema, `${t.name}: the MCP manifest's schema`);
    const [readOnlyHint, consequentialHint, untrustedContentHint] = hints[t.name];
    assert.deepEqual(t.annotations, { consequentialHint, debugging: false, readOnlyHint, untrustedContentHint }, t.name);
    assert.equal(t.ownWindow, true);
    assert.equal(typeof t.origin, "string");
  }
  assert.deepEqual(Object.keys(r.tools[0].inputSchema.properties), ["threadId", "confirmToken", "decline", "declineReason"], "a soft tool offers confirmToken, decline and declineReason");
  assert.match(r.tools.find((t) => t.name === "deleteProject").description, /A person confirms this on screen/);
  assert.deepEqual(r.whileCard, r.tools);
  assert.ok(!JSON.stringify([r.tools, r.whileCard]).includes("SECRET"), "the summary is in no tool");
  assert.deepEqual(r.after, [], "exposure.dispose() removed every tool");
  noProblems();
});

test("an open tool resolves with the compact outcome; its record says via webmcp", { timeout: TEST_TIMEOUT }, async () => {
  const r = await withInstance(async (ck) => {
    await ck.exposeToModelContext().ready;
    const a = await kit.exec("readDoc", { docId: "d1" });
    const b = await kit.exec("readDoc", { docId: "d1" }); // no call id: a fresh call, it runs again
    const notJson = await kit.exec("searchPosts", { query: "x" });
    await ck.invoke({ name: "readDoc", args: { docId: "d2" } });
    await ck.handleToolCall({ type: "tool_use", id: "tu_1", name: "readDoc", input: { docId: "d3" } });
    return { a, b, notJson, records: kit.records, runs: kit.runs };
  });
  assert.deepEqual(r.a.out, { gate: "fired", ok: true, result: { done: "readDoc", args: { docId: "d1" } } });
  assert.equal(r.a.text, JSON.stringify(r.a.out), "the browser hands the agent the outcome's JSON");
  assert.deepEqual(r.b.out, r.a.out);
  assert.deepEqual(r.notJson.out, { gate: "fired", ok: true }, "a result that is not JSON is left out, the rest arrives");
  assert.deepEqual(r.runs.map((x) => x.name), ["readDoc", "readDoc", "searchPosts", "readDoc", "readDoc"]);
  assert.deepEqual(r.records.map((x) => [x.action, x.gate, x.via]), [
    ["readDoc", "fired", "webmcp"], ["readDoc", "fired", "webmcp"], ["searchPosts", "fired", "webmcp"],
    ["readDoc", "fired", "invoke"], ["readDoc", "fired", "tool_call"],
  ]);
  const [first, second] = r.records;
  assert.match(first.callId, /^ck_[0-9a-f]{32}$/);
  assert.notEqual(first.callId, second.callId, "every execution is a call of its own");
  assert.deepEqual(first.args, { docId: "d1" });
  assert.equal(first.controlSource, "declared");
  noProblems();
});

test("a soft tool: the token round trip; forged, swapped and replayed tokens; decline", { timeout: TEST_TIMEOUT }, async () => {
  const r = await withInstance(async (ck) => {
    await ck.exposeToModelContext().ready;
    const log = {};
    log.first = await kit.exec("archiveThread", { threadId: "t1" });
    log.other = await kit.exec("archiveThread", { threadId: "t2" });
    const [a, b] = [log.first.out.confirmToken, log.other.out.confirmToken];
    log.forged = await kit.exec("archiveThread", { threadId: "t1", confirmToken: `ckt_${"0".repeat(32)}` });
    log.swapped = await kit.exec("archiveThread", { threadId: "t1", confirmToken: b });
    log.otherArgs = await kit.exec("archiveThread", { threadId: "t9", confirmToken: a });
    log.otherAction = await kit.exec("removeTag", { tag: "t1", confirmToken: a });
    log.runsBefore = kit.runs.length;
    log.yes = await kit.exec("archiveThread", { threadId: "t1", confirmToken: a });
    log.replay = await kit.exec("archiveThread", { threadId: "t1", confirmToken: a });
    log.no = await kit.exec("archiveThread", { threadId: "t2", confirmToken: b, decline: true });
    log.runs = [...kit.runs];
    // Mixed doors: a soft call keeps the door of its first call.
    const viaInvoke = await ck.invoke({ name: "archiveThread", args: { threadId: "t3" } });
    log.confirmedByMcp = await kit.exec("archiveThread", { threadId: "t3", confirmToken: viaInvoke.confirmToken });
    log.firstByMcp = await kit.exec("archiveThread", { threadId: "t4" });
    log.confirmedByInvoke = await ck.invoke({ name: "archiveThread", args: { threadId: "t4" }, confirmToken: log.firstByMcp.out.confirmToken });
    log.records = kit.records;
    return log;
  });
  const first = r.first.out;
  assert.deepEqual(Object.keys(first), ["gate", "ok", "confirmToken", "instruction"]);
  assert.equal(first.gate, "needs_confirmation");
  assert.equal(first.ok, false);
  assert.match(first.confirmToken, /^ckt_[0-9a-f]{32}$/);
  assert.match(first.instruction, /call archiveThread again with the same arguments plus this confirmToken/);
  assert.notEqual(r.other.out.confirmToken, first.confirmToken);
  for (const k of ["forged", "swapped", "otherArgs", "otherAction"]) {
    assert.equal(r[k].out.gate, "rejected", k);
    assert.equal(r[k].out.error.code, "bad_token", k);
  }
  assert.equal(r.runsBefore, 0, "no token, no run");
  assert.deepEqual(r.yes.out, { gate: "confirmed", ok: true, result: { done: "archiveThread", args: { threadId: "t1" } } });
  assert.deepEqual(r.replay.out, r.yes.out, "a used token answers the terminal outcome");
  assert.deepEqual([r.no.out.gate, r.no.out.error.code], ["cancelled", "declined"]);
  assert.deepEqual(r.runs.map((x) => [x.name, x.args]), [["archiveThread", { threadId: "t1" }]], "one run, the token's own args");
  assert.equal(r.confirmedByMcp.out.gate, "confirmed");
  assert.equal(r.confirmedByInvoke.gate, "confirmed");
  const view = r.records.map((x) => [x.action, x.gate, x.via, x.reason ?? null, x.args.threadId]);
  assert.deepEqual(view, [
    ["archiveThread", "rejected", "webmcp", "bad_token", "t1"],
    ["archiveThread", "rejected", "webmcp", "bad_token", "t1"],
    ["archiveThread", "rejected", "webmcp", "bad_token", "t9"],
    ["removeTag", "rejected", "webmcp", "bad_token", undefined],
    ["archiveThread", "confirmed", "webmcp", null, "t1"],
    ["archiveThread", "cancelled", "webmcp", "declined", "t2"],
    ["archiveThread", "confirmed", "invoke", null, "t3"],
    ["archiveThread", "confirmed", "webmcp", null, "t4"],
  ]);
  noProblems();
});

test("a hard tool waits for a trusted click on the card; synthetic clicks do nothing; Cancel cancels", { timeout: TEST_TIMEOUT }, async () => {
  await setup();
  await expose();
  await start("yes", "deleteProject", { projectId: "p1" });
  const card = await waitCard(p, (s) => s.open);
  assert.equal(card.title, "Delete project");
  assert.equal(card.summary, SUMMARY, "the summary is on the card, in the page");
  await sleep(ARM_MS + 100); // armed: a trusted click would confirm now
  for (const part of ["confirm", "card"]) {
    await onPart(p, part, function () {
      this.click();
      for (const type of ["pointerdown", "mousedown", "pointerup", "mouseup", "click"]) {
        this.dispatchEvent(new MouseEvent(type, { bubbles: true, composed: true, cancelable: true, button: 0 }));
      }
      this.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true, composed: true }));
    });
  }
  await p.evaluate(() => document.querySelector('[data-coworkkit="card"]').click());
  // The agent calls again meanwhile, and tries the card's proposal id as a token.
  const meanwhile = await p.evaluate(() => kit.exec("deleteProject", { projectId: "p1", confirmToken: kit.ck.pending()[0].id }));
  await sleep(100);
  assert.equal(await pending("yes"), true, "nothing the agent or a script did settled it");
  assert.deepEqual(await runs(), []);
  assert.deepEqual([meanwhile.out.gate, meanwhile.out.error.code], ["rejected", "invalid_args"], "a hard tool offers no confirmToken");
  assert.equal((await cardState(p)).open, true);

  await waitArmed(p);
  await clickPart(p, "confirm");
  const yes = await result("yes");
  assert.deepEqual(yes.out, { gate: "confirmed", ok: true, result: { done: "deleteProject", args: { projectId: "p1" } } });
  assert.deepEqual(await runs(), ["deleteProject"]);

  await start("no", "deleteProject", { projectId: "p2" });
  await waitCard(p, (s) => s.open);
  await sleep(ARM_MS + 50);
  await clickPart(p, "cancel");
  const no = await result("no");
  assert.equal(no.out.gate, "cancelled");
  assert.equal(no.out.error.code, "cancelled_by_user");
  assert.match(no.out.instruction, /Do not retry/);
  assert.deepEqual(await runs(), ["deleteProject"]);
  const recs = await p.evaluate(() => kit.records.filter((r) => r.action === "deleteProject").map((r) => [r.gate, r.via, r.approver?.id ?? null]));
  assert.deepEqual(recs, [["rejected", "webmcp", null], ["confirmed", "webmcp", "ann"], ["cancelled", "webmcp", null]]);
  assert.deepEqual(await p.evaluate(() => kit.clear()), []);
  noProblems();
});

test("bad input resolves as a rejected outcome, never as UnknownError", { timeout: TEST_TIMEOUT }, async () => {
  const r = await withInstance(async () => {
    await kit.ck.exposeToModelContext().ready;
    const deep = {};
    let d = deep;
    for (let i = 0; i < 80; i++) { d.n = {}; d = d.n; }
    const cases = {
      wrongType: ["readDoc", { docId: 7 }],
      missing: ["readDoc", {}],
      extra: ["readDoc", { docId: "d1", more: 1 }],
      array: ["readDoc", [1, 2]],
      tooLarge: ["readDoc", { docId: "x".repeat(5000) }],
      deep: ["readDoc", deep],
      hardBad: ["deleteProject", { projectId: "p".repeat(41) }],
      declineNoToken: ["archiveThread", { threadId: "t1", decline: true }],
      // Through a tool, only a soft action's confirmToken is the SDK's: here it is an argument
      // like any other, and readDoc's schema allows no such property.
      tokenOnOpen: ["readDoc", { docId: "d1", confirmToken: "ckt_x" }],
      tokenNotString: ["archiveThread", { threadId: "t1", confirmToken: 42 }],
    };
    const out = {};
    for (const [k, [name, input]] of Object.entries(cases)) out[k] = await kit.exec(name, input);
    return { out, runs: kit.runs.length, pending: kit.ck.pending().length, records: kit.records.map((x) => [x.gate, x.via, x.reason]) };
  }, undefined, { maxArgsBytes: 1024 });
  const codes = {
    wrongType: "invalid_args", missing: "invalid_args", extra: "invalid_args", array: "invalid_args", tooLarge: "args_too_large",
    deep: "invalid_args", hardBad: "invalid_args", declineNoToken: "bad_token", tokenOnOpen: "invalid_args", tokenNotString: "bad_token",
  };
  for (const [k, code] of Object.entries(codes)) {
    assert.equal(r.out[k].error, undefined, `${k}: executeTool rejected (${r.out[k].error})`);
    assert.equal(r.out[k].out.gate, "rejected", k);
    assert.equal(r.out[k].out.ok, false, k);
    assert.equal(r.out[k].out.error.code, code, `${k}: ${r.out[k].out.error.message}`);
  }
  assert.match(r.out.wrongType.out.error.message, /args\.docId/);
  assert.match(r.out.array.out.error.message, /must be a JSON object/);
  assert.equal(r.runs, 0);
  assert.equal(r.pending, 0, "a hard tool with bad input shows no card");
  assert.equal(r.records.length, Object.keys(codes).length);
  assert.ok(r.records.every(([gate, via]) => gate === "rejected" && via === "webmcp"));
  noProblems();
});

test("Hand mode gates element actions called through WebMCP", { timeout: TEST_TIMEOUT }, async () => {
  await setup();
  await expose();
  const off = await exec("pressOutside", {});
  assert.equal(off.out.gate, "needs_hand_mode");
  assert.equal(off.out.ok, false);
  assert.match(off.out.instruction, /Hand mode is off/);
  assert.equal(await p.evaluate(() => kit.clicks), 0, "the page was not touched");
  await click(p, "#arm"); // a person's click arms it
  assert.equal(await p.evaluate(() => kit.ck.handMode), true);
  const on = await exec("pressOutside", {});
  assert.deepEqual([on.out.gate, on.out.ok], ["fired", true]);
  assert.equal(await p.evaluate(() => kit.clicks), 1);
  await p.evaluate(() => kit.ck.disarmHandMode());
  const again = await exec("pressOutside", {});
  assert.equal(again.out.gate, "needs_hand_mode");
  assert.equal(await p.evaluate(() => kit.clicks), 1);
  assert.deepEqual(await p.evaluate(() => kit.records.map((r) => [r.gate, r.via])), [["needs_hand_mode", "webmcp"], ["fired", "webmcp"], ["needs_hand_mode", "webmcp"]]);
  assert.deepEqual(await p.evaluate(() => kit.clear()), []);
  noProblems();
});

test("actions defined or disposed later come and go; `actions` picks names, later ones included", { timeout: TEST_TIMEOUT }, async () => {
  const r = await withInstance(async (ck) => {
    // The model context answers in its own time: wait until the names say `pred`.
    const until = async (pred) => {
      for (let i = 0; i < 200 && !pred(await kit.names()); i++) await new Promise((r) => setTimeout(r, 10));
      return kit.names();
    };
    const desc = async (name) => (await kit.tools()).find((t) => t.name === name)?.description ?? null;
    const log = {};
    await ck.exposeToModelContext().ready;
    const later = ck.defineAction({ name: "laterOne", description: "Defined after the exposure.", run: () => "later" });
    log.defined = await until((n) => n.includes("laterOne"));
    log.run = (await kit.exec("laterOne", {})).out;
    later.dispose();
    log.disposed = await until((n) => !n.includes("laterOne"));
    // Disposed and defined again at once, as a useAction whose spec changed: the new one is there.
    const once = ck.defineAction({ name: "twice", description: "First.", run: () => 1 });
    await until((n) => n.includes("twice"));
    once.dispose();
    const again = ck.defineAction({ name: "twice", description: "Second.", run: () => 2 });
    await until((n) => n.includes("twice"));
    await new Promise((r) => setTimeout(r, 50));
    log.again = [await desc("twice"), (await kit.exec("twice", {})).out];
    again.dispose();
    const dispose = ck.useAction({ name: "scoped", description: "Scoped.", run: () => "scoped" });
    log.scoped = (await until((n) => n.includes("scoped"))).includes("scoped");
    dispose();
    log.unscoped = (await until((n) => !n.includes("scoped"))).includes("scoped");
    // A hard call waiting when its action leaves: it settles cancelled, and its tool is gone.
    const hard = ck.defineAction({ name: "dropTable", description: "Drop a table.", control: "hard", run: () => "dropped" });
    await until((n) => n.includes("dropTable"));
    kit.start("leaving", "dropTable", {});
    while (ck.pending().length === 0) await new Promise((r) => setTimeout(r, 10));
    hard.dispose();
    for (let i = 0; i < 200 && !kit.calls.leaving; i++) await new Promise((r) => setTimeout(r, 10));
    log.leaving = kit.calls.leaving?.out;
    log.afterHard = (await until((n) => !n.includes("dropTable"))).includes("dropTable");

    // A second exposure for some names only: later actions join it only if named.
    const only = ck.exposeToModelContext({ modelContext: spy(), actions: ["readDoc", "picked"] });
    await only.ready;
    ck.defineAction({ name: "picked", description: "Named in actions.", run: () => 1 });
    ck.defineAction({ name: "notPicked", description: "Not named.", run: () => 1 });
    await new Promise((r) => setTimeout(r, 20));
    log.only = kit.spied.map((t) => t.name);
    only.dispose();
    log.onlyAborted = kit.spied.map((t) => t.signal.aborted);
    return log;

    function spy() {
      kit.spied = [];
      return { registerTool: (tool, options) => { kit.spied.push({ name: tool.name, signal: options.signal }); return Promise.resolve(); } };
    }
  });
  assert.ok(r.defined.includes("laterOne"), "an action defined later is registered");
  assert.deepEqual(r.run, { gate: "fired", ok: true, result: "later" });
  assert.ok(!r.disposed.includes("laterOne"), "a disposed action's tool is removed");
  assert.deepEqual(r.again, ["Second.", { gate: "fired", ok: true, result: 2 }], "a name defined again at once is the new action");
  assert.equal(r.scoped, true);
  assert.equal(r.unscoped, false);
  assert.equal(r.leaving.gate, "cancelled");
  assert.equal(r.leaving.error.code, "action_disposed");
  assert.equal(r.afterHard, false);
  assert.deepEqual(r.only, ["readDoc", "picked"]);
  assert.deepEqual(r.onlyAborted, [true, true]);
  noProblems();
});

test("dispose() of the exposure and of the instance removes every tool; after ck.dispose() it throws", { timeout: TEST_TIMEOUT }, async () => {
  await setup();
  const r = await p.evaluate(async () => {
    const ck = kit.ck;
    const log = {};
    const first = ck.exposeToModelContext();
    await first.ready;
    log.listed = (await kit.names()).length;
    // A call already waiting on its card outlives the tool it came through.
    kit.start("stays", "deleteProject", { projectId: "p1" });
    while (ck.pending().length === 0) await new Promise((r) => setTimeout(r, 10));
    first.dispose();
    log.afterExposure = await kit.names();
    await new Promise((r) => setTimeout(r, 50));
    log.stays = [kit.calls.stays, ck.pending().length];
    ck.cancel(ck.pending()[0].id);
    for (let i = 0; i < 200 && !kit.calls.stays; i++) await new Promise((r) => setTimeout(r, 10));
    log.stayed = kit.calls.stays?.out;
    ck.defineAction({ name: "afterwards", description: "Defined after the exposure left.", run: () => 1 });
    log.notFollowed = await kit.names();
    const second = ck.exposeToModelContext();
    await second.ready;
    log.second = (await kit.names()).length;
    kit.start("waiting", "deleteProject", { projectId: "p1" });
    while (ck.pending().length === 0) await new Promise((r) => setTimeout(r, 10));
    ck.dispose();
    log.afterInstance = await kit.names();
    for (let i = 0; i < 200 && !kit.calls.waiting; i++) await new Promise((r) => setTimeout(r, 10));
    log.waiting = kit.calls.waiting?.out;
    second.dispose(); // after the instance: nothing to do, no error
    try { ck.exposeToModelContext(); log.threw = null; } catch (e) { log.threw = [e instanceof Error, e.code]; }
    return log;
  });
  assert.equal(r.listed, 6);
  assert.deepEqual(r.afterExposure, []);
  assert.deepEqual(r.stays, [null, 1], "the waiting call is still the person's to decide");
  assert.deepEqual([r.stayed.gate, r.stayed.error.code], ["cancelled", "cancelled_by_app"], "and its answer still reaches the agent");
  assert.deepEqual(r.notFollowed, [], "a disposed exposure registers nothing more");
  assert.equal(r.second, 7);
  assert.deepEqual(r.afterInstance, [], "ck.dispose() removed every tool");
  assert.deepEqual([r.waiting.gate, r.waiting.error.code], ["cancelled", "disposed"]);
  assert.deepEqual(r.threw, [true, "disposed"]);
  noProblems();
});

test("an exposure disposed before the browser answered is withdrawn, not refused", { timeout: TEST_TIMEOUT }, async () => {
  const r = await withInstance(async (ck) => {
    const settle = (promise) => promise.then(() => "resolved", (e) => `rejected ${e.code ?? e.name}`);
    const a = ck.exposeToModelContext();
    a.dispose(); // at once, as a component that mounts and unmounts in one go
    const b = ck.exposeToModelContext();
    const bReady = settle(b.ready);
    const h = ck.defineAction({ name: "briefly", description: "Here and gone.", run: () => 1 });
    h.dispose(); // its registration withdrawn before the answer, too
    const out = { a: await settle(a.ready), b: await bReady };
    await new Promise((r) => setTimeout(r, 50));
    out.names = await kit.names();
    b.dispose();
    return out;
  });
  assert.equal(r.a, "resolved", "nothing was refused: the exposure withdrew its own tools");
  assert.equal(r.b, "resolved");
  assert.deepEqual(r.names, ["archiveThread", "deleteProject", "pressOutside", "readDoc", "removeTag", "searchPosts"]);
  noProblems(); // and no "refused" console.error
});

test("a registration the browser refuses: console.error, and ready rejects with model_context_refused naming it", { timeout: TEST_TIMEOUT }, async () => {
  const r = await withInstance(async (ck) => {
    const log = {};
    const mc = kit.mc();
    // The page itself holds a tool named readDoc: the browser refuses a second one.
    const own = new AbortController();
    await mc.registerTool({ name: "readDoc", description: "The page's own.", execute: () => "own" }, { signal: own.signal });
    const exposure = ck.exposeToModelContext();
    try { await exposure.ready; log.ready = "resolved"; } catch (e) { log.ready = { isError: e instanceof Error, code: e.code, message: e.message }; }
    log.tools = (await kit.tools()).map((t) => [t.name, t.description]);
    log.own = (await kit.exec("readDoc", {})).text;
    // An action defined later under a name the browser refuses: logged, and simply absent.
    await mc.registerTool({ name: "takenLater", description: "The page's own.", execute: () => "own" }, { signal: own.signal });
    ck.defineAction({ name: "takenLater", description: "Refused.", run: () => 1 });
    await new Promise((r) => setTimeout(r, 50));
    exposure.dispose();
    log.left = await kit.names();
    own.abort();
    // exposedTo with an origin the browser will not expose to: every registration refused.
    const insecure = ck.exposeToModelContext({ exposedTo: ["http://agent.example"] });
    try { await insecure.ready; log.insecure = "resolved"; } catch (e) { log.insecure = { code: e.code, message: e.message }; }
    log.insecureNames = await kit.names();
    insecure.dispose();
    return log;
  });
  assert.deepEqual(r.ready.isError, true);
  assert.equal(r.ready.code, "model_context_refused");
  assert.match(r.ready.message, /readDoc/);
  assert.deepEqual(r.tools.find(([n]) => n === "readDoc"), ["readDoc", "The page's own."], "the page's tool stays");
  assert.equal(r.tools.length, 6, "the other actions are registered");
  assert.equal(r.own, "own");
  assert.deepEqual(r.left, ["readDoc", "takenLater"], "the exposure removed its own tools only");
  assert.equal(r.insecure.code, "model_context_refused");
  assert.match(r.insecure.message, /`readDoc`/, "named: the first action refused (in the order they were defined)");
  assert.deepEqual(r.insecureNames, []);
  const errors = p.problems.splice(0);
  const refused = (name) => errors.filter((e) => e.startsWith("console.error") && e.includes(`refused the tool "${name}"`)).length;
  assert.equal(refused("readDoc"), 2, errors.join("\n"));
  assert.equal(refused("takenLater"), 2, errors.join("\n"));
  for (const name of ["archiveThread", "deleteProject", "pressOutside", "removeTag", "searchPosts"]) assert.equal(refused(name), 1, `${name}: ${errors.join("\n")}`);
  assert.equal(errors.length, 9, errors.join("\n"));
});

test("exposedTo is handed to registerTool as it is, beside the registration's own signal", { timeout: TEST_TIMEOUT }, async () => {
  const r = await withInstance(async (ck) => {
    const seen = [];
    const mc = kit.mc();
    const spying = { registerTool: (tool, options) => { seen.push(options); return mc.registerTool(tool, options); } };
    const exposedTo = ["https://agent.example"];
    const a = ck.exposeToModelContext({ modelContext: spying, exposedTo, actions: ["readDoc"] });
    await a.ready;
    const listed = await kit.names();
    const run = (await kit.exec("readDoc", { docId: "d1" })).out?.gate;
    a.dispose();
    const b = ck.exposeToModelContext({ modelContext: spying, actions: ["readDoc"] });
    await b.ready;
    b.dispose();
    return {
      keys: seen.map((o) => Object.keys(o).sort()), same: seen[0].exposedTo === exposedTo,
      signal: seen.map((o) => o.signal instanceof AbortSignal), aborted: seen.map((o) => o.signal.aborted), listed, run,
    };
  });
  assert.deepEqual(r.keys, [["exposedTo", "signal"], ["signal"]], "exposedTo only when given");
  assert.equal(r.same, true, "the very array");
  assert.deepEqual(r.signal, [true, true]);
  assert.deepEqual(r.aborted, [true, true]);
  assert.deepEqual(r.listed, ["readDoc"]);
  assert.equal(r.run, "fired");
  noProblems();
});

test("options that are not an exposure's: invalid_spec", { timeout: TEST_TIMEOUT }, async () => {
  const bad = await p.evaluate(() => {
    const ck = kit.setup();
    const threw = (fn) => { try { fn(); return null; } catch (e) { return e.code; } };
    const out = [threw(() => ck.exposeToModelContext({ actions: "readDoc" })), threw(() => ck.exposeToModelContext({ actions: [1] }))];
    ck.dispose();
    return out;
  });
  assert.deepEqual(bad, ["invalid_spec", "invalid_spec"]);
  noProblems();
});

test("the README's WebMCP example runs as written", { timeout: TEST_TIMEOUT }, async () => {
  assert.ok(README_BLOCK, "README block readme-webmcp");
  const names = await withInstance(async (ck, src) => {
    await new Function("ck", `return (async () => {\n${src}\n})();`)(ck);
    return kit.names();
  }, README_BLOCK);
  assert.deepEqual(names, ["archiveThread", "deleteProject", "pressOutside", "readDoc", "removeTag", "searchPosts"]);
  assert.ok(!p.warnings.some((w) => w.includes("refused")), "ready resolved");
  noProblems();
});

test("the Watch panel shows the door each call came through", { timeout: TEST_TIMEOUT }, async () => {
  await setup();
  await p.evaluate(async () => {
    const ck = kit.ck;
    kit.panel = ck.mountWatchPanel();
    await ck.exposeToModelContext().ready;
    await kit.exec("readDoc", { docId: "d1" });
    await ck.invoke({ name: "readDoc", args: { docId: "d2" } });
    await ck.handleToolCall({ id: "c1", type: "function", function: { name: "readDoc", arguments: "{\"docId\":\"d3\"}" } });
  });
  const shown = await onPart(p, "rows", function () {
    return [...this.querySelectorAll("[part~=via]")].map((e) => [e.dataset.via, e.textContent]);
  });
  assert.deepEqual(shown, [["tool_call", "tool_call"], ["invoke", "invoke"], ["webmcp", "webmcp"]], "newest first");
  const lines = await p.evaluate(() => kit.panel.jsonLines().trim().split("\n").map((l) => JSON.parse(l).via));
  assert.deepEqual(lines, ["webmcp", "invoke", "tool_call"]);
  assert.deepEqual(await p.evaluate(() => kit.clear()), []);
  noProblems();
});

// The last two tests open pages of their own (WebKitWebDriver serves one session at a time, so
// in WebKit the shared page is gone after them).
test("no model context: exposeToModelContext throws model_context_unavailable", { timeout: TEST_TIMEOUT }, async () => {
  const none = await openFixture(bare);
  const r = await none.evaluate(() => {
    const ck = new window.coworkkit.Coworkkit();
    ck.defineAction({ name: "readDoc", description: "Read.", run: () => 1 });
    const threw = (fn) => { try { fn(); return null; } catch (e) { return [e instanceof Error, e.code, e.message]; } };
    const out = {
      present: [typeof document.modelContext, typeof navigator.modelContext],
      none: threw(() => ck.exposeToModelContext()),
      nullish: threw(() => ck.exposeToModelContext({ modelContext: null })),
      noRegister: threw(() => ck.exposeToModelContext({ modelContext: {} })),
      notObject: threw(() => ck.exposeToModelContext({ modelContext: 42 })),
    };
    ck.dispose();
    return out;
  });
  assert.deepEqual(r.present, ["undefined", "undefined"]);
  for (const k of ["none", "nullish", "noRegister", "notObject"]) {
    assert.equal(r[k]?.[0], true, `${k}: throws an Error`);
    assert.equal(r[k][1], "model_context_unavailable", k);
  }
  // The README's example does nothing here: its feature detection finds no model context.
  await none.evaluate((src) => new Function("ck", `return (async () => {\n${src}\n})();`)(new window.coworkkit.Coworkkit()), README_BLOCK);
  assert.deepEqual(none.problems, []);
  await none.close();
});

// @mcp-b/webmcp-polyfill 5.1.0 refuses every call where `window.originAgentCluster` is false
// (a SecurityError with no message), which Firefox reports on every page; the same flows run in
// Firefox through the fixture above.
test("through the npm @mcp-b/webmcp-polyfill: the same gates", onlyIn(["chromium", "webkit"],
  "@mcp-b/webmcp-polyfill 5.1.0 refuses every registration where window.originAgentCluster is false, as Firefox reports it; every flow here runs in Firefox through tests/e2e/fixtures/model-context.js"), async () => {
  // Where the browser has no model context of its own (Chromium: without the flag).
  const q = await openFixture(bare);
  await q.addScript({ content: MCP_B });
  const r = await q.evaluate(async (summary) => {
    const mc = document.modelContext;
    const { Coworkkit } = window.coworkkit;
    const runs = [];
    const records = [];
    const ck = new Coworkkit({ armDelayMs: 100, onActionRecord: (x) => records.push(x) });
    window.ck = ck;
    ck.defineAction({ name: "readDoc", description: "Read.", readOnly: true, input: { type: "object", properties: { docId: { type: "string" } }, required: ["docId"] }, run: (a) => { runs.push("readDoc"); return a; } });
    ck.defineAction({ name: "archiveThread", description: "Archive.", control: "soft", run: () => { runs.push("archiveThread"); return "archived"; } });
    ck.defineAction({ name: "deleteProject", description: "Delete.", control: "hard", confirmationSummary: () => summary, run: () => { runs.push("deleteProject"); return "deleted"; } });
    const exposure = ck.exposeToModelContext();
    await exposure.ready;
    const tools = (await mc.getTools()).map(({ name, title, annotations, inputSchema }) => ({ name, title, annotations, inputSchema }));
    // This polyfill's executeTool takes the input as JSON text (Chromium's takes an object).
    const exec = async (name, input) => JSON.parse(await mc.executeTool((await mc.getTools()).find((t) => t.name === name), JSON.stringify(input)));
    const out = { tools, polyfill: mc !== undefined && !/\[native code\]/.test(String(mc.registerTool)) };
    out.open = await exec("readDoc", { docId: "d1" });
    out.bad = await exec("readDoc", { docId: 1 });
    const ask = await exec("archiveThread", {});
    out.forged = await exec("archiveThread", { confirmToken: `ckt_${"1".repeat(32)}` });
    out.yes = await exec("archiveThread", { confirmToken: ask.confirmToken });
    out.ask = ask.gate;
    window.hard = null;
    exec("deleteProject", {}).then((o) => { window.hard = o; });
    out.runs = [...runs];
    out.records = records;
    out.exposedTo = await ck.exposeToModelContext({ exposedTo: ["https://agent.example"], actions: ["readDoc"] }).ready.then(() => "resolved", (e) => e.code);
    return out;
  }, SUMMARY);
  assert.equal(r.polyfill, true);
  assert.deepEqual(r.tools.map((t) => t.name), ["archiveThread", "deleteProject", "readDoc"]);
  assert.equal(r.tools.find((t) => t.name === "deleteProject").title, "Delete project");
  assert.ok(!JSON.stringify(r.tools).includes("SECRET"));
  assert.deepEqual(r.open, { gate: "fired", ok: true, result: { docId: "d1" } });
  assert.deepEqual([r.bad.gate, r.bad.error.code], ["rejected", "invalid_args"]);
  assert.equal(r.ask, "needs_confirmation");
  assert.deepEqual([r.forged.gate, r.forged.error.code], ["rejected", "bad_token"]);
  assert.deepEqual([r.yes.gate, r.yes.result], ["confirmed", "archived"]);
  assert.deepEqual(r.runs, ["readDoc", "archiveThread"]);
  assert.ok(r.records.every((x) => x.via === "webmcp"));
  assert.equal(r.exposedTo, "model_context_refused", "this polyfill cannot expose to other origins, and says so");
  const card = await waitCard(q, (s) => s.open);
  assert.equal(card.summary, SUMMARY);
  await sleep(ARM_MS + 100);
  await onPart(q, "confirm", function () { this.click(); });
  await sleep(50);
  assert.equal(await q.evaluate(() => window.hard), null, "a synthetic click does nothing");
  await waitArmed(q);
  await clickPart(q, "confirm");
  const hard = await waitFor(q, () => window.hard);
  assert.deepEqual([hard.gate, hard.result], ["confirmed", "deleted"]);
  await q.evaluate(() => window.ck.dispose());
  assert.deepEqual(await q.evaluate(async () => (await document.modelContext.getTools()).map((t) => t.name)), []);
  const errors = q.problems.splice(0);
  assert.equal(errors.length, 1, errors.join("\n"));
  assert.match(errors[0], /refused the tool "readDoc"/);
  await q.close();
});
