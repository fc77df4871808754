// The benchmark driver (SPEC §9). Serves www/ and a built package, drives www/bench/ in Debian's
// headless Chromium with playwright-core, and writes bench/results.json and the tables in
// BENCHMARKS.md. Run through ./scripts/bench, which builds the package first.
//
//   node scripts/bench.mjs --pkg DIR [--quick] [--cards N] [--opens N] [--runs N] [--calls N]
//                          [--samples N] [--loads N] [--write | --no-write]
//
// Figures: shipped bytes (raw, gzip -9, brotli); open `invoke` round trip vs the same work in
// plain JS; hard `invoke` → card focused vs a bare <dialog>; wasm memory and JS heap after
// open invokes and trusted confirms; import + init + `new Coworkkit` over fresh page loads.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { chromium } from "../tests/e2e/node_modules/playwright-core/index.mjs";
import * as harness from "../tests/e2e/harness.mjs";
import { startServer } from "./serve.mjs";
import { shippedFiles } from "./size.mjs";

const ROOT = resolve(fileURLToPath(import.meta.url), "../..");
const BUDGET = { gzipBytes: 40 * 1024, invokeRatio: 3, cardRatio: 2 };
// The e2e harness's flags (so the bench sees the browser the tests see), plus precise heap sizes.
const FLAGS = harness.FLAGS ?? [
  "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
  "--disable-sync", "--no-first-run", "--disable-quic", "--disable-dev-shm-usage",
];
const clickPart = harness.clickPart;
const CHROMIUM_FLAGS = [...FLAGS, "--enable-precise-memory-info"];
if (!CHROMIUM_FLAGS.some((f) => f.startsWith("--js-flags=") && f.includes("--expose-gc"))) {
  CHROMIUM_FLAGS.push("--js-flags=--expose-gc");
}

// ------------------------------------------------------------------------------------------
// Options
// ------------------------------------------------------------------------------------------

const HELP = `usage: ./scripts/bench [--quick] [--cards N] [--opens N] [--runs N] [--calls N]
                     [--samples N] [--loads N] [--no-build] [--pkg DIR] [--write | --no-write]
  --quick      smoke run with small counts; prints the figures, writes nothing unless --write
  --cards N    trusted confirms in the memory run (default 1000)
  --opens N    open invokes in the memory run (default 100000)
  --runs N     invoke runs, median reported (default 7)
  --calls N    invoke calls per run (default 2000)
  --warmup N   invoke calls on each side before the timed runs (default 20000; quick 2000):
               V8 first runs wasm from its baseline compiler and tiers hot functions up
               later, so a short warm-up measures the tier-up, not the steady state
  --samples N  hard-card samples, each side (default 200, after 20 warm-up)
  --loads N    fresh page loads for the load figure (default 7)
  --no-build   skip scripts/setup and scripts/build-pkg (measure the package in --pkg)
  --pkg DIR    the built package to measure (default target/bench/pkg, built by ./scripts/bench)
  --write      write bench/results.json and BENCHMARKS.md (default for full runs)
  --no-write   only print`;

function parseArgs(argv) {
  const quick = argv.includes("--quick");
  const o = quick
    ? { quick, cards: 20, opens: 5000, runs: 3, calls: 500, warmup: 2000, samples: 30, loads: 3, write: false }
    : { quick, cards: 1000, opens: 100000, runs: 7, calls: 2000, warmup: 20000, samples: 200, loads: 7, write: true };
  o.pkg = join(ROOT, "target/bench/pkg");
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const num = () => {
      const n = Number(argv[++i]);
      if (!Number.isInteger(n) || n < 0) throw new Error(`${a} needs a whole number`);
      return n;
    };
    switch (a) {
      case "--quick": case "--no-build": break;
      case "--cards": o.cards = num(); break;
      case "--opens": o.opens = num(); break;
      case "--runs": o.runs = Math.max(1, num()); break;
      case "--calls": o.calls = Math.max(1, num()); break;
      case "--warmup": o.warmup = Math.max(0, num()); break;
      case "--samples": o.samples = Math.max(1, num()); break;
      case "--loads": o.loads = Math.max(1, num()); break;
      case "--pkg": o.pkg = resolve(argv[++i] ?? ""); break;
      case "--write": o.write = true; break;
      case "--no-write": o.write = false; break;
      case "-h": case "--help": console.log(HELP); process.exit(0); break;
      default: throw new Error(`unknown option ${a}\n${HELP}`);
    }
  }
  return o;
}

// ------------------------------------------------------------------------------------------
// Facts about this run
// ------------------------------------------------------------------------------------------

