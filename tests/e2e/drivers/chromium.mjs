// Chromium (Debian's /usr/bin/chromium) over Playwright. Playwright's mouse and keyboard are
// trusted input; `evaluate` runs as a user gesture (transient activation for a few seconds);
// the SDK's closed shadow roots are reached through the DevTools protocol (DOM.getDocument with
// pierce: true, DOM.resolveNode, Runtime.callFunctionOn), with no help from the page.
// Every page runs in the protocol's virtual WebAuthn environment (WebAuthn.enable), where
// `page.addVirtualAuthenticator` adds authenticators: without it a request goes to the real
// platform, whose prompt headless Chromium never shows (measured: a `get` with `timeout: 3000`
// was still pending 11 minutes later); in the virtual environment, one no authenticator can
// answer fails with NotAllowedError when its `timeout` runs out.
import { chromium } from "playwright-core";
import { PART_CALL, evaluateExpression, source, encode, unwrap } from "./codec.mjs";
import { PageAuthenticators } from "./webauthn.mjs";

export const FLAGS = [
  "--js-flags=--expose-gc",
  "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
  "--disable-sync", "--no-first-run", "--disable-quic", "--disable-dev-shm-usage",
];

export async function launch({ args = [] } = {}) {
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true, args: [...FLAGS, ...args] });
  return {
    engine: "chromium",
    version: `Chromium ${browser.version()}`,
    async newPage({ viewport, colorScheme, openShadowRoots = false } = {}) {
      const context = await browser.newContext({ ...(viewport ? { viewport } : {}), ...(colorScheme ? { colorScheme } : {}) });
      const page = await context.newPage();
      if (openShadowRoots) {
        await page.addInitScript(() => {
          const attach = Element.prototype.attachShadow;
          Element.prototype.attachShadow = function (init) { return attach.call(this, { ...init, mode: "open" }); };
        });
      }
      // A session of its own for the WebAuthn domain, for the page's whole life (goto opens
      // new ones for the other domains; disabling WebAuthn would remove the authenticators).
      const webauthn = await context.newCDPSession(page);
      await webauthn.send("WebAuthn.enable");
      return new ChromiumPage(context, page, webauthn);
    },
    async close() { await browser.close(); },
  };
}

const KEYS = { Space: "Space" };

class ChromiumPage {
  #authenticators;

