// coworkkit/otel (SPEC §14) in a page, with OpenTelemetry's web tracer (@opentelemetry/sdk-trace-web,
// bundled by esbuild from tests/e2e/fixtures/otel.js): real calls through the shipped package —
// open, soft (asked, then the token), hard (the card, a trusted click), a run that throws, a
// rejected call — each record one span. First into an in-memory exporter; then through the
// OTLP/HTTP exporter (JSON) to a small receiver on 127.0.0.1 that reads the payload as a
// collector would: names, times, the GenAI attributes, coworkkit.*, error status, and args and
// values only from the tracer that asked for them. And the README's example as written, against
// the page's registered tracer provider. The tracer and the exporter do not depend on
// the engine (the records do not either: every engine's e2e checks them), so Chromium only.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { launch, openFixture, waitArmed, clickPart, onlyIn } from "./harness.mjs";

const CHROMIUM = onlyIn(["chromium"], "OpenTelemetry's web tracer and exporter are engine-independent; the records they are made of are checked in every engine");
let env, p, receiver;
/** Every OTLP/HTTP request body the receiver got, parsed. */
const received = [];

before(async () => {
  if (CHROMIUM.skip) return;
  const bundle = await build({
    entryPoints: [fileURLToPath(new URL("./fixtures/otel.js", import.meta.url))],
    bundle: true, write: false, format: "iife", platform: "browser", target: "es2022", logLevel: "error",
  });
  receiver = await listen();
  env = await launch();
  p = await openFixture(env);
  await p.addScript({ content: bundle.outputFiles[0].text });
});
after(async () => {
  await env?.close();
  await new Promise((r) => (receiver ? receiver.close(r) : r()));
});

/**
 * The OTLP receiver: POST /v1/traces with a JSON body, from another origin (so it answers the
 * CORS preflight a browser sends first, as a collector's CORS settings do).
 */
