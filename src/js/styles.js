// @ts-check
/**
 * @file The SDK's own DOM in the page: a host element `<tag data-coworkkit=kind>` with a closed
 * shadow root, and the stylesheet of each kind (the card, Hand mode's badge and switch, the
 * Watch panel), kept together so that their theme reads the same everywhere.
 *
 * Each sheet's private `--bg`/`--fg`/… variables resolve the public `--ck-*` ones with light or
 * dark defaults, so an app's values win in both schemes.
 *
 * A root adopts its kind's sheet as a constructed `CSSStyleSheet`, made once per document and
 * shared by every host of that kind. A page whose Content Security Policy forbids inline styles
 * (`style-src` without `'unsafe-inline'`) blocks a `<style>` element, in a shadow root too, but
 * not a constructed sheet; a `<style>` is the fallback only where the browser cannot adopt.
 */

/**
 * The card. It appears without an entrance animation: starting one on every `showModal()` (a
 * CSS animation or an `@starting-style` transition alike) made the browser's style work for the
 * card about a fifth slower, on the path the person waits through (BENCHMARKS.md, "Where the
 * time goes"), and the card is legible from its first frame.
 */
const CARD =
  ":host{all:initial}" +
  "dialog{--bg:var(--ck-bg,#fff);--fg:var(--ck-fg,#1d1d1f);--mu:var(--ck-muted,#6e6e73);" +
  "--ac:var(--ck-accent,#d70015);--r:var(--ck-radius,14px);--ln:rgba(128,128,128,.3);" +
  "box-sizing:border-box;width:min(28rem,calc(100vw - 2rem));max-height:calc(100vh - 2rem);" +
  "overflow:auto;padding:24px;border:1px solid var(--ln);border-radius:var(--r);" +
  "background:var(--bg);color:var(--fg);" +
  "font:15px/1.5 var(--ck-font,system-ui,-apple-system,'Segoe UI',Roboto,sans-serif);" +
  "box-shadow:var(--ck-shadow,0 1px 3px rgba(0,0,0,.12),0 24px 64px rgba(0,0,0,.32))}" +
  "@media(prefers-color-scheme:dark){dialog{--bg:var(--ck-bg,#1f1f22);" +
  "--fg:var(--ck-fg,#f5f5f7);--mu:var(--ck-muted,#a1a1a6);--ac:var(--ck-accent,#ff453a)}}" +
  "dialog::backdrop{background:rgba(12,12,16,.5);backdrop-filter:blur(2px)}" +
  "h2{margin:0 0 8px;font-size:18px;font-weight:650;line-height:1.3}" +
  "p{margin:0}" +
  "[part=position]{float:right;margin:2px 0 0 12px;font-size:12px;color:var(--mu)}" +
  "[part=summary]{white-space:pre-wrap;overflow-wrap:anywhere;max-height:40vh;overflow:auto}" +
  "[part=notice]{margin-top:12px;padding-left:10px;border-left:3px solid var(--ac);" +
  "color:var(--mu);font-size:14px}" +
  "[part=status]{margin-top:12px;font-size:14px;font-weight:600}" +
  "[data-waiting=true]{cursor:progress}" +
  "div{display:flex;flex-wrap:wrap;align-items:center;gap:8px;margin-top:24px}" +
  "[part=countdown]{margin-right:auto;font-size:13px;color:var(--mu);" +
  "font-variant-numeric:tabular-nums}" +
  "button{font:inherit;font-weight:600;min-width:96px;padding:8px 16px;" +
  "border:1px solid var(--ln);border-radius:calc(var(--r)*.6);background:none;" +
  "color:inherit;cursor:pointer;transition:opacity .2s}" +
  "button:focus-visible{outline:2px solid var(--ac);outline-offset:2px}" +
  "[part=cancel]:hover{background:var(--ln)}" +
  "[part=confirm]{background:var(--ac);border-color:var(--ac);" +
  "color:var(--ck-accent-text,#fff)}" +
  "[data-armed=false]{cursor:progress;background-image:linear-gradient(#0003,#0003)}" +
  "button:disabled{opacity:.35;cursor:not-allowed}" +
  "label{display:block;margin-top:16px;font-size:13px;color:var(--mu)}" +
  "input{box-sizing:border-box;display:block;width:100%;margin-top:4px;padding:6px 8px;" +
  "font:inherit;font-size:14px;color:var(--fg);background:none;border:1px solid var(--ln);" +
  "border-radius:calc(var(--r)*.6)}" +
  "input:focus-visible{outline:2px solid var(--ac);outline-offset:1px}" +
  "@media(prefers-reduced-motion:reduce){button{transition:none}}";

