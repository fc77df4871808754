// WebKit (WebKitGTK's MiniBrowser, Debian's webkit2gtk-driver) over selenium-webdriver and
// WebKitWebDriver, under an Xvfb display of its own. The driver starts Xvfb and WebKitWebDriver
// and stops both by their own pids. WebDriver actions (pointer, keys) are trusted input with
// transient activation; executing a script is not a user gesture.
//
// WebKitWebDriver speaks WebDriver classic only (no BiDi), and its Get Element Shadow Root runs
// `element.shadowRoot`, which is null for a closed root; it has no console events either. So
// the server that serves the pages to this engine puts the page tap (tap.js) first in every
// HTML page: it keeps the shadow roots the page attaches (they stay closed: `host.shadowRoot`
// is still null for the page and the SDK) under a random non-enumerable name for the test, and
// collects the console. Clicks on the card are still real WebDriver pointer actions at the
// coordinates the tap reads; the documented keyboard path (Tab, Shift+Tab, Enter, Space,
// Escape) is driven with real WebDriver key actions too.
//
// No WebAuthn: WebKitGTK 2.50's MiniBrowser gives pages no `navigator.credentials` and no
// `PublicKeyCredential` (its feature list has no Web Authentication switch), and WebKitWebDriver
// leaves `webauthn:virtualAuthenticators` out of the session it creates and answers the WebDriver
// WebAuthn extension's commands "unknown command"; `page.webauthn` says so from that answer.
import { execFile, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { Builder, By, Key, Origin } from "selenium-webdriver";
import { PART_CALL, evaluateExpression, source, encode, unwrap } from "./codec.mjs";
import { freePort, stop, waitReady, webDriverClient } from "./processes.mjs";
import { PageAuthenticators, webDriverAuthenticators } from "./webauthn.mjs";

const MINIBROWSER = "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser";
const TAP = readFileSync(new URL("./tap.js", import.meta.url), "utf8");
const TAP_NAME = `__ckTap${Math.random().toString(36).slice(2)}`;
const TAP_SCRIPT = `<script>window.__ckTapConfig = ${JSON.stringify({ name: TAP_NAME, roots: true, console: true, listeners: true })};\n${TAP}</script>`;

/** Starts Xvfb on a free display (it writes the display number to fd 3). */
function startXvfb() {
  const xvfb = spawn("Xvfb", ["-displayfd", "3", "-screen", "0", "1600x2600x24", "-nolisten", "tcp"],
    { stdio: ["ignore", "ignore", "pipe", "pipe"] });
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    xvfb.stderr.on("data", (d) => { err += d; });
    xvfb.stdio[3].on("data", (d) => {
      out += d;
      if (out.includes("\n")) resolve({ process: xvfb, display: `:${out.trim()}` });
    });
    xvfb.on("exit", (code) => reject(new Error(`Xvfb exited (${code}): ${err}`)));
  });
}

export async function launch({ args = [] } = {}) {
  const xvfb = await startXvfb();
  const port = await freePort();
  const driverProcess = spawn("WebKitWebDriver", [`--port=${port}`], {
    env: { ...process.env, DISPLAY: xvfb.display }, stdio: ["ignore", "ignore", "pipe"],
  });
  driverProcess.stderr.on("data", () => {});
  // Should the test process end without close() (a crash, a kill), take both along.
  const orphans = () => { for (const c of [driverProcess, xvfb.process]) try { process.kill(c.pid, "SIGKILL"); } catch { /* gone */ } };
  process.once("exit", orphans);
  const url = `http://127.0.0.1:${port}`;
  const sessions = new Set();
  /** The driver commands sent and not yet answered, for the watchdog: { name, since }. */
  const inFlight = new Set();
  const track = async (name, send) => {
    const entry = { name, since: Date.now() };
    inFlight.add(entry);
    try { return await send(); } finally { inFlight.delete(entry); }
  };
  /** The session the watchdog asks about: the last page's. */
  let sessionId = null;
  try {
    await waitReady(url, driverProcess, "WebKitWebDriver");
  } catch (e) {
    await stop(driverProcess);
    await stop(xvfb.process);
    throw e;
  }
  const version = `WebKitGTK ${await webkitVersion(xvfb.display)}`;
  return {
    engine: "webkit",
    version,
    /** Every HTML page this engine loads gets the tap first. */
    html: (text) => text.replace(/<head([^>]*)>/i, (m) => `${m}${TAP_SCRIPT}`),
    /** WebKitWebDriver serves one session at a time: a new page closes the one before. */
    async newPage({ viewport, colorScheme, openShadowRoots = false } = {}) {
      for (const d of sessions) await quit(d);
      sessions.clear();
      sessionId = null;
      // A session: WebKitWebDriver starts a MiniBrowser for it (tracked for the watchdog too).
      const driver = await track("newSession", () => new Builder().usingServer(url).withCapabilities({
        browserName: "MiniBrowser",
        "webauthn:virtualAuthenticators": true,
        "webkitgtk:browserOptions": {
          binary: MINIBROWSER,
          args: ["--automation", ...(colorScheme === "dark" ? ["--dark-mode"] : []), ...args],
        },
      }).build());
      sessions.add(driver);
      const execute = driver.execute.bind(driver);
      driver.execute = (command) => track(command.getName(), () => execute(command));
      const session = await driver.getSession();
      sessionId = session.getId();
      await driver.manage().setTimeouts({ script: 600000, pageLoad: 60000 });
      const page = new WebKitPage(driver, () => sessions.delete(driver), openShadowRoots, {
        // Asked for as the WebDriver WebAuthn extension says; WebKitWebDriver 2.50 leaves it out
        // of its answer and answers its commands "unknown command".
        virtualAuthenticators: session.getCapabilities().get("webauthn:virtualAuthenticators") === true,
        authenticators: webDriverAuthenticators(webDriverClient(url), session.getId()),
      });
      await page.setViewport(viewport?.width ?? 1280, viewport?.height ?? 720);
      await focusWindow(xvfb.display);
      return page;
    },
    /** The watchdog's questions (../watchdog.mjs): see probeDriver. */
    probe: () => probeDriver(url, sessionId, [...inFlight]),
    async close() {
      for (const d of sessions) await quit(d);
      await stop(driverProcess);
      await stop(xvfb.process);
      process.off("exit", orphans);
    },
  };
}

