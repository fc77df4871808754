// The benchmark page: every figure of SPEC §9 that needs a browser, measured in one page, each
// beside its bar (the same work in plain JavaScript, or a bare <dialog>) so the two share the
// machine's mood. `scripts/bench.mjs` drives it; every function here returns plain data.
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

// ---------------------------------------------------------------------------------------------
// Shared workload
// ---------------------------------------------------------------------------------------------

/** The open action's schema: the subset named in the brief (types, required, minLength, maximum). */
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
// The bar for `invoke`: the same work in plain JavaScript, written as well as we can
// ---------------------------------------------------------------------------------------------

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));
const idBytes = new Uint8Array(16);
/** `prefix` + 32 hex digits from `crypto.getRandomValues`, like the SDK's generated callIds. */
function randomId(prefix) {
  crypto.getRandomValues(idBytes);
  let s = prefix;
  for (let i = 0; i < 16; i++) s += HEX[idBytes[i]];
  return s;
}

class Rejection extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

/** Deep copy + freeze, refusing anything that is not plain JSON data (SPEC §3.6). */
function snapshot(v, path) {
  switch (typeof v) {
    case "string":
    case "boolean":
      return v;
    case "number":
      if (Number.isFinite(v)) return v;
      throw new Rejection("invalid_args", `${path}: not a finite number`);
    case "object": {
      if (v === null) return v;
      if (Array.isArray(v)) {
        const a = new Array(v.length);
        for (let i = 0; i < v.length; i++) a[i] = snapshot(v[i], path);
        return Object.freeze(a);
      }
      const proto = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) {
        throw new Rejection("invalid_args", `${path}: not a plain object`);
      }
      const o = {};
      for (const k of Object.keys(v)) o[k] = snapshot(v[k], path);
      return Object.freeze(o);
    }
    default:
      throw new Rejection("invalid_args", `${path}: not JSON data`);
  }
}

function codePoints(s) {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) n--;
  }
  return n;
}

/**
 * Compiles the schema subset into one closure per node, once at registration (as a careful JS
 * author would, instead of interpreting the schema per call). Returns null or a message.
 */
function compile(schema) {
  const checks = [];
  const t = schema.type;
  if (t === "object") {
    const props = Object.entries(schema.properties ?? {}).map(([k, s]) => [k, compile(s)]);
    const required = schema.required ?? [];
    checks.push((v, path) => {
      if (typeof v !== "object" || v === null || Array.isArray(v)) return `${path}: expected object`;
      for (let i = 0; i < required.length; i++) {
        if (!(required[i] in v)) return `${path}.${required[i]}: required`;
      }
      for (let i = 0; i < props.length; i++) {
        const [k, check] = props[i];
        if (k in v) {
          const e = check(v[k], `${path}.${k}`);
          if (e) return e;
        }
      }
      return null;
    });
  } else if (t === "string") {
    const { minLength, maxLength } = schema;
    checks.push((v, path) => {
      if (typeof v !== "string") return `${path}: expected string`;
      if (minLength !== undefined || maxLength !== undefined) {
        const n = codePoints(v);
        if (minLength !== undefined && n < minLength) return `${path}: shorter than ${minLength}`;
        if (maxLength !== undefined && n > maxLength) return `${path}: longer than ${maxLength}`;
      }
      return null;
    });
  } else if (t === "integer" || t === "number") {
    const { minimum, maximum } = schema;
    const integer = t === "integer";
    checks.push((v, path) => {
      if (typeof v !== "number" || (integer && !Number.isInteger(v))) return `${path}: expected ${t}`;
      if (minimum !== undefined && v < minimum) return `${path}: below ${minimum}`;
      if (maximum !== undefined && v > maximum) return `${path}: above ${maximum}`;
      return null;
    });
  } else if (t === "boolean") {
    checks.push((v, path) => (typeof v === "boolean" ? null : `${path}: expected boolean`));
  }
  return checks.length === 1 ? checks[0] : () => null;
}

function sameJson(a, b) {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a), kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (const k of ka) if (!sameJson(a[k], b[k])) return false;
  return true;
}

const REMEMBERED_CALLS = 1024;

/**
 * What `Coworkkit.invoke` does for an open action, in plain JS: look the action up, generate a
 * callId, deep-copy and freeze the args, validate them, call `run` with a ctx, build the
 * outcome and the frozen record, call the record sink, remember the settled call in a bounded
 * Map (idempotency), resolve a promise. Sync `run`s settle without an extra promise hop.
 */
class PlainGate {
  constructor({ onActionRecord }) {
    this.sessionId = randomId("s_");
    this.nextRecord = 0;
    this.sink = onActionRecord;
    this.actions = new Map();
    this.settled = new Map(); // callId → { args, outcome }, oldest first
    this.live = new Map(); // callId → { args, promise } while an async run is in flight
    this.abort = new AbortController();
  }

