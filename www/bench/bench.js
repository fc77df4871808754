// The benchmark page: every figure of SPEC §9 that needs a browser, each measured beside its bar
// in the same page (the same work in plain JavaScript, `plain.js`, or a bare <dialog>), the two
// interleaved so they share the machine's mood. `scripts/bench.mjs` drives it; every function
// here returns plain data.
//
// The package is loaded with a dynamic `import()` so that the load figure covers the JS glue as
// well as the wasm: import → `init()` (fetch, compile, instantiate) → `new Coworkkit`.

const loadStart = performance.now();
const coworkkit = await import("coworkkit");
const glueLoaded = performance.now();
const wasm = await coworkkit.default();
const wasmReady = performance.now();
const firstInstance = new coworkkit.Coworkkit({});
const constructed = performance.now();
firstInstance.dispose();

const { Coworkkit } = coworkkit;
const { PlainGate } = await import("./plain.js");

// ---------------------------------------------------------------------------------------------
// Shared workload
// ---------------------------------------------------------------------------------------------

/** The open action's schema: types, required, minLength/maxLength, minimum/maximum. */
const TASK_SCHEMA = {
  type: "object",
  properties: {
    title: { type: "string", minLength: 1, maxLength: 200 },
    priority: { type: "integer", minimum: 0, maximum: 5 },
  },
  required: ["title", "priority"],
};
/** `run` of the open action: cheap and synchronous, so the gate is what is measured. */
const runTask = (args) => args.priority;

const HARD_NAME = "deleteProject";
const HARD_DESCRIPTION = "Permanently delete a project and everything in it.";
const hardSummary = (args) => `Delete ${args.projectId} and all its 12 tasks? This can't be undone.`;
const HARD_SCHEMA = {
  type: "object",
  properties: { projectId: { type: "string", minLength: 1 } },
  required: ["projectId"],
};
const CONFIRM_TIMEOUT_MS = 120000;

const sleepFrame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

// ---------------------------------------------------------------------------------------------
// invoke round trip: SDK vs the same work in plain JS (plain.js), in alternating rounds
// ---------------------------------------------------------------------------------------------

let sinkCount = 0;
const sink = (record) => { sinkCount += record.v; };

/** Defines an open action on the SDK or on the bar (which takes no description). */
const define = (gate, spec) =>
  gate instanceof Coworkkit
    ? gate.defineAction({ description: "A bench action.", control: "open", ...spec })
    : gate.defineAction(spec);

/**
 * The check that comes before any timing: both sides answer the same calls with the same
 * outcomes and records (fields, their order, values, frozenness; fresh ids by their format,
 * times as numbers) and hand `run` the same `args` and `ctx`. Throws, naming the first call on
 * which they differ, so a bar that does less than the SDK cannot produce a figure.
 */