const sh = (cmd, args) => {
  try {
    return execFileSync(cmd, args, { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return null;
  }
};

function machine() {
  let cpu = null;
  try {
    cpu = readFileSync("/proc/cpuinfo", "utf8").match(/^model name\s*:\s*(.+)$/m)?.[1]?.trim() ?? null;
  } catch { /* not Linux */ }
  return {
    nproc: Number(sh("nproc", [])) || cpus().length,
    cpu: cpu ?? cpus()[0]?.model ?? "unknown",
    memoryBytes: totalmem(),
    loadavgStart: loadavg().map((x) => Math.round(x * 100) / 100),
  };
}

function commit() {
  const sha = sh("git", ["rev-parse", "HEAD"]);
  const changed = (sh("git", ["status", "--porcelain", "--untracked-files=no"]) ?? "").split("\n").filter(Boolean).length;
  return { sha, short: sha?.slice(0, 7) ?? "unknown", modifiedFiles: changed };
}

function sizes(dir) {
  const files = {};
  const total = { raw: 0, gzip: 0, brotli: 0 };
  for (const f of shippedFiles(dir)) {
    const bytes = readFileSync(join(dir, f));
    const s = {
      raw: bytes.length,
      gzip: gzipSync(bytes, { level: constants.Z_BEST_COMPRESSION }).length,
      brotli: brotliCompressSync(bytes, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
          [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
        },
      }).length,
    };
    files[f] = s;
    for (const k of Object.keys(total)) total[k] += s[k];
  }
  return { files, total };
}

// ------------------------------------------------------------------------------------------
// Browser
// ------------------------------------------------------------------------------------------

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const log = (...a) => console.error("[bench]", ...a);

async function openBench(browser, url) {
  const context = await browser.newContext();
  const page = await context.newPage();
  page.problems = [];
  page.on("pageerror", (e) => page.problems.push(`pageerror: ${e.message}`));
  page.on("console", (m) => { if (m.type() === "error") page.problems.push(`console.error: ${m.text()}`); });
  await page.goto(url + "bench/");
  await page.waitForFunction(() => window.benchReady === true, null, { timeout: 30000 });
  page.cdp = await context.newCDPSession(page);
  page.done = async () => {
    if (page.problems.length) throw new Error(`the bench page reported:\n  ${page.problems.join("\n  ")}`);
    await context.close();
  };
  return page;
}

async function measureLoads(browser, url, loads) {
  const runs = [];
  for (let i = 0; i < loads; i++) {
    const page = await openBench(browser, url);
    const load = await page.evaluate(() => window.bench.load);
    const first = await page.evaluate(() => window.bench.firstCard());
    runs.push({ ...load, firstCardMs: first.sdkFocusMs, firstFloorMs: first.floorFocusMs });
    await page.done();
  }
  const med = {};
  for (const k of Object.keys(runs[0])) med[k] = median(runs.map((r) => r[k]));
  return { loads, runs, median: med };
}

async function measureInvoke(browser, url, o) {
  const page = await openBench(browser, url);
  const r = await page.evaluate((a) => window.bench.invoke(a), { runs: o.runs, calls: o.calls, warmup: o.warmup });
  await page.done();
  return { ...r, ratio: r.sdkMedianUs / r.jsMedianUs };
}

async function measureCard(browser, url, o) {
  const page = await openBench(browser, url);
  const r = await page.evaluate((a) => window.bench.card(a), { samples: o.samples, warmup: 20 });
  await page.done();
  return { ...r, ratioP50: r.sdk.focus.p50 / r.floor.focus.p50, ratioP95: r.sdk.focus.p95 / r.floor.focus.p95 };
}

/**
 * Open invokes and trusted confirms, interleaved: before each card, its share of the open
 * invokes; each card is confirmed by Playwright's mouse (a trusted click). Samples after the
 * baseline phase (the first 1,000 opens and the first tenth of the cards) and after each
 * quarter of the rest; growth is the end minus the baseline.
 */
async function measureMemory(browser, url, o) {
  const page = await openBench(browser, url);
  const started = Date.now();
  await page.evaluate(() => window.bench.mem.setup());
  const samples = [];
  const sample = async (label) => {
    const s = await page.evaluate(() => window.bench.mem.sample());
    samples.push({ label, ...s });
    log(`memory sample "${label}": ${s.opens} opens, ${s.confirmed} cards: wasm ${s.wasmBytes} B, JS heap ${s.jsHeapUsed} B`);
  };
  let cardsDone = 0;
  const runPhase = async (opens, cards) => {
    if (cards === 0) {
      if (opens) await page.evaluate((n) => window.bench.mem.open(n), opens);
      return;
    }
    for (let k = 0; k < cards; k++) {
      const share = Math.floor(((k + 1) * opens) / cards) - Math.floor((k * opens) / cards);
      await page.evaluate(async (n) => {
        await window.bench.mem.settleAndShow(false);
        await window.bench.mem.open(n);
        await window.bench.mem.settleAndShow(true);
      }, share);
      await clickPart(page, "confirm");
      cardsDone++;
      if (cardsDone % Math.max(1, Math.round(o.cards / 10)) === 0) {
        log(`memory: ${cardsDone}/${o.cards} cards confirmed (${((Date.now() - started) / 1000).toFixed(0)} s)`);
      }
    }
    await page.evaluate(() => window.bench.mem.settleAndShow(false));
  };

  await sample("start");
  const baseOpens = Math.min(1000, o.opens);
  const baseCards = o.cards ? Math.max(1, Math.ceil(o.cards / 10)) : 0;
  await runPhase(baseOpens, baseCards);
  await sample("baseline");
  const restOpens = o.opens - baseOpens, restCards = o.cards - baseCards;
  for (let q = 0; q < 4; q++) {
    const opens = Math.floor(((q + 1) * restOpens) / 4) - Math.floor((q * restOpens) / 4);
    const cards = Math.floor(((q + 1) * restCards) / 4) - Math.floor((q * restCards) / 4);
    await runPhase(opens, cards);
    await sample(q === 3 ? "end" : `${(q + 1) * 25}% of the rest`);
  }
  await page.done();
  const base = samples.find((s) => s.label === "baseline"), end = samples.at(-1);
  if (end.confirmed !== o.cards || end.opens !== o.opens) {
    throw new Error(`memory run incomplete: ${end.opens} opens, ${end.confirmed} cards`);
  }
  // The earliest sample from which the wasm memory never changed again (where it plateaued).
  let steady = samples.length - 1;
  while (steady > 0 && samples[steady - 1].wasmBytes === end.wasmBytes) steady--;
  return {
    opens: o.opens, cards: o.cards, baseline: { opens: base.opens, cards: base.confirmed },
    steadyFrom: { label: samples[steady].label, opens: samples[steady].opens, cards: samples[steady].confirmed },
    samples, durationS: (Date.now() - started) / 1000,
    wasmGrowthBytes: end.wasmBytes - base.wasmBytes,
    jsHeapGrowthBytes: end.jsHeapUsed - base.jsHeapUsed,
    gcExposed: end.gcExposed,
  };
}

// ------------------------------------------------------------------------------------------
// Reporting
// ------------------------------------------------------------------------------------------

const kb = (b) => `${(b / 1024).toFixed(1)} KB`;
const fx = (x, d = 2) => x.toFixed(d);
const ratioStatus = (ratio, budget) =>
  ratio <= budget
    ? `**met** (${fx(ratio)}× ≤ ${budget}×; ${fx(budget - ratio)}× headroom)`
    : `**not met** (${fx(ratio)}× > ${budget}×; ${fx(ratio - budget)}× over, ${fx((ratio / budget - 1) * 100, 0)}% too slow)`;

function budgets(r) {
  const g = r.size.total.gzip;
  const mem = r.memory;
  return [
    {
      figure: "size", met: g <= BUDGET.gzipBytes,
      status: g <= BUDGET.gzipBytes
        ? `**met** (${kb(BUDGET.gzipBytes - g)} under)`
        : `**not met** (${kb(g - BUDGET.gzipBytes)} over, ${fx(g / BUDGET.gzipBytes)}× the budget)`,
    },
    { figure: "invoke", met: r.invoke.ratio <= BUDGET.invokeRatio, status: ratioStatus(r.invoke.ratio, BUDGET.invokeRatio) },
    { figure: "card", met: r.card.ratioP50 <= BUDGET.cardRatio, status: ratioStatus(r.card.ratioP50, BUDGET.cardRatio) },
    {
      figure: "memory", met: mem.wasmGrowthBytes <= 0,
      status: mem.wasmGrowthBytes <= 0
        ? "**met** (no growth)"
        : `**not met** (+${mem.wasmGrowthBytes.toLocaleString("en")} B, ${mem.wasmGrowthBytes / 65536} wasm pages)`,
    },
  ];
}

function currentTable(r) {
  const s = r.size, inv = r.invoke, c = r.card, m = r.memory, l = r.load;
  const b = Object.fromEntries(r.budgets.map((x) => [x.figure, x.status]));
  const base = m.samples.find((x) => x.label === "baseline"), end = m.samples.at(-1);
  const f = (n) => n.toLocaleString("en");
  return [
    `Run of ${r.date} (${r.mode}), commit \`${r.commit.short}\`${r.commit.modifiedFiles ? ` + ${r.commit.modifiedFiles} modified files` : ""}; `
      + `${r.machine.nproc} × ${r.machine.cpu}, ${fx(r.machine.memoryBytes / 2 ** 30, 1)} GiB; ${r.chromium}; `
      + `load average at start ${r.machine.loadavgStart.join(" / ")}.`,
    "",
    "| figure | measured | bar | budget | status |",
    "|---|---|---|---|---|",
    `| shipped bytes, wasm + JS glue (release) | **${kb(s.total.gzip)} gzip -9** (${f(s.total.gzip)} B); raw ${kb(s.total.raw)}, brotli ${kb(s.total.brotli)} | — | ≤ 40 KB gzip | ${b.size} |`,
    `| open \`invoke\` round trip, µs per call (median of ${inv.runs} × ${f(inv.calls)}, after ${f(inv.warmup)} warm-up calls) | **${fx(inv.sdkMedianUs)} µs** | plain JS ${fx(inv.jsMedianUs)} µs | ≤ 3× | ${b.invoke} |`,
    `| hard \`invoke\` → card open + focused, ms p50 (p95), ${c.samples} samples | **${fx(c.sdk.focus.p50)} (${fx(c.sdk.focus.p95)}) ms** | \`<dialog>\` ${fx(c.floor.focus.p50)} (${fx(c.floor.focus.p95)}) ms | ≤ 2× (p50) | ${b.card}; p95 ratio ${fx(c.ratioP95)}× |`,
    `| wasm linear memory, after ${f(base.opens)} opens + ${f(base.confirmed)} cards → after ${f(end.opens)} + ${f(end.confirmed)} | **${f(base.wasmBytes)} B → ${f(end.wasmBytes)} B** | — | no growth | ${b.memory} |`,
    `| wasm memory plateau | ${m.steadyFrom.label === "end" && m.samples.length > 1 && m.samples.at(-2).wasmBytes !== end.wasmBytes
      ? "still growing at the last sample"
      : `flat from ${f(m.steadyFrom.opens)} opens + ${f(m.steadyFrom.cards)} cards on`} (samples, opens+cards → bytes: ${m.samples.map((x) => `${f(x.opens)}+${f(x.confirmed)} → ${f(x.wasmBytes)}`).join("; ")}) | — | — | informational |`,
    `| JS heap (\`usedJSHeapSize\` after \`gc()\`), same points | ${kb(base.jsHeapUsed)} → ${kb(end.jsHeapUsed)} (${m.jsHeapGrowthBytes >= 0 ? "+" : ""}${kb(m.jsHeapGrowthBytes)}) | — | — | informational |`,
    `| import glue + \`init()\` + \`new Coworkkit\`, ms, median of ${l.loads} fresh loads | **${fx(l.median.totalMs)} ms** (import ${fx(l.median.importMs)}, init ${fx(l.median.initMs)}, construct ${fx(l.median.constructMs)}) | — | — | no budget |`,
    `| first hard card of a fresh page → focused, ms (median) | ${fx(l.median.firstCardMs)} ms | \`<dialog>\` ${fx(l.median.firstFloorMs)} ms | — | informational |`,
    "",
    `Card detail: \`invoke\` returned after p50 ${fx(c.sdk.returned.p50)} ms (dialog: ${fx(c.floor.returned.p50)}); `
      + `with style and layout flushed p50 ${fx(c.sdk.layout.p50)} ms (dialog: ${fx(c.floor.layout.p50)}); `
      + `focus arrived inside the \`invoke\` call in ${fx(c.sdk.focusedInCall * 100, 0)}% of samples; `
      + `\`performance.now()\` step ${fx(c.timerResolutionMs, 3)} ms. `
      + `Memory run: ${fx(m.durationS, 0)} s. Invoke runs (µs), SDK: ${inv.sdkUs.map((x) => fx(x, 1)).join(", ")}; `
      + `JS: ${inv.jsUs.map((x) => fx(x, 1)).join(", ")}.`,
  ].join("\n");
}

function historyRow(r) {
  const m = r.memory;
  return `| ${r.date} | \`${r.commit.short}\`${r.commit.modifiedFiles ? "+" : ""} | ${r.mode} | ${r.machine.nproc} × ${r.machine.cpu.replace(/\|/g, "/")} | `
    + `${kb(r.size.total.gzip)} | ${fx(r.invoke.sdkMedianUs)} / ${fx(r.invoke.jsMedianUs)} µs = ${fx(r.invoke.ratio)}× | `
    + `${fx(r.card.sdk.focus.p50)} / ${fx(r.card.floor.focus.p50)} ms = ${fx(r.card.ratioP50)}× | `
    + `${m.wasmGrowthBytes >= 0 ? "+" : ""}${m.wasmGrowthBytes.toLocaleString("en")} B (${m.opens.toLocaleString("en")} / ${m.cards.toLocaleString("en")}) | `
    + `${fx(r.load.median.totalMs, 1)} ms | ${r.machine.loadavgStart[0]} |`;
}

const CURRENT = ["<!-- bench:current -->", "<!-- /bench:current -->"];
const HISTORY_END = "<!-- /bench:history -->";
const HISTORY_HEAD = [
  "| date | commit | mode | machine | gzip | invoke SDK / JS | card p50 SDK / dialog | wasm growth (opens/cards) | load | load avg |",
  "|---|---|---|---|---|---|---|---|---|---|",
].join("\n");

function writeMarkdown(file, r) {
  let md = existsSync(file)
    ? readFileSync(file, "utf8")
    : `# Benchmarks\n\n## Current figures\n\n${CURRENT[0]}\n${CURRENT[1]}\n\n## History\n\n${HISTORY_HEAD}\n${HISTORY_END}\n`;
  const a = md.indexOf(CURRENT[0]), z = md.indexOf(CURRENT[1]);
  const h = md.indexOf(HISTORY_END);
  if (a < 0 || z < a || h < 0) throw new Error(`${file}: the bench markers are missing; restore them or delete the file`);
  md = md.slice(0, a + CURRENT[0].length) + "\n" + currentTable(r) + "\n" + md.slice(z);
  const h2 = md.indexOf(HISTORY_END);
  md = md.slice(0, h2) + historyRow(r) + "\n" + md.slice(h2);
  writeFileSync(file, md);
}

// ------------------------------------------------------------------------------------------
// Main
// ------------------------------------------------------------------------------------------

async function main() {
  const o = parseArgs(process.argv.slice(2));
  if (!existsSync(join(o.pkg, "coworkkit_bg.wasm"))) {
    throw new Error(`no built package in ${o.pkg}; run ./scripts/bench (it builds one) or pass --pkg pkg`);
  }
  const r = {
    date: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
    mode: o.quick ? "quick" : "full",
    options: { cards: o.cards, opens: o.opens, runs: o.runs, calls: o.calls, warmup: o.warmup, samples: o.samples, loads: o.loads },
    machine: machine(),
    commit: commit(),
    size: sizes(o.pkg),
  };
  log(`package ${o.pkg}: ${r.size.total.gzip} B gzip -9`);

  const server = await startServer({ mounts: [["/pkg/", o.pkg], ["/", join(ROOT, "www")]] });
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true, args: CHROMIUM_FLAGS });
  try {
    r.chromium = `Chromium ${browser.version()}`;
    r.flags = CHROMIUM_FLAGS;
    log(`${r.chromium}; load: ${o.loads} fresh pages`);
    r.load = await measureLoads(browser, server.url, o.loads);
    log(`invoke: ${o.warmup} warm-up calls each side, then ${o.runs} runs × ${o.calls} calls`);
    r.invoke = await measureInvoke(browser, server.url, o);
    log(`card: ${o.samples} samples each side`);
    r.card = await measureCard(browser, server.url, o);
    log(`memory: ${o.opens} open invokes, ${o.cards} trusted confirms`);
    r.memory = await measureMemory(browser, server.url, o);
  } finally {
    await browser.close();
    await server.close();
  }
  r.machine.loadavgEnd = loadavg().map((x) => Math.round(x * 100) / 100);
  r.budgets = budgets(r);

  console.log(`\n${currentTable(r)}\n`);
  if (o.write) {
    mkdirSync(join(ROOT, "bench"), { recursive: true });
    writeFileSync(join(ROOT, "bench/results.json"), JSON.stringify(r, null, 2) + "\n");
    writeMarkdown(join(ROOT, "BENCHMARKS.md"), r);
    log("wrote bench/results.json and BENCHMARKS.md");
  } else {
    mkdirSync(join(ROOT, "target/bench"), { recursive: true });
    writeFileSync(join(ROOT, "target/bench/last-results.json"), JSON.stringify(r, null, 2) + "\n");
    log("bench/results.json and BENCHMARKS.md left as they were (--quick or --no-write; pass --write to keep this run);"
      + " this run's details: target/bench/last-results.json");
  }
}

main().catch((e) => {
  console.error(`[bench] failed: ${e.stack ?? e}`);
  process.exit(1);
});
