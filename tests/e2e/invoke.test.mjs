// The agent's door through the real package: soft tokens, idempotency, rejections, the
// destructive-name nudge, events. (The engine's rules are proven exhaustively on the host;
// these show that the browser layer carries them through unchanged.)
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launch, openFixture } from "./harness.mjs";

let env, p;
before(async () => {
  env = await launch();
  p = await openFixture(env);
  p.warnings = [];
  p.on("console", (m) => { if (m.type() === "warning") p.warnings.push(m.text()); });
});
after(async () => { await env?.close(); });

/** Runs `fn` in the page with a fresh instance `ck`, its records and a run counter. */
function inPage(fn, arg) {
  return p.evaluate(async ({ src, arg }) => {
    const { Coworkkit } = window.coworkkit;
    const records = [];
    const runs = {};
    const ck = new Coworkkit({ onActionRecord: (r) => records.push(r), confirmTimeoutMs: 600 });
    const define = (name, control, extra = {}) => ck.defineAction({
      name, description: `${name}.`, control,
      run: (args) => { runs[name] = (runs[name] ?? 0) + 1; return { name, args }; },
      ...extra,
    });
    try {
      return await new Function("ck", "records", "runs", "define", "arg", `return (${src})(ck, records, runs, define, arg);`)(ck, records, runs, define, arg);
    } finally {
      ck.dispose();
    }
  }, { src: fn.toString(), arg });
}

test("soft: the first call asks, the token fires it once, with the original callId", async () => {
  const r = await inPage(async (ck, records, runs, define) => {
    define("archiveThread", "soft");
    const first = await ck.invoke({ name: "archiveThread", args: { id: "t1", opts: { a: 1, b: 2 } }, callId: "call_1" });
    // Key order differs: the token is bound to the canonical args.
    const second = await ck.invoke({ name: "archiveThread", args: { opts: { b: 2, a: 1 }, id: "t1" }, callId: "call_2", confirmToken: first.confirmToken });
    const replay = await ck.invoke({ name: "archiveThread", args: { id: "t1", opts: { a: 1, b: 2 } }, callId: "call_3", confirmToken: first.confirmToken });
    const alias = await ck.invoke({ name: "archiveThread", args: { id: "t1", opts: { a: 1, b: 2 } }, callId: "call_2" });
    return { first, second, replay, alias, runs: runs.archiveThread, records: records.map((r) => [r.callId, r.gate]) };
  });
  assert.equal(r.first.gate, "needs_confirmation");
  assert.equal(r.first.ok, false);
  assert.match(r.first.confirmToken, /^[\w-]{22,}$/);
  assert.ok(r.first.expiresAt > Date.now() - 5000);
  assert.equal(r.second.gate, "confirmed");
  assert.equal(r.second.callId, "call_1");
  assert.equal(r.second.ok, true);
  assert.deepEqual(r.replay, r.second, "replaying a used token returns the terminal outcome");
  assert.deepEqual(r.alias, r.second, "the confirming call's own id is an alias");
  assert.equal(r.runs, 1);
  assert.deepEqual(r.records, [["call_1", "confirmed"]]);
});

test("soft: a token with other args, another action, or forged fires nothing; decline cancels; expiry times out", async () => {
  const r = await inPage(async (ck, records, runs, define) => {
    define("archiveA", "soft");
    define("archiveB", "soft");
    const first = await ck.invoke({ name: "archiveA", args: { id: 1 } });
    const otherArgs = await ck.invoke({ name: "archiveA", args: { id: 2 }, confirmToken: first.confirmToken });
    const otherAction = await ck.invoke({ name: "archiveB", args: { id: 1 }, confirmToken: first.confirmToken });
    const forged = await ck.invoke({ name: "archiveA", args: { id: 1 }, confirmToken: "A".repeat(32) });
    const declined = await ck.invoke({ name: "archiveA", args: { id: 1 }, confirmToken: first.confirmToken, decline: true });
    const again = await ck.invoke({ name: "archiveA", args: { id: 3 } });
    await new Promise((r) => setTimeout(r, 900));
    const late = await ck.invoke({ name: "archiveA", args: { id: 3 }, confirmToken: again.confirmToken });
    return {
      codes: [otherArgs, otherAction, forged].map((o) => o.error?.code),
      declined: declined.gate, late: [late.gate, late.error?.code], runs: runs.archiveA ?? 0,
      records: records.map((r) => [r.gate, r.reason]),
    };
  });
  assert.deepEqual(r.codes, ["bad_token", "bad_token", "bad_token"]);
  assert.equal(r.declined, "cancelled");
  assert.equal(r.runs, 0);
  assert.deepEqual(r.late, ["rejected", "token_expired"]);
  const gates = r.records.map(([g]) => g);
  assert.deepEqual(gates.filter((g) => g === "timeout").length, 1, "an unused token times out on its own, with a record");
  assert.ok(r.records.some(([g, reason]) => g === "cancelled" && reason === "declined"));
});

