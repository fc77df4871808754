// The agent's door through the real package: soft tokens, idempotency, rejections, the
// destructive-name nudge, events. (The engine's rules are proven exhaustively on the host;
// these show that the browser layer carries them through unchanged.)
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launch, openFixture, TEST_TIMEOUT } from "./harness.mjs";

let env, p;
before(async () => {
  env = await launch();
  p = await openFixture(env);
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

test("soft: the first call asks, the token fires it once, with the original callId", { timeout: TEST_TIMEOUT }, async () => {
  const r = await inPage(async (ck, records, runs, define) => {
    define("archiveThread", "soft");
    const first = await ck.invoke({ name: "archiveThread", args: { id: "t1", opts: { a: 1, b: 2 } }, callId: "call_1" });
    // Key order differs: the token is bound to the canonical args.
    const second = await ck.invoke({ name: "archiveThread", args: { opts: { b: 2, a: 1 }, id: "t1" }, callId: "call_2", confirmToken: first.confirmToken });
    const replay = await ck.invoke({ name: "archiveThread", args: { id: "t1", opts: { a: 1, b: 2 } }, callId: "call_3", confirmToken: first.confirmToken });
    const alias = await ck.invoke({ name: "archiveThread", args: { id: "t1", opts: { a: 1, b: 2 } }, callId: "call_2" });
    return { first, second, replay, alias, runs: runs.archiveThread, records: records.map((r) => [r.callId, r.gate, r.assurance]) };
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
  assert.deepEqual(r.records, [["call_1", "confirmed", "agent"]], "the token is the agent's word: assurance agent");
});

test("soft: a token with other args, another action, or forged fires nothing; decline cancels; expiry times out", { timeout: TEST_TIMEOUT }, async () => {
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
      records: records.map((r) => [r.gate, r.reason, r.assurance]),
    };
  });
  assert.deepEqual(r.codes, ["bad_token", "bad_token", "bad_token"]);
  assert.equal(r.declined, "cancelled");
  assert.equal(r.runs, 0);
  assert.deepEqual(r.late, ["rejected", "token_expired"]);
  const gates = r.records.map(([g]) => g);
  assert.deepEqual(gates.filter((g) => g === "timeout").length, 1, "an unused token times out on its own, with a record");
  assert.ok(r.records.some(([g, reason]) => g === "cancelled" && reason === "declined"));
  assert.ok(r.records.length >= 6, "three bad tokens, a decline, a timeout, an expired token");
  assert.deepEqual(r.records.filter(([, , a]) => a !== "none"), [], "nothing ran: assurance none on each");
});

test("idempotency: the same callId runs once; other args conflict; a rejected call is judged afresh", { timeout: TEST_TIMEOUT }, async () => {
  const r = await inPage(async (ck, records, runs, define) => {
    define("addTask", "open", { input: { type: "object", properties: { title: { type: "string" } }, required: ["title"] } });
    const a = ck.invoke({ name: "addTask", args: { title: "x" }, callId: "k" });
    const b = ck.invoke({ name: "addTask", args: { title: "x" }, callId: "k" });
    const [oa, ob] = await Promise.all([a, b]);
    const conflict = await ck.invoke({ name: "addTask", args: { title: "y" }, callId: "k" });
    const bad = await ck.invoke({ name: "addTask", args: { title: 5 }, callId: "r" });
    const fixed = await ck.invoke({ name: "addTask", args: { title: "5" }, callId: "r" });
    return { oa, ob, conflict, bad, fixed, runs: runs.addTask, records: records.map((r) => [r.callId, r.gate, r.reason ?? null, r.assurance]) };
  });
  assert.deepEqual(r.oa, r.ob);
  assert.equal(r.runs, 2);
  assert.equal(r.conflict.error.code, "call_id_conflict");
  assert.equal(r.bad.error.code, "invalid_args");
  assert.match(r.bad.error.message, /args\.title/);
  assert.equal(r.fixed.gate, "fired");
  assert.deepEqual(r.records, [["k", "fired", null, "none"], ["k", "rejected", "call_id_conflict", "none"], ["r", "rejected", "invalid_args", "none"], ["r", "fired", null, "none"]], "open or not run: assurance none");
});

test("hostile args never throw: every one is a rejected outcome with a code", { timeout: TEST_TIMEOUT }, async () => {
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

test("args reach run as one deep-frozen copy: own keys even for __proto__, lone surrogates as U+FFFD", { timeout: TEST_TIMEOUT }, async () => {
  const r = await inPage(async (ck, records) => {
    let seen;
    ck.defineAction({ name: "take", description: "Take args.", control: "open", run: (args) => { seen = args; return 1; } });
    const given = JSON.parse('{"__proto__": {"x": [1, {"__proto__": 2}]}, "k\\ud800": "v\\udc00w", "list": [-0, 1.5, "😀", null, true], "empty": {}}');
    given.gone = undefined;
    const o = await ck.invoke({ name: "take", args: given, callId: "snap" });
    given.list.push(9); // the caller's object changes; the snapshot does not
    // The same callId with the same text (its lone surrogates written as U+FFFD) is the same call.
    const again = await ck.invoke({ name: "take", args: JSON.parse('{"__proto__": {"x": [1, {"__proto__": 2}]}, "k\\ufffd": "v\\ufffdw", "list": [0, 1.5, "😀", null, true], "empty": {}}'), callId: "snap" });
    const frozen = (v) => v === null || typeof v !== "object" || (Object.isFrozen(v) && Object.values(v).every(frozen));
    const own = (o, k) => { const d = Object.getOwnPropertyDescriptor(o, k); return d ? [d.enumerable, d.writable, d.configurable, "value" in d] : null; };
    return {
      ok: o.ok, again: again.gate, records: records.length,
      sameAsRecord: seen === records[0].args, copied: seen !== given && seen.list !== given.list,
      frozen: frozen(seen), plain: Object.getPrototypeOf(seen) === Object.prototype && Array.isArray(seen.list),
      proto: own(seen, "__proto__"), nested: own(seen.__proto__.x[1], "__proto__"), polluted: ({}).x ?? null,
      keys: Object.keys(seen), text: seen["k\ufffd"], list: seen.list.length, negZero: Object.is(seen.list[0], -0),
      json: JSON.stringify(seen),
    };
  });
  assert.equal(r.ok, true);
  assert.equal(r.again, "fired");
  assert.equal(r.records, 1, "the re-sent call is answered from memory");
  assert.equal(r.sameAsRecord, true, "run and the record see the same snapshot");
  assert.equal(r.copied, true);
  assert.equal(r.frozen, true);
  assert.equal(r.plain, true);
  assert.deepEqual(r.proto, [true, false, false, true], "__proto__ is an own (frozen) data property");
  assert.deepEqual(r.nested, [true, false, false, true]);
  assert.equal(r.polluted, null);
  assert.deepEqual(r.keys, ["__proto__", "k\ufffd", "list", "empty"], "an undefined property is left out");
  assert.equal(r.text, "v\ufffdw");
  assert.equal(r.list, 5);
  assert.equal(r.negZero, true);
  assert.equal(r.json, '{"__proto__":{"x":[1,{"__proto__":2}]},"k\ufffd":"v\ufffdw","list":[0,1.5,"😀",null,true],"empty":{}}');
});

test("a getter that calls invoke while the args are read: each call keeps its own snapshot", { timeout: TEST_TIMEOUT }, async () => {
  const r = await inPage(async (ck, records) => {
    const seen = [];
    ck.defineAction({ name: "take", description: "Take args.", control: "open", run: (args, ctx) => { seen.push([ctx.callId, JSON.stringify(args)]); return 1; } });
    let inner;
    const outer = await ck.invoke({
      name: "take", callId: "outer",
      args: { before: 1, get middle() { inner = ck.invoke({ name: "take", args: { inner: [true] }, callId: "inner" }); return 2; }, after: 3 },
    });
    return { outer: outer.ok, inner: (await inner).ok, seen, records: records.map((r) => [r.callId, JSON.stringify(r.args)]) };
  });
  assert.equal(r.outer, true);
  assert.equal(r.inner, true);
  assert.deepEqual(r.seen, [["inner", '{"inner":[true]}'], ["outer", '{"before":1,"middle":2,"after":3}']]);
  assert.deepEqual(r.records, r.seen);
});

test("args that are not plain JSON data are named by path; the size check stops the walk early", { timeout: TEST_TIMEOUT }, async () => {
  const r = await inPage(async (ck) => {
    ck.defineAction({ name: "take", description: "Take args.", control: "open", run: () => 1 });
    const small = new window.coworkkit.Coworkkit({ maxArgsBytes: 30 });
    small.defineAction({ name: "take", description: "Take args.", control: "open", run: () => 1 });
    const message = async (args, target = ck) => {
      const o = await target.invoke({ name: "take", args });
      return `${o.error?.code}: ${o.error?.message}`;
    };
    const cyclic = { a: 1 }; cyclic.self = cyclic;
    let touched = false;
    const out = {
      fn: await message({ a: [1, { b: () => 1 }] }),
      hole: await message({ a: [1, undefined] }),
      inf: await message({ n: -Infinity }),
      sym: await message({ s: [Symbol("x")] }),
      big: await message({ b: 10n }),
      date: await message({ d: new Date(0) }),
      getter: await message({ x: { get g() { throw new Error("no"); } } }),
      length: await message({ l: new Proxy([1], { get(t, k) { if (k === "length") throw new Error("no"); return t[k]; } }) }),
      keys: await message(new Proxy({}, { ownKeys() { throw new Error("no"); } })),
      proto: await message([new Proxy({}, { getPrototypeOf() { throw new Error("no"); } })]),
      cyclic: await message(cyclic),
      endless: await message(new Proxy([1, 2], { get(t, k) { return k === "length" ? 2 ** 32 - 1 : t[k]; } })),
      size: await message({ s: "€".repeat(10) }, small),
      early: await message({ s: "x".repeat(40), get f() { touched = true; return () => 1; } }, small),
      fits: await message({ s: "€".repeat(7) }, small),
      // Sizes are exact (SPEC §3.6): {"s":"xxxxxxxxxxxxxxxxxxxxxx"} is 30 bytes, fractions
      // count as they print, and escapes count.
      edge: await message({ s: "x".repeat(22) }, small),
      over: await message({ s: "x".repeat(23) }, small),
      fractions: await message({ f: [0.5, 0.25, 1.5, 2.5, 3.5] }, small),
      escapes: await message({ s: '"'.repeat(12) }, small),
      // Two keys that read the same once lone surrogates are U+FFFD: the schema would check
      // one and run would see the other.
      twins: await message({ k: { "\uD800": 1, "\uDC00": 2 } }),
      literal: await message({ "\uD800x": 1, "\uFFFDx": 2 }),
      alone: await message({ "\uD800": 1, "\uFFFD\uFFFD": 2 }),
    };
    small.dispose();
    return { ...out, touched };
  });
  assert.equal(r.fn, "invalid_args: args.a[1].b: is a function, not JSON data");
  assert.equal(r.hole, "invalid_args: args.a[1]: is undefined, not JSON data");
  assert.equal(r.inf, "invalid_args: args.n: is not a finite number, not JSON data");
  assert.equal(r.sym, "invalid_args: args.s[0]: is a symbol, not JSON data");
  assert.equal(r.big, "invalid_args: args.b: is a BigInt, not JSON data");
  assert.equal(r.date, "invalid_args: args.d: is not a plain object, not JSON data");
  assert.equal(r.getter, "invalid_args: args.x: has a throwing getter, not JSON data");
  assert.equal(r.length, "invalid_args: args.l: has an unreadable length, not JSON data");
  assert.equal(r.keys, "invalid_args: args: cannot be read, not JSON data");
  assert.equal(r.proto, "invalid_args: args[0]: cannot be read, not JSON data");
  // The depth check comes first, so the 65th level's first value (`a`) is the one named.
  assert.equal(r.cyclic, `invalid_args: args${".self".repeat(64)}.a: is nested too deeply (or is cyclic), not JSON data`);
  assert.match(r.endless, /^args_too_large: args are \d+ bytes of JSON, more than the 65536 allowed$/);
  // {"s":"€€€€€€€€€€"}: 2 for the braces, 1 + 3 for the key and its colon, then 30 + 2 bytes of
  // string: 38.
  assert.equal(r.size, "args_too_large: args are 38 bytes of JSON, more than the 30 allowed");
  assert.equal(r.early, "args_too_large: args are 48 bytes of JSON, more than the 30 allowed");
  assert.equal(r.edge, "undefined: undefined", "exactly maxArgsBytes fits");
  assert.equal(r.over, "args_too_large: args are 31 bytes of JSON, more than the 30 allowed");
  assert.equal(r.fractions, "undefined: undefined", '{"f":[0.5,0.25,1.5,2.5,3.5]} is 28 bytes');
  // {"s":"\"…"} is 6 + 12 × 2 + 2 = 32 bytes once its quotes are escaped.
  assert.equal(r.escapes, "args_too_large: args are 32 bytes of JSON, more than the 30 allowed");
  assert.equal(r.touched, false, "the walk stopped before the next property");
  assert.equal(r.fits, "undefined: undefined");
  const twice = "is a key that another key of the object also reads as (lone surrogates read as U+FFFD), not JSON data";
  assert.equal(r.twins, `invalid_args: args.k.\uFFFD: ${twice}`);
  assert.equal(r.literal, `invalid_args: args.\uFFFDx: ${twice}`);
  assert.equal(r.alone, "undefined: undefined");
});

test("an undeclared destructive name is gated soft with one console nudge per name", { timeout: TEST_TIMEOUT }, async () => {
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

test("defineAction errors carry codes; duplicates throw; a disposed handle frees the name", { timeout: TEST_TIMEOUT }, async () => {
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

test("run that throws or rejects is run_failed and never retried; shareResult and recordResult hide values", { timeout: TEST_TIMEOUT }, async () => {
  const r = await inPage(async (ck, records) => {
    let n = 0;
    ck.defineAction({ name: "boom", description: "d", run: () => { n++; throw new Error("kaput"); } });
    ck.defineAction({ name: "later", description: "d", run: async () => { n++; throw new TypeError("async kaput"); } });
    ck.defineAction({ name: "secret", description: "d", shareResult: false, recordResult: false, run: () => "s3cr3t" });
    const a = await ck.invoke({ name: "boom", callId: "b" });
    const again = await ck.invoke({ name: "boom", callId: "b" });
    const b = await ck.invoke({ name: "later" });
    const s = await ck.invoke({ name: "secret" });
    return { a, again, b, s, n, outcomes: records.map((r) => r.outcome), assurances: records.map((r) => r.assurance) };
  });
  assert.deepEqual([r.a.ok, r.a.error.code, r.a.error.message], [false, "run_failed", "kaput"]);
  assert.deepEqual(r.again, r.a);
  assert.equal(r.b.error.message, "async kaput");
  assert.equal(r.n, 2);
  assert.equal(r.s.ok, true);
  assert.equal("result" in r.s, false);
  assert.deepEqual(r.outcomes[2], { status: "ok" });
  assert.deepEqual(r.assurances, ["none", "none", "none"], "open calls, failed or not");
});

test("a proposal listener attached late receives the waiting proposals; events carry no summary", { timeout: TEST_TIMEOUT }, async () => {
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
