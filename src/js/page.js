// @ts-check
/**
 * @file The page's DOM as the SDK meets it: the page's own elements, which an agent's element
 * action may touch (SPEC §5), and the SDK's own views, as far as JavaScript draws them: the host
 * element and stylesheet of every view (the card and Hand mode's badge and switch, which Rust
 * draws into them, and the Watch panel) and the Watch panel itself (SPEC §6). One module: the
 * `data-coworkkit` attribute that marks the SDK's own DOM is set here and refused here.
 *
 * ## Element actions
 *
 * Which element an agent may touch, and the touch itself (SPEC §5; the rules in words are in
 * src/web/hand.rs's module docs).
 *
 * What it guarantees, each rule tested in tests/js/element.test.mjs:
 * - An element is refused, by the first check it fails, in this order: missing (no match),
 *   not in the document, inside the SDK's own DOM (a `data-coworkkit` ancestor, across shadow
 *   roots), inert, hidden (a `hidden` ancestor, not rendered, `visibility` other than `visible`,
 *   zero size), disabled (`:disabled` or `aria-disabled="true"`), the wrong kind for the
 *   operation (click: any HTML element; fill: an editable `<input>` or `<textarea>`; select: a
 *   `<select>`), and for a select, no enabled option whose value, else trimmed label, is the one
 *   asked for (compared as Rust sees strings: lone surrogates as U+FFFD, trimmed as `str::trim`).
 * - The page is untouched unless every check passes and the caller asks to act.
 * - Fill and select go through the native setter of the element's class prototype, past any
 *   setter a framework put on the element itself (so React's value tracker sees the change),
 *   then dispatch bubbling, composed `input` and `change` events.
 *
 * ## Hosts and stylesheets
 *
 * A host is `<tag data-coworkkit=kind>` with a closed shadow root (`ckShadowRoot`). Each kind's
 * stylesheet is kept here, together, so that their theme reads the same everywhere: each sheet's
 * private `--bg`/`--fg`/… variables resolve the public `--ck-*` ones with light or dark
 * defaults, so an app's values win in both schemes.
 *
 * A root adopts its kind's sheet as a constructed `CSSStyleSheet`, made once per document and
 * shared by every host of that kind. A page whose Content Security Policy forbids inline styles
 * (`style-src` without `'unsafe-inline'`) blocks a `<style>` element, in a shadow root too, but
 * not a constructed sheet; a `<style>` is the fallback only where the browser cannot adopt.
 *
 * ## The Watch panel (SPEC §6)
 *
 * A live timeline of one instance's action records, drawn from the very record objects
 * `onActionRecord` receives, and the instance's live grants (SPEC §12).
 *
 * It is a reader of the public record and grant shapes, as an app's own panel would be: it
 * decides nothing and holds no call. Rust owns when it is mounted and fed (`web::watch`), and
 * what Revoke does (`onRevoke`, the instance's own `revokeGrant`).
 *
 * `<coworkkit-watch data-coworkkit="watch">` is drawn into the given element with a closed
 * shadow root (`ckShadowRoot`), every string through `textContent`.
 *
 * - Rows, newest first: time, action, control badge, gate badge, the assurance (what stood
 *   behind the decision: the record's word, read out as "assurance <word>", its meaning as the
 *   title), the door (`invoke`, `tool_call` or `webmcp`), outcome, duration, the person's words
 *   for a no (`note`, quoted), the grant a soft call fired on, and the arguments in a
 *   `<details>`. The last `ROWS_MAX` rows are kept; older ones leave the page (the counts keep
 *   going).
 * - Filter buttons (All and one per recorded gate, `aria-pressed`), each with the count of
 *   records of that gate since the panel was mounted.
 * - "Copy JSON Lines" writes the kept rows that pass the filter, oldest first, one
 *   `JSON.stringify(record)` per line, to `navigator.clipboard` when the page has one; the
 *   handle's `jsonLines()` returns the same text. A record that `JSON.stringify` cannot write
 *   (a `BigInt` or cyclic `run` result) is the line `null`.
 * - Above the timeline, while any live, the grants: each one's action, match (the JSON the app
 *   gave, or "any arguments"), uses and expiry, and a Revoke button (any click: ending a
 *   permission is always safe).
 *
 * Theming: the card's custom properties (`--ck-bg`, `--ck-fg`, `--ck-muted`, `--ck-accent`,
 * `--ck-radius`, `--ck-font`) and `--ck-watch-height` (default `24rem`). Parts: `panel`,
 * `heading`, `copy`, `filters`, `filter`, `count`, `rows`, `row`, `time`, `action`,
 * `chip control` (with `data-control`), `chip gate` (with `data-gate`), `assurance` (with
 * `data-assurance`), `via` (with `data-via`), `outcome`, `duration`, `note`, `grant`, `args`;
 * for the grants, `grants`, `grant-row` (with `data-grant`, its id), `grant-action`,
 * `grant-match`, `grant-uses`, `grant-until`, `revoke`.
 */