async function sameWork() {
  const sides = ["sdk", "js"].map((side) => {
    const records = [], runs = [];
    const options = { onActionRecord: (r) => records.push(r), maxArgsBytes: 2000 };
    const gate = side === "sdk" ? new Coworkkit(options) : new PlainGate(options);
    return { side, gate, records, runs };
  });
  for (const side of sides) {
    const g = side.gate;
    const seen = (args, ctx) => {
      side.runs.push({ args, ctx });
      return args.priority;
    };
    define(g, { name: "getTask", input: TASK_SCHEMA, run: seen });
    define(g, { name: "failTask", run: () => { throw new Error("boom"); } });
    define(g, { name: "voidTask", run: () => undefined });
    define(g, { name: "laterTask", run: async (args) => ({ later: args.n }) });
    define(g, {
      name: "richTask",
      input: {
        type: "object",
        properties: {
          tags: { type: "array", items: { type: "string", enum: ["a", "b"] } },
          kind: { const: "x" },
          n: { type: ["number", "null"], maximum: 2.5 },
        },
        additionalProperties: false,
      },
      run: () => true,
    });
  }
  const task = { title: "Write the quarterly report", priority: 3 };
  const cyclic = { title: "x" };
  cyclic.self = cyclic;
  const nest = (n) => (n === 0 ? 1 : [nest(n - 1)]);
  const calls = [
    ["the bench's call", { name: "getTask", args: task }],
    ["a given callId", { name: "getTask", args: { title: "x", priority: 3 }, callId: "call-1" }],
    ["its replay (keys reordered)", { name: "getTask", args: { priority: 3, title: "x" }, callId: "call-1" }],
    ["a conflicting replay", { name: "getTask", args: { title: "y", priority: 3 }, callId: "call-1" }],
    ["a string too short", { name: "getTask", args: { title: "", priority: 3 } }],
    ["a number too big", { name: "getTask", args: { title: "x", priority: 9 } }],
    ["a fraction for an integer", { name: "getTask", args: { title: "x", priority: 2.5 } }],
    ["a missing property", { name: "getTask", args: { priority: 1 } }],
    ["an extra property", { name: "getTask", args: { title: "x", priority: 1, note: [1, { a: null }] } }],
    ["a lone surrogate", { name: "getTask", args: { title: "a\ud800b", priority: 1 } }],
    ["an own __proto__", { name: "getTask", args: JSON.parse('{"__proto__": {"a": 1}, "title": "x", "priority": 1}') }],
    ["an undefined property", { name: "getTask", args: { title: "x", priority: 1, gone: undefined } }],
    ["a function", { name: "getTask", args: { title: "x", priority: 1, f: () => 1 } }],
    ["a hole", { name: "getTask", args: { title: "x", priority: 1, list: [1, undefined] } }],
    ["NaN", { name: "getTask", args: { title: "x", priority: NaN } }],
    ["a Date", { name: "getTask", args: { title: "x", priority: 1, when: new Date(0) } }],
    ["a BigInt", { name: "getTask", args: { title: "x", priority: 1n } }],
    ["a cycle", { name: "getTask", args: cyclic }],
    ["64 levels deep", { name: "getTask", args: { title: "x", priority: 1, deep: nest(63) } }],
    ["65 levels deep", { name: "getTask", args: { title: "x", priority: 1, deep: nest(64) } }],
    ["escapes", { name: "getTask", args: { title: "a\"b\\c\nd\u0001e\u007f\u00e9\u20ac\ud83d\ude00", priority: 1 } }],
    ["too large", { name: "getTask", args: { title: "x".repeat(3000), priority: 1 } }],
    ["too large once escaped", { name: "getTask", args: { title: '"'.repeat(1200), priority: 1 } }],
    ["too large in key bytes", { name: "getTask", args: { title: "x", priority: 1, ["\u00e9".repeat(1100)]: 1 } }],
    ["a lone surrogate in a key", { name: "getTask", args: { title: "x", priority: 1, ["k\ud800"]: 1 } }],
    ["two keys that read the same", { name: "getTask", args: { title: "x", priority: 1, ["k\ud800"]: 1, ["k\udc00"]: 2 } }],
    ["an unknown action", { name: "getTasks", args: {} }],
    ["an unknown destructive name", { name: "deleteEverything" }],
    ["a number as callId", { name: "getTask", args: task, callId: 7 }],
    ["an empty callId", { name: "getTask", args: task, callId: "" }],
    ["a confirmToken on an open action", { name: "getTask", args: task, confirmToken: "ckt_x" }],
    ["decline on an open action", { name: "getTask", args: task, decline: true }],
    ["run throws", { name: "failTask" }],
    ["run returns undefined", { name: "voidTask", args: {} }],
    ["an async run", { name: "laterTask", args: { n: 1 } }],
    ["the rich schema, passing", { name: "richTask", args: { tags: ["a", "b"], kind: "x", n: null } }],
    ["an enum miss", { name: "richTask", args: { tags: ["a", "c"] } }],
    ["a const miss", { name: "richTask", args: { kind: "y" } }],
    ["a type union miss", { name: "richTask", args: { n: "1" } }],
    ["a fractional bound", { name: "richTask", args: { n: 3 } }],
    ["additionalProperties: false", { name: "richTask", args: { other: 1 } }],
  ];
  const sessions = sides.map((s) => s.gate.sessionId);
  const shape = (v, session, path = "") => {
    if (typeof v !== "object" || v === null) {
      if (typeof v === "string") {
        if (/^ck_[0-9a-f]{32}$/.test(v)) return "<fresh ck_ id>";
        if (v === session) return "<sessionId>";
        if (v.startsWith(session + ".") && /^\d+$/.test(v.slice(session.length + 1))) return "<sessionId>.<n>";
      }
      if (/(^|\.)(startedAt|settledAt)$/.test(path) && typeof v === "number" && Math.abs(Date.now() - v) < 600000) {
        return "<epoch ms>";
      }
      return typeof v === "number" || typeof v === "boolean" || typeof v === "string" || v === null ? v : `<${typeof v}>`;
    }
    if (v instanceof AbortSignal) return `<AbortSignal aborted=${v.aborted}>`;
    const out = { "<frozen>": Object.isFrozen(v), "<array>": Array.isArray(v) };
    for (const k of Object.keys(v)) out[k] = shape(v[k], session, path ? `${path}.${k}` : k);
    return out;
  };
  const differ = (what, a, b) => {
    const [x, y] = [JSON.stringify(a), JSON.stringify(b)];
    if (x !== y) throw new Error(`the plain-JS bar and the SDK differ on ${what}:\n  SDK: ${x}\n  JS:  ${y}`);
  };
  const tooLarge = /^args are \d+ bytes of JSON/;
  for (const [what, call] of calls) {
    const before = sides.map((s) => [s.records.length, s.runs.length]);
    const outcomes = [];
    for (const s of sides) outcomes.push(await s.gate.invoke(call));
    const got = sides.map((s, i) => {
      const o = shape(outcomes[i], sessions[i]);
      // How far the SDK's early stop counted when it gave up differs by a byte or so from an
      // exact count; the limit and the code must agree.
      if (o.error?.code === "args_too_large") o.error.message = o.error.message.replace(tooLarge, "args are N bytes of JSON");
      const records = s.records.slice(before[i][0]).map((r) => shape(r, sessions[i]));
      const runs = s.runs.slice(before[i][1]).map(({ args, ctx }) => ({
        args: shape(args, sessions[i]), ctx: shape(ctx, sessions[i]),
        sameCallId: ctx.callId === outcomes[i].callId, copied: args !== call.args,
      }));
      return { outcome: o, records, runs };
    });
    differ(`${what} (${JSON.stringify(call, (k, v) => (typeof v === "bigint" ? `${v}n` : v === cyclic && k ? "<cycle>" : v))})`, got[0], got[1]);
    for (let i = 0; i < 2; i++) {
      const r = sides[i].records.at(-1);
      if (got[i].records.length && r.callId !== outcomes[i].callId) throw new Error(`${sides[i].side}: record and outcome callIds differ on ${what}`);
    }
  }
  const after = [];
  for (const [i, s] of sides.entries()) {
    s.gate.dispose();
    const outcome = await s.gate.invoke({ name: "getTask", args: task });
    after.push([shape(outcome, sessions[i]), shape(s.records.at(-1), sessions[i])]);
  }
  differ("a call after dispose()", after[0], after[1]);
  return calls.length + 1;
}

