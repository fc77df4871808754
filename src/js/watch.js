// @ts-check
/**
 * @file The Watch panel (SPEC §6): a live timeline of one instance's action records, drawn from
 * the very record objects `onActionRecord` receives, and the instance's live grants (SPEC §12).
 *
 * It is a reader of the public record and grant shapes, as an app's own panel would be: it
 * decides nothing and holds no call. Rust owns when it is mounted and fed (`web::watch`), and
 * what Revoke does (`onRevoke`, the instance's own `revokeGrant`).
 *
 * `<coworkkit-watch data-coworkkit="watch">` is drawn into the given element with a closed
 * shadow root (`ckShadowRoot`, styles.js), every string through `textContent`.
 *
 * - Rows, newest first: time, action, control badge, gate badge, the door (`invoke`,
 *   `tool_call` or `webmcp`), outcome, duration, the person's words for a no (`note`, quoted),
 *   the grant a soft call fired on, and the arguments in a `<details>`. The last `ROWS_MAX` rows
 *   are kept; older ones leave the page (the counts keep going).
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
 * `chip control` (with `data-control`), `chip gate` (with `data-gate`), `via` (with
 * `data-via`), `outcome`, `duration`, `note`, `grant`, `args`; for the grants, `grants`,
 * `grant-row` (with `data-grant`, its id), `grant-action`, `grant-match`, `grant-uses`,
 * `grant-until`, `revoke`.
 */

import { ckShadowRoot } from "./styles.js";

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
