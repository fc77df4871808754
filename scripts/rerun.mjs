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
//   # [watchdog] not probed (<why>) in tests/e2e/x.test.mjs: <test name>
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

export const MARKER = /^# \[watchdog\] (driver stalled|page pending|page busy|not probed) \(([^)]*)\) in (\S+\.[cm]?js): (.*)$/;
const SEED = /\b([A-Z][A-Z0-9_]*_(?:SEED|SCALE))=([0-9][0-9.]*)\b/g;

/**
 * The top-level results of a node:test TAP log, each failure with the watchdog's verdict on it
 * and the test file the verdict names, and the seeds the log printed. A marker belongs to the
 * last result before it with the same name (node:test writes it right after that result); its
 * file is the test file's own (the process's), where the result's location may name a helper.
 */
export function parseTap(text, root = process.cwd()) {
  const lines = text.split("\n");
  const results = [];
  const seeds = new Map();
  const conflicts = new Set();
  const rel = (file) => (file.startsWith("/") ? relative(root, file) : file);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const m = /^(not ok|ok) \d+ - (.*)$/.exec(line);
    if (m) {
      const result = { ok: m[1] === "ok", name: m[2].replace(/ # (TODO|SKIP)\b.*$/, ""), location: null, failureType: null, verdict: null, file: null };
      if (lines[i + 1] === "  ---") {
        for (let j = i + 2; j < lines.length && lines[j] !== "  ..."; j++) {
          const field = /^  (location|failureType): '?(.*?)'?$/.exec(lines[j]);
          if (!field) continue;
          if (field[1] === "location") result.location = rel(field[2].replace(/:\d+:\d+$/, ""));
          else result.failureType = field[2];
        }
      }
      results.push(result);
      continue;
    }
    const w = MARKER.exec(line);
    if (w) {
      const result = results.findLast((r) => r.name === w[4]);
      if (result && !result.verdict) Object.assign(result, { verdict: w[1], detail: w[2], file: rel(w[3]) });
      continue;
    }
    if (line.startsWith("# ")) {
      for (const [, key, value] of line.matchAll(SEED)) {
        if (seeds.has(key) && seeds.get(key) !== value) conflicts.add(key);
        seeds.set(key, value);
      }
    }
  }
  return { failures: results.filter((r) => !r.ok), seeds, conflicts };
}

const short = (f) => `${(f.file ?? f.location ?? "?").replace(/^.*\//, "")} "${f.name}"`;

/** What may run again after the WebKit step that wrote `text` (see the file comment). */
export function plan(text, root = process.cwd()) {
  const { failures, seeds, conflicts } = parseTap(text, root);
  const stalled = [];
  const others = [];
  for (const f of failures) {
    const timeout = f.failureType === "testTimeoutFailure";
    if (timeout && f.verdict === "driver stalled") stalled.push(f);
    else others.push({ ...f, why: !timeout ? (f.failureType ?? "failed") : f.verdict ?? "timed out, no watchdog marker" });
  }
  const env = [...seeds].map(([k, v]) => `${k}=${v}`);
  const result = { rerun: false, failures: failures.length, tests: stalled.length, files: [], env, stalled, others, why: "" };
  if (failures.length === 0) {
    result.why = "nothing failed";
  } else if (others.length > 0) {
    result.why = `not rerun: ${others.length} of ${failures.length} failures not a stalled driver (${others.map((f) => `${f.why}: ${short(f)}`).join("; ")})`;
  } else if (conflicts.size > 0) {
    result.why = `not rerun: the run printed two values of ${[...conflicts].join(", ")}`;
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