async function invokeLoop(target, calls) {
  const t0 = performance.now();
  for (let i = 0; i < calls; i++) {
    const outcome = await target.invoke({ name: "getTask", args: { title: "Write the quarterly report", priority: 3 } });
    if (!outcome.ok) throw new Error(`invoke failed: ${JSON.stringify(outcome)}`);
  }
  return ((performance.now() - t0) * 1000) / calls; // µs per call
}

/**
 * `rounds` rounds; each runs `calls` invokes on one side, then `calls` on the other, the side
 * that goes first alternating (SDK, JS | JS, SDK | …). The figure is the median of the rounds'
 * ratios (SDK µs / JS µs): the two halves of a round ran within milliseconds of each other, so
 * the machine's mood cancels in each ratio. `check` runs `sameWork` first, in this page; the
 * driver runs it in a page of its own instead (`check: false` here), so that its 40-odd unusual
 * calls leave no JIT feedback behind in the page that is timed.
 */
async function invoke({ rounds = 31, calls = 4000, warmup = 20000, check = true } = {}) {
  const checkedCalls = check ? await sameWork() : 0;
  const ck = new Coworkkit({ onActionRecord: sink });
  const js = new PlainGate({ onActionRecord: sink });
  for (const g of [ck, js]) define(g, { name: "getTask", input: TASK_SCHEMA, run: runTask });
  await invokeLoop(ck, warmup);
  await invokeLoop(js, warmup);
  const sdk = [], plain = [], ratios = [];
  for (let r = 0; r < rounds; r++) {
    let s, j;
    if (r % 2 === 0) {
      s = await invokeLoop(ck, calls);
      j = await invokeLoop(js, calls);
    } else {
      j = await invokeLoop(js, calls);
      s = await invokeLoop(ck, calls);
    }
    sdk.push(s);
    plain.push(j);
    ratios.push(s / j);
  }
  ck.dispose();
  js.dispose();
  return {
    rounds, calls, warmup, checkedCalls, sdkUs: sdk, jsUs: plain, ratios,
    ratio: median(ratios), sdkMedianUs: median(sdk), jsMedianUs: median(plain),
  };
}

