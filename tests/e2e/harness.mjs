// Shared set-up for the end-to-end suite: a static server on 127.0.0.1 serving the built
// package, Debian's Chromium driven by playwright-core, and helpers that reach the SDK's
// closed shadow root the way only a test can: through the DevTools protocol.
import { chromium } from "playwright-core";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { startServer } from "../../scripts/serve.mjs";

const ROOT = resolve(fileURLToPath(import.meta.url), "../../..");
export const FLAGS = [
  "--js-flags=--expose-gc",
  "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
  "--disable-sync", "--no-first-run", "--disable-quic", "--disable-dev-shm-usage",
];

/** Starts the server and the browser once per test file. */
export async function launch() {
  const server = await startServer({
    mounts: [["/pkg/", join(ROOT, "pkg")], ["/fixtures/", join(ROOT, "tests/e2e/fixtures")],
      ["/node_modules/", join(ROOT, "tests/e2e/node_modules")], ["/", join(ROOT, "www")]],
  });
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true, args: FLAGS });
  return {
    url: server.url,
    browser,
    async close() { await browser.close(); await server.close(); },
  };
}

/**
 * Opens a fresh page on the blank fixture with `window.coworkkit` loaded. Every console error
 * and uncaught page error is collected in `page.problems`.
 */
export async function openFixture(env, path = "fixtures/blank.html", openShadowRoots = false) {
  const context = await env.browser.newContext();
  const page = await context.newPage();
  if (openShadowRoots) {
    await page.addInitScript(() => {
      const attach = Element.prototype.attachShadow;
      Element.prototype.attachShadow = function (init) { return attach.call(this, { ...init, mode: "open" }); };
    });
  }
  page.problems = [];
  page.on("pageerror", (e) => page.problems.push(`pageerror: ${e.message}`));
  page.on("console", (m) => { if (m.type() === "error") page.problems.push(`console.error: ${m.text()}`); });
  await page.goto(env.url + path);
  await page.waitForFunction(() => window.ready === true);
  page.cdp = await context.newCDPSession(page);
  return page;
}

/** Finds the nodes of the SDK's closed shadow roots (CDP pierces them), by `part` name. */
async function partNode(page, part) {
  const { root } = await page.cdp.send("DOM.getDocument", { depth: -1, pierce: true });
  let found = null;
  const walk = (node) => {
    if (found) return;
    const attrs = node.attributes ?? [];
    for (let i = 0; i < attrs.length; i += 2) {
      if (attrs[i] === "part" && attrs[i + 1].split(/\s+/).includes(part)) { found = node; return; }
    }
    for (const child of [...(node.children ?? []), ...(node.shadowRoots ?? [])]) walk(child);
  };
  walk(root);
  return found;
}

/** Runs `fn` (a function source) with `this` = the element with that part, in the page. */
export async function onPart(page, part, fn, ...args) {
  const node = await partNode(page, part);
  if (!node) return undefined;
  const { object } = await page.cdp.send("DOM.resolveNode", { backendNodeId: node.backendNodeId });
  const { result, exceptionDetails } = await page.cdp.send("Runtime.callFunctionOn", {
    objectId: object.objectId,
    functionDeclaration: fn.toString(),
    arguments: args.map((value) => ({ value })),
    returnByValue: true,
    awaitPromise: true,
  });
  if (exceptionDetails) throw new Error(exceptionDetails.exception?.description ?? exceptionDetails.text);
  return result.value;
}

/** The centre of a card part in page coordinates, or null when absent or not rendered. */
export async function partCenter(page, part) {
  const node = await partNode(page, part);
  if (!node) return null;
  try {
    const { model } = await page.cdp.send("DOM.getBoxModel", { backendNodeId: node.backendNodeId });
    const q = model.border;
    return { x: (q[0] + q[2] + q[4] + q[6]) / 4, y: (q[1] + q[3] + q[5] + q[7]) / 4 };
  } catch {
    return null;
  }
}

/** A real, trusted mouse click on a card part (Playwright's mouse goes through the browser). */
export async function clickPart(page, part) {
  const at = await partCenter(page, part);
  if (!at) throw new Error(`no visible part "${part}"`);
  await page.mouse.click(at.x, at.y);
}

/** What the card shows, read from inside its closed shadow root. */
export async function cardState(page) {
  const open = await onPart(page, "card", function () { return this.open && this.matches(":modal"); });
  if (open === undefined) return { present: false, open: false };
  const text = async (part) => onPart(page, part, function () { return this.textContent; });
  return {
    present: true,
    open,
    title: await text("title"),
    summary: await text("summary"),
    countdown: await text("countdown"),
    position: await text("position"),
    confirmDisabled: await onPart(page, "confirm", function () { return this.disabled; }),
    focused: await onPart(page, "card", function () {
      const a = this.getRootNode().activeElement;
      return a ? a.getAttribute("part") : null;
    }),
  };
}

/** Waits until `predicate(await cardState(page))` holds, polling. */
export async function waitCard(page, predicate, timeout = 5000) {
  const until = Date.now() + timeout;
  let state;
  while (Date.now() < until) {
    state = await cardState(page);
    if (predicate(state)) return state;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`card never reached the expected state; last: ${JSON.stringify(state)}`);
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