test("idempotency: the same callId runs once; other args conflict; a rejected call is judged afresh", async () => {
  const r = await inPage(async (ck, records, runs, define) => {
    define("addTask", "open", { input: { type: "object", properties: { title: { type: "string" } }, required: ["title"] } });
    const a = ck.invoke({ name: "addTask", args: { title: "x" }, callId: "k" });
    const b = ck.invoke({ name: "addTask", args: { title: "x" }, callId: "k" });
    const [oa, ob] = await Promise.all([a, b]);
    const conflict = await ck.invoke({ name: "addTask", args: { title: "y" }, callId: "k" });
    const bad = await ck.invoke({ name: "addTask", args: { title: 5 }, callId: "r" });
    const fixed = await ck.invoke({ name: "addTask", args: { title: "5" }, callId: "r" });
    return { oa, ob, conflict, bad, fixed, runs: runs.addTask, records: records.map((r) => [r.callId, r.gate, r.reason ?? null]) };
  });
  assert.deepEqual(r.oa, r.ob);
  assert.equal(r.runs, 2);
  assert.equal(r.conflict.error.code, "call_id_conflict");
  assert.equal(r.bad.error.code, "invalid_args");
  assert.match(r.bad.error.message, /args\.title/);
  assert.equal(r.fixed.gate, "fired");
  assert.deepEqual(r.records, [["k", "fired", null], ["k", "rejected", "call_id_conflict"], ["r", "rejected", "invalid_args"], ["r", "fired", null]]);
});

test("hostile args never throw: every one is a rejected outcome with a code", async () => {
  const r = await inPage(async (ck, records, runs, define) => {
    define("noop", "open");
    const cyclic = {}; cyclic.self = cyclic;
    const deep = []; let d = deep; for (let i = 0; i < 500; i++) { const n = []; d.push(n); d = n; }
    const inputs = [
      { name: "noop", args: cyclic }, { name: "noop", args: deep }, { name: "noop", args: { f: () => 1 } },
      { name: "noop", args: { n: NaN } }, { name: "noop", args: { d: new Date() } }, { name: "noop", args: { b: 10n } },
      { name: "noop", args: { s: "x".repeat(70000) } }, { name: "nope" }, null, undefined, "noop", { name: 42 },
      { name: "noop", callId: 7 }, { name: "noop", confirmToken: {} },
    ];
    const out = [];
    for (const input of inputs) out.push((await ck.invoke(input)).error?.code ?? "none");
    const proto = await ck.invoke({ name: "noop", args: JSON.parse('{"__proto__": {"polluted": 1}, "constructor": {"prototype": {"x": 1}}}') });
    return { out, proto: JSON.stringify(proto.result.args), polluted: ({}).polluted ?? null, runs: runs.noop, recs: records.length };
  });
  assert.deepEqual(r.out, ["invalid_args", "invalid_args", "invalid_args", "invalid_args", "invalid_args", "invalid_args",
    "args_too_large", "unknown_action", "unknown_action", "unknown_action", "unknown_action", "unknown_action",
    "invalid_args", "bad_token"]);
  assert.equal(r.proto, '{"__proto__":{"polluted":1},"constructor":{"prototype":{"x":1}}}');
  assert.equal(r.polluted, null);
  assert.equal(r.runs, 1);
  assert.equal(r.recs, 15, "rejected calls are recorded too");
});

test("an undeclared destructive name is gated soft with one console nudge per name", async () => {
  const r = await inPage(async (ck, records, runs, define) => {
    ck.defineAction({ name: "removeTag", description: "Remove a tag.", run: () => "ok" });
    const o = await ck.invoke({ name: "removeTag", args: {} });
    const h = ck.defineAction({ name: "removeTag2", description: "x", run: () => 1 });
    h.dispose();
    ck.defineAction({ name: "removeTag2", description: "x", run: () => 1 });
    await ck.invoke({ name: "removeTag", args: {}, decline: true, confirmToken: o.confirmToken });
    return { gate: o.gate, source: records[0]?.controlSource };
  });
  assert.equal(r.gate, "needs_confirmation");
  assert.equal(r.source, "destructive_name");
  const nudges = p.warnings.filter((w) => w.includes("reads destructive"));
  assert.equal(nudges.filter((w) => w.includes('"removeTag"')).length, 1);
  assert.equal(nudges.filter((w) => w.includes('"removeTag2"')).length, 1);
});