// ---------------------------------------------------------------------------------------------
// Hard invoke → card open and focused: SDK vs a bare <dialog>
// ---------------------------------------------------------------------------------------------

/** The time of the next `focusin` whose (retargeted) target satisfies `match`. */
let focusWatch = null;
document.addEventListener("focusin", (e) => {
  if (focusWatch && focusWatch.match(e.target)) {
    focusWatch.at = performance.now();
    focusWatch.match = () => false;
  }
}, true);

async function untilFocused(watch, timeoutMs = 5000) {
  const until = performance.now() + timeoutMs;
  while (watch.at === undefined) {
    if (performance.now() > until) throw new Error("the card never took focus");
    await new Promise((r) => requestAnimationFrame(r));
  }
  return watch.at;
}

/**
 * The main-thread time of the next frame: from its animation-frame callbacks to the task that
 * follows its rendering update (style, layout, paint and the commit to the compositor), which is
 * when a message posted from the callback is delivered. The wait for the frame to begin is idle
 * time and is left out.
 */
const nextFrameWork = () => new Promise((resolve) => requestAnimationFrame(() => {
  const start = performance.now();
  const channel = new MessageChannel();
  channel.port1.onmessage = () => resolve(performance.now() - start);
  channel.port2.postMessage(null);
}));

const isCardHost = (el) => el instanceof Element && el.matches('[data-coworkkit="card"]');

/**
 * One hard invoke, timed to the card's focus, to the end of the call with style and layout
 * flushed, and (with `frame`) through the first frame that draws the card; leaves it open.
 */
async function sdkCardOnce(ck, { frame = false } = {}) {
  const watch = (focusWatch = { match: isCardHost, at: undefined });
  const t0 = performance.now();
  const outcome = ck.invoke({ name: HARD_NAME, args: { projectId: "p1" } });
  const returned = performance.now();
  const focusedInCall = watch.at !== undefined;
  void document.documentElement.offsetHeight; // flush style + layout of the card
  const laidOut = performance.now();
  const focusedAt = await untilFocused(watch);
  focusWatch = null;
  if (document.activeElement === null || !isCardHost(document.activeElement)) {
    throw new Error("focus is not inside the card");
  }
  const frameMs = frame ? await nextFrameWork() : 0;
  return {
    t0, focusMs: focusedAt - t0, returnMs: returned - t0, layoutMs: laidOut - t0,
    frameMs, screenMs: laidOut - t0 + frameMs, focusedInCall, outcome,
  };
}

async function sdkCardCancel(ck, outcome) {
  const [proposal] = ck.pending();
  if (!proposal || !ck.cancel(proposal.id)) throw new Error("no proposal to cancel");
  const o = await outcome;
  if (o.gate !== "cancelled") throw new Error(`cancel gave ${o.gate}`);
}

/**
 * The floor: a bare <dialog> with the card's text, built, shown modal, Cancel focused, timed as
 * `sdkCardOnce` times the card (with `frame`, through the first frame that draws it); then
 * closed and removed, off the clock.
 */
