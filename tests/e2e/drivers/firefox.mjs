// Firefox (Debian's /usr/bin/firefox-esr) over puppeteer-core, which speaks WebDriver BiDi to
// it. Its mouse and keyboard (BiDi input.performActions) are trusted input with transient
// activation; `evaluate` is a user gesture (puppeteer asks BiDi for `userActivation: true`, the
// page sees it a moment later), `evaluateNoGesture` is not. The SDK's closed shadow roots are reached
// through BiDi itself: `script.callFunction` with `serializationOptions.includeShadowTree: "all"`
// hands back each host's shadow root, closed ones included, as a shared reference that a
// later call takes as an argument. The page tap (tap.js, as a BiDi preload script) only counts
// event listeners, which BiDi cannot list.
//
// Firefox is started by geckodriver, in a WebDriver session that is both classic (HTTP) and
// BiDi (`webSocketUrl: true`), and puppeteer drives that same session over its BiDi websocket:
// the classic side is for what only it offers, the WebDriver WebAuthn extension's virtual
// authenticators (`page.addVirtualAuthenticator`). Firefox holds one WebDriver session at a
// time, so puppeteer, which opens every connection with `session.new`, is answered that one
// locally (`sessionTransport`). The profile is the one puppeteer.launch would write
// (@puppeteer/browsers' createProfile with puppeteer's preferences), so the browser is the same.
import puppeteer from "puppeteer-core";
import { NodeWebSocketTransport } from "puppeteer-core/internal/node/NodeWebSocketTransport.js";
import { Browser as Browsers, createProfile } from "@puppeteer/browsers";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PART_CALL, evaluateExpression, source, encode, unwrap } from "./codec.mjs";
import { freePort, stop, waitReady, webDriverClient } from "./processes.mjs";
import { PageAuthenticators, webDriverAuthenticators } from "./webauthn.mjs";

const FIREFOX = "/usr/bin/firefox-esr";
const TAP = readFileSync(new URL("./tap.js", import.meta.url), "utf8");
const TAP_NAME = `__ckTap${Math.random().toString(36).slice(2)}`;

/**
 * Test-only preferences: the async clipboard may be read back without a paste prompt; WebAuthn
 * requests go to the virtual authenticators only (geckodriver's need the soft token; without
 * the USB token a request no authenticator can answer fails at once, where Firefox would
 * otherwise wait at least 15 s for a security key).
 */
const PREFS = {
  "dom.events.testing.asyncClipboard": true, "dom.events.asyncClipboard.readText": true,
  "security.webauth.webauthn_enable_softtoken": true, "security.webauth.webauthn_enable_usbtoken": false,
};

/**
 * puppeteer's BiDi connection over `ws`, attached to the existing session `session` (a classic
 * New Session answer): `session.new` is answered with that session, `session.end` is left to
 * the classic side (DELETE /session), everything else goes through.
 */
function sessionTransport(ws, session) {
  const transport = {
    onmessage: undefined,
    onclose: undefined,
    send(message) {
      const { id, method } = JSON.parse(message);
      if (method === "session.new" || method === "session.end") {
        const result = method === "session.new" ? { sessionId: session.sessionId, capabilities: session.capabilities } : {};
        setImmediate(() => transport.onmessage?.(JSON.stringify({ type: "success", id, result })));
        return;
      }
      ws.send(message);
    },
    close() { ws.close(); },
  };
  ws.onmessage = (message) => transport.onmessage?.(message);
  ws.onclose = () => transport.onclose?.();
  return transport;
}

/**
 * One Firefox: geckodriver on a free port, a session (classic + BiDi) with a profile of our own,
 * puppeteer connected to it. `close()` ends the session (geckodriver stops Firefox), stops
 * geckodriver by its pid and removes the profile.
 */
