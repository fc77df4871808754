// The test's tap in the page, for engines whose automation protocol cannot see what a test
// needs (tests/e2e/drivers/README.md says which engine uses which part). It runs before any
// page script: the WebKit driver's server puts it first in every HTML page it serves, the
// Firefox driver installs it as a BiDi preload script. `window.__ckTapConfig` (set just before
// it) chooses the parts:
//   name       the property of `window` (non-enumerable, random per run) that holds the tap
//   roots      keep every shadow root the page attaches, closed ones included, for the test to
//              reach into; `attachShadow` still returns a closed root (`host.shadowRoot` stays
//              null for the page, so the SDK's guarantee is untouched)
//   open       attach every shadow root open instead (only the axe-core tests ask for this;
//              also `?ck-open-shadow-roots` in the page URL)
//   console    collect console.error / warn / log and uncaught errors (WebDriver classic has no
//              console events)
//   listeners  count live event listeners (addEventListener minus removeEventListener), as
//              CDP's DOMDebugger.getEventListeners counts them in Chromium
(() => {
  const config = window.__ckTapConfig ?? {};
  delete window.__ckTapConfig;
  const tap = { roots: [], console: [], listeners: 0 };
  Object.defineProperty(window, config.name ?? "__ckTap", { value: tap, enumerable: false });

  const open = config.open || /[?&]ck-open-shadow-roots\b/.test(location.search);
  if (config.roots || open) {
    const attach = Element.prototype.attachShadow;
    Element.prototype.attachShadow = function attachShadow(init) {
      const root = attach.call(this, open ? { ...init, mode: "open" } : init);
      tap.roots = tap.roots.filter((r) => r.deref());
      tap.roots.push(new WeakRef(root));
      return root;
    };
  }

  if (config.console) {
    const text = (a) => {
      if (typeof a === "string") return a;
      if (a instanceof Error) return String(a);
      try { return JSON.stringify(a) ?? String(a); } catch { return String(a); }
    };
    for (const type of ["error", "warn", "log", "info"]) {
      const original = console[type];
      console[type] = function (...args) {
        tap.console.push({ type: type === "warn" ? "warning" : type, text: args.map(text).join(" ") });
        return original.apply(this, args);
      };
    }
    window.addEventListener("error", (e) => tap.console.push({ type: "pageerror", text: e.message }));
    window.addEventListener("unhandledrejection", (e) => {
      tap.console.push({ type: "pageerror", text: String(e.reason?.message ?? e.reason) });
    });
  }

  if (config.listeners) {
    // One entry per (target, type, capture, listener), as the DOM keeps them.
    const live = new WeakMap();
    const key = (type, options) => `${type}|${typeof options === "boolean" ? options : !!options?.capture}`;
    const add = EventTarget.prototype.addEventListener;
    const remove = EventTarget.prototype.removeEventListener;
    EventTarget.prototype.addEventListener = function addEventListener(type, listener, options) {
      if (listener) {
        let byKey = live.get(this);
        if (!byKey) live.set(this, (byKey = new Map()));
        const k = key(type, options);
        if (!byKey.has(k)) byKey.set(k, new Set());
        const set = byKey.get(k);
        if (!set.has(listener)) { set.add(listener); tap.listeners += 1; }
      }
      return add.call(this, type, listener, options);
    };
    EventTarget.prototype.removeEventListener = function removeEventListener(type, listener, options) {
      const set = live.get(this)?.get(key(type, options));
      if (set?.delete(listener)) tap.listeners -= 1;
      return remove.call(this, type, listener, options);
    };
  }
})();