async function floorOnce({ frame = false } = {}) {
  const cancelMatch = { el: null };
  const watch = (focusWatch = { match: (t) => t === cancelMatch.el, at: undefined });
  const t0 = performance.now();
  const dialog = document.createElement("dialog");
  dialog.setAttribute("role", "alertdialog");
  const title = document.createElement("h2");
  title.textContent = "Delete project";
  const summary = document.createElement("p");
  summary.textContent = hardSummary({ projectId: "p1" });
  const actions = document.createElement("div");
  const countdown = document.createElement("span");
  countdown.textContent = "Expires in 2:00";
  const cancel = document.createElement("button");
  cancelMatch.el = cancel; // showModal() may already focus it (first focusable in the dialog)
  cancel.type = "button";
  cancel.textContent = "Cancel";
  const confirm = document.createElement("button");
  confirm.type = "button";
  confirm.textContent = "Confirm";
  actions.append(countdown, cancel, confirm);
  dialog.append(title, summary, actions);
  document.body.append(dialog);
  dialog.showModal();
  cancel.focus();
  const returned = performance.now();
  void document.documentElement.offsetHeight;
  const laidOut = performance.now();
  focusWatch = null;
  if (watch.at === undefined || document.activeElement !== cancel) throw new Error("floor dialog not focused");
  const frameMs = frame ? await nextFrameWork() : 0;
  const closing = performance.now();
  dialog.close();
  dialog.remove();
  return {
    t0, closing, closedAt: performance.now(), focusMs: watch.at - t0, returnMs: returned - t0,
    layoutMs: laidOut - t0, frameMs, screenMs: laidOut - t0 + frameMs,
  };
}

function percentile(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}
const summarize = (xs) => ({ p50: percentile(xs, 50), p95: percentile(xs, 95), min: Math.min(...xs), max: Math.max(...xs) });

async function card({ samples = 200, warmup = 20, marks = false } = {}) {
  const ck = new Coworkkit({ confirmTimeoutMs: CONFIRM_TIMEOUT_MS });
  ck.defineAction({
    name: HARD_NAME, description: HARD_DESCRIPTION, control: "hard", input: HARD_SCHEMA,
    confirmationSummary: hardSummary, run: (args) => ({ deleted: args.projectId }),
  });
  document.getElementById("start").focus();
  // With `marks`, each timed sample leaves User Timing measures behind it (written after the
  // clock has stopped, so they cost the sample nothing) for a trace to cut its events by:
  // show (start → the first frame that draws it has run), teardown (cancel, or close and
  // remove), after (until the next frame has run).
  const measure = (side, phase, start, end) => {
    if (marks) performance.measure(`ck:${side}:${phase}`, { start, end });
  };
  const sdk = [], floor = [];
  for (let i = 0; i < warmup + samples; i++) {
    // Pair i is sdk[i - warmup] and floor[i - warmup], measured back to back.
    // Alternate the order; let a frame pass between measurements so each starts from a
    // rendered, idle page (closing the previous dialog costs style work in the next frame).
    const runSdk = async () => {
      const s = await sdkCardOnce(ck, { frame: true });
      const cancelAt = performance.now();
      await sdkCardCancel(ck, s.outcome);
      const closedAt = performance.now();
      delete s.outcome;
      if (i >= warmup) sdk.push(s);
      await sleepFrame();
      measure("sdk", "show", s.t0, cancelAt);
      measure("sdk", "teardown", cancelAt, closedAt);
      measure("sdk", "after", closedAt, performance.now());
    };
    const runFloor = async () => {
      const f = await floorOnce({ frame: true });
      if (i >= warmup) floor.push(f);
      await sleepFrame();
      measure("floor", "show", f.t0, f.closing);
      measure("floor", "teardown", f.closing, f.closedAt);
      measure("floor", "after", f.closedAt, performance.now());
    };
    if (i % 2 === 0) { await runSdk(); await runFloor(); } else { await runFloor(); await runSdk(); }
  }
  ck.dispose();
  const pick = (xs, key) => summarize(xs.map((x) => x[key]));
  // Per-pair ratios; a pair whose floor read 0 ms (below the timer's step) has no ratio.
  const pairRatios = (key) => {
    const rs = [];
    for (let i = 0; i < sdk.length; i++) if (floor[i][key] > 0) rs.push(sdk[i][key] / floor[i][key]);
    return rs;
  };
  // The budget's figure is the card drawn (screenMs); the focus-only figure is kept beside it,
  // as the runs before it measured the card.
  const ratios = pairRatios("screenMs"), focusRatios = pairRatios("focusMs"), callRatios = pairRatios("layoutMs");
  return {
    samples, warmup, ratios, ratio: median(ratios), focusRatios, focusRatio: median(focusRatios),
    callRatios, callRatio: median(callRatios),
    sdk: {
      focus: pick(sdk, "focusMs"), returned: pick(sdk, "returnMs"), layout: pick(sdk, "layoutMs"),
      frame: pick(sdk, "frameMs"), screen: pick(sdk, "screenMs"),
      focusedInCall: sdk.filter((s) => s.focusedInCall).length / sdk.length,
    },
    floor: {
      focus: pick(floor, "focusMs"), returned: pick(floor, "returnMs"), layout: pick(floor, "layoutMs"),
      frame: pick(floor, "frameMs"), screen: pick(floor, "screenMs"),
    },
    timerResolutionMs: timerResolution(),
  };
}