test("defineAction errors carry codes; duplicates throw; a disposed handle frees the name", async () => {
  const r = await inPage(async (ck) => {
    const code = (f) => { try { f(); return "none"; } catch (e) { return `${e instanceof Error}:${e.code}`; } };
    const ok = { name: "ok", description: "d", run: () => 1 };
    const h = ck.defineAction(ok);
    return {
      dup: code(() => ck.defineAction(ok)),
      badName: code(() => ck.defineAction({ ...ok, name: "has space" })),
      longName: code(() => ck.defineAction({ ...ok, name: "a".repeat(65) })),
      noDesc: code(() => ck.defineAction({ ...ok, name: "x", description: "" })),
      badControl: code(() => ck.defineAction({ ...ok, name: "x", control: "medium" })),
      noRun: code(() => ck.defineAction({ name: "x", description: "d" })),
      badSchema: code(() => ck.defineAction({ ...ok, name: "x", input: { type: "strin" } })),
      badEvent: code(() => ck.on("nope", () => {})),
      reuse: (h.dispose(), h.dispose(), code(() => ck.defineAction(ok))),
      useAction: (() => { const off = ck.useAction({ ...ok, name: "scoped" }); off(); off(); return code(() => ck.useAction({ ...ok, name: "scoped" })); })(),
    };
  });
  assert.deepEqual(r, {
    dup: "true:duplicate_action", badName: "true:invalid_spec", longName: "true:invalid_spec", noDesc: "true:invalid_spec",
    badControl: "true:invalid_spec", noRun: "true:invalid_spec", badSchema: "true:invalid_spec", badEvent: "true:invalid_spec",
    reuse: "none", useAction: "none",
  });
});

test("run that throws or rejects is run_failed and never retried; shareResult and recordResult hide values", async () => {
  const r = await inPage(async (ck, records) => {
    let n = 0;
    ck.defineAction({ name: "boom", description: "d", run: () => { n++; throw new Error("kaput"); } });
    ck.defineAction({ name: "later", description: "d", run: async () => { n++; throw new TypeError("async kaput"); } });
    ck.defineAction({ name: "secret", description: "d", shareResult: false, recordResult: false, run: () => "s3cr3t" });
    const a = await ck.invoke({ name: "boom", callId: "b" });
    const again = await ck.invoke({ name: "boom", callId: "b" });
    const b = await ck.invoke({ name: "later" });
    const s = await ck.invoke({ name: "secret" });
    return { a, again, b, s, n, outcomes: records.map((r) => r.outcome) };
  });
  assert.deepEqual([r.a.ok, r.a.error.code, r.a.error.message], [false, "run_failed", "kaput"]);
  assert.deepEqual(r.again, r.a);
  assert.equal(r.b.error.message, "async kaput");
  assert.equal(r.n, 2);
  assert.equal(r.s.ok, true);
  assert.equal("result" in r.s, false);
  assert.deepEqual(r.outcomes[2], { status: "ok" });
});

test("a proposal listener attached late receives the waiting proposals; events carry no summary", async () => {
  const r = await inPage(async (ck, records, runs, define) => {
    define("deleteX", "hard", { confirmationSummary: () => "TOP-SECRET-SUMMARY" });
    ck.invoke({ name: "deleteX", args: { n: 1 }, callId: "h1" });
    ck.invoke({ name: "deleteX", args: { n: 2 }, callId: "h2" });
    const seen = [];
    ck.on("proposal", (p) => seen.push(p));
    const sync = seen.length;
    await Promise.resolve();
    await new Promise((r) => setTimeout(r, 0));
    const resolved = [];
    ck.on("resolved", (x) => resolved.push(x));
    const ok = ck.cancel(ck.pending()[0].id);
    const unknown = ck.cancel("nope");
    return { sync, seen, ok, unknown, resolved, json: JSON.stringify([seen, resolved]) };
  });
  assert.equal(r.sync, 0, "delivered in a microtask, not synchronously");
  assert.deepEqual(r.seen.map((x) => [x.callId, x.action, x.control, x.args.n]), [["h1", "deleteX", "hard", 1], ["h2", "deleteX", "hard", 2]]);
  assert.equal(r.ok, true);
  assert.equal(r.unknown, false);
  assert.equal(r.resolved[0].callId, "h1");
  assert.equal(r.resolved[0].outcome.gate, "cancelled");
  assert.ok(!r.json.includes("TOP-SECRET"));
});
