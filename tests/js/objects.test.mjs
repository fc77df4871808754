// What src/js/objects.js promises: the field order of SPEC §3 and §6, optional fields absent
// rather than undefined, frozen objects (all but `ctx`), the names of the numbers Rust passes,
// and the text of a call id the engine drew.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ckAscii, ckContext, ckDeliver, ckError, ckGrant, ckOutcome, ckRecord, ckRecordOutcome, ckResolvedOutcome, ckRun } from "../../src/js/objects.js";
import { ASSURANCES, CODES, CONTROLS, GATES, RUN_LATER, RUN_RETURNED, RUN_THREW, STATUSES, VIAS } from "../../src/js/codes.js";

const gate = (name) => GATES.indexOf(name);
const code = (name) => CODES.indexOf(name);
const status = (name) => STATUSES.indexOf(name);
const assurance = (name) => ASSURANCES.indexOf(name);

test("an outcome: callId, gate, ok, then only the optional fields given; frozen", () => {
  const bare = ckOutcome("c", gate("fired"), true, undefined, undefined, undefined, undefined);
  assert.deepEqual(bare, { callId: "c", gate: "fired", ok: true });
  assert.deepEqual(Object.keys(bare), ["callId", "gate", "ok"]);
  assert.ok(Object.isFrozen(bare));
  const full = ckOutcome("c", gate("needs_confirmation"), false, null, ckError(code("bad_token"), "y"), "tok", 5);
  assert.deepEqual(Object.keys(full), ["callId", "gate", "ok", "result", "error", "confirmToken", "expiresAt"]);
  const refused = ckOutcome("c", gate("rejected"), false, undefined, ckError(code("bad_token"), "y"), undefined, undefined);
  assert.deepEqual(Object.keys(refused), ["callId", "gate", "ok", "error", "instruction"], "not ok: an instruction, last");
  assert.equal(full.gate, "needs_confirmation");
  assert.equal(full.result, null, "null is a result");
});

test("an error: { code, message } with the code named, frozen", () => {
  const e = ckError(code("invalid_args"), "args.a: no");
  assert.deepEqual(Object.entries(e), [["code", "invalid_args"], ["message", "args.a: no"]]);
  assert.ok(Object.isFrozen(e));
});

test("a record: SPEC §6's order, id as sessionId.seq, approver and reason only when given, via and assurance always; frozen", () => {
  const notRun = [status("not_run"), undefined, undefined, undefined];
  const none = assurance("none");
  const r = ckRecord(7, "s1", "c", "a", CONTROLS.indexOf("soft"), 0, gate("rejected"), ...notRun, {}, undefined, undefined, VIAS.indexOf("tool_call"), 1, 2, undefined, none);
  assert.equal(r.id, "s1.7");
  assert.deepEqual(Object.keys(r), ["v", "id", "sessionId", "callId", "action", "control", "controlSource", "gate", "outcome", "args", "via", "assurance", "startedAt", "settledAt"]);
  assert.deepEqual([r.v, r.control, r.controlSource, r.gate, r.via, r.assurance], [1, "soft", "declared", "rejected", "tool_call", "none"]);
  assert.deepEqual(r.outcome, { status: "not_run" });
  assert.ok(Object.isFrozen(r) && Object.isFrozen(r.outcome));
  const failed = ckRecord(9, "s1", "c", "a", 0, 0, gate("fired"), status("error"), 1, code("run_failed"), "boom", {}, undefined, undefined, 0, 1, 2, undefined, none);
  assert.deepEqual(failed.outcome, { status: "error", code: "run_failed", message: "boom" });
  const withBoth = ckRecord(8, "s1", "c", "a", 2, 2, gate("cancelled"), ...notRun, {}, { id: "ann" }, code("disposed"), 2, 1, 2, undefined, none);
  assert.deepEqual(Object.keys(withBoth).slice(10), ["approver", "reason", "via", "assurance", "startedAt", "settledAt"]);
  assert.deepEqual([withBoth.control, withBoth.controlSource, withBoth.reason, withBoth.via], ["hard", "destructive_name", "disposed", "webmcp"]);
  // SPEC §12: the person's words, and the grant a soft call fired on, only when given.
  const said = ckRecord(10, "s1", "c", "a", 2, 0, gate("cancelled"), ...notRun, {}, undefined, code("cancelled_by_user"), 0, 1, 2, undefined, none, "Not this one", undefined);
  assert.deepEqual(Object.keys(said).slice(10), ["reason", "via", "assurance", "note", "startedAt", "settledAt"]);
  assert.equal(said.note, "Not this one");
  const granted = ckRecord(11, "s1", "c", "a", 1, 0, gate("fired"), status("ok"), 1, undefined, undefined, {}, undefined, undefined, 0, 1, 2, undefined, assurance("grant"), undefined, "ckg_4");
  assert.deepEqual(Object.keys(granted).slice(10), ["via", "assurance", "grant", "startedAt", "settledAt"]);
  assert.deepEqual([granted.grant, granted.assurance], ["ckg_4", "grant"]);
  // SPEC §4.1: the passkey that confirmed it, after via, then what stood behind it.
  const verification = Object.freeze({ method: "passkey", credentialId: "AQ", receipt: Object.freeze({ statement: "{}", credential: {} }) });
  const verified = ckRecord(12, "s1", "c", "a", 2, 0, gate("confirmed"), status("ok"), 1, undefined, undefined, {}, { id: "ann" }, undefined, 0, 1, 2, verification, assurance("passkey"), undefined, undefined);
  assert.deepEqual(Object.keys(verified).slice(10), ["approver", "via", "verification", "assurance", "startedAt", "settledAt"]);
  assert.equal(verified.verification, verification);
  assert.equal(verified.assurance, "passkey");
});

