// What src/js/objects.js promises: the field order of SPEC §3 and §6, optional fields absent
// rather than undefined, and frozen objects (all but `ctx`).
import { test } from "node:test";
import assert from "node:assert/strict";
import { ckContext, ckError, ckOutcome, ckRecord, ckRecordOutcome } from "../../src/js/objects.js";

test("an outcome: callId, gate, ok, then only the optional fields given; frozen", () => {
  const bare = ckOutcome("c", "fired", true, undefined, undefined, undefined, undefined);
  assert.deepEqual(Object.keys(bare), ["callId", "gate", "ok"]);
  assert.ok(Object.isFrozen(bare));
  const full = ckOutcome("c", "needs_confirmation", false, null, ckError("x", "y"), "tok", 5);
  assert.deepEqual(Object.keys(full), ["callId", "gate", "ok", "result", "error", "confirmToken", "expiresAt"]);
  assert.equal(full.result, null, "null is a result");
});

test("an error: { code, message }, frozen", () => {
  const e = ckError("invalid_args", "args.a: no");
  assert.deepEqual(Object.entries(e), [["code", "invalid_args"], ["message", "args.a: no"]]);
  assert.ok(Object.isFrozen(e));
});

test("a record: SPEC §6's order, approver and reason only when given, via always; frozen", () => {
  const outcome = ckRecordOutcome("not_run", undefined, undefined, undefined);
  const r = ckRecord("s1.7", "s1", "c", "a", "soft", "declared", "rejected", outcome, {}, undefined, undefined, "tool_call", 1, 2);
  assert.equal(r.id, "s1.7");
  assert.deepEqual(Object.keys(r), ["v", "id", "sessionId", "callId", "action", "control", "controlSource", "gate", "outcome", "args", "via", "startedAt", "settledAt"]);
  assert.equal(r.v, 1);
  assert.equal(r.via, "tool_call");
  assert.ok(Object.isFrozen(r));
  const withBoth = ckRecord("s1.8", "s1", "c", "a", "hard", "declared", "confirmed", outcome, {}, { id: "ann" }, "disposed", "webmcp", 1, 2);
  assert.deepEqual(Object.keys(withBoth).slice(10), ["approver", "reason", "via", "startedAt", "settledAt"]);
});

test("a record's outcome: ok with an optional value, error with code and message, else the status alone", () => {
  assert.deepEqual(ckRecordOutcome("ok", 1, "x", "y"), { status: "ok", value: 1 });
  assert.deepEqual(Object.keys(ckRecordOutcome("ok", undefined, undefined, undefined)), ["status"]);
  assert.deepEqual(ckRecordOutcome("error", 1, "run_failed", "m"), { status: "error", code: "run_failed", message: "m" });
  assert.deepEqual(ckRecordOutcome("not_run", 1, "x", "y"), { status: "not_run" });
  assert.ok(Object.isFrozen(ckRecordOutcome("ok", 1)));
});

test("the ctx run receives: { callId, control, approver, signal }", () => {
  const signal = new AbortController().signal;
  const ctx = ckContext("c", "open", undefined, signal);
  assert.deepEqual(Object.keys(ctx), ["callId", "control", "approver", "signal"]);
  assert.equal(ctx.signal, signal);
  assert.equal(Object.isFrozen(ctx), false);
});
