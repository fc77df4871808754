// The driver layer: one interface over three automation stacks, chosen by COWORKKIT_ENGINE
// (chromium by default, firefox, webkit). See tests/e2e/drivers/README.md.
//
//   const browser = await launchBrowser(engine, { args, prefs })   // args: extra launch flags
//   const page = await browser.newPage({ viewport, colorScheme, openShadowRoots, focusWindow })
//   page.goto(url) · page.evaluate(fn, arg) · page.evaluateNoGesture(fn, arg)
//   page.addScript({ content, type }) · page.onPart(part, fn, args)
//   page.mouse.click(x, y) · page.mouse.dblclick(x, y) · page.mouse.wheel(x, y, deltaY) · page.mouse.down(x, y) · page.mouse.up()
//   page.mouse.clickTwice(x, y, gapMs)
//   page.keyboard.press("Shift+Tab" | "End" | "PageDown" | …)
//   page.keyboard.type(text) · page.keyboard.typeKeys(["a", "Tab", "Enter"], gapMs) · page.screenshot({ path, clip | selector }) · page.setViewport(w, h)
//   page.listenerCount() · page.allowClipboard(origin) · page.problems / warnings / logs
//   page.webauthn · page.addVirtualAuthenticator(options) → auth: auth.setUserVerified(bool),
//     auth.credentials(), auth.remove() (virtual WebAuthn authenticators, drivers/webauthn.mjs)
//   page.close() · browser.html (a rewrite for served HTML, or undefined) · browser.version
//   browser.probe() (WebKit only) → { verdict: "driver stalled" | "page pending" | "page busy",
//     detail }: the watchdog's questions to the driver (../watchdog.mjs)
export const ENGINES = ["chromium", "firefox", "webkit"];
export const ENGINE = process.env.COWORKKIT_ENGINE ?? "chromium";
if (!ENGINES.includes(ENGINE)) throw new Error(`COWORKKIT_ENGINE=${ENGINE}: expected one of ${ENGINES.join(", ")}`);

/** The browsers started and not yet closed, oldest first (the watchdog probes the last one). */
export const running = [];

/** Starts `engine` with its extra launch options. */
export async function launchBrowser(engine = ENGINE, options = {}) {
  const { launch } = await import(`./${engine}.mjs`);
  const browser = await launch(options);
  running.push(browser);
  const close = browser.close.bind(browser);
  browser.close = () => {
    const at = running.indexOf(browser);
    if (at >= 0) running.splice(at, 1);
    return close();
  };
  return browser;
}