import {
  OP_CLICK, OP_FILL, OP_SELECT, ELEMENT_MISSING, ELEMENT_DETACHED, ELEMENT_OWN_DOM, ELEMENT_INERT,
  ELEMENT_HIDDEN, ELEMENT_DISABLED, ELEMENT_NOT_HTML, ELEMENT_NOT_EDITABLE, ELEMENT_NOT_SELECT,
  ELEMENT_NO_OPTION,
} from "./codes.js";
import { rustTrim, wellFormed } from "./read.js";

/**
 * Whether `e` or an ancestor matches `selector`, across shadow roots up to the document.
 * @param {Element} e
 * @param {string} selector
 */
function inside(e, selector) {
  for (;;) {
    if (e.closest(selector)) return true;
    const root = e.getRootNode();
    if (!(root instanceof ShadowRoot)) return false;
    e = root.host;
  }
}

/**
 * Whether `e` is rendered, visible and has a size.
 * @param {Element} e
 */
function shown(e) {
  // `checkVisibility` is missing in older engines, and a throw here must not skip the rest.
  try { if (e.checkVisibility?.({ visibilityProperty: true, checkVisibilityCSS: true }) === false) return false; } catch {}
  const visible = getComputedStyle(e).visibility === "visible", r = e.getBoundingClientRect();
  return visible && r.width > 0 && r.height > 0;
}

/**
 * Resolves an element action's target (an `Element`, or a selector for
 * `document.querySelector`) and checks it can take operation `op` (an `OP_*` code); for a
 * select with `value`, also finds the option. Returns the failed check's `ELEMENT_*` code, else
 * `undefined` unless `act`; with `act`, performs the operation and returns `undefined` (click),
 * the value set (fill) or the select's new `value`.
 * @param {Element | string} target
 * @param {number} op
 * @param {string | undefined} value
 * @param {boolean} act
 * @returns {number | string | undefined}
 */
export function ckHand(target, op, value, act) {
  const e = typeof target === "string" ? document.querySelector(target) : target;
  if (!e) return ELEMENT_MISSING;
  if (!e.isConnected) return ELEMENT_DETACHED;
  if (inside(e, "[data-coworkkit]")) return ELEMENT_OWN_DOM;
  if (inside(e, "[inert]")) return ELEMENT_INERT;
  if (inside(e, "[hidden]") || !shown(e)) return ELEMENT_HIDDEN;
  if (e.matches(":disabled") || e.getAttribute("aria-disabled") === "true") return ELEMENT_DISABLED;
  if (op === OP_CLICK) {
    if (!(e instanceof HTMLElement)) return ELEMENT_NOT_HTML;
    if (act) e.click();
    return;
  }
  if (op === OP_FILL) {
    const input = e instanceof HTMLInputElement;
    if (!((input || e instanceof HTMLTextAreaElement) && e.matches(":read-write"))) return ELEMENT_NOT_EDITABLE;
    if (!act) return;
    nativeSet(input ? HTMLInputElement : HTMLTextAreaElement, "value", e, value);
    return value;
  }
  if (op !== OP_SELECT || !(e instanceof HTMLSelectElement)) return ELEMENT_NOT_SELECT;
  /** @type {number | undefined} */
  let index;
  if (value !== undefined) {
    const options = Array.from(e.options).filter((o) => !o.matches(":disabled"));
    const o = options.find((o) => wellFormed(o.value) === value)
      ?? options.find((o) => rustTrim(wellFormed(o.label)) === rustTrim(value));
    if (!o) return ELEMENT_NO_OPTION;
    index = o.index;
  }
  if (!act) return;
  nativeSet(HTMLSelectElement, "selectedIndex", e, index);
  return wellFormed(e.value);
}