test("a record's assurance is named from the number Rust passes, for each of SPEC §6's six", () => {
  assert.deepEqual([...ASSURANCES], ["none", "agent", "grant", "input", "passkey", "other-device"]);
  for (const [n, word] of ASSURANCES.entries()) {
    const r = ckRecord(1, "s1", "c", "a", 0, 0, gate("confirmed"), status("ok"), 1, undefined, undefined, {}, undefined, undefined, 0, 1, 2, undefined, n);
    assert.equal(r.assurance, word);
  }
});

test("a record's outcome: ok with an optional value, error with code and message, else the status alone", () => {
  assert.deepEqual(ckRecordOutcome(status("ok"), 1, code("run_failed"), "y"), { status: "ok", value: 1 });
  assert.deepEqual(Object.keys(ckRecordOutcome(status("ok"), undefined, undefined, undefined)), ["status"]);
  assert.deepEqual(ckRecordOutcome(status("error"), 1, code("run_failed"), "m"), { status: "error", code: "run_failed", message: "m" });
  assert.deepEqual(ckRecordOutcome(status("not_run"), 1, code("run_failed"), "y"), { status: "not_run" });
  assert.ok(Object.isFrozen(ckRecordOutcome(status("ok"), 1, undefined, undefined)));
});

test("the ctx run receives: { callId, control, approver, signal }", () => {
  const signal = new AbortController().signal;
  const ctx = ckContext("c", CONTROLS.indexOf("hard"), null, signal);
  assert.deepEqual(Object.keys(ctx), ["callId", "control", "approver", "signal"]);
  assert.equal(ctx.control, "hard");
  assert.equal(ctx.signal, signal);
  assert.equal(Object.isFrozen(ctx), false);
});

test("ckAscii writes ASCII text from its bytes, a view into a larger buffer included", () => {
  const text = "ck_0123456789abcdeffedcba9876543210";
  assert.equal(ckAscii(new TextEncoder().encode(text)), text);
  const buffer = new Uint8Array(64).fill(33);
  buffer.set(new TextEncoder().encode("ck_7"), 10);
  assert.equal(ckAscii(buffer.subarray(10, 14)), "ck_7");
  assert.equal(ckAscii(new Uint8Array(0)), "");
  // Every length around the chunk of eight.
  for (let n = 0; n <= 17; n++) {
    const t = "abcdefghijklmnopq".slice(0, n);
    assert.equal(ckAscii(new TextEncoder().encode(t)), t);
  }
});

