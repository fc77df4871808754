// The hostile suite's in-page half (tests/e2e/hostile.test.mjs): instances whose `run`s check
// SPEC §8 as they fire, an untrusted agent driven by a seeded generator, and the end-of-scenario
// checks. Injected with `page.addScriptTag`; everything hangs off `window.lab`.
(() => {
  const lab = (window.lab = {});
  const stats = (lab.stats = {
    calls: 0, toolCalls: 0, events: 0, hardRuns: 0, softRuns: 0, openRuns: 0,
    trustedConfirms: 0, violations: [], unhandled: [], errors: [],
  });
  window.addEventListener("unhandledrejection", (e) => stats.unhandled.push(String(e.reason?.stack ?? e.reason)));
  window.addEventListener("error", (e) => stats.errors.push(String(e.message)));
  const violation = (what) => { if (stats.violations.length < 50) stats.violations.push(what); };
  lab.sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const micro = (n) => { let p = Promise.resolve(); for (let i = 0; i < n; i++) p = p.then(); return p; };

  /** mulberry32: small, seedable, good enough to pick hostile inputs. */
  lab.rng = (seed) => {
    let a = seed >>> 0;
    return () => {
      a = (a + 0x6d2b79f5) | 0;
      let t = Math.imul(a ^ (a >>> 15), 1 | a);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  };

  /** Canonical JSON as the SDK compares args: sorted keys, lone surrogates as U+FFFD. */
  const wf = (s) => (typeof s === "string" ? s.toWellFormed() : s);
  lab.canon = (v) => JSON.stringify(v === undefined ? {} : v, (k, x) => {
    if (typeof x === "string") return wf(x);
    if (x && typeof x === "object" && !Array.isArray(x)) {
      // Sorted after the U+FFFD replacement, as the SDK sees the keys: "\uD800b" sorts
      // before "\uFFFDa" as sent, but after it once both start with U+FFFD.
      const entries = Object.keys(x).map((key) => [wf(key), x[key]]);
      return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    }
    return x;
  });
  const tryCanon = (v) => { try { return lab.canon(v); } catch { return null; } };

  // ---- instances ------------------------------------------------------------------------

  lab.instances = [];
  lab.controlled = [];

  /**
   * The engine remembers its last 1,024 settled calls (SPEC §3.2); a `callId` used again after
   * its call left that memory is a new call, with its own run and record. The lab counts the
   * records of remembered calls (`remembered` below) to tell the two apart. It cannot see which
   * `needs_hand_mode` records were remembered (settled after a token) and which were refused on
   * arrival, so it counts none of them and allows that much slack.
   */
  const MEMORY = 1024;
  const SLACK = 64;
  const remembered = (r) => r.gate !== "rejected" && r.gate !== "needs_confirmation" && r.gate !== "needs_hand_mode"
    && !(r.gate === "cancelled" && r.reason === "disposed" && r.outcome.status === "not_run");
  /**
   * A fresh instance with the standard actions. `run` checks, as it fires, that a hard call
   * had a trusted Confirm (the test counts its real clicks in `stats.trustedConfirms`) and
   * that a soft call carried a token issued for exactly these args.
   */
  lab.setup = (options = {}) => {
    const { Coworkkit } = window.coworkkit;
    const inst = {
      records: [], remembered: 0, answers: [], issued: new Map(), presented: new Set(), ran: new Map(),
      hanging: 0, unsettled: 0, hardRuns: 0, confirmsAtStart: stats.trustedConfirms,
    };
    const keep = (r) => {
      inst.records.push(r);
      if (remembered(r)) inst.remembered += 1;
    };
    const sink = options.sink ?? keep;
    inst.ck = new Coworkkit({ armDelayMs: 200, confirmTimeoutMs: 5000, ...options, onActionRecord: sink });
    if (options.sink) inst.ck.on("record", keep);
    const run = (kind, action) => (args, ctx) => {
      const before = inst.ran.get(ctx.callId);
      inst.ran.set(ctx.callId, { n: (before?.n ?? 0) + 1, at: inst.remembered });
      if (before && inst.remembered - before.at < MEMORY - SLACK) violation(`${action}: run twice for ${ctx.callId}`);
      if (ctx.control !== kind) violation(`${action}: ctx.control ${ctx.control}, expected ${kind}`);
      if (!Object.isFrozen(args)) violation(`${action}: args not frozen`);
      if (kind === "hard") {
        stats.hardRuns += 1;
        inst.hardRuns += 1;
        if (inst.hardRuns > stats.trustedConfirms - inst.confirmsAtStart) violation(`${action}: hard run without a trusted Confirm`);
      } else if (kind === "soft") {
        stats.softRuns += 1;
        const c = lab.canon(args);
        const match = [...inst.issued.values()].find((t) => !t.fired && t.action === action && t.canon === c
          && (t.callId === null || t.callId === ctx.callId) && inst.presented.has(t.token));
        if (match) match.fired = true;
        else {
          const near = [...inst.issued.values()].filter((t) => t.action === action && (t.canon === c || t.callId === ctx.callId))
            .map((t) => `${t.callId}/${t.canon?.slice(0, 40)}/${t.fired}/${inst.presented.has(t.token)}`);
          violation(`${action}: soft run without a matching token (${ctx.callId}, ${c.slice(0, 80)}; near: ${near.join(" ")})`);
        }
      } else {
        stats.openRuns += 1;
      }
      return lab.behave(inst, action, args, ctx);
    };
    const ck = inst.ck;
    ck.defineAction({ name: "readDoc", description: "Read a document.", control: "open", run: run("open", "readDoc") });
    ck.defineAction({ name: "archiveThread", description: "Archive a thread.", control: "soft", run: run("soft", "archiveThread") });
    ck.defineAction({ name: "purgeCache", description: "Purge the cache.", run: run("soft", "purgeCache") }); // soft by name
    ck.defineAction({
      name: "deleteProject", description: "Delete a project.", control: "hard", run: run("hard", "deleteProject"),
      input: { type: "object", properties: { projectId: { type: "string", maxLength: 40 }, mode: { type: "string" } } },
      confirmationSummary: (a) => `Delete ${a.projectId ?? "?"}?`,
    });
    ck.defineAction({ name: "wipeAll", description: "Wipe everything.", control: "hard", approvers: ["admin"], run: run("hard", "wipeAll") });
    lab.instances.push(inst);
    lab.inst = inst;
    return inst;
  };

  /** What a `run` does, chosen by `args.mode`: the hostile run handlers. */
  lab.behave = (inst, action, args, ctx) => {
    switch (args?.mode) {
      case "throw": throw new Error("run threw");
      case "throwValue": throw 42;
      case "reject": return Promise.reject(new Error("run rejected"));
      case "rejectNothing": return Promise.reject();
      case "hang": inst.hanging += 1; return new Promise(() => {});
      case "slow": return lab.sleep(30).then(() => ({ slow: true }));
      case "thenableThrows": return { then() { throw new Error("then threw"); } };
      case "cyclic": { const c = { action }; c.self = c; return c; }
      case "bigint": return { n: 10n };
      case "reenter": {
        // Re-enter the SDK from inside `run`: the same call again, another call, a hard call.
        lab.call(inst, { name: action, args, callId: ctx.callId });
        lab.call(inst, { name: "readDoc", args: { nested: 1 } });
        lab.call(inst, { name: "deleteProject", args: { projectId: "from-run" } });
        return { reentered: true };
      }
      case "disposeInside": inst.ck.dispose(); return { disposed: true };
      case "controlled": return new Promise((resolve) => lab.controlled.push({ resolve, signal: ctx.signal, callId: ctx.callId }));
      default: return { action, ok: true };
    }
  };

  // ---- the agent's two doors, watched ---------------------------------------------------

  const settleWatch = (inst, promise) => {
    inst.unsettled += 1;
    if (!(promise instanceof Promise)) violation("a door did not return a Promise");
    return Promise.resolve(promise).then(
      (o) => { inst.unsettled -= 1; return o; },
      (e) => { inst.unsettled -= 1; violation(`a door rejected: ${e}`); return null; },
    );
  };

  /** `invoke`, watched: tokens presented, tokens issued (for which args), answers. */
  lab.call = (inst, call) => {
    stats.calls += 1;
    let token, name, canon = null;
    try { token = call?.confirmToken; name = call?.name; canon = tryCanon(call?.args); } catch {}
    if (typeof token === "string") inst.presented.add(token);
    let promise;
    try { promise = inst.ck.invoke(call); } catch (e) { violation(`invoke threw: ${e}`); return Promise.resolve(null); }
    return settleWatch(inst, promise).then((o) => {
      if (!o) return o;
      inst.answers.push({ callId: o.callId, gate: o.gate, code: o.error?.code });
      if (o.ok && !["fired", "confirmed"].includes(o.gate)) violation(`ok outcome with gate ${o.gate}`);
      if (o.gate === "needs_confirmation") {
        if (typeof o.confirmToken !== "string" || o.confirmToken.length < 22) violation("weak token");
        if (inst.issued.has(o.confirmToken)) violation("token issued twice");
        inst.issued.set(o.confirmToken, { token: o.confirmToken, action: name, canon, callId: o.callId, args: call.args, fired: false, at: Date.now() });
      }
      return o;
    });
  };

  /** A provider tool call read as the SDK reads it (core/interop.rs `parse_tool_call`). */
  const readTool = (call) => {
    const fn = call.function && typeof call.function === "object" && !Array.isArray(call.function) ? call.function : undefined;
    const str = (v) => (typeof v === "string" ? v : undefined);
    let read;
    if (call.type === "function_call") read = { id: str(call.call_id), name: str(call.name), raw: call.arguments };
    else if (call.type === "tool_use") read = { id: str(call.id), name: str(call.name), raw: call.input };
    else if (call.type === "function" && fn) read = { id: str(call.id), name: str(fn.name) ?? str(call.name), raw: fn.arguments };
    else return { id: undefined, name: "", args: undefined };
    let args = read.raw;
    if (args === undefined || args === null || (typeof args === "string" && args.trim() === "")) args = {};
    else if (typeof args === "string") { try { args = JSON.parse(args); } catch { args = undefined; } }
    return { ...read, args };
  };

  /** `handleToolCall`, watched the same way; the outcome is read back from the content. */
  lab.tool = (inst, call) => {
    stats.toolCalls += 1;
    let name, id, args, canon = null, token;
    try {
      ({ name, id, args } = readTool(call));
      if (args && typeof args === "object" && !Array.isArray(args)) {
        token = args.confirmToken;
        const own = { ...args };
        delete own.confirmToken;
        if (typeof own.decline === "boolean") delete own.decline;
        canon = tryCanon(own);
      }
    } catch {}
    if (typeof token === "string") inst.presented.add(token);
    let promise;
    try { promise = inst.ck.handleToolCall(call); } catch (e) { violation(`handleToolCall threw: ${e}`); return Promise.resolve(null); }
    return settleWatch(inst, promise).then((result) => {
      if (!result) return result;
      const text = result.content ?? result.output;
      let content;
      try { content = JSON.parse(text); } catch { violation(`tool result content is not JSON: ${String(text).slice(0, 80)}`); return result; }
      // A confirming call's own id is an alias: the record carries the original call's id.
      const original = typeof token === "string" ? inst.issued.get(token) : undefined;
      const callId = original ? original.callId : typeof id === "string" ? id.toWellFormed() : null;
      inst.answers.push({ callId, gate: content.gate, code: content.error?.code, tool: true });
      if (content.gate === "needs_confirmation") {
        const callId = typeof id === "string" && id.length > 0 && id.length <= 256 ? id.toWellFormed() : null;
        inst.issued.set(content.confirmToken, { token: content.confirmToken, action: name, canon, callId, args, fired: false, at: Date.now(), tool: true });
      }
      return result;
    });
  };

  // ---- hostile inputs -------------------------------------------------------------------

  lab.makeGen = (seed) => {
    const r = lab.rng(seed);
    const int = (n) => Math.floor(r() * n);
    const pick = (a) => a[int(a.length)];
    const chance = (p) => r() < p;
    const strings = ["", "x", "p1", "__proto__", "constructor", "prototype", "toString", "\u0000\u001f", "\uD800",
      "\uDC00x\uD83D", "😀😀", "<img src=x onerror=alert(1)>", "\u202Eevil", "a\nb", "ckp_1", "ck_" + "0".repeat(32)];
    const str = () => (chance(0.2) ? "s" + int(1e6) : chance(0.1) ? "y".repeat(int(300)) : pick(strings));
    const num = () => pick([0, -0, 1, -1, 1.5, 1e308, -1e308, 5e-324, 2 ** 53, 2 ** 53 + 2, 1e21, 0.1 + 0.2, int(100)]);
    const leaf = () => pick([null, true, false, num(), num(), str(), str()]);
    const plain = (d = 0) => {
      const k = r();
      if (d > 3 || k < 0.4) return leaf();
      if (k < 0.6) return Array.from({ length: int(4) }, () => plain(d + 1));
      const o = {};
      for (let i = int(4); i > 0; i--) Object.defineProperty(o, pick(["a", "b", "projectId", "__proto__", "constructor", str()]), { value: plain(d + 1), enumerable: true, writable: true, configurable: true });
      return o;
    };
    const nest = (n, arr) => { const root = arr ? [] : {}; let d = root; for (let i = 0; i < n; i++) { const c = arr ? [] : {}; if (arr) d.push(c); else d.n = c; d = c; } return root; };
    const hostile = [
      () => { const c = { a: 1 }; c.self = c; return c; },
      () => { const c = [1]; c.push({ back: c }); return c; },
      () => nest(60 + int(200), chance(0.5)),
      () => nest(63, false),
      () => ({ s: "x".repeat(60000 + int(20000)) }),
      () => ({ s: "€".repeat(20000 + int(10000)) }),
      () => ({ many: Array.from({ length: 5000 + int(20000) }, (_, i) => i) }),
      () => JSON.parse('{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":2}},"toString":"x"}'),
      () => ({ get boom() { throw new Error("getter threw"); } }),
      () => ({ get re() { lab.call(lab.inst, { name: "readDoc", args: { fromGetter: 1 } }); return 1; } }),
      () => new Proxy({}, { ownKeys() { throw new Error("ownKeys trap"); } }),
      () => new Proxy({ a: 1 }, { get() { throw new Error("get trap"); } }),
      () => new Proxy({}, { getPrototypeOf() { throw new Error("getPrototypeOf trap"); } }),
      () => new Proxy([1, 2], { get(t, k) { return k === "length" ? 2 ** 32 - 1 : t[k]; } }),
      () => new Proxy([1, 2], { get(t, k) { if (k === "1") throw new Error("index trap"); return t[k]; } }),
      () => { const p = Proxy.revocable({}, {}); p.revoke(); return p.proxy; },
      () => ({ inner: (() => { const p = Proxy.revocable([], {}); p.revoke(); return p.proxy; })() }),
      () => Object.defineProperty([], 0, { get() { throw new Error("index getter"); }, enumerable: true }),
      () => ({ f() {} }), () => ({ s: Symbol("x") }), () => ({ b: 10n }), () => ({ d: new Date() }),
      () => ({ m: new Map([[1, 2]]) }), () => ({ u: undefined, a: 1 }), () => [undefined], () => [, 1],
      () => ({ n: NaN }), () => ({ n: -Infinity }), () => new (class Thing {})(), () => Object.create(null),
      () => Object.create({ inherited: 1 }), () => ({ el: document.body }), () => new Uint8Array(4),
      () => "just a string", () => 42, () => null, () => [1, 2, 3], () => true,
      () => ({ toJSON() { return { a: 1 }; } }), () => ({ [Symbol("k")]: 1, a: 1 }),
      () => Object.defineProperty({}, "hidden", { value: 1, enumerable: false }),
      () => ({ projectId: "p".repeat(41) }), () => ({ projectId: 7 }),
    ];
    const args = () => (chance(0.3) ? pick(hostile)() : plain());
    const names = ["readDoc", "readDoc", "archiveThread", "archiveThread", "purgeCache", "deleteProject", "deleteProject", "wipeAll"];
    const badNames = ["", "__proto__", "constructor", "toString", "hasOwnProperty", "readDoc ", "READDOC", "readDoc\u0000",
      "deleteProject".padEnd(100, "x"), "nope", "ckp_1", 42, null, {}, ["readDoc"], new String("readDoc")];
    const name = () => (chance(0.85) ? pick(names) : pick(badNames));
    return { r, int, pick, chance, str, plain, args, name, hostile };
  };

  /**
   * The untrusted agent: `count` calls through `door` ("invoke" or "tool"), with replayed,
   * swapped, forged and expired tokens and reused and conflicting callIds. Soft calls are
   * often confirmed properly (same args, the issued token), so the soft path fires and its
   * check has something to check. Never clicks anything.
   */
  lab.agent = async (seed, count, door, { expireEvery = 0, expireMs = 0 } = {}) => {
    const g = lab.makeGen(seed);
    const inst = lab.inst;
    const callIds = ["c1", "c2", "c3"];
    const freshId = () => `a${seed}_${g.int(1e9)}`;
    const callId = () => {
      const k = g.r();
      if (k < 0.35) return undefined;
      if (k < 0.6) return g.pick(callIds);
      if (k < 0.8) return freshId();
      return g.pick(["", 7, {}, "x".repeat(300), null, "\uD800", "__proto__"]);
    };
    const issuedList = () => [...inst.issued.values()];
    const token = () => {
      const list = issuedList();
      const k = g.r();
      if (k < 0.4 || list.length === 0) return undefined;
      if (k < 0.8) return g.pick(list).token;
      return g.pick(["A".repeat(22), "ck_forged", "", 42, {}, "ckp_1", list[0].token.slice(0, -1) + "A"]);
    };
    const pending = [];
    for (let i = 0; i < count; i++) {
      if (expireEvery && i % expireEvery === expireEvery - 1) await lab.sleep(expireMs);
      if (i % 40 === 39) for (const q of inst.ck.pending()) inst.ck.cancel(q.id); // the app may cancel
      let call;
      const list = issuedList().filter((t) => !t.fired && t.args !== undefined);
      if (list.length && g.chance(0.25)) {
        // A proper confirmation: the same args and the token (sometimes another callId,
        // sometimes a decline, sometimes the token of another call: swapped).
        const t = g.pick(list);
        const swap = g.chance(0.15) ? g.pick(list) : t;
        call = { name: g.chance(0.9) ? t.action : g.name(), args: g.chance(0.9) ? t.args : g.args(), confirmToken: swap.token, callId: g.chance(0.5) ? undefined : callId(), decline: g.chance(0.1) };
        if (door === "tool") call = toTool(g, call);
      } else {
        call = { name: g.name(), args: g.args(), callId: callId(), confirmToken: token(), decline: g.chance(0.05) };
        if (g.chance(0.03)) call = g.pick([null, undefined, "readDoc", 42, [], { name: "readDoc", args: {}, callId: callIds }, new Proxy({}, { get() { throw new Error("call trap"); } })]);
        else if (door === "tool") call = toTool(g, call);
      }
      try { if (typeof call?.callId === "string" && g.chance(0.3)) callIds.push(call.callId); } catch { /* a Proxy call */ }
      const p = door === "tool" ? lab.tool(inst, call) : lab.call(inst, call);
      pending.push(p);
      await Promise.race([p, micro(6)]);
    }
    return pending.length;
  };

  /** An agent call in one of the three provider shapes (or a broken one). */
  const toTool = (g, call) => {
    let args = call.args;
    try {
      if (args && typeof args === "object" && !Array.isArray(args) && (call.confirmToken !== undefined || call.decline)) {
        args = { ...args, confirmToken: call.confirmToken, ...(call.decline ? { decline: true } : {}) };
      }
    } catch { /* a revoked Proxy, a throwing getter: sent as it is */ }
    let text = args;
    if (g.chance(0.6)) {
      try { text = JSON.stringify(args) ?? "{}"; } catch { text = "{"; }
      if (g.chance(0.1)) text = g.pick(['{"a":', '{"a":1}}', "[1,2]", '"str"', "null", "", "{\"a\":1e400}", "[".repeat(5000),
        '{"s":"' + "x".repeat(300000) + '"}', '{"__proto__":{"x":1}}', "\uD800", '{"a":1,"a":2}']);
    }
    const id = typeof call.callId === "string" ? call.callId : g.chance(0.5) ? call.callId : `tc_${g.int(1e9)}`;
    switch (g.int(4)) {
      case 0: return { id, type: "function", function: { name: call.name, arguments: text } };
      case 1: return { type: "function_call", call_id: id, name: call.name, arguments: text, id: "fc_1", status: "completed" };
      case 2: return { type: "tool_use", id, name: call.name, input: g.chance(0.8) && typeof text === "string" ? args : text };
      default: return g.pick([{ type: "tool_use" }, { type: "function" }, { function: 1 }, { call_id: id }, { input: args }, null, "x", 1, [], { type: "function_call", call_id: [], name: {}, arguments: 5 }]);
    }
  };

  // ---- end of a scenario ----------------------------------------------------------------

  /**
   * Disposes every instance (so every waiting call settles), then checks what must hold after
   * any scenario, and that the SDK still answers a normal call.
   */
  lab.finish = async () => {
    for (const inst of lab.instances) inst.ck.dispose();
    await lab.sleep(60);
    for (const inst of lab.instances) {
      const ids = new Set();
      const byCall = new Map();
      const any = new Set(inst.records.map((r) => `${r.callId} ${r.gate}`));
      let rejectedRecords = 0;
      let index = 0;
      for (const r of inst.records) {
        if (ids.has(r.id)) violation(`record ${r.id} delivered twice`);
        ids.add(r.id);
        if (r.gate === "needs_confirmation") violation("a record for needs_confirmation");
        if (r.gate === "rejected") { rejectedRecords += 1; continue; }
        // Settled on arrival, so not remembered: a retry with that callId is judged afresh.
        if (!remembered(r)) continue;
        index += 1;
        byCall.set(r.callId, [...(byCall.get(r.callId) ?? []), { r, index }]);
      }
      for (const [callId, list] of byCall) {
        for (let k = 1; k < list.length; k++) {
          // A second record is a second call only once the first has left the memory.
          if (list[k].index - list[k - 1].index <= MEMORY - SLACK) violation(`call ${callId} has ${list.length} records`);
        }
      }
      for (const a of inst.answers) {
        // (A tool result names no callId, and the provider's id may be an alias: skipped.)
        if (a.gate === "needs_confirmation" || a.gate === "rejected" || a.callId === null || a.tool) continue;
        if (!any.has(`${a.callId} ${a.gate}`)) violation(`settled call ${a.callId} (${a.gate}) has no record`);
      }
      const rejectedAnswers = inst.answers.filter((a) => a.gate === "rejected").length;
      if (rejectedRecords > rejectedAnswers) violation(`${rejectedRecords} rejected records for ${rejectedAnswers} rejected answers`);
      for (const [callId, { n }] of inst.ran) {
        const ran = (byCall.get(callId) ?? []).filter(({ r }) => r.outcome.status !== "not_run");
        if (ran.length !== n && inst.hanging === 0) violation(`${n} runs of ${callId} have ${ran.length} records`);
      }
      if (inst.hanging === 0 && inst.unsettled !== 0) violation(`${inst.unsettled} calls never settled`);
    }
    // The SDK still answers a normal call (a wasm panic would make every call throw).
    let still = null;
    try {
      const { Coworkkit } = window.coworkkit;
      const ck = new Coworkkit();
      ck.defineAction({ name: "ping", description: "Ping.", control: "open", run: () => "pong" });
      const o = await ck.invoke({ name: "ping", args: {} });
      const t = await ck.handleToolCall({ type: "tool_use", id: "ping_1", name: "ping", input: {} });
      still = o.gate === "fired" && o.result === "pong" && JSON.parse(t.content).gate === "fired";
      ck.dispose();
    } catch (e) {
      still = String(e);
    }
    lab.instances = [];
    return {
      violations: stats.violations.splice(0), unhandled: stats.unhandled.splice(0), errors: stats.errors.splice(0),
      still, memory: window.wasmMemoryBytes(), stats: { ...stats, violations: undefined, unhandled: undefined, errors: undefined },
    };
  };
})();
