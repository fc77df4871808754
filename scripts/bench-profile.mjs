// Where the time goes: profiles the benchmark page (www/bench/) in headless Chromium through the
// DevTools protocol, with the bench's own workloads, and prints what BENCHMARKS.md's "Where the
// time goes" quotes. Run through ./scripts/bench-profile, which builds a package that keeps the
// wasm's function names.
//
//   node scripts/bench-profile.mjs --pkg DIR [--calls N] [--samples N] [--interval US]
//
// 1. Open `invoke`: after the bench's warm-up, `--calls` calls of the bench's open call on the
//    SDK, then on the plain-JS bar, each under V8's sampling profiler (Profiler domain): self
//    time per function, in µs per call.
// 2. Hard `invoke` → card: `bench.card({ marks: true })` under the sampling profiler, its
//    samples split by the bench function on their stack (sdkCardOnce: invoke → card focused and
//    laid out; sdkCardCancel: the teardown; floorOnce: the bare <dialog>, built, shown, closed).
// 3. The same card run under a trace (Tracing domain): the renderer main thread's events (script,
//    style recalc, layout, paint, …), self time, cut by the User Timing measures the bench page
//    writes after each sample (show, teardown, after = until the next frame has run).
// The raw profiles and the trace summary go to target/bench/profile/ (open a .cpuprofile in
// DevTools' Performance panel).
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { launch } from "../tests/e2e/drivers/chromium.mjs";
import { startServer } from "./serve.mjs";

const ROOT = resolve(fileURLToPath(import.meta.url), "../..");
const OUT = join(ROOT, "target/bench/profile");

function parseArgs(argv) {
  const o = { pkg: join(ROOT, "target/bench/pkg-names"), calls: 40000, warmup: 20000, samples: 200, interval: 50 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const num = () => {
      const n = Number(argv[++i]);
      if (!Number.isInteger(n) || n < 1) throw new Error(`${a} needs a positive whole number`);
      return n;
    };
    switch (a) {
      case "--pkg": o.pkg = resolve(argv[++i] ?? ""); break;
      case "--calls": o.calls = num(); break;
      case "--warmup": o.warmup = num(); break;
      case "--samples": o.samples = num(); break;
      case "--interval": o.interval = num(); break;
      default: throw new Error(`unknown option ${a}`);
    }
  }
  return o;
}

const log = (...a) => console.error("[profile]", ...a);

async function openBench(browser, url) {
  const driver = await browser.newPage();
  await driver.goto(url + "bench/");
  await driver.page.waitForFunction(() => window.benchReady === true, null, { timeout: 30000 });
  return driver;
}

/** A function's label: its name and where it lives (wasm, the glue, the bench page, Blink). */
function label(frame) {
  const name = frame.functionName || "(anonymous)";
  const url = frame.url ?? "";
  if (url.startsWith("wasm://") || url.endsWith(".wasm")) return `${name} [wasm]`;
  if (url.endsWith("/pkg/coworkkit.js")) return `${name} [glue]`;
  if (url.includes("/bench/")) return `${name} [${url.slice(url.lastIndexOf("/") + 1)}]`;
  return url ? `${name} [${url}]` : name;
}

/**
 * Self time per function from a V8 CPU profile, keeping only the samples for which `keep(stack)`
 * (the stack's function names, root first) returns a bucket name. Returns
 * { bucket: { totalUs, self: [[label, us], …] } }.
 */
