// The WebKit rerun of scripts/test and the watchdog it keys on (issue 30: the suite must not be
// able to hide what it is for). Real node:test runs of stand-in test files
// (fixtures/watchdog-*.mjs) whose tests pass, fail or hang, with the harness's real watchdog
// (tests/e2e/watchdog.mjs) writing its markers; their TAP logs go through scripts/rerun.mjs and
// through scripts/test's own functions (rerun_stalled, count_node, step, cut out of the script
// and run by bash), which run the stand-ins again as they would the e2e files. And the WebKit
// driver's probe (tests/e2e/drivers/webkit.mjs probeDriver) against a stand-in WebDriver server
// that answers or stays silent.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { createServer } from "node:http";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { plan } from "../../scripts/rerun.mjs";
import { probeDriver } from "../e2e/drivers/webkit.mjs";

const ROOT = resolve(fileURLToPath(import.meta.url), "../../..");
const A = "tests/js/fixtures/watchdog-a.mjs";
const B = "tests/js/fixtures/watchdog-b.mjs";

/** Runs a command to its end: { status, stdout, stderr }. */
function run(command, args, options) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, options);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => { stdout += d; });
    child.stderr.on("data", (d) => { stderr += d; });
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

/** scripts/test's functions by name, as the script has them. */
function functions(...names) {
  const script = readFileSync(join(ROOT, "scripts/test"), "utf8");
  return names.map((name) => {
    const m = new RegExp(`^${name}\\(\\) \\{[^\\n]*\\}$`, "m").exec(script) ?? new RegExp(`^${name}\\(\\) \\{.*?\\n\\}$`, "ms").exec(script);
    assert.ok(m, `scripts/test has no function ${name}`);
    return m[0];
  }).join("\n");
}

/**
 * Runs the stand-in files as scripts/test runs the WebKit step (`step e2e-webkit node --test …`,
 * then count_node and rerun_stalled), with `behaviours` ({ a: { name: how }, b: … }). Returns the
 * totals, failed steps, report lines, what the stand-ins saw on each run, and the logs.
 */