  defineAction({ name, input, run }) {
    this.actions.set(name, { name, run, validate: compile(input) });
  }

  invoke(call) {
    const startedAt = Date.now();
    const name = call.name;
    let callId = call.callId;
    let args;
    try {
      args = snapshot(call.args === undefined ? {} : call.args, "args");
    } catch (e) {
      return this.reject(callId, name, undefined, e, startedAt);
    }
    if (callId !== undefined) {
      const known = this.settled.get(callId) ?? this.live.get(callId);
      if (known) {
        if (!sameJson(known.args, args)) {
          return this.reject(callId, name, args, new Rejection("call_id_conflict", "callId reused"), startedAt);
        }
        return known.promise ?? Promise.resolve(known.outcome);
      }
    } else {
      callId = randomId("ck_");
    }
    const action = this.actions.get(name);
    if (action === undefined) {
      return this.reject(callId, name, args, new Rejection("unknown_action", name), startedAt);
    }
    const invalid = action.validate(args, "args");
    if (invalid) return this.reject(callId, name, args, new Rejection("invalid_args", invalid), startedAt);

    const ctx = { callId, control: "open", approver: null, signal: this.abort.signal };
    let value;
    try {
      value = action.run(args, ctx);
    } catch (e) {
      return Promise.resolve(this.settle(callId, name, args, startedAt, false, e));
    }
    if (value !== null && typeof value === "object" && typeof value.then === "function") {
      const promise = Promise.resolve(value).then(
        (v) => this.settle(callId, name, args, startedAt, true, v),
        (e) => this.settle(callId, name, args, startedAt, false, e),
      );
      this.live.set(callId, { args, promise });
      return promise;
    }
    return Promise.resolve(this.settle(callId, name, args, startedAt, true, value));
  }

  settle(callId, action, args, startedAt, ok, value) {
    const outcome = ok
      ? Object.freeze({ callId, gate: "fired", ok, result: value })
      : Object.freeze({ callId, gate: "fired", ok, error: Object.freeze({ code: "run_failed", message: String(value) }) });
    this.emit({
      callId, action, control: "open", controlSource: "declared", gate: "fired",
      outcome: ok
        ? Object.freeze({ status: "ok", value })
        : Object.freeze({ status: "error", code: "run_failed", message: String(value) }),
      args, startedAt,
    });
    this.live.delete(callId);
    this.settled.set(callId, { args, outcome });
    if (this.settled.size > REMEMBERED_CALLS) this.settled.delete(this.settled.keys().next().value);
    return outcome;
  }

  reject(callId, action, args, error, startedAt) {
    callId ??= randomId("ck_");
    const outcome = Object.freeze({
      callId, gate: "rejected", ok: false, error: Object.freeze({ code: error.code, message: error.message }),
    });
    this.emit({
      callId, action, control: "open", controlSource: "declared", gate: "rejected",
      outcome: Object.freeze({ status: "not_run" }), args: args ?? null, reason: error.code, startedAt,
    });
    return Promise.resolve(outcome);
  }