function listen() {
  return new Promise((resolve) => {
    const server = createServer((req, res) => {
      res.setHeader("Access-Control-Allow-Origin", "*");
      res.setHeader("Access-Control-Allow-Headers", "content-type");
      res.setHeader("Access-Control-Allow-Methods", "POST");
      if (req.method === "OPTIONS") return res.writeHead(204).end();
      const chunks = [];
      req.on("data", (c) => chunks.push(c));
      req.on("end", () => {
        if (req.method !== "POST" || req.url !== "/v1/traces") return res.writeHead(404).end();
        received.push({ type: req.headers["content-type"], body: JSON.parse(Buffer.concat(chunks).toString("utf8")) });
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
    server.listen(0, "127.0.0.1", () => resolve(server));
  });
}

/**
 * Defines the actions on `window.ck` (made by `setup`, a page function that also wires the
 * spans), then makes the calls: open, soft (asked, then confirmed with its token), hard
 * (confirmed on the card by a trusted click), a run that throws, and a rejected call. Resolves
 * to the records, in the order they settled.
 */
async function calls(setup, url) {
  await p.evaluate(async ({ setup, url }) => {
    const { Coworkkit } = window.coworkkit;
    const ck = (window.ck = new Coworkkit({ confirmTimeoutMs: 10000, armDelayMs: 50, approver: () => ({ id: "ann", role: "admin" }) }));
    window.records = [];
    ck.on("record", (r) => window.records.push(r));
    await new Function("ck", "url", `return (${setup})(ck, url)`)(ck, url);
    const object = (properties) => ({ type: "object", properties, required: Object.keys(properties) });
    ck.defineAction({ name: "getTask", description: "Read a task.", input: object({ taskId: { type: "string" } }), run: (a) => ({ title: `Task ${a.taskId}` }) });
    ck.defineAction({ name: "archiveThread", description: "Archive a thread.", control: "soft", input: object({ threadId: { type: "string" } }), run: (a) => ({ archived: a.threadId }) });
    ck.defineAction({ name: "deleteProject", description: "Delete a project.", control: "hard", input: object({ projectId: { type: "string" } }), confirmationSummary: (a) => `Delete ${a.projectId}?`, run: () => "deleted" });
    ck.defineAction({ name: "syncNow", description: "Sync.", run: () => { throw new Error("offline"); } });
    await ck.invoke({ name: "getTask", args: { taskId: "t1" }, callId: "call_open" });
    const ask = await ck.invoke({ name: "archiveThread", args: { threadId: "x1" }, callId: "call_soft" });
    await new Promise((r) => setTimeout(r, 40)); // the person thinks it over
    await ck.invoke({ name: "archiveThread", args: { threadId: "x1" }, callId: "call_soft_2", confirmToken: ask.confirmToken });
    window.hard = ck.invoke({ name: "deleteProject", args: { projectId: "p1" }, callId: "call_hard" });
  }, { setup: String(setup), url });
  await waitArmed(p);
  await clickPart(p, "confirm");
  return p.evaluate(async () => {
    await window.hard;
    await window.ck.invoke({ name: "syncNow", args: {}, callId: "call_fail" });
    await window.ck.invoke({ name: "getTask", args: { taskId: 7 }, callId: "call_bad" });
    return window.records.map((r) => JSON.parse(JSON.stringify(r)));
  });
}

/** Epoch ms of an HrTime `[seconds, nanoseconds]`. */
const ms = ([s, ns]) => s * 1000 + ns / 1e6;

test("the web tracer with an in-memory exporter: one span per record, named, timed and attributed as SPEC §14 says", CHROMIUM, async () => {
  const records = await calls(async (ck) => {
    const { recordSpans } = await import("/pkg/otel.js");
    window.memory = window.otel.memory();
    ck.on("record", recordSpans({ tracer: window.memory.provider.getTracer("app") }));
  });
  const spans = await p.evaluate(async () => { await window.memory.provider.forceFlush(); return window.memory.spans(); });
  assert.deepEqual(records.map((r) => [r.callId, r.gate]),
    [["call_open", "fired"], ["call_soft", "confirmed"], ["call_hard", "confirmed"], ["call_fail", "fired"], ["call_bad", "rejected"]]);
  assert.equal(spans.length, records.length, "one span per record");
  for (const [i, r] of records.entries()) {
    const s = spans[i];
    assert.equal(s.name, `execute_tool ${r.action}`);
    assert.equal(s.kind, 0, "SpanKind.INTERNAL");
    assert.equal(ms(s.startTime), r.startedAt, `${r.callId} starts at startedAt`);
    assert.equal(ms(s.endTime), r.settledAt, `${r.callId} ends at settledAt`);
    assert.equal(s.attributes["gen_ai.operation.name"], "execute_tool");
    assert.equal(s.attributes["gen_ai.tool.name"], r.action);
    assert.equal(s.attributes["gen_ai.tool.call.id"], r.callId);
    assert.equal(s.attributes["gen_ai.tool.type"], "function");
    for (const key of ["control", "gate", "assurance", "via"]) assert.equal(s.attributes[`coworkkit.${key}`], r[key], key);
    assert.equal("gen_ai.tool.call.arguments" in s.attributes, false, "no args unless asked");
    assert.equal("gen_ai.tool.call.result" in s.attributes, false, "no values unless asked");
  }
  const [open, soft, hard, fail, bad] = spans;
  assert.equal(soft.attributes["coworkkit.assurance"], "agent");
  assert.ok(ms(soft.endTime) - ms(soft.startTime) >= 40, "the soft span runs from the first call to the confirmation");
  assert.equal(hard.attributes["coworkkit.assurance"], "input");
  assert.equal(hard.attributes["coworkkit.approver.id"], "ann");
  assert.equal("coworkkit.approver.id" in open.attributes, false);
  for (const s of [open, soft, hard]) {
    assert.equal(s.status.code, 0, `${s.name}: UNSET`);
    assert.equal("error.type" in s.attributes, false);
  }
  assert.deepEqual([fail.status.code, fail.attributes["error.type"]], [2, "run_failed"], "a run that threw: ERROR, its code");
  assert.deepEqual([bad.status.code, bad.attributes["error.type"]], [2, "invalid_args"], "a rejected call: ERROR, its reason");
  assert.equal(JSON.stringify(spans).includes("offline"), false, "no error message leaves through a span");
});

test("through the OTLP/HTTP exporter to a receiver: the payload carries names, times, GenAI and coworkkit attributes, error status, args and values only where asked", CHROMIUM, async () => {
  const url = `http://127.0.0.1:${receiver.address().port}/v1/traces`;
  const records = await calls(async (ck, url) => {
    const { recordSpans } = await import("/pkg/otel.js");
    window.otlp = window.otel.otlp(url);
    ck.on("record", recordSpans({ tracer: window.otlp.provider.getTracer("asked"), args: true, values: true }));
    ck.on("record", recordSpans({ tracer: window.otlp.provider.getTracer("plain") }));
  }, url);
  await p.evaluate(() => window.otlp.provider.forceFlush());
  const spans = () => received.flatMap(({ body }) => body.resourceSpans.flatMap((rs) =>
    rs.scopeSpans.flatMap((ss) => ss.spans.map((s) => ({ scope: ss.scope.name, ...s })))));
  for (let i = 0; i < 100 && spans().length < 2 * records.length; i++) await new Promise((r) => setTimeout(r, 50));
  assert.ok(received.every((r) => r.type.startsWith("application/json")), "OTLP/HTTP with JSON bodies");
  const all = spans();
  assert.equal(all.length, 2 * records.length, "each record once per tracer");

  /** A span's attributes as { key: value } (OTLP JSON's AnyValue: stringValue here). */
  const attrs = (s) => Object.fromEntries(s.attributes.map((a) => [a.key, a.value.stringValue]));
  for (const scope of ["asked", "plain"]) {
    const mine = all.filter((s) => s.scope === scope);
    for (const r of records) {
      const s = mine.find((x) => attrs(x)["gen_ai.tool.call.id"] === r.callId);
      assert.ok(s, `${scope}: a span for ${r.callId}`);
      const a = attrs(s);
      assert.equal(s.name, `execute_tool ${r.action}`);
      assert.equal(BigInt(s.startTimeUnixNano), BigInt(r.startedAt) * 1_000_000n, `${r.callId}: startedAt`);
      assert.equal(BigInt(s.endTimeUnixNano), BigInt(r.settledAt) * 1_000_000n, `${r.callId}: settledAt`);
      assert.equal(s.kind, 1, "OTLP's SPAN_KIND_INTERNAL");
      assert.deepEqual([a["gen_ai.operation.name"], a["gen_ai.tool.name"], a["gen_ai.tool.type"]], ["execute_tool", r.action, "function"]);
      assert.deepEqual([a["coworkkit.control"], a["coworkkit.gate"], a["coworkkit.assurance"], a["coworkkit.via"]],
        [r.control, r.gate, r.assurance, r.via]);
      const failed = r.outcome.status !== "ok";
      assert.equal(s.status?.code ?? 0, failed ? 2 : 0, `${r.callId}: STATUS_CODE_ERROR only when not ok`);
      assert.equal(a["error.type"], failed ? (r.outcome.code ?? r.reason) : undefined);
      if (scope === "asked") {
        assert.deepEqual(JSON.parse(a["gen_ai.tool.call.arguments"]), r.args, `${r.callId}: args`);
        assert.equal(a["gen_ai.tool.call.result"], r.outcome.status === "ok" ? JSON.stringify(r.outcome.value) : undefined);
      } else {
        assert.equal(a["gen_ai.tool.call.arguments"], undefined);
        assert.equal(a["gen_ai.tool.call.result"], undefined);
      }
    }
  }
  const hard = all.find((s) => s.scope === "asked" && attrs(s)["gen_ai.tool.call.id"] === "call_hard");
  assert.equal(attrs(hard)["coworkkit.approver.id"], "ann");
  assert.equal(attrs(hard)["gen_ai.tool.call.result"], '"deleted"');
  const fail = all.find((s) => s.scope === "asked" && attrs(s)["gen_ai.tool.call.id"] === "call_fail");
  assert.equal(attrs(fail)["error.type"], "run_failed");
});

test("the README's example as written: ck.on(\"record\", recordSpans({ tracer: trace.getTracer(\"my-app\") })) against the page's registered provider", CHROMIUM, async () => {
  const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
  const block = readme.match(/```js readme-otel\n([\s\S]*?)```/)?.[1];
  assert.ok(block, "README block readme-otel");
  // Its own @opentelemetry/api copy, as a separate app module would have: the global provider is shared.
  const bundle = await build({
    stdin: { contents: block, resolveDir: fileURLToPath(new URL(".", import.meta.url)), loader: "js" },
    alias: { "coworkkit/otel": fileURLToPath(new URL("../../pkg/otel.js", import.meta.url)) },
    bundle: true, write: false, format: "iife", platform: "browser", target: "es2022", logLevel: "error",
  });
  await p.evaluate(() => {
    window.ck?.dispose();
    window.ck = new window.coworkkit.Coworkkit();
    window.registered = window.otel.memory({ register: true });
  });
  await p.addScript({ content: `(() => { const ck = window.ck; ${bundle.outputFiles[0].text} })();` });
  const spans = await p.evaluate(async () => {
    window.ck.defineAction({ name: "getTask", description: "Read a task.", run: () => ({ title: "T" }) });
    await window.ck.invoke({ name: "getTask", args: {}, callId: "call_readme" });
    await window.registered.provider.forceFlush();
    return window.registered.spans();
  });
  assert.deepEqual(spans.map((s) => [s.name, s.scope, s.attributes["gen_ai.tool.call.id"]]), [["execute_tool getTask", "my-app", "call_readme"]]);
});