/** Hand mode's badge and switch (one sheet: each host uses the rules it needs). */
const HAND =
  ":host{all:initial}" +
  "div,button{--bg:var(--ck-bg,#fff);--fg:var(--ck-fg,#1d1d1f);--ac:var(--ck-accent,#d70015);" +
  "font:14px/1.4 var(--ck-font,system-ui,-apple-system,'Segoe UI',Roboto,sans-serif);" +
  "color:var(--fg)}" +
  "@media(prefers-color-scheme:dark){div,button{--bg:var(--ck-bg,#1f1f22);" +
  "--fg:var(--ck-fg,#f5f5f7);--ac:var(--ck-accent,#ff453a)}}" +
  "div{position:fixed;right:16px;bottom:16px;z-index:2147483647;display:flex;" +
  "align-items:center;gap:12px;padding:8px 8px 8px 14px;background:var(--bg);" +
  "border:2px solid var(--ac);border-radius:var(--ck-radius,14px);" +
  "box-shadow:0 8px 24px rgba(0,0,0,.25)}" +
  "button{font-weight:600;cursor:pointer;border-radius:calc(var(--ck-radius,14px)*.6)}" +
  "[part=stop]{padding:6px 14px;border:0;background:var(--ac);color:var(--ck-accent-text,#fff)}" +
  "[part=switch]{display:inline-flex;align-items:center;gap:8px;padding:4px 8px;" +
  "border:1px solid rgba(128,128,128,.4);background:var(--bg)}" +
  "[part=track]{width:32px;height:18px;border-radius:9px;background:rgba(128,128,128,.5);" +
  "position:relative;transition:background .15s}" +
  "[part=track]::after{content:'';position:absolute;top:2px;left:2px;width:14px;height:14px;" +
  "border-radius:50%;background:#fff;transition:left .15s}" +
  "[aria-checked=true] [part=track]{background:var(--ac)}" +
  "[aria-checked=true] [part=track]::after{left:16px}" +
  "button:focus-visible{outline:2px solid var(--ac);outline-offset:2px}" +
  "@media(prefers-reduced-motion:reduce){[part=track],[part=track]::after{transition:none}}";