  emit(r) {
    const record = {
      v: 1, id: `${this.sessionId}.${this.nextRecord++}`, sessionId: this.sessionId,
      callId: r.callId, action: r.action, control: r.control, controlSource: r.controlSource,
      gate: r.gate, outcome: r.outcome, args: r.args,
    };
    if (r.reason !== undefined) record.reason = r.reason;
    record.startedAt = r.startedAt;
    record.settledAt = Date.now();
    Object.freeze(record);
    try {
      this.sink(record);
    } catch (e) {
      console.error("onActionRecord threw; the call is unaffected", e);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// invoke round trip: SDK vs plain JS, interleaved
// ---------------------------------------------------------------------------------------------

let sinkCount = 0;
const sink = (record) => { sinkCount += record.v; };

async function invokeLoop(target, calls) {
  const t0 = performance.now();
  for (let i = 0; i < calls; i++) {
    const outcome = await target.invoke({ name: "getTask", args: { title: "Write the quarterly report", priority: 3 } });
    if (!outcome.ok) throw new Error(`invoke failed: ${JSON.stringify(outcome)}`);
  }
  return ((performance.now() - t0) * 1000) / calls; // µs per call
}

async function invoke({ runs = 7, calls = 2000, warmup = 2000 } = {}) {
  const ck = new Coworkkit({ onActionRecord: sink });
  ck.defineAction({ name: "getTask", description: "Read a task.", control: "open", input: TASK_SCHEMA, run: runTask });
  const js = new PlainGate({ onActionRecord: sink });
  js.defineAction({ name: "getTask", input: TASK_SCHEMA, run: runTask });
  // Both sides must agree on what the call returns, or we are not measuring the same work.
  const [a, b] = [await ck.invoke({ name: "getTask", args: { title: "x", priority: 3 } }),
    await js.invoke({ name: "getTask", args: { title: "x", priority: 3 } })];
  const bad = [await ck.invoke({ name: "getTask", args: { title: "", priority: 9 } }),
    await js.invoke({ name: "getTask", args: { title: "", priority: 9 } })];
  if (a.gate !== b.gate || a.result !== b.result || bad[0].gate !== "rejected" || bad[1].gate !== "rejected") {
    throw new Error(`SDK and JS bar disagree: ${JSON.stringify([a, b, bad])}`);
  }
  await invokeLoop(ck, warmup);
  await invokeLoop(js, warmup);
  const sdk = [], plain = [];
  for (let r = 0; r < runs; r++) {
    // Alternate who goes first, so neither side always inherits the other's garbage.
    if (r % 2 === 0) {
      sdk.push(await invokeLoop(ck, calls));
      plain.push(await invokeLoop(js, calls));
    } else {
      plain.push(await invokeLoop(js, calls));
      sdk.push(await invokeLoop(ck, calls));
    }
  }
  ck.dispose();
  return { runs, calls, warmup, sdkUs: sdk, jsUs: plain, sdkMedianUs: median(sdk), jsMedianUs: median(plain) };
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

const isCardHost = (el) => el instanceof Element && el.matches('[data-coworkkit="card"]');

/** One hard invoke, timed to the card's focus; leaves the card open. */
async function sdkCardOnce(ck) {
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
  return { focusMs: focusedAt - t0, returnMs: returned - t0, layoutMs: laidOut - t0, focusedInCall, outcome };
}

async function sdkCardCancel(ck, outcome) {
  const [proposal] = ck.pending();
  if (!proposal || !ck.cancel(proposal.id)) throw new Error("no proposal to cancel");
  const o = await outcome;
  if (o.gate !== "cancelled") throw new Error(`cancel gave ${o.gate}`);
}

/** The floor: a bare <dialog> with the card's text, built, shown modal, Cancel focused. */
function floorOnce() {
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
  dialog.close();
  dialog.remove();
  return { focusMs: watch.at - t0, returnMs: returned - t0, layoutMs: laidOut - t0 };
}

function percentile(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}
const summarize = (xs) => ({ p50: percentile(xs, 50), p95: percentile(xs, 95), min: Math.min(...xs), max: Math.max(...xs) });

async function card({ samples = 200, warmup = 20 } = {}) {
  const ck = new Coworkkit({ confirmTimeoutMs: CONFIRM_TIMEOUT_MS });
  ck.defineAction({
    name: HARD_NAME, description: HARD_DESCRIPTION, control: "hard", input: HARD_SCHEMA,
    confirmationSummary: hardSummary, run: (args) => ({ deleted: args.projectId }),
  });
  document.getElementById("start").focus();
  const sdk = [], floor = [];
  for (let i = 0; i < warmup + samples; i++) {
    // Alternate the order; let a frame pass between measurements so each starts from a
    // rendered, idle page (closing the previous dialog costs style work in the next frame).
    const runSdk = async () => {
      const s = await sdkCardOnce(ck);
      await sdkCardCancel(ck, s.outcome);
      delete s.outcome;
      if (i >= warmup) sdk.push(s);
      await sleepFrame();
    };
    const runFloor = async () => {
      const f = floorOnce();
      if (i >= warmup) floor.push(f);
      await sleepFrame();
    };
    if (i % 2 === 0) { await runSdk(); await runFloor(); } else { await runFloor(); await runSdk(); }
  }
  ck.dispose();
  const pick = (xs, key) => summarize(xs.map((x) => x[key]));
  return {
    samples, warmup,
    sdk: {
      focus: pick(sdk, "focusMs"), returned: pick(sdk, "returnMs"), layout: pick(sdk, "layoutMs"),
      focusedInCall: sdk.filter((s) => s.focusedInCall).length / sdk.length,
    },
    floor: { focus: pick(floor, "focusMs"), returned: pick(floor, "returnMs"), layout: pick(floor, "layoutMs") },
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
  const s = await sdkCardOnce(ck);
  await sdkCardCancel(ck, s.outcome);
  ck.dispose();
  await sleepFrame();
  const f = floorOnce();
  return { sdkFocusMs: s.focusMs, floorFocusMs: f.focusMs };
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
  invoke, card, firstCard, mem, timerResolution,
  userAgent: navigator.userAgent,
};
window.benchReady = true;
document.getElementById("out").textContent = `loaded in ${(constructed - loadStart).toFixed(1)} ms`;