/** The smallest non-zero step of `performance.now()` seen (Chromium coarsens it). */
function timerResolution() {
  let best = Infinity;
  for (let i = 0; i < 50; i++) {
    const a = performance.now();
    let b = a;
    while (b === a) b = performance.now();
    best = Math.min(best, b - a);
  }
  return best;
}

/** The first hard card of a fresh page (the card's DOM is built on first use). */
async function firstCard() {
  const ck = new Coworkkit({});
  ck.defineAction({
    name: HARD_NAME, description: HARD_DESCRIPTION, control: "hard", input: HARD_SCHEMA,
    confirmationSummary: hardSummary, run: () => null,
  });
  document.getElementById("start").focus();
  const s = await sdkCardOnce(ck, { frame: true });
  await sdkCardCancel(ck, s.outcome);
  ck.dispose();
  await sleepFrame();
  const f = await floorOnce({ frame: true });
  return { sdkFocusMs: s.focusMs, floorFocusMs: f.focusMs, sdkScreenMs: s.screenMs, floorScreenMs: f.screenMs };
}

// ---------------------------------------------------------------------------------------------
// Memory: open invokes and trusted confirms (the clicks come from the driver's mouse)
// ---------------------------------------------------------------------------------------------

const mem = {
  ck: null,
  outcome: null,
  opens: 0,
  confirmed: 0,

  setup() {
    this.ck = new Coworkkit({ armDelayMs: 0, confirmTimeoutMs: CONFIRM_TIMEOUT_MS, onActionRecord: sink });
    this.ck.defineAction({ name: "getTask", description: "Read a task.", control: "open", input: TASK_SCHEMA, run: runTask });
    this.ck.defineAction({
      name: HARD_NAME, description: HARD_DESCRIPTION, control: "hard", input: HARD_SCHEMA,
      confirmationSummary: hardSummary, run: (args) => ({ deleted: args.projectId }),
    });
    document.getElementById("start").focus();
  },

  async open(n) {
    for (let i = 0; i < n; i++) {
      const o = await this.ck.invoke({ name: "getTask", args: { title: `Task ${this.opens}`, priority: 3 } });
      if (o.gate !== "fired") throw new Error(`open invoke gave ${o.gate}`);
      this.opens++;
    }
  },

  /** Waits for the previous card's outcome (must be `confirmed`), then shows the next card. */
  async settleAndShow(show = true) {
    if (this.outcome) {
      const o = await Promise.race([this.outcome, new Promise((r) => setTimeout(() => r({ gate: "no decision in 5 s" }), 5000))]);
      if (o.gate !== "confirmed") throw new Error(`card ${this.confirmed + 1} gave ${o.gate}`);
      this.confirmed++;
      this.outcome = null;
    }
    if (!show) return;
    const s = await sdkCardOnce(this.ck);
    this.outcome = s.outcome;
  },

  async sample() {
    // Two collections with a task turn between them: finalizers and weak maps settle.
    for (let i = 0; i < 3; i++) {
      if (typeof gc === "function") gc();
      await new Promise((r) => setTimeout(r, 0));
    }
    return {
      opens: this.opens,
      confirmed: this.confirmed,
      wasmBytes: wasm.memory.buffer.byteLength,
      jsHeapUsed: performance.memory?.usedJSHeapSize ?? null,
      jsHeapTotal: performance.memory?.totalJSHeapSize ?? null,
      gcExposed: typeof gc === "function",
    };
  },
};

window.wasmMemoryBytes = () => wasm.memory.buffer.byteLength;
window.bench = {
  load: {
    importMs: glueLoaded - loadStart,
    initMs: wasmReady - glueLoaded,
    constructMs: constructed - wasmReady,
    totalMs: constructed - loadStart,
  },
  sameWork, invoke, card, firstCard, mem, timerResolution,
  userAgent: navigator.userAgent,
};
window.benchReady = true;
document.getElementById("out").textContent = `loaded in ${(constructed - loadStart).toFixed(1)} ms`;
