// How values cross between the test (node) and the page, the same way in every engine: JSON
// text, with `undefined`, NaN, ±Infinity, -0 and BigInt tagged so that a deep comparison in the
// test sees what the page had (Playwright's own serializer keeps these; WebDriver's does not).
// A function runs in the page as `(src)(arg)` for evaluate, or `src.apply(element, args)` on a
// part of the SDK's closed shadow roots; both come back through `PAGE_CODEC`.

const TAG = "\u0000ck";

/** The page half, as source: `__ckEnc(value)` → text, `__ckDec(text)` → value. */
export const PAGE_CODEC = `
const __ckTag = ${JSON.stringify(TAG)};
const __ckEnc = (value) => JSON.stringify({ v: value }, function (key, x) {
  const raw = this[key];
  if (raw === undefined || typeof raw === "function" || typeof raw === "symbol") return { [__ckTag]: "undefined" };
  if (typeof raw === "number") {
    if (Number.isNaN(raw)) return { [__ckTag]: "NaN" };
    if (raw === Infinity) return { [__ckTag]: "Infinity" };
    if (raw === -Infinity) return { [__ckTag]: "-Infinity" };
    if (Object.is(raw, -0)) return { [__ckTag]: "-0" };
  }
  if (typeof raw === "bigint") return { [__ckTag]: "bigint", n: String(raw) };
  if (typeof Node === "function" && raw instanceof Node) return {}; // as Playwright hands one back
  return x;
});
const __ckRevive = (x) => {
  if (x === null || typeof x !== "object") return x;
  if (!Array.isArray(x) && Object.prototype.hasOwnProperty.call(x, __ckTag)) {
    const t = x[__ckTag];
    return t === "undefined" ? undefined : t === "NaN" ? NaN : t === "Infinity" ? Infinity
      : t === "-Infinity" ? -Infinity : t === "-0" ? -0 : BigInt(x.n);
  }
  for (const k of Object.keys(x)) x[k] = __ckRevive(x[k]);
  return x;
};
const __ckDec = (text) => __ckRevive(JSON.parse(text)).v;
`;

/** The node half: the same format. */
export function encode(value) {
  return JSON.stringify({ v: value }, function (key, x) {
    const raw = this[key];
    if (raw === undefined || typeof raw === "function" || typeof raw === "symbol") return { [TAG]: "undefined" };
    if (typeof raw === "number") {
      if (Number.isNaN(raw)) return { [TAG]: "NaN" };
      if (raw === Infinity) return { [TAG]: "Infinity" };
      if (raw === -Infinity) return { [TAG]: "-Infinity" };
      if (Object.is(raw, -0)) return { [TAG]: "-0" };
    }
    if (typeof raw === "bigint") return { [TAG]: "bigint", n: String(raw) };
    return x;
  });
}

function revive(x) {
  if (x === null || typeof x !== "object") return x;
  if (!Array.isArray(x) && Object.prototype.hasOwnProperty.call(x, TAG)) {
    const t = x[TAG];
    return t === "undefined" ? undefined : t === "NaN" ? NaN : t === "Infinity" ? Infinity
      : t === "-Infinity" ? -Infinity : t === "-0" ? -0 : BigInt(x.n);
  }
  for (const k of Object.keys(x)) x[k] = revive(x[k]);
  return x;
}

export function decode(text) {
  return revive(JSON.parse(text)).v;
}

/** Source of a function to run in the page: a function as written, or an expression. */
export function source(fn) {
  return typeof fn === "function" ? fn.toString() : `() => (${fn})`;
}

/**
 * An expression that runs `src` with `arg` in the page and evaluates to a promise of
 * `{ ok: text }` or `{ error: message }` (never a rejection, so every driver reports the same).
 */
export function evaluateExpression(src, arg) {
  return `(async () => {
    ${PAGE_CODEC}
    try {
      const fn = (0, eval)("(" + ${JSON.stringify(src)} + ")");
      return { ok: __ckEnc(await fn(__ckDec(${JSON.stringify(encode(arg))}))) };
    } catch (e) {
      return { error: e && e.stack ? String(e) + "\\n" + e.stack : String(e) };
    }
  })()`;
}

/**
 * The declaration of a function to call with `this` = a part of a closed shadow root, given the
 * part's finder as `find(part)` → element or null. Arguments: part, src, encoded args, then any
 * shadow roots the driver hands in. Resolves to `{ ok: text }`, `{ missing: true }` or
 * `{ error: message }`.
 */
export const PART_CALL = `async function (part, src, argText, ...roots) {
  ${PAGE_CODEC}
  try {
    const has = (el) => (el.getAttribute("part") ?? "").split(/\\s+/).includes(part);
    let el = null;
    if (this && this.nodeType === 1) el = this;
    else {
      for (const root of [document, ...roots]) {
        for (const candidate of root.querySelectorAll("[part]")) if (has(candidate)) { el = candidate; break; }
        if (el) break;
      }
    }
    if (!el) return { missing: true };
    const fn = (0, eval)("(" + src + ")");
    return { ok: __ckEnc(await fn.apply(el, __ckDec(argText))) };
  } catch (e) {
    return { error: e && e.stack ? String(e) + "\\n" + e.stack : String(e) };
  }
}`;

/** Unwraps a page answer of `evaluateExpression` / `PART_CALL`. */
export function unwrap(answer) {
  if (answer && typeof answer.error === "string") throw new Error(answer.error);
  if (answer && answer.missing) return undefined;
  return decode(answer.ok);
}