/**
 * Gives the MiniBrowser's window the X input focus, as a person's browser window has it. Xvfb
 * runs no window manager, so no window is ever focused by itself, and WebKit then reports
 * `document.hasFocus()` false, which keeps the SDK's card from arming (SPEC §4.2: armed only
 * while the window is focused). xdotool (Debian's package, installed by scripts/setup) sets the
 * focus; of the MiniBrowser's windows only the top-level one accepts it.
 */
async function focusWindow(display) {
  const env = { ...process.env, DISPLAY: display };
  const run = (args) => new Promise((resolve) => {
    execFile("xdotool", args, { env, timeout: 5000 }, (error, stdout) => resolve(error ? null : stdout));
  });
  const ids = ((await run(["search", "--onlyvisible", "--class", "MiniBrowser"])) ?? "").split("\n").filter(Boolean);
  let focused = false;
  for (const id of ids) focused = (await run(["windowfocus", "--sync", id])) !== null || focused;
  if (!focused) throw new Error(`webkit: could not focus the MiniBrowser window on ${display} (is xdotool installed?)`);
}

/**
 * Ends a session, but never waits more than 15 s for it: a stalled driver would otherwise hold
 * the next page, or the file's end, forever (its process is stopped by its pid afterwards).
 */
function quit(driver) {
  return Promise.race([driver.quit().catch(() => {}), new Promise((r) => setTimeout(r, 15_000).unref())]);
}

/**
 * How long the watchdog waits for each answer (status: the driver process alone; session: a
 * command through the browser), and how long a command other than a page script may wait while
 * the driver answers before it counts as stuck in the driver.
 */
export const PROBE_LIMITS = { statusMs: 5_000, sessionMs: 10_000, stuckMs: 30_000 };
/** The commands that wait on the page's scripts: while one waits, the page is what is pending. */
const PAGE_SCRIPTS = new Set(["executeScript", "executeAsyncScript"]);

/**
 * The watchdog's probe (../watchdog.mjs), at a test's time limit: asks WebKitWebDriver for its
 * status (the driver process alone), for the session's URL (the driver and the browser's
 * automation, no page script) and to run `return 1` in the page (the page's thread), each with a
 * short limit, while the test's own commands (`inFlight`) may still wait.
 *
 *   status or URL unanswered (or a new session      → driver stalled
 *   unanswered for stuckMs)
 *   answered, `return 1` did not run                → page busy (the page's thread is stuck)
 *   answered, `return 1` ran, and a command that is → driver stalled
 *   no page script (pointer or key actions, a
 *   navigation) has waited stuckMs
 *   answered, `return 1` ran                        → page pending (the test waits on the page:
 *                                                     a call that never settled, or its own wait)
 */