function selfTimes(profile, keep) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const stackOf = new Map();
  const stack = (id) => {
    if (stackOf.has(id)) return stackOf.get(id);
    const p = parent.get(id);
    const s = [...(p === undefined ? [] : stack(p)), byId.get(id).callFrame.functionName];
    stackOf.set(id, s);
    return s;
  };
  // A sample stands for the time until the next one, but where the thread slept between two
  // samples (waiting for a frame) that span is idle time: no sample counts for more than twice
  // the profile's usual step.
  const step = [...profile.timeDeltas].sort((a, b) => a - b)[profile.timeDeltas.length >> 1];
  const buckets = {};
  for (let i = 0; i < profile.samples.length; i++) {
    const us = Math.min(profile.timeDeltas[i + 1] ?? step, 2 * step);
    const id = profile.samples[i];
    const st = stack(id);
    const bucket = keep(st);
    if (!bucket) continue;
    const b = (buckets[bucket] ??= { totalUs: 0, self: new Map() });
    let l = label(byId.get(id).callFrame);
    // wasm-bindgen wraps an import that may throw in an anonymous function: name it by the
    // import shim that called it (`__wbg_showModal_…`), which says which DOM call it made.
    if (!byId.get(id).callFrame.functionName) {
      const caller = st.slice(0, -1).findLast((n) => n && n !== "handleError");
      if (caller) l = `${l} in ${caller}`;
    }
    b.totalUs += us;
    b.self.set(l, (b.self.get(l) ?? 0) + us);
  }
  for (const b of Object.values(buckets)) b.self = [...b.self].sort((x, y) => y[1] - x[1]);
  return buckets;
}

/** What part of the SDK (or the page) a function label belongs to, for the grouped table. */
function group(l) {
  if (/^\(garbage collector\)/.test(l)) return "garbage collection";
  if (/^(wasm-to-js|js-to-wasm)/.test(l)) return "wasm ↔ JS transitions";
  if (/\[wasm\]$/.test(l)) {
    if (/dlmalloc|__rdl_|alloc::alloc|Allocator|RawVec|__rust_(alloc|dealloc|realloc)/.test(l)) return "wasm: allocator";
    if (/Hasher|siphasher|hashbrown|HashMap/.test(l)) return "wasm: hash maps";
    if (/coworkkit::core::/.test(l)) return "wasm: core (engine, schema, tape)";
    if (/coworkkit::web::/.test(l)) return "wasm: web layer";
    return "wasm: other (std, wasm-bindgen runtime)";
  }
  if (/__wbg_|__wbindgen_/.test(l)) return "glue: import shims (DOM and JS calls made from Rust)";
  if (/\[glue\]$/.test(l)) return "glue: the SDK's JS (reader, object builders, wrappers)";
  if (/\[(plain|bench)\.js\]$|profileLoop/.test(l)) return "the bench page / the plain-JS bar";
  return "browser built-ins";
}

const grouped = (self) => {
  const g = new Map();
  for (const [l, us] of self) g.set(group(l), (g.get(group(l)) ?? 0) + us);
  return [...g].sort((a, b) => b[1] - a[1]);
};

async function profiled(cdp, intervalUs, run) {
  await cdp.send("Profiler.enable");
  await cdp.send("Profiler.setSamplingInterval", { interval: intervalUs });
  await cdp.send("Profiler.start");
  const result = await run();
  const { profile } = await cdp.send("Profiler.stop");
  await cdp.send("Profiler.disable");
  return { profile, result };
}

async function profileInvoke(browser, url, o) {
  const out = {};
  for (const side of ["sdk", "js"]) {
    const driver = await openBench(browser, url);
    const { page, cdp } = driver;
    await page.evaluate(async ({ side, warmup }) => {
      const { Coworkkit } = await import("coworkkit");
      const { PlainGate } = await import("/bench/plain.js");
      const options = { onActionRecord: (r) => { window.sunk = (window.sunk ?? 0) + r.v; } };
      const gate = side === "sdk" ? new Coworkkit(options) : new PlainGate(options);
      const schema = {
        type: "object",
        properties: { title: { type: "string", minLength: 1, maxLength: 200 }, priority: { type: "integer", minimum: 0, maximum: 5 } },
        required: ["title", "priority"],
      };
      const spec = { name: "getTask", input: schema, run: (args) => args.priority };
      gate.defineAction(side === "sdk" ? { description: "A bench action.", control: "open", ...spec } : spec);
      window.profileGate = gate;
      window.profileLoop = async function profileLoop(n) {
        const t0 = performance.now();
        for (let i = 0; i < n; i++) {
          const outcome = await gate.invoke({ name: "getTask", args: { title: "Write the quarterly report", priority: 3 } });
          if (!outcome.ok) throw new Error(JSON.stringify(outcome));
        }
        return ((performance.now() - t0) * 1000) / n;
      };
      await window.profileLoop(warmup);
    }, { side, warmup: o.warmup });
    const { profile, result: usPerCall } = await profiled(cdp, o.interval, () => page.evaluate((n) => window.profileLoop(n), o.calls));
    writeFileSync(join(OUT, `invoke-${side}.cpuprofile`), JSON.stringify(profile));
    const b = selfTimes(profile, (s) => (s.includes("profileLoop") ? "loop" : null)).loop;
    out[side] = { usPerCall, profiledUsPerCall: b.totalUs / o.calls, self: b.self.map(([l, us]) => [l, us / o.calls]) };
    if (driver.problems.length) throw new Error(driver.problems.join("\n"));
    await driver.close();
  }
  return out;
}