async function webkitStep(behaviours, { files = [A, B], seed = "424242" } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "coworkkit-rerun-"));
  try {
    const script = `set -uo pipefail
LOG=${JSON.stringify(dir)}
PASSED=0 FAILED=0 STEP_FAILED=() REPORT=() REPORT_TIME=()
${functions("say", "none_ran", "count_node", "step", "rerun_stalled")}
COWORKKIT_ENGINE=webkit step e2e-webkit node --test --test-reporter=tap --test-concurrency=1 ${files.join(" ")} >/dev/null
count_node e2e-webkit
rerun_stalled >/dev/null
echo "PASSED=$PASSED"; echo "FAILED=$FAILED"
printf 'STEP_FAILED=%s\\n' "\${STEP_FAILED[@]}"; printf 'REPORT=%s\\n' "\${REPORT[@]}"
`;
    // node:test tells the processes it starts that they report to it (NODE_TEST_CONTEXT); the
    // runs below are runs of their own, as in scripts/test.
    // Nor do they inherit the seeds of a scripts/test run this file may be part of: the seed
    // under test is the one given here, or the one a stand-in file picks itself.
    const { NODE_TEST_CONTEXT, HOSTILE_SEED, HOSTILE_SCALE, PROPTEST_RNG_SEED, ...outside } = process.env;
    const r = await run("bash", ["-c", script], {
      cwd: ROOT,
      // The seed scripts/test exports (or none: then file "a" picks one and prints it).
      env: { ...outside, WATCHDOG_PLAN: JSON.stringify(behaviours), WATCHDOG_STATE: dir, ...(seed ? { HOSTILE_SEED: seed } : {}) },
    });
    assert.equal(r.status, 0, r.stderr);
    if (process.env.RERUN_TEST_DEBUG) console.log(r.stdout, r.stderr);
    const out = (key) => r.stdout.split("\n").filter((l) => l.startsWith(`${key}=`)).map((l) => l.slice(key.length + 1));
    const read = (f) => { try { return readFileSync(join(dir, f), "utf8"); } catch { return ""; } };
    return {
      passed: Number(out("PASSED")[0]), failed: Number(out("FAILED")[0]),
      stepFailed: out("STEP_FAILED").filter(Boolean), report: out("REPORT").filter(Boolean),
      runs: read("runs").trim().split("\n"), log: read("e2e-webkit.log"), again: read("e2e-webkit-again.log"),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// Each of these runs node:test processes that wait on short time limits: side by side.
describe("the WebKit step and its rerun, on stand-in test files", { concurrency: true }, () => {
test("a stalled driver: only the files of the stalled tests run again, with the run's seeds, and the rerun decides", async () => {
  const r = await webkitStep({ a: { "a one": "pass", "a two": "stall-once" }, b: { "b one": "pass" } });
  assert.match(r.log, /^# \[watchdog\] driver stalled \(GET \/status: no answer in 5 s\) in tests\/js\/fixtures\/watchdog-a\.mjs: a two$/m);
  assert.deepEqual(r.runs, [
    "a 1 HOSTILE_SEED=424242 HOSTILE_SCALE=0.5", "b 1",
    "a 2 HOSTILE_SEED=424242 HOSTILE_SCALE=0.5", // only a, again, with the same seed and scale
  ]);
  assert.match(r.again, /^ok \d+ - a two$/m);
  assert.deepEqual(r.stepFailed, []);
  assert.equal(r.failed, 0);
  assert.equal(r.passed, 2 + 1, "the first run's passes and the stalled test, now passed");
  assert.deepEqual(r.report.slice(1), [
    'e2e-webkit-again     1 tests rerun (driver stalled: watchdog-a.mjs "a two"; HOSTILE_SEED=424242 HOSTILE_SCALE=0.5), 2 passed, 0 failed',
  ]);
});

test("the rerun replays the seed the run printed, even one the run picked itself", async () => {
  const r = await webkitStep({ a: { "a one": "stall-once" }, b: { "b one": "stall-once" } }, { seed: null });
  const [first, , again] = r.runs;
  assert.match(first, /^a 1 HOSTILE_SEED=\d+ HOSTILE_SCALE=0\.5$/);
  assert.equal(again, first.replace("a 1", "a 2"));
  assert.equal(r.runs[3], "b 2", "both files ran again, each once");
  assert.deepEqual(r.stepFailed, []);
  assert.match(r.report.at(-1), /^e2e-webkit-again     2 tests rerun \(driver stalled: watchdog-a\.mjs "a one", watchdog-b\.mjs "b one"; HOSTILE_SEED=\d+ HOSTILE_SCALE=0\.5\), 2 passed, 0 failed$/);
});

test("scripts/test picks HOSTILE_SEED and PROPTEST_RNG_SEED when they are not given, prints and exports them, and keeps given ones", async () => {
  const { NODE_TEST_CONTEXT, HOSTILE_SEED, PROPTEST_RNG_SEED, ...outside } = process.env;
  const seeds = async (env) => (await run("bash", ["-c", `${functions("pick_seeds")}\npick_seeds; bash -c 'echo "child=$HOSTILE_SEED,$PROPTEST_RNG_SEED"'`], { env: { ...outside, ...env } })).stdout;
  const picked = await seeds({});
  const [, hostile, proptest] = /child=(\d+),(\d+)\n/.exec(picked) ?? [];
  assert.ok(hostile && Number(hostile) < 2 ** 31 && proptest, picked);
  assert.match(picked, new RegExp(`seeds: HOSTILE_SEED=${hostile} PROPTEST_RNG_SEED=${proptest} `));
  assert.match(await seeds({ HOSTILE_SEED: "99", PROPTEST_RNG_SEED: "7" }), /child=99,7\n/);
});

test("a pending page is a failure: nothing runs again", async () => {
  const r = await webkitStep({ a: { "a one": "pass", "a two": "pend" }, b: { "b one": "busy" } });
  assert.match(r.log, /^# \[watchdog\] page pending \(.*\) in tests\/js\/fixtures\/watchdog-a\.mjs: a two$/m);
  assert.match(r.log, /^# \[watchdog\] page busy \(.*\) in tests\/js\/fixtures\/watchdog-b\.mjs: b one$/m);
  assert.equal(r.runs.length, 2, "no file ran again");
  assert.equal(r.again, "");
  assert.deepEqual(r.stepFailed, ["e2e-webkit"]);
  assert.equal(r.failed, 2);
  assert.equal(r.passed, 1);
  assert.match(r.report.at(-1), /^e2e-webkit-again +not rerun: 2 of 2 failures not a stalled driver \(page pending: watchdog-a\.mjs "a two"; page busy: watchdog-b\.mjs "b one"\)$/);
});

test("a stalled driver beside a pending page, a plain failure or an unprobed time-out: nothing runs again, the run fails", async () => {
  await Promise.all(["pend", "fail", "unprobed"].map(async (other) => {
    const r = await webkitStep({ a: { "a one": "stall-once" }, b: { "b one": other } });
    assert.equal(r.runs.length, 2, `${other}: no file ran again`);
    assert.deepEqual(r.stepFailed, ["e2e-webkit"], other);
    assert.equal(r.failed, 2, other);
    assert.match(r.report.at(-1), /not rerun: 1 of 2 failures not a stalled driver/, other);
  }));
});

test("a stall in the rerun is a failure: no third run", async () => {
  const r = await webkitStep({ a: { "a one": "stall" }, b: { "b one": "pass" } });
  assert.equal(r.runs.length, 3, "a ran twice, b once");
  assert.match(r.again, /^# \[watchdog\] driver stalled/m);
  assert.deepEqual(r.stepFailed, ["e2e-webkit", "e2e-webkit-again"]);
  assert.equal(r.failed, 1, "the stalled test counts once");
  assert.match(r.report.at(-1), /1 tests rerun \(driver stalled: watchdog-a\.mjs "a one"; .*\), 0 passed, 1 failed$/);
});

test("nothing failed: no rerun, no report line", async () => {
  const r = await webkitStep({ a: { "a one": "pass" }, b: { "b one": "pass" } });
  assert.equal(r.runs.length, 2);
  assert.equal(r.report.length, 1);
  assert.equal(r.failed, 0);
  assert.equal(r.passed, 2);
});
});

test("the plan: a time-out without a marker, a marker for another test, two seeds for one name, a plain failure", () => {
  const log = (marker) => [
    "# hostile: webkit HOSTILE_SEED=7 HOSTILE_SCALE=0.5",
    "# Subtest: t",
    "not ok 1 - t",
    "  ---",
    "  duration_ms: 120000",
    `  location: '${ROOT}/tests/e2e/x.test.mjs:3:1'`,
    "  failureType: 'testTimeoutFailure'",
    "  error: 'test timed out after 120000ms'",
    "  ...",
    marker,
  ].join("\n");
  assert.equal(plan(log(""), ROOT).rerun, false);
  assert.match(plan(log(""), ROOT).why, /timed out, no watchdog marker: x\.test\.mjs "t"/);
  assert.equal(plan(log("# [watchdog] driver stalled (x) in tests/e2e/x.test.mjs: u"), ROOT).rerun, false);
  // The marker's file is the one that runs again (a result's location may name a helper module).
  const ok = plan(log(`# [watchdog] driver stalled (x) in ${ROOT}/tests/e2e/y.test.mjs: t`), ROOT);
  assert.deepEqual([ok.rerun, ok.files, ok.env], [true, ["tests/e2e/y.test.mjs"], ["HOSTILE_SEED=7", "HOSTILE_SCALE=0.5"]]);
  const two = plan(`${log("# [watchdog] driver stalled (x) in tests/e2e/x.test.mjs: t")}\n# HOSTILE_SEED=8`, ROOT);
  assert.equal(two.rerun, false);
  assert.match(two.why, /two values of HOSTILE_SEED/);
  // A failure that is no time-out, even with a stalled marker, is not rerun.
  const code = log("# [watchdog] driver stalled (x) in tests/e2e/x.test.mjs: t").replace("testTimeoutFailure", "testCodeFailure");
  assert.equal(plan(code, ROOT).rerun, false);
});

/** A stand-in WebDriver server: each path answers or stays silent, as `silent(path)` says. */
async function fakeDriver(silent) {
  const held = [];
  const server = createServer((req, res) => {
    if (silent(req.method, req.url)) { held.push(res); return; }
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ value: req.url.endsWith("/status") ? { ready: true } : req.url.endsWith("/url") ? "http://x/" : 1 }));
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => { for (const res of held) res.destroy(); server.closeAllConnections(); return new Promise((r) => server.close(r)); },
  };
}

test("the WebKit probe: what got no answer decides", async () => {
  // Limits long enough for a loaded machine (a silent answer costs one limit); the cases run side by side.
  const limits = { statusMs: 1500, sessionMs: 1500, stuckMs: 20_000 };
  const now = Date.now();
  const cases = [
    [() => false, [], "page pending"],
    [() => false, [{ name: "executeAsyncScript", since: now - 60_000 }], "page pending"],
    [(m, u) => u === "/status", [], "driver stalled"],
    [(m, u) => u.endsWith("/url"), [], "driver stalled"],
    [(m, u) => u.endsWith("/execute/sync"), [], "page busy"],
    [(m, u) => u.endsWith("/execute/sync"), [{ name: "actions", since: now - 60_000 }], "page busy"],
    [() => false, [{ name: "actions", since: now - 60_000 }], "driver stalled"],
    [() => false, [{ name: "actions", since: now - 10 }], "page pending"],
    [() => false, [{ name: "newSession", since: now - 60_000 }], "driver stalled"],
  ];
  await Promise.all(cases.map(async ([silent, inFlight, verdict]) => {
    const d = await fakeDriver(silent);
    try {
      const answer = await probeDriver(d.url, "s1", inFlight, limits);
      assert.equal(answer.verdict, verdict, `${silent} ${JSON.stringify(inFlight)}: ${answer.detail}`);
    } finally {
      await d.close();
    }
  }));
  // No driver listening at all: stalled.
  const gone = await fakeDriver(() => false);
  await gone.close();
  assert.equal((await probeDriver(gone.url, "s1", [], limits)).verdict, "driver stalled");
  // No session open and nothing in flight: the test waited on something else.
  const d = await fakeDriver(() => false);
  try { assert.equal((await probeDriver(d.url, null, [], limits)).verdict, "page pending"); } finally { await d.close(); }
});

test("the mutants step counts caught mutants as passed, survivors and broken patches as failed, and no line as no test", () => {
  const dir = mkdtempSync(join(tmpdir(), "coworkkit-mutants-"));
  try {
    const count = (log) => {
      const script = `set -uo pipefail
LOG=${JSON.stringify(dir)}
PASSED=5 FAILED=0 STEP_FAILED=() REPORT=()
${functions("none_ran", "count_mutants")}
printf '%b\\n' ${JSON.stringify(log)} > "$LOG/mutants-fast.log"
count_mutants >/dev/null
echo "$PASSED $FAILED \${#STEP_FAILED[@]} \${REPORT[*]}"`;
      return spawnSync("bash", ["-c", script], { encoding: "utf8" }).stdout.trim();
    };
    assert.equal(count("caught    01-x (3 s)\nmutants: 13 caught, 1 survived, 2 broken (95 s)"),
      "18 3 0 mutants-fast            13 passed, 3 failed (mutants caught; survived 1, broken 2)");
    assert.equal(count("mutants: 'cargo test' fails on the unpatched tree; fix that first"),
      "5 0 1 mutants-fast             0 passed, 0 failed (mutants caught; survived 0, broken 0)");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
