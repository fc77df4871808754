// coworkkit/otel (src/js/otel.js, SPEC §14): records as spans, with a fake tracer that keeps
// every call it gets, and with OpenTelemetry's own BasicTracerProvider and InMemorySpanExporter
// (@opentelemetry/sdk-trace-base), as an app's tracer in node would take them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { recordSpans, errorType } from "../../src/js/otel.js";

const require = createRequire(new URL("../e2e/package.json", import.meta.url));

/** A record as the SDK emits it (SPEC §6), changed by `over`. */
function record(over = {}) {
  return {
    v: 1, id: "s1.1", sessionId: "s1", callId: "call_1", action: "getTask", control: "open",
    controlSource: "declared", gate: "fired", outcome: { status: "ok", value: { title: "T" } },
    args: { taskId: "t1" }, via: "tool_call", assurance: "none",
    startedAt: 1_780_000_000_000, settledAt: 1_780_000_000_250, ...over,
  };
}

/** A tracer that writes down what it is asked. */
function fakeTracer() {
  const spans = [];
  return {
    spans,
    startSpan(name, options) {
      const span = { name, options, status: undefined, ended: [] };
      spans.push(span);
      return { setStatus(s) { span.status = s; return this; }, end(t) { span.ended.push(t); } };
    },
  };
}

test("an open call that fired: one span, its name, times and GenAI attributes, no status, no args or value", () => {
  const tracer = fakeTracer();
  recordSpans({ tracer })(record());
  assert.equal(tracer.spans.length, 1);
  const [span] = tracer.spans;
  assert.equal(span.name, "execute_tool getTask");
  assert.equal(span.options.startTime, 1_780_000_000_000);
  assert.deepEqual(span.ended, [1_780_000_000_250], "ended once, at settledAt");
  assert.equal(span.status, undefined, "an ok call leaves the status unset");
  assert.deepEqual(span.options.attributes, {
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": "getTask",
    "gen_ai.tool.call.id": "call_1",
    "gen_ai.tool.type": "function",
    "coworkkit.control": "open",
    "coworkkit.gate": "fired",
    "coworkkit.assurance": "none",
    "coworkkit.via": "tool_call",
  });
});

test("who and what decided: approver, grant and verification method, each only when the record has it", () => {
  const tracer = fakeTracer();
  const listener = recordSpans({ tracer });
  listener(record({ control: "hard", gate: "confirmed", assurance: "passkey", approver: { id: "ann", role: "admin" },
    verification: { method: "passkey", credentialId: "cred", receipt: { statement: "{}", credential: {} } } }));
  listener(record({ control: "soft", gate: "fired", assurance: "grant", grant: "g_7" }));
  const [hard, granted] = tracer.spans.map((s) => s.options.attributes);
  assert.equal(hard["coworkkit.approver.id"], "ann");
  assert.equal(hard["coworkkit.verification.method"], "passkey");
  assert.equal(hard["coworkkit.assurance"], "passkey");
  assert.equal("coworkkit.grant" in hard, false);
  assert.equal(granted["coworkkit.grant"], "g_7");
  assert.equal("coworkkit.approver.id" in granted, false);
  assert.equal("coworkkit.verification.method" in granted, false);
  // Nothing of the approver but the id, nothing of the receipt.
  assert.equal(Object.values(hard).some((v) => /admin|cred/.test(v)), false);
});

test("every outcome that is not ok: status ERROR and error.type from outcome.code, else reason, else the gate", () => {
  const cases = [
    [{ gate: "confirmed", control: "hard", outcome: { status: "error", code: "run_failed", message: "boom" }, reason: undefined }, "run_failed"],
    [{ gate: "rejected", outcome: { status: "not_run" }, reason: "invalid_args" }, "invalid_args"],
    [{ gate: "cancelled", control: "hard", outcome: { status: "not_run" }, reason: "cancelled_by_user", note: "not now" }, "cancelled_by_user"],
    [{ gate: "cancelled", control: "soft", outcome: { status: "not_run" }, reason: "declined" }, "declined"],
    [{ gate: "timeout", control: "soft", outcome: { status: "not_run" }, reason: "expired" }, "expired"],
    [{ gate: "needs_hand_mode", outcome: { status: "not_run" }, reason: "hand_mode_off" }, "hand_mode_off"],
    [{ gate: "rejected", outcome: { status: "not_run" } }, "rejected"],
  ];
  for (const [over, code] of cases) {
    const tracer = fakeTracer();
    const r = record(over);
    if (over.reason === undefined) delete r.reason;
    recordSpans({ tracer })(r);
    const [span] = tracer.spans;
    assert.deepEqual(span.status, { code: 2 }, `${code}: SpanStatusCode.ERROR`);
    assert.equal(span.options.attributes["error.type"], code);
    assert.equal(errorType(r), code);
    assert.equal(span.options.attributes["coworkkit.gate"], over.gate);
    // Neither the message nor the person's note leaves the page through a span.
    assert.equal(JSON.stringify(span).includes("boom") || JSON.stringify(span).includes("not now"), false);
  }
});

