// @ts-check
/**
 * @file coworkkit/testing (SPEC §15): `readCard`, `confirmCard` and `cancelCard` for an app's
 * own end-to-end tests. It runs in Node, beside the test, and reaches the card's closed shadow
 * root through the browser's automation protocol, which no page script has; it presses the
 * card's buttons with the automation driver's trusted mouse and keyboard, as a person would.
 * Its types are testing.d.ts.
 */
import { setTimeout as sleep } from "node:timers/promises";

/** @typedef {import("./testing.js").CardPage} CardPage */
/** @typedef {import("./testing.js").CardState} CardState */
/** @typedef {import("./testing.js").PlaywrightChromiumPage} PlaywrightChromiumPage */
/** @typedef {import("./testing.js").CardDriverPage} CardDriverPage */
/** @typedef {{ send(method: string, params?: object): Promise<any> }} CdpSession */

if (typeof window !== "undefined" || typeof document !== "undefined") {
  throw new Error("coworkkit: testing: coworkkit/testing runs in Node beside your tests, never in a page (code: wrong_environment)");
}

const POLL_MS = 25;
/** A click within the browser's double-click time (≈ 500 ms) at the same place is a double click. */
const APART_MS = 600;
const DEFAULT_TIMEOUT = 10_000;

/**
 * Runs in the page with `this` = the card's `<dialog part="card">`: what it shows, or null
 * when it is not open.
 * @this {any}
 */
function readInPage() {
  if (!(this.open && this.matches(":modal"))) return null;
  /** @type {ShadowRoot} */
  const root = this.getRootNode();
  /** @param {string} name */
  const part = (name) => /** @type {HTMLElement | null} */ (root.querySelector(`[part~="${name}"]`));
  /** @param {HTMLElement | null} el */
  const shown = (el) => !!el && !el.hidden && el.getClientRects().length > 0;
  /** @param {string} name */
  const shownText = (name) => {
    const el = part(name);
    return shown(el) && el?.textContent ? el.textContent : null;
  };
  const buttons = [];
  for (const name of ["cancel-all", "cancel", "confirm"]) {
    const b = /** @type {HTMLButtonElement | null} */ (part(name));
    if (b && shown(b)) buttons.push({ part: name, label: b.textContent ?? "", disabled: b.disabled });
  }
  const active = root.activeElement;
  return {
    title: part("title")?.textContent ?? "",
    summary: part("summary")?.textContent ?? "",
    position: shownText("position"),
    buttons,
    armed: part("confirm")?.getAttribute("data-armed") === "true",
    countdown: shownText("countdown"),
    notice: shownText("notice"),
    reason: /** @type {HTMLInputElement | null} */ (part("reason"))?.value ?? "",
    focused: active ? active.getAttribute("part") : null,
  };
}

/**
 * Runs in the page with `this` = the card's dialog: `{ state, at }`, the state as `readInPage`
 * reads it and the centre of the part named `name` in viewport coordinates (null when hidden).
 * @this {any}
 * @param {string} name
 */
function targetInPage(name) {
  const read = (0, eval)(`(${READ_SOURCE})`);
  const state = read.call(this);
  const el = /** @type {HTMLElement | null} */ (this.getRootNode().querySelector(`[part~="${name}"]`));
  if (!state || !el || el.getClientRects().length === 0) return { state, at: null };
  const r = el.getBoundingClientRect();
  return { state, at: { x: r.x + r.width / 2, y: r.y + r.height / 2 } };
}
const READ_SOURCE = readInPage.toString();
// `targetInPage` runs in the page, where READ_SOURCE is not defined: it gets it spliced in.
const TARGET_SOURCE = targetInPage.toString().replace("READ_SOURCE", JSON.stringify(READ_SOURCE));

/** @type {WeakMap<object, CdpSession>} */
const sessions = new WeakMap();
/** @type {WeakMap<object, number>} */
const lastClicks = new WeakMap();

