// Whether the WebKit end-to-end step may run anything again, read from its TAP log (scripts/test,
// step e2e-webkit-again; docs/browsers.md, "The WebKit driver's hangs").
//
// A test that hits node:test's time limit is probed by the harness's watchdog
// (tests/e2e/harness.mjs), which writes one diagnostic right after the test's result:
//
//   # [watchdog] driver stalled (<what got no answer>) in tests/e2e/x.test.mjs: <test name>
//   # [watchdog] page pending (<what answered>) in tests/e2e/x.test.mjs: <test name>
//   # [watchdog] page busy (<what answered, what did not>) in tests/e2e/x.test.mjs: <test name>
//
// Only a time-out whose own marker says `driver stalled` may run again, and only when every
// failure of the step is one: a pending page (a call that never settled), a busy page, a
// time-out without a marker, or any other failure is a failure, and then nothing runs again.
// The rerun gets the same seeds as the run (every `NAME_SEED=n` and `NAME_SCALE=x` the log
// printed), so it replays the run that hung.
//
//   node scripts/rerun.mjs plan LOG     prints the plan, one `key: value` a line:
//     rerun: yes | no
//     failures: N          (failed tests in LOG: not ok, time-outs included)
//     tests: N             (the stalled tests that run again, by their files)
//     files: tests/e2e/a.test.mjs …
//     env: HOSTILE_SEED=n HOSTILE_SCALE=x …
//     why: driver stalled: a.test.mjs "name", …  |  what failed otherwise
import { readFileSync } from "node:fs";
import { relative, resolve } from "node:path";

export const MARKER = /^# \[watchdog\] (driver stalled|page pending|page busy) \(([^)]*)\) in (\S+\.test\.mjs): (.*)$/;
const SEED = /\b([A-Z][A-Z0-9_]*_(?:SEED|SCALE))=([0-9][0-9.]*)\b/g;

/** The top-level results, watchdog markers and printed seeds of a node:test TAP log. */
export function parseTap(text, root = process.cwd()) {
  const lines = text.split("\n");
  const failures = [];
  const markers = [];
  const seeds = new Map();
  const conflicts = new Set();
  const rel = (file) => (file.startsWith("/") ? relative(root, file) : file);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const m = /^not ok \d+ - (.*)$/.exec(line);
    if (m) {
      const failure = { name: m[1].replace(/ # (TODO|SKIP).*$/, ""), file: null, failureType: null, error: null };
      if (lines[i + 1] === "  ---") {
        for (let j = i + 2; j < lines.length && lines[j] !== "  ..."; j++) {
          const field = /^  (location|failureType|error): '(.*)'$/.exec(lines[j]) ?? /^  (location|failureType|error): (.*)$/.exec(lines[j]);
          if (!field) continue;
          if (field[1] === "location") failure.file = rel(field[2].replace(/:\d+:\d+$/, ""));
          else failure[field[1]] = field[2];
        }
      }
      failures.push(failure);
      continue;
    }
    const w = MARKER.exec(line);
    if (w) {
      markers.push({ verdict: w[1], detail: w[2], file: rel(w[3]), name: w[4] });
      continue;
    }
    if (line.startsWith("# ")) {
      for (const [, key, value] of line.matchAll(SEED)) {
        if (seeds.has(key) && seeds.get(key) !== value) conflicts.add(key);
        seeds.set(key, value);
      }
    }
  }
  return { failures, markers, seeds, conflicts };
}

const short = (f) => `${f.file ? f.file.replace(/^.*\//, "") : "?"} "${f.name}"`;

/** What may run again after the WebKit step that wrote `text` (see the file comment). */
export function plan(text, root = process.cwd()) {
  const { failures, markers, seeds, conflicts } = parseTap(text, root);
  const verdict = (f) => markers.find((m) => m.name === f.name && m.file === f.file)?.verdict ?? null;
  const stalled = [];
  const others = [];
  for (const f of failures) {
    const timeout = f.failureType === "testTimeoutFailure";
    const v = timeout ? verdict(f) : null;
    if (timeout && v === "driver stalled") stalled.push(f);
    else others.push({ ...f, why: !timeout ? (f.failureType ?? "failed") : v ?? "timed out, no watchdog marker" });
  }
  const env = [...seeds].map(([k, v]) => `${k}=${v}`);
  const result = { rerun: false, failures: failures.length, tests: stalled.length, files: [], env, stalled, others, why: "" };
  if (failures.length === 0) {
    result.why = "nothing failed";
  } else if (others.length > 0) {
    result.why = `not rerun: ${others.length} of ${failures.length} failures not a stalled driver (${others.map((f) => `${f.why}: ${short(f)}`).join("; ")})`;
  } else if (conflicts.size > 0) {
    result.why = `not rerun: the run printed two values of ${[...conflicts].join(", ")}`;
  } else if (stalled.some((f) => !f.file)) {
    result.why = "not rerun: a stalled test without a location";
  } else {
    result.rerun = true;
    result.files = [...new Set(stalled.map((f) => f.file))].sort();
    result.why = `driver stalled: ${stalled.map(short).join(", ")}`;
  }
  return result;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) {
  const [command, log] = process.argv.slice(2);
  if (command !== "plan" || !log) {
    console.error("usage: node scripts/rerun.mjs plan LOG");
    process.exit(2);
  }
  const p = plan(readFileSync(log, "utf8"));
  console.log(`rerun: ${p.rerun ? "yes" : "no"}`);
  console.log(`failures: ${p.failures}`);
  console.log(`tests: ${p.tests}`);
  console.log(`files: ${p.files.join(" ")}`);
  console.log(`env: ${p.env.join(" ")}`);
  console.log(`why: ${p.why.replace(/\n/g, " ")}`);
}