/**
 * Sets `key` on `e` through the setter of `Class.prototype`, then tells the page as a user's
 * edit would.
 * @param {{ prototype: object }} Class
 * @param {string} key
 * @param {Element} e
 * @param {unknown} value
 */
function nativeSet(Class, key, e, value) {
  const setter = /** @type {(this: Element, v: unknown) => void} */ (
    /** @type {PropertyDescriptor} */ (Object.getOwnPropertyDescriptor(Class.prototype, key)).set);
  setter.call(e, value);
  for (const kind of ["input", "change"]) e.dispatchEvent(new Event(kind, { bubbles: true, composed: true }));
}

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
  "[part=summary]:focus-visible{outline:2px solid var(--ac);outline-offset:2px}" +
  "[part=hint]{margin-top:12px;font-size:13px;font-weight:600}" +
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

/** The Watch panel (`CkWatchPanel` below). */
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
  "[part=via],[part=assurance]{font-size:11px;color:var(--mu)}" +
  ".vh{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}" +
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

/** How many rows a panel keeps: a long session must not grow the page without limit. */
export const ROWS_MAX = 500;

/** The gates a record can carry, in the order the filter lists them (`needs_confirmation` is never recorded). */
export const RECORD_GATES = /** @type {const} */ (["fired", "confirmed", "needs_hand_mode", "cancelled", "timeout", "rejected"]);

/**
 * What a row reads of a record (SPEC §6's `ActionRecord`, as `onActionRecord` receives it).
 * @typedef {object} WatchRecord
 * @property {string} action
 * @property {string} control
 * @property {string} gate
 * @property {string} assurance
 * @property {string} [via]
 * @property {{ status: string, code?: string }} outcome
 * @property {string} [reason]
 * @property {{ credentialId: string }} [verification]
 * @property {string} [note]
 * @property {string} [grant]
 * @property {unknown} args
 * @property {number} [startedAt]
 * @property {number} [settledAt]
 */

/**
 * What a grant row reads of a grant (as `ck.grants()` gives it).
 * @typedef {object} WatchGrant
 * @property {string} id
 * @property {string} action
 * @property {number} expiresAt
 * @property {number} uses
 * @property {number} [maxUses]
 * @property {unknown} [match]
 */

/**
 * What each assurance means, in a line (a row's title over the word; SPEC §6, SECURITY.md's
 * tier table).
 * @type {Readonly<Record<string, string>>}
 */
export const ASSURANCE_MEANINGS = Object.freeze({
  none: "Nothing decided it: an open call, or one that never ran",
  agent: "The agent's word that the person agreed (it holds the soft token)",
  grant: "A grant the person made let it run",
  input: "Trusted input confirmed the card: a person, or an agent that drives the browser",
  passkey: "A verified passkey signed this call's statement on this device",
  "other-device": "A verified passkey on another device signed this call's statement",
});

/**
 * `ok`, `error: <code>`, `not run: <reason>` (or `not run`); a passkey-verified call adds
 * ` · passkey <credentialId>` (SPEC §4.1).
 * @param {WatchRecord} record
 * @returns {string}
 */
export function outcomeText(record) {
  const { status, code } = record.outcome;
  const text = status === "ok" ? "ok" : status === "error" ? "error: " + code : record.reason ? "not run: " + record.reason : "not run";
  return record.verification ? text + " · passkey " + record.verification.credentialId : text;
}

/**
 * A duration for people: `0 ms`…`999 ms`, `1.0 s`…`59.9 s` (tenths, truncated), then
 * `1 min 0 s`. Negative or non-finite input reads as `0 ms`.
 * @param {number} ms
 * @returns {string}
 */
export function durationText(ms) {
  const n = Number.isFinite(ms) && ms > 0 ? Math.round(ms) : 0;
  if (n < 1000) return n + " ms";
  if (n < 60_000) return Math.floor(n / 1000) + "." + Math.floor((n % 1000) / 100) + " s";
  const seconds = Math.floor(n / 1000);
  return Math.floor(seconds / 60) + " min " + (seconds % 60) + " s";
}

/**
 * `HH:MM:SS.mmm`, the page's local time of an epoch-ms instant; without the milliseconds when
 * `ms` is false. A non-finite instant reads as midnight.
 * @param {number | undefined} epochMs
 * @param {boolean} [ms]
 * @returns {string}
 */