function cardBucket(stack) {
  if (stack.includes("sdkCardOnce")) return "sdk show";
  if (stack.includes("sdkCardCancel")) return "sdk teardown";
  if (stack.includes("floorOnce")) return "floor";
  return null;
}

async function profileCard(browser, url, o) {
  const driver = await openBench(browser, url);
  const { page, cdp } = driver;
  const { profile, result } = await profiled(cdp, o.interval, () =>
    page.evaluate((samples) => window.bench.card({ samples, warmup: 20, marks: true }), o.samples));
  writeFileSync(join(OUT, "card.cpuprofile"), JSON.stringify(profile));
  const n = o.samples + 20;
  const buckets = selfTimes(profile, cardBucket);
  const out = { ratio: result.ratio, sdkFocusP50: result.sdk.focus.p50, floorFocusP50: result.floor.focus.p50, buckets: {} };
  for (const [k, b] of Object.entries(buckets)) {
    out.buckets[k] = { usPerSample: b.totalUs / n, self: b.self.slice(0, 25).map(([l, us]) => [l, us / n]) };
  }
  await driver.close();
  return out;
}

/** The trace's main-thread events of the page, self time per name, cut by the bench's measures. */
export function summarizeTrace(events) {
  const measures = events.filter((e) => e.cat === "blink.user_timing" && e.name.startsWith("ck:"));
  const pid = measures[0]?.pid;
  if (pid === undefined) throw new Error("the trace holds no ck: measures");
  const main = events.find((e) => e.pid === pid && e.ph === "M" && e.name === "thread_name" && e.args?.name === "CrRendererMain");
  const tid = main.tid;
  // Measures are async begin/end pairs with a shared id.
  const open = new Map(), windows = [];
  for (const e of measures) {
    const key = `${e.name}/${e.id ?? e.id2?.local}`;
    if (e.ph === "b") open.set(key, e.ts);
    else if (e.ph === "e" && open.has(key)) { windows.push({ name: e.name.slice(3), start: open.get(key), end: e.ts }); open.delete(key); }
  }
  windows.sort((a, b) => a.start - b.start);
  const counts = {};
  for (const w of windows) counts[w.name] = (counts[w.name] ?? 0) + 1;
  // Complete events of the main thread, nested by time; self = duration minus direct children.
  const xs = events.filter((e) => e.pid === pid && e.tid === tid && e.ph === "X" && e.dur !== undefined)
    .sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  const stack = [];
  const self = new Map();
  for (const e of xs) {
    while (stack.length && stack.at(-1).ts + stack.at(-1).dur <= e.ts) stack.pop();
    const parent = stack.at(-1);
    if (parent) self.set(parent, self.get(parent) - e.dur);
    self.set(e, e.dur);
    stack.push(e);
  }
  // The last window starting at or before `ts` (they are sorted and do not overlap).
  const windowAt = (ts) => {
    let lo = 0, hi = windows.length - 1, found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (windows[mid].start <= ts) { found = mid; lo = mid + 1; } else hi = mid - 1;
    }
    return found >= 0 && ts < windows[found].end ? windows[found] : null;
  };
  const table = {};
  for (const e of xs) {
    const win = windowAt(e.ts);
    if (!win) continue;
    const t = (table[win.name] ??= new Map());
    t.set(e.name, (t.get(e.name) ?? 0) + self.get(e));
  }
  const out = {};
  for (const [name, t] of Object.entries(table)) {
    const rows = [...t].map(([n, us]) => [n, us / counts[name]]).sort((a, b) => b[1] - a[1]);
    out[name] = { windows: counts[name], usPerSample: rows.reduce((s, r) => s + r[1], 0), self: rows.slice(0, 12) };
  }
  return out;
}

