// Shared set-up for the end-to-end suite: a static server on 127.0.0.1 serving the built
// package, the engine named by COWORKKIT_ENGINE (chromium, firefox or webkit) through the driver
// layer (tests/e2e/drivers/), and helpers that reach the SDK's closed shadow roots the way only a
// test can (see drivers/README.md for how each engine does it).
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { startServer } from "../../scripts/serve.mjs";
import { ENGINE, launchBrowser, running } from "./drivers/index.mjs";
import { installWatchdog } from "./watchdog.mjs";
import { readCard, confirmCard as testingConfirm, cancelCard as testingCancel } from "../../pkg/testing.js";

export { ENGINE };
const ROOT = resolve(fileURLToPath(import.meta.url), "../../..");

/**
 * When a test hits its time limit, the watchdog (watchdog.mjs) probes the driver of the browser
 * started last and writes `[watchdog] driver stalled`, `page pending`, `page busy` or `not
 * probed` right after the test's result; scripts/test runs a WebKit test again only when it says
 * `driver stalled` (docs/browsers.md).
 */
installWatchdog(() => running.at(-1) ?? null);

/**
 * Every e2e test's time limit (node:test's `{ timeout }`), so that a hang fails its test instead
 * of stalling the run: generous, for the slowest engine on a loaded machine. A test that needs
 * longer says so with its own `timeout`.
 */
export const TEST_TIMEOUT = Number(process.env.COWORKKIT_TEST_TIMEOUT ?? 120_000);

/**
 * `{ skip: reason }` for a test that cannot run in this engine (`engines` lists where it can),
 * so that node's test runner prints the reason; `{ timeout: TEST_TIMEOUT }` elsewhere.
 */
export function onlyIn(engines, reason) {
  return engines.includes(ENGINE) ? { timeout: TEST_TIMEOUT } : { skip: `${ENGINE}: ${reason}` };
}

/**
 * Starts the browser and the server once per test file. `launchOptions[engine]` passes extra
 * launch options to one engine (e.g. `{ chromium: { args: ["--enable-features=WebMCP"] } }`).
 */
export async function launch(launchOptions = {}) {
  const browser = await launchBrowser(ENGINE, launchOptions[ENGINE] ?? {});
  const server = await startServer({
    mounts: [["/pkg/", join(ROOT, "pkg")], ["/fixtures/", join(ROOT, "tests/e2e/fixtures")],
      ["/node_modules/", join(ROOT, "tests/e2e/node_modules")], ["/", join(ROOT, "www")]],
    html: browser.html,
  });
  return {
    engine: ENGINE,
    version: browser.version,
    url: server.url,
    browser,
    async close() { await browser.close(); await server.close(); },
  };
}

/**
 * Opens a fresh page (a fresh browser context, or in WebKit a fresh session) on `path` with
 * `window.coworkkit` loaded. Every console error and uncaught page error is collected in
 * `page.problems`, warnings in `page.warnings`, logs in `page.logs`.
 */
export async function openFixture(env, path = "fixtures/blank.html", openShadowRoots = false, options = {}) {
  const page = await env.browser.newPage({ openShadowRoots, ...options });
  await page.goto(env.url + path);
  await waitFor(page, () => window.ready === true);
  return page;
}

/** Polls `fn(arg)` in the page until it is truthy; returns that value. */
export async function waitFor(page, fn, arg, timeout = 5000) {
  const until = Date.now() + timeout;
  let last;
  for (;;) {
    last = await page.evaluate(fn, arg);
    if (last) return last;
    if (Date.now() > until) throw new Error(`timed out waiting for ${String(fn).slice(0, 120)}`);
    await sleep(25);
  }
}

/** Runs `fn` (a function) with `this` = the SDK's element with that part, in the page. */
export function onPart(page, part, fn, ...args) {
  return page.onPart(part, fn, args);
}

/** The centre of a card part in viewport coordinates, or null when absent or not rendered. */
export async function partCenter(page, part) {
  const at = await onPart(page, part, function () {
    const r = this.getBoundingClientRect();
    if (this.getClientRects().length === 0 || (r.width === 0 && r.height === 0)) return null;
    return { x: r.x + r.width / 2, y: r.y + r.height / 2 };
  });
  return at ?? null;
}

/** A real, trusted mouse click on a card part (the driver's mouse goes through the browser). */
export async function clickPart(page, part) {
  const at = await partCenter(page, part);
  if (!at) throw new Error(`no visible part "${part}"`);
  await apartFromTheLastClick(page);
  await page.mouse.click(at.x, at.y);
}

/** When each page last got a click through `apartFromTheLastClick`. */
const lastClicks = new WeakMap();
/**
 * Makes the next click a person's click of its own: a click within the browser's double-click
 * time (about 500 ms) of the one before, at the same place, is that one's second (`detail` 2),
 * which the card refuses (SPEC §4.2: a double click never confirms). WebKit counts the
 * driver's clicks so; Playwright and puppeteer send each click as a single one. Waits until
 * 600 ms have passed since the last such click on `page`.
 */