/**
 * The kind of `page`, or a TypeError that says what is accepted.
 * @param {unknown} page
 * @param {string} fn
 * @returns {"playwright" | "driver"}
 */
function kindOf(page, fn) {
  const p = /** @type {any} */ (page);
  if (p && typeof p === "object" && typeof p.mouse?.click === "function" && typeof p.keyboard?.type === "function") {
    if (typeof p.onPart === "function") return "driver";
    if (typeof p.context === "function") {
      const name = p.context().browser?.()?.browserType?.().name?.();
      if (name && name !== "chromium") {
        throw new TypeError(`coworkkit: testing: ${fn} was given Playwright's ${name} page; only a Chromium page works, through the DevTools protocol (no other engine's protocol reaches a closed shadow root). Run these tests in Playwright's "chromium" project (code: unsupported_page)`);
      }
      return "playwright";
    }
  }
  throw new TypeError(`coworkkit: testing: ${fn} needs the test's page object from Node: Playwright's Chromium Page (or a driver page with onPart, mouse and keyboard); it got ${describe(page)}. Call it in the test, never inside page.evaluate (code: unsupported_page)`);
}

/** @param {unknown} value */
function describe(value) {
  if (value === null || value === undefined) return String(value);
  if (typeof value !== "object") return `a ${typeof value}`;
  const name = Object.getPrototypeOf(value)?.constructor?.name;
  return name ? `a ${name}` : "an object";
}

/**
 * Runs the page function `src` on the card's dialog with `arg`; `undefined` when the page has
 * no card.
 * @param {CardPage} page
 * @param {"playwright" | "driver"} kind
 * @param {string} src
 * @param {unknown} arg
 * @returns {Promise<any>}
 */
async function inCard(page, kind, src, arg) {
  if (kind === "driver") {
    // The driver sends `fn.toString()` into the page: a function that says its source is `src`.
    /** @type {any} */
    const fn = function () {};
    fn.toString = () => src;
    return /** @type {CardDriverPage} */ (page).onPart("card", fn, [arg]);
  }
  try {
    return await inCardCdp(/** @type {PlaywrightChromiumPage} */ (page), src, arg);
  } catch (e) {
    // A session ends with its page's renderer (a navigation may swap it): start one again.
    if (!sessions.has(page)) throw e;
    sessions.delete(page);
    return inCardCdp(/** @type {PlaywrightChromiumPage} */ (page), src, arg);
  }
}

/**
 * @param {PlaywrightChromiumPage} page
 * @param {string} src
 * @param {unknown} arg
 */
async function inCardCdp(page, src, arg) {
  let cdp = sessions.get(page);
  if (!cdp) {
    cdp = /** @type {CdpSession} */ (await page.context().newCDPSession(/** @type {never} */ (page)));
    sessions.set(page, cdp);
  }
  const { root } = await cdp.send("DOM.getDocument", { depth: -1, pierce: true });
  const dialog = findDialog(root);
  if (!dialog) return undefined;
  const group = "coworkkit-testing";
  const { object } = await cdp.send("DOM.resolveNode", { backendNodeId: dialog.backendNodeId, objectGroup: group });
  try {
    const { result, exceptionDetails } = await cdp.send("Runtime.callFunctionOn", {
      objectId: object.objectId, functionDeclaration: src, arguments: [{ value: arg }],
      returnByValue: true, awaitPromise: true,
    });
    if (exceptionDetails) throw new Error(exceptionDetails.exception?.description ?? exceptionDetails.text);
    return result.value;
  } finally {
    await cdp.send("Runtime.releaseObjectGroup", { objectGroup: group });
  }
}

/**
 * The card's dialog in a pierced DOM tree: the `part="card"` child of the shadow root of the
 * `<coworkkit-card data-coworkkit="card">` host.
 * @param {any} node
 * @returns {any}
 */