  constructor(context, page, webauthn) {
    this.engine = "chromium";
    this.context = context;
    this.page = page;
    /** Virtual authenticators: the DevTools protocol's, one page's own. */
    this.webauthn = { virtualAuthenticators: true, scope: "page" };
    this.#authenticators = new PageAuthenticators({
      add: async ({ isUserConsenting, ...options }) => (await webauthn.send("WebAuthn.addVirtualAuthenticator", {
        options: { ...options, automaticPresenceSimulation: isUserConsenting },
      })).authenticatorId,
      setUserVerified: (authenticatorId, isUserVerified) => webauthn.send("WebAuthn.setUserVerified", { authenticatorId, isUserVerified }),
      credentials: async (authenticatorId) => (await webauthn.send("WebAuthn.getCredentials", { authenticatorId })).credentials,
      // The protocol's binary fields are base64; the interface's are base64url.
      addCredential: (authenticatorId, c) => webauthn.send("WebAuthn.addCredential", {
        authenticatorId,
        credential: {
          credentialId: Buffer.from(c.credentialId, "base64url").toString("base64"),
          isResidentCredential: c.isResidentCredential, rpId: c.rpId, signCount: c.signCount,
          privateKey: Buffer.from(c.privateKey, "base64url").toString("base64"),
          ...(c.userHandle ? { userHandle: Buffer.from(c.userHandle, "base64url").toString("base64") } : {}),
        },
      }),
      remove: (authenticatorId) => webauthn.send("WebAuthn.removeVirtualAuthenticator", { authenticatorId }),
    });
    this.problems = [];
    this.warnings = [];
    this.logs = [];
    page.on("pageerror", (e) => this.problems.push(`pageerror: ${e.message}`));
    page.on("console", (m) => {
      if (m.type() === "error") this.problems.push(`console.error: ${m.text()}`);
      if (m.type() === "warning") this.warnings.push(m.text());
      if (m.type() === "log") this.logs.push(m.text());
    });
    this.mouse = {
      click: (x, y) => page.mouse.click(x, y),
      dblclick: (x, y) => page.mouse.dblclick(x, y),
      /** A trusted wheel turn of `deltaY` pixels with the pointer at (x, y). */
      wheel: async (x, y, deltaY) => { await page.mouse.move(x, y); await page.mouse.wheel(0, deltaY); },
      /** The left button pressed at (x, y), and released later by `up()` (a slow click, a hold). */
      down: async (x, y) => { await page.mouse.move(x, y); await page.mouse.down(); },
      up: () => page.mouse.up(),
      /** Two single clicks at (x, y), `gap` ms apart. */
      clickTwice: async (x, y, gap) => { await page.mouse.click(x, y); await new Promise((r) => setTimeout(r, gap)); await page.mouse.click(x, y); },
    };
    this.keyboard = {
      press: (key) => page.keyboard.press(KEYS[key] ?? key),
      type: (text) => page.keyboard.type(text),
      /** Presses each of `keys` in turn, `gap` ms apart (a person typing). */
      typeKeys: async (keys, gap) => {
        for (const key of keys) { await page.keyboard.press(KEYS[key] ?? key); await new Promise((r) => setTimeout(r, gap)); }
      },
    };
  }

  async goto(url) {
    await this.page.goto(url);
    this.cdp = await this.context.newCDPSession(this.page);
  }

  async evaluate(fn, arg) {
    return unwrap(await this.page.evaluate(evaluateExpression(source(fn), arg)));
  }

  /** Evaluates without a user gesture (Playwright's own evaluate counts as one). */
  async evaluateNoGesture(fn, arg) {
    const { result, exceptionDetails } = await this.cdp.send("Runtime.evaluate", {
      expression: evaluateExpression(source(fn), arg), returnByValue: true, awaitPromise: true, userGesture: false,
    });
    if (exceptionDetails) throw new Error(exceptionDetails.exception?.description ?? exceptionDetails.text);
    return unwrap(result.value);
  }

  async addScript({ content, type }) {
    await this.page.addScriptTag({ content, ...(type ? { type } : {}) });
  }

  /** Finds a node of the SDK's closed shadow roots by `part` name; CDP pierces them. */
  async #partNode(part) {
    const { root } = await this.cdp.send("DOM.getDocument", { depth: -1, pierce: true });
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

  async onPart(part, fn, args) {
    const node = await this.#partNode(part);
    if (!node) return undefined;
    const { object } = await this.cdp.send("DOM.resolveNode", { backendNodeId: node.backendNodeId });
    const { result, exceptionDetails } = await this.cdp.send("Runtime.callFunctionOn", {
      objectId: object.objectId,
      functionDeclaration: PART_CALL,
      arguments: [{ value: part }, { value: source(fn) }, { value: encode(args) }],
      returnByValue: true,
      awaitPromise: true,
    });
    if (exceptionDetails) throw new Error(exceptionDetails.exception?.description ?? exceptionDetails.text);
    return unwrap(result.value);
  }

  /** Event listeners on window, document and every element (closed shadow roots included). */
  async listenerCount() {
    const { root } = await this.cdp.send("DOM.getDocument", { depth: -1, pierce: true });
    const ids = [];
    const walk = (n) => {
      if (n.nodeType === 1) ids.push(n.backendNodeId);
      for (const c of [...(n.children ?? []), ...(n.shadowRoots ?? [])]) walk(c);
    };
    walk(root);
    const objects = [];
    for (const expression of ["window", "document"]) {
      const { result } = await this.cdp.send("Runtime.evaluate", { expression });
      objects.push(result.objectId);
    }
    for (const backendNodeId of ids) {
      const { object } = await this.cdp.send("DOM.resolveNode", { backendNodeId });
      objects.push(object.objectId);
    }
    let count = 0;
    for (const objectId of objects) {
      const { listeners } = await this.cdp.send("DOMDebugger.getEventListeners", { objectId });
      count += listeners.length;
    }
    return { count, elements: ids.length };
  }

  /** The viewport, a clip of it, or one page element (`selector`). */
  async screenshot({ path, clip, selector }) {
    if (selector) await this.page.locator(selector).screenshot({ path });
    else await this.page.screenshot({ path, ...(clip ? { clip } : {}) });
  }

  async setViewport(width, height) {
    await this.page.setViewportSize({ width, height });
  }

  /** Lets the page read the clipboard back (Chromium asks for a permission). */
  async allowClipboard(origin) {
    await this.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin });
  }

  /** A virtual WebAuthn authenticator for this page (drivers/webauthn.mjs). */
  addVirtualAuthenticator(options) { return this.#authenticators.add(options); }

  async close() {
    await this.#authenticators.removeAll();
    await this.context.close();
  }
}