export async function apartFromTheLastClick(page) {
  const last = lastClicks.get(page);
  const wait = last === undefined ? 0 : 600 - (Date.now() - last);
  if (wait > 0) await sleep(wait);
  lastClicks.set(page, Date.now());
}

/** The centre of the first page element matching `selector`, scrolled into view. */
export async function center(page, selector) {
  const at = await page.evaluate((selector) => {
    const el = document.querySelector(selector);
    if (!el) return null;
    let r = el.getBoundingClientRect();
    if (r.bottom < 0 || r.right < 0 || r.top > innerHeight || r.left > innerWidth) {
      el.scrollIntoView({ block: "center", inline: "center" });
      r = el.getBoundingClientRect();
    }
    return { x: r.x + r.width / 2, y: r.y + r.height / 2 };
  }, selector);
  if (!at) throw new Error(`nothing matches ${selector}`);
  return at;
}

/** A real, trusted mouse click on the first page element matching `selector`. */
export async function click(page, selector) {
  const at = await center(page, selector);
  await page.mouse.click(at.x, at.y);
}

/**
 * The page that coworkkit/testing (pkg/testing.js) is handed for a driver page: in Chromium
 * Playwright's own Page, so that its DevTools-protocol path (the one an app's team uses) runs in
 * every test; in Firefox and WebKit the driver page itself (its `onPart`, `mouse`, `keyboard`).
 */
export function testingPage(page) {
  return page.engine === "chromium" ? page.page : page;
}

/**
 * What the card shows (coworkkit/testing's `readCard`, one call into the page while it is
 * open), with `present` (the SDK's card is in the DOM) and `open`; `confirmDisabled`: Confirm's
 * `disabled`.
 */
export async function cardState(page) {
  const card = await readCard(testingPage(page));
  if (card) {
    const confirm = card.buttons.find((b) => b.part === "confirm");
    return { present: true, open: true, ...card, confirmDisabled: confirm ? confirm.disabled : undefined };
  }
  const present = (await onPart(page, "card", function () { return true; })) === true;
  return { present, open: false };
}

/**
 * Confirms the open card as a person does (coworkkit/testing's `confirmCard`: waits until
 * Confirm is armed, then a trusted click apart from the last one).
 */
export async function confirmCard(page, options) {
  await apartFromTheLastClick(page);
  const shown = await testingConfirm(testingPage(page), options);
  lastClicks.set(page, Date.now());
  return shown;
}

/** Cancels the open card as a person does (coworkkit/testing's `cancelCard`, `{ reason? }`). */
export async function cancelCard(page, options) {
  await apartFromTheLastClick(page);
  const shown = await testingCancel(testingPage(page), options);
  lastClicks.set(page, Date.now());
  return shown;
}

/** Waits until the open card's Confirm is armed, as a person waits until it looks ready. */
export function waitArmed(page, timeout = 5000) {
  return waitCard(page, (s) => s.open && s.armed, timeout);
}

/** Waits until `predicate(await cardState(page))` holds, polling. */
export async function waitCard(page, predicate, timeout = 5000) {
  const until = Date.now() + timeout;
  let state;
  while (Date.now() < until) {
    state = await cardState(page);
    if (predicate(state)) return state;
    await sleep(25);
  }
  throw new Error(`card never reached the expected state; last: ${JSON.stringify(state)}`);
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Collects garbage in the page and lets finalizers run. Chromium runs with --expose-gc;
 * Firefox and WebKit give pages no gc(), so garbage is made until a FinalizationRegistry of
 * our own has seen most of its sentinels collected, `rounds` times.
 */
export function collectGarbage(page, rounds = 3) {
  return page.evaluate(async (rounds) => {
    const tick = () => new Promise((r) => setTimeout(r, 30));
    for (let i = 0; i < rounds; i++) {
      if (typeof gc === "function") gc();
      else {
        // Many sentinels, made in a function of their own: a conservative collector
        // (JavaScriptCore scans the stack) may keep one alive by a stale slot, not most.
        let collected = 0;
        const registry = new FinalizationRegistry(() => { collected += 1; });
        const sentinels = (n) => { for (let k = 0; k < n; k++) registry.register({ k }, k); };
        sentinels(32);
        for (const until = Date.now() + 20000; collected < 16 && Date.now() < until; await tick()) {
          let junk = [];
          for (let j = 0; j < 200000; j++) junk.push({ j });
          junk = null;
        }
        if (collected < 16) throw new Error(`no garbage collection within 20 s (${collected} of 32 sentinels)`);
      }
      await tick();
    }
  }, rounds);
}
