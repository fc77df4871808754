// The watchdog: when a test hits node:test's time limit, it asks the browser's driver trivial
// questions, with short limits of their own, and writes what it found right after the test's
// result (a TAP diagnostic), so that a stalled driver can be told from a page whose call never
// settled:
//
//   [watchdog] driver stalled (<what got no answer>) in tests/e2e/x.test.mjs: <test name>
//   [watchdog] page pending (<what answered>) in tests/e2e/x.test.mjs: <test name>
//   [watchdog] page busy (<what answered, what did not>) in tests/e2e/x.test.mjs: <test name>
//   [watchdog] not probed (<why>) in tests/e2e/x.test.mjs: <test name>
//
// `driver stalled`: the driver did not answer a command that involves no page script (its
// status, the session's URL). `page pending`: the driver answered those and ran a one-line
// script at once, so the test was waiting on the page: a call that never settled is a failure of
// the SDK or of the test, never the driver's. `page busy`: the driver answered, but the page's
// thread ran no script within the limit (a page stuck in a loop): a failure too. `not probed`:
// the engine's driver has no probe (only WebKit's has one: its driver is the one that hangs).
// scripts/test runs a WebKit test again only when its marker says `driver stalled`
// (scripts/rerun.mjs; docs/browsers.md, "The WebKit driver's hangs").
import { afterEach } from "node:test";
import { relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(fileURLToPath(import.meta.url), "../../..");
/** How long the whole probe may take before it is itself taken as a stalled driver. */
export const PROBE_LIMIT_MS = 45_000;

/** The marker line for a test named `name` in this file, from `browser.probe()`'s answer. */
export async function watchdogMarker(browser, name, file = process.argv[1] ?? "?") {
  const where = `in ${relative(ROOT, resolve(file))}: ${name}`;
  if (typeof browser?.probe !== "function") return `[watchdog] not probed (${browser ? `no probe in ${browser.engine ?? "this engine"}` : "no browser running"}) ${where}`;
  let timer;
  const limit = new Promise((r) => { timer = setTimeout(() => r({ verdict: "driver stalled", detail: `the probe did not finish in ${PROBE_LIMIT_MS / 1000} s` }), PROBE_LIMIT_MS); });
  let answer;
  try {
    answer = await Promise.race([browser.probe(), limit]);
  } catch (e) {
    answer = { verdict: "not probed", detail: `the probe threw ${e?.message ?? e}` };
  } finally {
    clearTimeout(timer);
  }
  const verdicts = ["driver stalled", "page pending", "page busy", "not probed"];
  const verdict = verdicts.includes(answer?.verdict) ? answer.verdict : "not probed";
  const detail = String(answer?.detail ?? "").replace(/[()\n]/g, " ").trim() || "no detail";
  return `[watchdog] ${verdict} (${detail}) ${where}`;
}

/**
 * Registers the watchdog for every test of the file that imports this (a root-level
 * `afterEach`, which node:test runs after a test that timed out and before it reports it):
 * `browser()` is the browser running now, or null.
 */
export function installWatchdog(browser) {
  afterEach(async (t) => {
    if (t.error?.failureType !== "testTimeoutFailure") return;
    const marker = await watchdogMarker(browser(), t.name);
    t.diagnostic(marker);
  });
}
