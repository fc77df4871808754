// @ts-check
/**
 * @file Which element an agent may touch, and the touch itself (SPEC §5; the rules in words are
 * in src/web/hand.rs's module docs).
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
