// Firefox (Debian's /usr/bin/firefox-esr) over puppeteer-core, which speaks WebDriver BiDi to
// it. Its mouse and keyboard (BiDi input.performActions) are trusted input with transient
// activation; `evaluate` is a user gesture (puppeteer asks BiDi for `userActivation: true`, the
// page sees it a moment later), `evaluateNoGesture` is not. The SDK's closed shadow roots are reached
// through BiDi itself: `script.callFunction` with `serializationOptions.includeShadowTree: "all"`
// hands back each host's shadow root, closed ones included, as a shared reference that a
// later call takes as an argument. The page tap (tap.js, as a BiDi preload script) only counts
// event listeners, which BiDi cannot list.
import puppeteer from "puppeteer-core";
import { readFileSync } from "node:fs";
import { PART_CALL, evaluateExpression, source, encode, unwrap } from "./codec.mjs";

const TAP = readFileSync(new URL("./tap.js", import.meta.url), "utf8");
const TAP_NAME = `__ckTap${Math.random().toString(36).slice(2)}`;

/** Test-only preferences: the async clipboard may be read back without a paste prompt. */
const PREFS = { "dom.events.testing.asyncClipboard": true, "dom.events.asyncClipboard.readText": true };

export async function launch({ args = [], prefs = {} } = {}) {
  const browsers = {};
  const start = async (colorScheme) => {
    // The colour scheme is a preference of the whole browser, so a dark page gets a browser of
    // its own (layout.css.prefers-color-scheme.content-override: 0 dark, 1 light).
    const scheme = colorScheme === "dark" ? { "layout.css.prefers-color-scheme.content-override": 0 } : {};
    return puppeteer.launch({
      browser: "firefox", executablePath: "/usr/bin/firefox-esr", headless: true, args,
      extraPrefsFirefox: { ...PREFS, ...prefs, ...scheme },
    });
  };
  browsers.light = await start("light");
  const version = `Firefox ${(await browsers.light.version()).replace(/^firefox\//, "")}`;
  return {
    engine: "firefox",
    version,
    async newPage({ viewport, colorScheme, openShadowRoots = false } = {}) {
      const key = colorScheme === "dark" ? "dark" : "light";
      browsers[key] ??= await start(key);
      const context = await browsers[key].createBrowserContext();
      const page = await context.newPage();
      await page.setViewport(viewport ?? { width: 1280, height: 720 });
      await page.evaluateOnNewDocument(`window.__ckTapConfig = ${JSON.stringify({ name: TAP_NAME, listeners: true, open: openShadowRoots })};\n${TAP}`);
      return new FirefoxPage(context, page);
    },
    async close() { for (const b of Object.values(browsers)) await b.close(); },
  };
}

/** The `{ ok | error | missing }` object of a BiDi evaluation result, as a plain object. */
function plain(answer) {
  if (answer.type === "exception") throw new Error(answer.exceptionDetails?.text ?? "exception in the page");
  return Object.fromEntries((answer.result?.value ?? []).map(([k, v]) => [k, v.value]));
}

class FirefoxPage {
  constructor(context, page) {
    this.engine = "firefox";
    this.context = context;
    this.page = page;
    this.problems = [];
    this.warnings = [];
    this.logs = [];
    page.on("pageerror", (e) => this.problems.push(`pageerror: ${e.message}`));
    page.on("console", (m) => {
      if (m.type() === "error") this.problems.push(`console.error: ${m.text()}`);
      if (m.type() === "warn") this.warnings.push(m.text());
      if (m.type() === "log") this.logs.push(m.text());
    });
    this.mouse = {
      click: (x, y) => page.mouse.click(x, y),
      dblclick: (x, y) => page.mouse.click(x, y, { count: 2 }),
    };
    this.keyboard = {
      press: async (key) => {
        const keys = key.split("+").map((k) => (k === "Space" ? " " : k));
        for (const k of keys.slice(0, -1)) await page.keyboard.down(k);
        await page.keyboard.press(keys.at(-1));
        for (const k of keys.slice(0, -1).reverse()) await page.keyboard.up(k);
      },
      type: (text) => page.keyboard.type(text),
    };
  }

  get #realm() { return this.page.mainFrame().browsingContext.defaultRealm; }

  async goto(url) { await this.page.goto(url); }

  async evaluate(fn, arg) {
    return unwrap(await this.page.evaluate(evaluateExpression(source(fn), arg)));
  }

  /**
   * Evaluates without a user gesture: puppeteer's own evaluate asks BiDi for
   * `userActivation: true` (the page gets transient activation shortly after), this one does
   * not.
   */
  async evaluateNoGesture(fn, arg) {
    const answer = await this.#realm.evaluate(evaluateExpression(source(fn), arg), true, {
      userActivation: false, resultOwnership: "none", serializationOptions: { maxObjectDepth: 1 },
    });
    return unwrap(plain(answer));
  }

  async addScript({ content, type }) {
    await this.page.addScriptTag({ content, ...(type ? { type } : {}) });
  }

  /** The shadow roots of the SDK's hosts, closed ones included, as BiDi shared references. */
  async #roots() {
    const { result } = await this.#realm.callFunction(
      "() => [...document.querySelectorAll('[data-coworkkit]')]", false,
      { serializationOptions: { maxDomDepth: 0, includeShadowTree: "all" }, resultOwnership: "none" },
    );
    if (result?.type !== "array") throw new Error(`BiDi returned ${JSON.stringify(result)}`);
    return result.value.map((node) => node.value?.shadowRoot).filter((root) => root?.sharedId)
      .map((root) => ({ sharedId: root.sharedId }));
  }

  async onPart(part, fn, args) {
    const roots = await this.#roots();
    const answer = await this.#realm.callFunction(PART_CALL, true, {
      arguments: [{ type: "string", value: part }, { type: "string", value: source(fn) },
        { type: "string", value: encode(args) }, ...roots],
      resultOwnership: "none",
      serializationOptions: { maxObjectDepth: 1 },
    });
    return unwrap(plain(answer));
  }

  /** Live listeners (counted by the tap) and elements, the closed shadow roots' included. */
  async listenerCount() {
    const roots = await this.#roots();
    const answer = await this.#realm.callFunction(
      `function (name, ...roots) {
        const elements = roots.reduce((n, r) => n + r.querySelectorAll("*").length, document.querySelectorAll("*").length);
        return JSON.stringify({ count: window[name].listeners, elements });
      }`, false,
      { arguments: [{ type: "string", value: TAP_NAME }, ...roots], resultOwnership: "none" },
    );
    if (answer.type === "exception") throw new Error(answer.exceptionDetails?.text ?? "exception in the page");
    return JSON.parse(answer.result.value);
  }

  /** The viewport, a clip of it, or one page element (`selector`). */
  async screenshot({ path, clip, selector }) {
    if (selector) await (await this.page.$(selector)).screenshot({ path });
    else await this.page.screenshot({ path, ...(clip ? { clip } : {}) });
  }

  async setViewport(width, height) { await this.page.setViewport({ width, height }); }

  /** Reading the clipboard back needs only the test preferences set at launch. */
  async allowClipboard() {}

  async close() { await this.context.close(); }
}