export function clockText(epochMs, ms = true) {
  if (epochMs === undefined || !Number.isFinite(epochMs)) return ms ? "00:00:00.000" : "00:00:00";
  const d = new Date(epochMs);
  /** @param {number} n @param {number} width */
  const pad = (n, width) => String(n).padStart(width, "0");
  const time = pad(d.getHours(), 2) + ":" + pad(d.getMinutes(), 2) + ":" + pad(d.getSeconds(), 2);
  return ms ? time + "." + pad(d.getMilliseconds(), 3) : time;
}

/**
 * How often a grant was used: `1 of 5 uses`, `not used yet`, `used once`, `used 3 times`.
 * @param {WatchGrant} grant
 * @returns {string}
 */
export function usesText(grant) {
  if (grant.maxUses !== undefined) return grant.uses + " of " + grant.maxUses + " uses";
  return grant.uses === 0 ? "not used yet" : grant.uses === 1 ? "used once" : "used " + grant.uses + " times";
}

/**
 * `JSON.stringify(value, null, space)`, or `null` where it cannot write the value (a `BigInt`, a
 * cycle, a throwing `toJSON`).
 * @param {unknown} value
 * @param {number} [space]
 * @returns {string}
 */
function json(value, space) {
  try {
    return JSON.stringify(value, null, space) ?? "null";
  } catch {
    return "null";
  }
}

/**
 * Creates `<tag>` with `attrs` and `text` as its `textContent`, appended to `parent`.
 * @param {Node} parent
 * @param {string} tag
 * @param {Record<string, string>} attrs
 * @param {string} [text]
 * @returns {HTMLElement}
 */
function el(parent, tag, attrs, text) {
  const element = /** @type {Document} */ (parent.ownerDocument).createElement(tag);
  for (const [name, value] of Object.entries(attrs)) element.setAttribute(name, value);
  if (text) element.textContent = text;
  parent.appendChild(element);
  return element;
}

/** One mounted Watch panel. */
export class CkWatchPanel {
  /** @type {HTMLElement} */
  #host;
  /** @type {HTMLElement} */
  #rows;
  /** @type {HTMLElement} */
  #grants;
  /** @type {HTMLElement} */
  #grantList;
  /** Kept rows, oldest first. @type {{ record: WatchRecord, li: HTMLElement }[]} */
  #kept = [];
  /** The gate shown, or `undefined` for all. @type {string | undefined} */
  #filter;
  /** Records seen per gate since the panel was mounted. @type {Map<string, number>} */
  #counts = new Map();
  /** The filter buttons, `undefined` for All, each with its count. @type {{ gate: string | undefined, button: HTMLElement, count: HTMLElement }[]} */
  #filters = [];