async function traceCard(browser, url, o) {
  const driver = await openBench(browser, url);
  const { page, cdp } = driver;
  const events = [];
  cdp.on("Tracing.dataCollected", ({ value }) => events.push(...value));
  const done = new Promise((r) => cdp.once("Tracing.tracingComplete", r));
  await cdp.send("Tracing.start", {
    transferMode: "ReportEvents",
    traceConfig: {
      includedCategories: ["devtools.timeline", "blink.user_timing", "blink", "v8", "disabled-by-default-devtools.timeline"],
      excludedCategories: ["*"],
    },
  });
  const result = await page.evaluate((samples) => window.bench.card({ samples, warmup: 20, marks: true }), o.samples);
  await cdp.send("Tracing.end");
  await done;
  await driver.close();
  return { ratio: result.ratio, phases: summarizeTrace(events) };
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  mkdirSync(OUT, { recursive: true });
  const server = await startServer({ mounts: [["/pkg/", o.pkg], ["/", join(ROOT, "www")]] });
  const browser = await launch();
  const r = { pkg: o.pkg, chromium: browser.version, options: o };
  try {
    log(`open invoke: ${o.warmup} warm-up calls, then ${o.calls} profiled calls, each side`);
    r.invoke = await profileInvoke(browser, server.url, o);
    log(`card: ${o.samples} samples each side, profiled`);
    r.card = await profileCard(browser, server.url, o);
    log(`card: ${o.samples} samples each side, traced`);
    r.trace = await traceCard(browser, server.url, o);
  } finally {
    await browser.close();
    await server.close();
  }
  writeFileSync(join(OUT, "summary.json"), JSON.stringify(r, null, 2) + "\n");
  const us = (x) => x.toFixed(x < 10 ? 2 : 0);
  const top = (rows, n) => rows.slice(0, n).map(([l, t]) => `    ${us(t).padStart(7)} µs  ${l}`).join("\n");
  for (const side of ["sdk", "js"]) {
    const s = r.invoke[side];
    console.log(`open invoke, ${side}: ${us(s.usPerCall)} µs per call (profiled run; the profiler's samples cover ${us(s.profiledUsPerCall)} µs)`);
    console.log(`  by part:\n${top(grouped(s.self), 12)}\n  by function:\n${top(s.self, 20)}`);
  }
  console.log(`\ncard (profiled run: ratio ${r.card.ratio.toFixed(2)}, SDK p50 ${r.card.sdkFocusP50.toFixed(2)} ms, dialog ${r.card.floorFocusP50.toFixed(2)} ms)`);
  for (const [k, b] of Object.entries(r.card.buckets)) console.log(`  ${k}: ${us(b.usPerSample)} µs of JS-attributed samples per sample\n${top(b.self, 15)}`);
  console.log(`\ncard, main-thread trace events (self µs per sample; traced run ratio ${r.trace.ratio.toFixed(2)})`);
  for (const [k, b] of Object.entries(r.trace.phases).sort()) console.log(`  ${k} (${b.windows} samples): ${us(b.usPerSample)} µs\n${top(b.self, 10)}`);
  log(`wrote ${join(OUT, "summary.json")} and the .cpuprofile files`);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e) => {
    console.error(`[profile] failed: ${e.stack ?? e}`);
    process.exit(1);
  });
}