async function startFirefox({ args, prefs }) {
  const profile = await mkdtemp(join(tmpdir(), "coworkkit-firefox-"));
  // puppeteer.launch's own preference: all web content in one process, which its BiDi mouse
  // events need (FirefoxLauncher.getPreferences).
  await createProfile(Browsers.FIREFOX, { path: profile, preferences: { ...prefs, "fission.webContentIsolationStrategy": 0 } });
  const port = await freePort();
  const geckodriver = spawn("geckodriver", [`--port=${port}`, "--host=127.0.0.1", "--websocket-port=0"],
    { stdio: ["ignore", "ignore", "pipe"] });
  geckodriver.stderr.on("data", () => {});
  // Firefox's pid while its session lasts (geckodriver stops it when the session ends).
  let firefoxPid = null;
  // Should the test process end without close() (a crash, a kill), take both along.
  const orphans = () => {
    const pids = [firefoxPid, geckodriver.exitCode === null && geckodriver.signalCode === null ? geckodriver.pid : null];
    for (const pid of pids) if (pid) try { process.kill(pid, "SIGKILL"); } catch { /* gone */ }
  };
  process.once("exit", orphans);
  const url = `http://127.0.0.1:${port}`;
  const send = webDriverClient(url);
  const endSession = async () => {
    try {
      await send("DELETE", `/session/${session.sessionId}`);
      firefoxPid = null;
    } catch { /* left to the exit handler */ }
  };
  const abandon = async () => {
    await stop(geckodriver);
    process.off("exit", orphans);
    await rm(profile, { recursive: true, force: true });
  };
  let session;
  try {
    await waitReady(url, geckodriver, "geckodriver");
    session = await send("POST", "/session", { capabilities: { alwaysMatch: {
      browserName: "firefox", webSocketUrl: true, "webauthn:virtualAuthenticators": true,
      // What puppeteer asks of a BiDi session.
      acceptInsecureCerts: false, unhandledPromptBehavior: { default: "ignore" },
      "moz:firefoxOptions": { binary: FIREFOX, args: ["--headless", "--profile", profile, ...args] },
    } } });
  } catch (e) {
    await abandon();
    throw e;
  }
  firefoxPid = session.capabilities["moz:processID"] ?? null;
  try {
    const ws = await NodeWebSocketTransport.create(session.capabilities.webSocketUrl);
    const browser = await puppeteer.connect({ transport: sessionTransport(ws, session), protocol: "webDriverBiDi" });
    return {
      browser,
      version: session.capabilities.browserVersion,
      webauthn: session.capabilities["webauthn:virtualAuthenticators"] === true,
      authenticators: webDriverAuthenticators(send, session.sessionId),
      async close() {
        await browser.disconnect();
        await endSession();
        await abandon();
      },
    };
  } catch (e) {
    await endSession();
    await abandon();
    throw e;
  }
}

export async function launch({ args = [], prefs = {} } = {}) {
  const browsers = {};
  const start = (colorScheme) => {
    // The colour scheme is a preference of the whole browser, so a dark page gets a browser of
    // its own (layout.css.prefers-color-scheme.content-override: 0 dark, 1 light).
    const scheme = colorScheme === "dark" ? { "layout.css.prefers-color-scheme.content-override": 0 } : {};
    return startFirefox({ args, prefs: { ...PREFS, ...prefs, ...scheme } });
  };
  browsers.light = await start("light");
  return {
    engine: "firefox",
    version: `Firefox ${browsers.light.version}`,
    async newPage({ viewport, colorScheme, openShadowRoots = false } = {}) {
      const key = colorScheme === "dark" ? "dark" : "light";
      browsers[key] ??= await start(key);
      const firefox = browsers[key];
      const context = await firefox.browser.createBrowserContext();
      const page = await context.newPage();
      await page.setViewport(viewport ?? { width: 1280, height: 720 });
      await page.evaluateOnNewDocument(`window.__ckTapConfig = ${JSON.stringify({ name: TAP_NAME, listeners: true, open: openShadowRoots })};\n${TAP}`);
      return new FirefoxPage(context, page, firefox);
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
  #authenticators;

  constructor(context, page, firefox) {
    this.engine = "firefox";
    this.context = context;
    this.page = page;
    /**
     * Virtual authenticators: geckodriver's (the WebDriver WebAuthn extension), which are the
     * whole browser's: every page of this Firefox sees them until they are removed.
     */
    this.webauthn = { virtualAuthenticators: firefox.webauthn, scope: firefox.webauthn ? "browser" : null };
    this.#authenticators = new PageAuthenticators(firefox.authenticators);
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
      /** A trusted wheel turn of `deltaY` pixels with the pointer at (x, y) (BiDi's wheel source). */
      wheel: async (x, y, deltaY) => { await page.mouse.move(x, y); await page.mouse.wheel({ deltaY }); },
      /** The left button pressed at (x, y), and released later by `up()` (a slow click, a hold). */
      down: async (x, y) => { await page.mouse.move(x, y); await page.mouse.down(); },
      up: () => page.mouse.up(),
      /** Two single clicks at (x, y), `gap` ms apart. */
      clickTwice: async (x, y, gap) => { await page.mouse.click(x, y); await new Promise((r) => setTimeout(r, gap)); await page.mouse.click(x, y); },
    };
    this.keyboard = {
      press: async (key) => {
        const keys = key.split("+").map((k) => (k === "Space" ? " " : k));
        for (const k of keys.slice(0, -1)) await page.keyboard.down(k);
        await page.keyboard.press(keys.at(-1));
        for (const k of keys.slice(0, -1).reverse()) await page.keyboard.up(k);
      },
      type: (text) => page.keyboard.type(text),
      /** Presses each of `keys` in turn, `gap` ms apart (a person typing). */
      typeKeys: async (keys, gap) => {
        for (const key of keys) { await page.keyboard.press(key === "Space" ? " " : key); await new Promise((r) => setTimeout(r, gap)); }
      },
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

  /** A virtual WebAuthn authenticator (drivers/webauthn.mjs); page.close() removes it. */
  addVirtualAuthenticator(options) { return this.#authenticators.add(options); }

  async close() {
    await this.#authenticators.removeAll();
    await this.context.close();
  }
}