export async function probeDriver(url, sessionId, inFlight, limits = PROBE_LIMITS) {
  const { statusMs, sessionMs, stuckMs } = limits;
  const ask = async (method, path, body, ms) => {
    const started = Date.now();
    try {
      const r = await fetch(url + path, {
        method, signal: AbortSignal.timeout(ms), headers: { "content-type": "application/json; charset=utf-8" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      await r.text();
      return { answered: true, ms: Date.now() - started, status: r.status };
    } catch (e) {
      return { answered: false, why: e?.name === "TimeoutError" ? `no answer in ${ms / 1000} s` : String(e?.cause?.code ?? e?.message ?? e) };
    }
  };
  const now = Date.now();
  const waiting = inFlight.map((c) => `${c.name} waiting ${Math.round((now - c.since) / 1000)} s`).join(", ") || "no driver command waiting";
  const status = await ask("GET", "/status", undefined, statusMs);
  if (!status.answered) return { verdict: "driver stalled", detail: `GET /status: ${status.why}; ${waiting}` };
  const newSession = inFlight.find((c) => c.name === "newSession" && now - c.since > stuckMs);
  if (newSession) return { verdict: "driver stalled", detail: `a new session unanswered for ${Math.round((now - newSession.since) / 1000)} s; ${waiting}` };
  if (!sessionId) return { verdict: "page pending", detail: `no session open, the driver answered its status; ${waiting}` };
  const session = `/session/${sessionId}`;
  const where = await ask("GET", `${session}/url`, undefined, sessionMs);
  if (!where.answered) return { verdict: "driver stalled", detail: `GET url: ${where.why}; status answered in ${status.ms} ms; ${waiting}` };
  const script = await ask("POST", `${session}/execute/sync`, { script: "return 1", args: [] }, sessionMs);
  const answered = `status in ${status.ms} ms, url in ${where.ms} ms`;
  if (!script.answered) return { verdict: "page busy", detail: `${answered}, a script: ${script.why}; ${waiting}` };
  const stuck = inFlight.find((c) => !PAGE_SCRIPTS.has(c.name) && now - c.since > stuckMs);
  if (stuck) return { verdict: "driver stalled", detail: `${stuck.name} unanswered for ${Math.round((now - stuck.since) / 1000)} s while ${answered}, a script in ${script.ms} ms` };
  return { verdict: "page pending", detail: `the driver answered ${answered}, a script in ${script.ms} ms; ${waiting}` };
}

async function webkitVersion(display) {
  return new Promise((resolve) => {
    const p = spawn(MINIBROWSER, ["--version"], { stdio: ["ignore", "pipe", "ignore"], env: { ...process.env, DISPLAY: display } });
    let out = "";
    p.stdout.on("data", (d) => { out += d; });
    p.on("exit", () => resolve(out.trim().replace(/^WebKitGTK\s*/i, "") || "?"));
  });
}

const KEYS = {
  Tab: Key.TAB, Escape: Key.ESCAPE, Enter: Key.ENTER, Space: Key.SPACE, Shift: Key.SHIFT, Backspace: Key.BACK_SPACE,
  End: Key.END, Home: Key.HOME, PageDown: Key.PAGE_DOWN, PageUp: Key.PAGE_UP, ArrowDown: Key.ARROW_DOWN, ArrowUp: Key.ARROW_UP,
};

class WebKitPage {
  #authenticators;

  constructor(driver, forget, openShadowRoots, webauthn) {
    this.engine = "webkit";
    this.driver = driver;
    /** Virtual authenticators: the WebDriver WebAuthn extension's, if the session has them. */
    this.webauthn = { virtualAuthenticators: webauthn.virtualAuthenticators, scope: webauthn.virtualAuthenticators ? "page" : null };
    this.#authenticators = new PageAuthenticators(webauthn.authenticators);
    this.forget = forget;
    this.openShadowRoots = openShadowRoots;
    this.problems = [];
    this.warnings = [];
    this.logs = [];
    const act = () => driver.actions({ async: true });
    const at = (x, y) => ({ x: Math.round(x), y: Math.round(y), origin: Origin.VIEWPORT });
    let wheelY = 0;
    this.mouse = {
      click: (x, y) => act().move(at(x, y)).press().release().perform(),
      dblclick: (x, y) => act().move(at(x, y)).press().release().press().release().perform(),
      /**
       * A trusted wheel turn of `deltaY` pixels at (x, y) (WebDriver's wheel input source).
       * WebKitWebDriver 2.50 keeps the wheel source's delta from one scroll action to the next
       * and sends only the difference (a second scroll of 120 sent nothing): so the driver
       * asks for the running total, for no duration (with selenium's default, nothing came), and
       * moves the pointer there first (a wheel at a point the pointer never went to scrolled nothing).
       */
      /** The left button pressed at (x, y), and released later by `up()` (WebDriver keeps the button's state between actions). */
      down: (x, y) => act().move(at(x, y)).press().perform(),
      up: () => act().release().perform(),
      /**
       * Two clicks at (x, y), `gap` ms apart, in one action sequence: two separate performs reach
       * the page 300 ms or more apart through WebKitWebDriver.
       */
      clickTwice: (x, y, gap) => act().move(at(x, y)).press().release().pause(gap).press().release().perform(),
      wheel: async (x, y, deltaY) => {
        wheelY += Math.round(deltaY);
        await act().move(at(x, y)).perform();
        await act().scroll(Math.round(x), Math.round(y), 0, wheelY, Origin.VIEWPORT, 0).perform();
      },
    };
    this.keyboard = {
      press: async (key) => {
        const keys = key.split("+").map((k) => KEYS[k] ?? k);
        let a = act();
        for (const k of keys) a = a.keyDown(k);
        for (const k of keys.slice().reverse()) a = a.keyUp(k);
        await a.perform();
      },
      type: (text) => act().sendKeys(text).perform(),
      /**
       * Presses each of `keys` in turn, `gap` ms apart, in one action sequence (one perform per
       * key reaches the page at uneven gaps of up to ~500 ms through WebKitWebDriver).
       */
      typeKeys: (keys, gap) => {
        let a = act();
        for (const key of keys) a = a.keyDown(KEYS[key] ?? key).keyUp(KEYS[key] ?? key).pause(gap);
        return a.perform();
      },
    };
  }

  #drain(answer) {
    for (const { type, text } of answer?.console ?? []) {
      if (type === "error") this.problems.push(`console.error: ${text}`);
      else if (type === "pageerror") this.problems.push(`pageerror: ${text}`);
      else if (type === "warning") this.warnings.push(text);
      else if (type === "log") this.logs.push(text);
    }
    return answer;
  }

  async #run(expression) {
    const script = `const done = arguments[arguments.length - 1];
      Promise.resolve(${expression}).then((answer) => {
        const tap = window[${JSON.stringify(TAP_NAME)}];
        done({ ...answer, console: tap ? tap.console.splice(0) : [] });
      });`;
    return this.#drain(await this.driver.executeAsyncScript(script));
  }

  async goto(url) {
    const u = new URL(url);
    if (this.openShadowRoots) u.searchParams.set("ck-open-shadow-roots", "");
    await this.driver.get(u.href);
  }

  async evaluate(fn, arg) {
    return unwrap(await this.#run(evaluateExpression(source(fn), arg)));
  }

  /** Executing a script is no user gesture in WebKit. */
  evaluateNoGesture(fn, arg) { return this.evaluate(fn, arg); }

  async addScript({ content, type }) {
    await this.evaluate(([content, type]) => {
      const s = document.createElement("script");
      if (type) s.type = type;
      s.textContent = content;
      document.head.append(s);
    }, [content, type]);
  }

  async onPart(part, fn, args) {
    return unwrap(await this.#run(`(() => {
      const tap = window[${JSON.stringify(TAP_NAME)}];
      const roots = tap.roots.map((r) => r.deref()).filter((r) => r && r.host && r.host.isConnected && r.host.hasAttribute("data-coworkkit"));
      return (${PART_CALL}).call(null, ${JSON.stringify(part)}, ${JSON.stringify(source(fn))}, ${JSON.stringify(encode(args))}, ...roots);
    })()`));
  }

  async listenerCount() {
    return this.evaluate(`(() => {
      const tap = window[${JSON.stringify(TAP_NAME)}];
      const roots = tap.roots.map((r) => r.deref()).filter((r) => r && r.host && r.host.isConnected);
      return { count: tap.listeners, elements: roots.reduce((n, r) => n + r.querySelectorAll("*").length, document.querySelectorAll("*").length) };
    })()`);
  }

  async screenshot({ path, selector }) {
    const png = selector
      ? await this.driver.findElement(By.css(selector)).takeScreenshot()
      : await this.driver.takeScreenshot();
    writeFileSync(path, Buffer.from(png, "base64"));
  }

  /** Sizes the window so that the viewport (innerWidth × innerHeight) is width × height. */
  async setViewport(width, height) {
    const win = this.driver.manage().window();
    await win.setRect({ width, height });
    for (let i = 0; i < 3; i++) {
      const [w, h] = await this.driver.executeScript("return [innerWidth, innerHeight]");
      if (w === width && h === height) return;
      const rect = await win.getRect();
      await win.setRect({ width: rect.width + width - w, height: rect.height + height - h });
    }
  }

  /** WebKit offers no way to grant the clipboard-read permission; see watch.test.mjs. */
  async allowClipboard() {}

  /**
   * A virtual WebAuthn authenticator, through the WebDriver WebAuthn extension: rejects with the
   * driver's answer where the driver has none (WebKitWebDriver 2.50: "unknown command").
   */
  addVirtualAuthenticator(options) { return this.#authenticators.add(options); }

  async close() {
    this.forget();
    await this.#authenticators.removeAll();
    await this.driver.quit();
  }
}