/** The Watch panel (watch.js). */
const WATCH =
  ":host{all:initial;display:block}" +
  "section{--bg:var(--ck-bg,#fff);--fg:var(--ck-fg,#1d1d1f);--mu:var(--ck-muted,#6e6e73);" +
  "--ac:var(--ck-accent,#d70015);--r:var(--ck-radius,14px);--ln:rgba(128,128,128,.3);" +
  "box-sizing:border-box;display:flex;flex-direction:column;" +
  "max-height:var(--ck-watch-height,24rem);padding:12px;border:1px solid var(--ln);" +
  "border-radius:var(--r);background:var(--bg);color:var(--fg);" +
  "font:13px/1.4 var(--ck-font,system-ui,-apple-system,'Segoe UI',Roboto,sans-serif)}" +
  "@media(prefers-color-scheme:dark){section{--bg:var(--ck-bg,#1f1f22);" +
  "--fg:var(--ck-fg,#f5f5f7);--mu:var(--ck-muted,#a1a1a6);--ac:var(--ck-accent,#ff453a)}}" +
  "header,[part=filters],li{display:flex;flex-wrap:wrap;align-items:baseline;gap:4px 8px}" +
  "h2{margin:0 auto 0 0;font-size:14px;font-weight:650}" +
  "button{font:inherit;padding:2px 8px;border:1px solid var(--ln);" +
  "border-radius:calc(var(--r)*.6);background:none;color:inherit;cursor:pointer}" +
  "button:focus-visible{outline:2px solid var(--ac);outline-offset:1px}" +
  "[aria-pressed=true]{background:var(--fg);color:var(--bg)}" +
  "[part=filters]{margin:8px 0}" +
  "ol,ul{list-style:none;margin:0;padding:0;overflow:auto}" +
  "li{padding:6px 0;border-top:1px solid var(--ln)}li[hidden]{display:none}" +
  "time,[part=outcome],[part=duration]{color:var(--mu);font-variant-numeric:tabular-nums}" +
  "[part=action]{font-weight:600;overflow-wrap:anywhere}" +
  "[part=via]{font-size:11px;color:var(--mu)}" +
  "[part~=chip]{font-size:11px;padding:0 6px;border:1px solid;border-radius:8px}" +
  "[data-control=hard],span[data-gate=rejected],span[data-gate=cancelled]," +
  "span[data-gate=timeout]{color:var(--ac)}" +
  "span[data-gate=fired],span[data-gate=confirmed]{color:#1a7f37}" +
  "span[data-gate=needs_hand_mode]{color:#9a6700}" +
  "details{flex-basis:100%}summary{cursor:pointer;color:var(--mu)}" +
  "[part=note]{flex-basis:100%;font-style:italic;overflow-wrap:anywhere}" +
  "[part=grant]{font-size:11px;color:var(--mu)}" +
  "[part=grants]{margin:8px 0 0;padding:8px;border:1px solid var(--ln);" +
  "border-radius:calc(var(--r)*.6)}[part=grants][hidden]{display:none}" +
  "h3{margin:0 0 4px;font-size:13px;font-weight:650}" +
  "[part=grant-match]{overflow-wrap:anywhere}" +
  "[part=grant-uses],[part=grant-until]{color:var(--mu)}" +
  "pre{margin:4px 0 0;white-space:pre-wrap;overflow-wrap:anywhere;max-height:12rem;" +
  "overflow:auto}";

/** The stylesheet of each kind of host, by its `data-coworkkit` value. */
const SHEETS = { card: CARD, hand: HAND, switch: HAND, watch: WATCH };

/** @typedef {keyof typeof SHEETS} HostKind */

/** The constructed sheets made so far, per document and kind. @type {WeakMap<Document, Map<HostKind, CSSStyleSheet>>} */
const made = new WeakMap();

/**
 * A `<tag data-coworkkit=kind>` made in `parent`'s document and appended to `parent`, with a
 * closed shadow root styled with `kind`'s sheet; returns the root (its `host` is the element).
 *
 * Closed, so neither the page's scripts nor an agent's element actions can reach inside; the
 * `data-coworkkit` attribute is how element actions recognise the SDK's own DOM and refuse it.
 * The host goes into the page before its content is drawn: no script of the page (nor a
 * mutation observer) sees inside, and nothing renders before the drawing ends.
 * @param {Node} parent
 * @param {string} tag
 * @param {HostKind} kind
 * @returns {ShadowRoot}
 */
export function ckShadowRoot(parent, tag, kind) {
  const document = parent.ownerDocument;
  if (!document) throw new TypeError("coworkkit: the element is in no document");
  const host = document.createElement(tag);
  host.setAttribute("data-coworkkit", kind);
  const root = host.attachShadow({ mode: "closed" });
  const sheet = "adoptedStyleSheets" in root ? sheetFor(document, kind) : undefined;
  if (sheet) {
    root.adoptedStyleSheets = [sheet];
  } else {
    const style = document.createElement("style");
    style.textContent = SHEETS[kind];
    root.appendChild(style);
  }
  parent.appendChild(host);
  return root;
}

/**
 * `kind`'s constructed sheet in `document` (made by that document's own window, as adoption
 * requires), or `undefined` where the browser cannot construct one.
 * @param {Document} document
 * @param {HostKind} kind
 * @returns {CSSStyleSheet | undefined}
 */
function sheetFor(document, kind) {
  const Sheet = document.defaultView?.CSSStyleSheet;
  if (!Sheet || !("replaceSync" in Sheet.prototype)) return undefined;
  let sheets = made.get(document);
  if (!sheets) made.set(document, (sheets = new Map()));
  let sheet = sheets.get(kind);
  if (!sheet) {
    sheet = new Sheet();
    sheet.replaceSync(SHEETS[kind]);
    sheets.set(kind, sheet);
  }
  return sheet;
}