test("args and values only when asked, as JSON text; a value is the result of a call that ran", () => {
  const on = fakeTracer(), off = fakeTracer(), argsOnly = fakeTracer();
  const r = record({ args: { taskId: "t1", n: [1, 2] }, outcome: { status: "ok", value: { title: "T", done: false } } });
  recordSpans({ tracer: on, args: true, values: true })(r);
  recordSpans({ tracer: off, args: false, values: false })(r);
  recordSpans({ tracer: argsOnly, args: true })(r);
  const a = on.spans[0].options.attributes;
  assert.equal(a["gen_ai.tool.call.arguments"], '{"taskId":"t1","n":[1,2]}');
  assert.equal(a["gen_ai.tool.call.result"], '{"title":"T","done":false}');
  for (const key of ["gen_ai.tool.call.arguments", "gen_ai.tool.call.result"]) {
    assert.equal(key in off.spans[0].options.attributes, false, key);
  }
  assert.equal("gen_ai.tool.call.result" in argsOnly.spans[0].options.attributes, false);
  assert.equal(argsOnly.spans[0].options.attributes["gen_ai.tool.call.arguments"], '{"taskId":"t1","n":[1,2]}');

  // No value: a failed run, a call that did not run, recordResult: false, a value JSON cannot write.
  const tracer = fakeTracer();
  const listener = recordSpans({ tracer, values: true });
  listener(record({ outcome: { status: "error", code: "run_failed", message: "x" } }));
  listener(record({ gate: "rejected", outcome: { status: "not_run" }, reason: "unknown_action" }));
  listener(record({ outcome: { status: "ok" } }));
  listener(record({ outcome: { status: "ok", value: 10n } }));
  listener(record({ outcome: { status: "ok", value: null } }));
  assert.deepEqual(tracer.spans.map((s) => s.options.attributes["gen_ai.tool.call.result"]), [undefined, undefined, undefined, undefined, "null"]);
});

test("bad options throw an Error with code invalid_options and a coworkkit: message that names the value", () => {
  const bad = [
    [undefined, /expected \{ tracer \}.*got undefined/],
    [null, /got null/],
    [{}, /tracer must be an OpenTelemetry Tracer.*got undefined/],
    [{ tracer: { getTracer() {} } }, /tracer must be .*got an object/],
    [{ tracer: fakeTracer(), args: "yes" }, /args must be true or false, got "yes"/],
    [{ tracer: fakeTracer(), values: 1 }, /values must be true or false, got number 1/],
  ];
  for (const [options, message] of bad) {
    assert.throws(() => recordSpans(options), (e) => {
      assert.ok(e instanceof Error);
      assert.equal(e.code, "invalid_options");
      assert.match(e.message, /^coworkkit: recordSpans: /);
      assert.match(e.message, message);
      return true;
    });
  }
});

test("OpenTelemetry's own SDK: BasicTracerProvider, SimpleSpanProcessor, InMemorySpanExporter", async () => {
  const { BasicTracerProvider, SimpleSpanProcessor, InMemorySpanExporter } = require("@opentelemetry/sdk-trace-base");
  const { SpanStatusCode, SpanKind } = require("@opentelemetry/api");
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const listener = recordSpans({ tracer: provider.getTracer("app"), args: true });
  listener(record());
  listener(record({ callId: "call_2", action: "deleteProject", control: "hard", gate: "cancelled",
    outcome: { status: "not_run" }, reason: "cancelled_by_user", assurance: "none",
    startedAt: 1_780_000_001_000, settledAt: 1_780_000_004_500 }));
  await provider.forceFlush();
  const spans = exporter.getFinishedSpans();
  assert.equal(spans.length, 2);
  const [ok, no] = spans;
  assert.equal(ok.name, "execute_tool getTask");
  assert.equal(ok.kind, SpanKind.INTERNAL);
  // HrTime [seconds, nanoseconds] of the record's epoch milliseconds.
  assert.deepEqual(ok.startTime, [1_780_000_000, 0]);
  assert.deepEqual(ok.endTime, [1_780_000_000, 250_000_000]);
  assert.deepEqual(ok.duration, [0, 250_000_000]);
  assert.equal(ok.status.code, SpanStatusCode.UNSET);
  assert.equal(ok.attributes["gen_ai.tool.call.id"], "call_1");
  assert.equal(ok.attributes["gen_ai.tool.call.arguments"], '{"taskId":"t1"}');
  assert.equal(ok.attributes["error.type"], undefined);
  assert.equal(no.name, "execute_tool deleteProject");
  assert.equal(no.status.code, SpanStatusCode.ERROR);
  assert.equal(no.attributes["error.type"], "cancelled_by_user");
  assert.equal(no.attributes["coworkkit.control"], "hard");
  assert.deepEqual(no.duration, [3, 500_000_000]);
  await provider.shutdown();
});