  /**
   * Draws an empty panel (no grants shown) at the end of `parent`.
   * @param {Element} parent
   * @param {(grantId: string) => void} onRevoke what a Revoke click asks, with the grant's id
   */
  constructor(parent, onRevoke) {
    const root = ckShadowRoot(parent, "coworkkit-watch", "watch");
    this.#host = /** @type {HTMLElement} */ (root.host);
    const section = el(root, "section", { part: "panel", "aria-label": "Agent activity" });
    const header = el(section, "header", {});
    el(header, "h2", { part: "heading" }, "Agent activity");
    const copy = el(header, "button", { part: "copy", type: "button" }, "Copy JSON Lines");
    copy.addEventListener("click", () => this.#copy());

    this.#grants = el(section, "section", { part: "grants", "aria-labelledby": "ck-grants", hidden: "" });
    el(this.#grants, "h3", { id: "ck-grants" }, "Allowed without asking");
    this.#grantList = el(this.#grants, "ul", {});
    // One listener for every Revoke button, however often the list is redrawn.
    this.#grantList.addEventListener("click", (event) => {
      const target = /** @type {Element} */ (event.target);
      const id = target.closest?.("[part=revoke]")?.getAttribute("data-grant");
      if (id) onRevoke(id);
    });

    const bar = el(section, "div", { part: "filters", role: "group", "aria-label": "Filter by gate" });
    for (const gate of [undefined, ...RECORD_GATES]) {
      const button = el(bar, "button", { part: "filter", type: "button", "data-gate": gate ?? "all", "aria-pressed": String(!gate) });
      el(button, "span", {}, gate ?? "all");
      button.append(" ");
      const count = el(button, "span", { part: "count" }, "0");
      button.addEventListener("click", () => this.#setFilter(gate));
      this.#filters.push({ gate, button, count });
    }
    this.#rows = el(section, "ol", { part: "rows" });
  }

  /**
   * Shows `record` as the newest row.
   * @param {WatchRecord} record
   */
  push(record) {
    const li = /** @type {HTMLElement} */ (this.#host.ownerDocument.createElement("li"));
    li.setAttribute("part", "row");
    li.setAttribute("data-gate", record.gate);
    el(li, "time", { part: "time" }, clockText(record.settledAt));
    el(li, "span", { part: "action" }, record.action);
    el(li, "span", { part: "chip control", "data-control": record.control }, record.control);
    el(li, "span", { part: "chip gate", "data-gate": record.gate }, record.gate);
    const meaning = ASSURANCE_MEANINGS[record.assurance] ?? "";
    const assurance = el(li, "span", { part: "assurance", "data-assurance": record.assurance, title: meaning });
    el(assurance, "span", { class: "vh" }, "assurance ");
    assurance.append(record.assurance);
    el(li, "span", { part: "via", "data-via": record.via ?? "" }, record.via);
    el(li, "span", { part: "outcome" }, outcomeText(record));
    el(li, "span", { part: "duration" }, durationText((record.settledAt ?? 0) - (record.startedAt ?? 0)));
    if (record.note !== undefined) el(li, "q", { part: "note" }, record.note);
    if (record.grant !== undefined) el(li, "span", { part: "grant" }, "on grant " + record.grant);
    const details = el(li, "details", { part: "args" });
    el(details, "summary", {}, "args");
    el(details, "pre", {}, json(record.args, 2));
    li.hidden = !this.#passes(record.gate);

    this.#kept.push({ record, li });
    this.#rows.prepend(li);
    if (this.#kept.length > ROWS_MAX) this.#kept.shift()?.li.remove();
    this.#counts.set(record.gate, (this.#counts.get(record.gate) ?? 0) + 1);
    let total = 0;
    for (const n of this.#counts.values()) total += n;
    for (const { gate, count } of this.#filters) {
      count.textContent = String(gate ? this.#counts.get(gate) ?? 0 : total);
    }
  }

  /**
   * Lists `grants` (the live ones, as `ck.grants()` gives them), replacing what was listed;
   * the section hides while there is none.
   * @param {readonly WatchGrant[]} grants
   */
  showGrants(grants) {
    this.#grantList.textContent = "";
    for (const grant of grants) {
      const li = el(this.#grantList, "li", { part: "grant-row", "data-grant": grant.id });
      el(li, "span", { part: "grant-action" }, grant.action);
      el(li, "code", { part: "grant-match" }, grant.match === undefined ? "any arguments" : json(grant.match));
      el(li, "span", { part: "grant-uses" }, usesText(grant));
      el(li, "span", { part: "grant-until" }, "until " + clockText(grant.expiresAt, false));
      const label = "Revoke the grant of " + grant.action;
      el(li, "button", { part: "revoke", type: "button", "data-grant": grant.id, "aria-label": label }, "Revoke");
    }
    this.#grants.hidden = grants.length === 0;
  }

  /**
   * The kept records that pass the filter, oldest first, one `JSON.stringify(record)` per line,
   * each ended by `\n`; empty once the panel is removed.
   * @returns {string}
   */
  jsonLines() {
    // Taken before any record prints: a result's `toJSON` is app code, which may feed or remove this panel.
    const records = this.#kept.filter((row) => this.#passes(row.record.gate)).map((row) => row.record);
    return records.map((record) => json(record) + "\n").join("");
  }

  /** Takes the panel out of the page and forgets its rows; a second call does nothing. */
  remove() {
    this.#host.remove();
    this.#kept = [];
  }

  /** @param {string} gate */
  #passes(gate) {
    return this.#filter === undefined || this.#filter === gate;
  }

  /** @param {string | undefined} gate */
  #setFilter(gate) {
    this.#filter = gate;
    for (const f of this.#filters) f.button.setAttribute("aria-pressed", String(f.gate === gate));
    for (const { record, li } of this.#kept) li.hidden = !this.#passes(record.gate);
  }

  /** Writes `jsonLines()` to the clipboard when the page has one (a secure context); a refusal is ignored. */
  #copy() {
    const clipboard = this.#host.ownerDocument.defaultView?.navigator.clipboard;
    clipboard?.writeText(this.jsonLines()).catch(() => {});
  }
}