function findDialog(node) {
  const attrs = node.attributes ?? [];
  let isHost = false;
  for (let i = 0; i < attrs.length; i += 2) if (attrs[i] === "data-coworkkit" && attrs[i + 1] === "card") isHost = true;
  if (isHost) {
    for (const root of node.shadowRoots ?? []) {
      for (const child of root.children ?? []) {
        const a = child.attributes ?? [];
        for (let i = 0; i < a.length; i += 2) if (a[i] === "part" && a[i + 1].split(/\s+/).includes("card")) return child;
      }
    }
  }
  for (const child of [...(node.children ?? []), ...(node.shadowRoots ?? []), ...(node.contentDocument ? [node.contentDocument] : [])]) {
    const found = findDialog(child);
    if (found) return found;
  }
  return null;
}

/**
 * Polls until `ready(state)` holds for the part `name`'s target; its state and centre.
 * @param {CardPage} page
 * @param {"playwright" | "driver"} kind
 * @param {string} name
 * @param {(s: CardState) => boolean} ready
 * @param {number} timeout
 * @param {string} what
 * @returns {Promise<{ state: CardState, at: { x: number, y: number } }>}
 */
async function waitTarget(page, kind, name, ready, timeout, what) {
  const until = Date.now() + timeout;
  let last;
  for (;;) {
    last = await inCard(page, kind, TARGET_SOURCE, name);
    if (last?.state && last.at && ready(last.state)) return last;
    if (Date.now() > until) {
      throw new Error(`coworkkit: testing: no ${what} within ${timeout} ms; the card: ${JSON.stringify(last?.state ?? null)}. Is a hard action waiting, and is the window focused and visible (the arm delay counts only then)? (code: timeout)`);
    }
    await sleep(POLL_MS);
  }
}

/** @param {CardPage} page @param {{ x: number, y: number }} at */
async function personClick(page, at) {
  const last = lastClicks.get(page);
  const wait = last === undefined ? 0 : APART_MS - (Date.now() - last);
  if (wait > 0) await sleep(wait);
  await page.mouse.click(at.x, at.y);
  lastClicks.set(page, Date.now());
}

/** @param {unknown} timeout @param {string} fn */
function checkTimeout(timeout, fn) {
  if (timeout === undefined) return DEFAULT_TIMEOUT;
  if (typeof timeout !== "number" || !(timeout >= 0)) {
    throw new TypeError(`coworkkit: testing: ${fn}'s timeout must be a number of ms ≥ 0; got ${String(timeout)} (code: invalid_option)`);
  }
  return timeout;
}

/** @type {typeof import("./testing.js").readCard} */
export async function readCard(page) {
  const kind = kindOf(page, "readCard");
  return (await inCard(page, kind, READ_SOURCE, null)) ?? null;
}

/** @type {typeof import("./testing.js").confirmCard} */
export async function confirmCard(page, options = {}) {
  const kind = kindOf(page, "confirmCard");
  const timeout = checkTimeout(options.timeout, "confirmCard");
  const { state, at } = await waitTarget(page, kind, "confirm", (s) => s.armed, timeout, "open card with Confirm armed");
  await personClick(page, at);
  return state;
}

/** @type {typeof import("./testing.js").cancelCard} */
export async function cancelCard(page, options = {}) {
  const kind = kindOf(page, "cancelCard");
  const timeout = checkTimeout(options.timeout, "cancelCard");
  const { reason } = options;
  if (reason !== undefined && typeof reason !== "string") {
    throw new TypeError(`coworkkit: testing: cancelCard's reason must be a string; got ${describe(reason)} (code: invalid_option)`);
  }
  const until = Date.now() + timeout;
  if (reason) {
    const field = await waitTarget(page, kind, "reason", () => true, timeout, "open card with its reason field");
    await personClick(page, field.at);
    await page.keyboard.type(reason);
  }
  // Cancel's centre is read once the reason is in (the card may have grown as it was typed).
  const { state, at } = await waitTarget(page, kind, "cancel", (s) => !reason || s.reason === reason,
    Math.max(0, until - Date.now()), reason ? "open card with the reason typed" : "open card with Cancel");
  await personClick(page, at);
  return state;
}