test("ckRun calls run with the args and its ctx, and reports how it went with what run gave, as it is", () => {
  const signal = new AbortController().signal;
  const seen = [];
  const report = ckRun((args, ctx) => { seen.push(args, ctx); return 7; }, { a: 1 }, "c", CONTROLS.indexOf("soft"), null, signal);
  assert.deepEqual([report.how, report.value], [RUN_RETURNED, 7]);
  assert.deepEqual(seen[0], { a: 1 });
  assert.deepEqual(Object.keys(seen[1]), ["callId", "control", "approver", "signal"]);
  assert.equal(seen[1].control, "soft");
  const boom = new Error("boom");
  const threw = ckRun(() => { throw boom; }, {}, "c", 0, null, signal);
  assert.equal(threw.how, RUN_THREW);
  assert.equal(threw.value, boom, "what run threw, as it is");
  assert.deepEqual({ ...ckRun(() => { throw undefined; }, {}, "c", 0, null, signal) }, { how: RUN_THREW, value: undefined });
  const thenable = { then() {} };
  const later = ckRun(() => thenable, {}, "c", 0, null, signal);
  assert.equal(later.how, RUN_LATER);
  assert.equal(later.value, thenable);
  assert.equal(ckRun(async () => 1, {}, "c", 0, null, signal).how, RUN_LATER);
  // Not thenables: a then that is no function or whose read throws, a function with a then.
  for (const value of [{ then: 1 }, { get then() { throw new Error("no"); } }, Object.assign(() => {}, { then() {} }), null, "s"]) {
    const r = ckRun(() => value, {}, "c", 0, null, signal);
    assert.equal(r.how, RUN_RETURNED);
    assert.equal(r.value, value);
  }
  // Each report is its own: a run that calls run again does not overwrite the outer report.
  const outer = ckRun(() => { ckRun(() => "inner", {}, "c", 0, null, signal); return "outer"; }, {}, "c", 0, null, signal);
  assert.equal(outer.value, "outer");
});

test("ckDeliver calls the sink or listener with the payload; a throw is logged, naming which, and goes no further", () => {
  const seen = [];
  ckDeliver((p) => seen.push(p), 1, true);
  assert.deepEqual(seen, [1]);
  const logged = [];
  const error = console.error;
  console.error = (...a) => logged.push(a);
  try {
    const boom = new Error("boom");
    ckDeliver(() => { throw boom; }, 2, true);
    ckDeliver(() => { throw "no"; }, 3, false);
    assert.deepEqual(logged, [["coworkkit: onActionRecord threw; the call is unaffected", boom], ["coworkkit: an event listener threw", "no"]]);
  } finally {
    console.error = error;
  }
});

test("ckResolvedOutcome is a promise of the same outcome ckOutcome builds", async () => {
  const outcome = await ckResolvedOutcome("c", gate("fired"), true, 3, undefined, undefined, undefined);
  assert.deepEqual(outcome, ckOutcome("c", gate("fired"), true, 3, undefined, undefined, undefined));
  assert.ok(Object.isFrozen(outcome));
});

test("a grant: SPEC §12's field order, maxUses and match only when given, frozen", () => {
  const match = Object.freeze({ threadId: "t1" });
  const full = ckGrant("ckg_2", "archiveThread", 1000, 61_000, 5, 1, match);
  assert.deepEqual(Object.keys(full), ["id", "action", "createdAt", "expiresAt", "maxUses", "uses", "match"]);
  assert.equal(full.match, match);
  assert.ok(Object.isFrozen(full));
  const bare = ckGrant("ckg_1", "archiveThread", 1000, 61_000, undefined, 0, undefined);
  assert.deepEqual(Object.keys(bare), ["id", "action", "createdAt", "expiresAt", "uses"]);
  assert.deepEqual(bare, { id: "ckg_1", action: "archiveThread", createdAt: 1000, expiresAt: 61_000, uses: 0 });
});
