// The bar for the open `invoke` figure (SPEC §9): what `Coworkkit.invoke` does for an open
// action, written in plain JavaScript as fast as we know how. The ratio is only as honest as
// this file is fast, so it does the SDK's work and no more, and does it the way a careful JS
// author would: the schema compiled once into closures, no string built or closure allocated
// on a call's success path that the outcome and record do not need, ids drawn from a pooled
// `crypto.getRandomValues`, the settled calls in a Map plus a fixed ring.
//
// The work, per call, in the SDK's order (src/core/engine/invoke.rs `handle_invoke`, src/web/js.rs
// `ckReadCall`, src/web/convert.rs):
//
// - read `name`, `args`, `callId`, `confirmToken`, `decline`, `reason` once each (a throwing
//   getter reads as undefined; lone surrogates in strings read as U+FFFD);
// - walk the args once: refuse what is not plain JSON data (naming the path), replace lone
//   surrogates, count the JSON's UTF-8 size against `maxArgsBytes` (stopping as soon as it is
//   over), and build the deeply frozen copy that `run` and the record see;
// - disposed → `cancelled`; unknown action → `rejected`; a known `callId` → the remembered
//   outcome (same action and args) or `call_id_conflict` (a `reason` without `decline` is
//   `invalid_args` first); a `confirmToken` or `decline` on an open action → `bad_token`; a bad
//   `callId` → `invalid_args`; the compiled schema;
// - call `run(args, { callId, control, approver, signal })`, sync or async, catching a throw;
// - build the frozen outcome (with its `instruction` when not ok, SPEC §12) and the frozen
//   record (the fields and order of SPEC §3 and §6 as the SDK has them), call the sink inside
//   `try`, then the `record` listeners;
// - remember the settled call (the last 1,024) and resolve a promise.
//
// Only open actions: the bar measures the open door. The page checks, before timing, that this
// gate and the SDK answer the same calls with the same outcomes and records.

const REMEMBERED_CALLS = 1024;
const MAX_DEPTH = 64;
const NUMBER_LEN = 25; // what the SDK counts for a number that is not a safe integer

// ---------------------------------------------------------------------------------------------
// Ids
// ---------------------------------------------------------------------------------------------

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));
const POOL = new Uint8Array(4096);
let poolAt = POOL.length;

/** `prefix` + 32 hex digits; the bytes come from `crypto.getRandomValues`, 4 KiB at a time. */
function randomId(prefix) {
  if (poolAt === POOL.length) {
    crypto.getRandomValues(POOL);
    poolAt = 0;
  }
  const p = POOL, i = poolAt;
  poolAt = i + 16;
  return prefix + HEX[p[i]] + HEX[p[i + 1]] + HEX[p[i + 2]] + HEX[p[i + 3]] + HEX[p[i + 4]]
    + HEX[p[i + 5]] + HEX[p[i + 6]] + HEX[p[i + 7]] + HEX[p[i + 8]] + HEX[p[i + 9]]
    + HEX[p[i + 10]] + HEX[p[i + 11]] + HEX[p[i + 12]] + HEX[p[i + 13]] + HEX[p[i + 14]]
    + HEX[p[i + 15]];
}

// ---------------------------------------------------------------------------------------------
// Strings
// ---------------------------------------------------------------------------------------------

/** Set by `jsonBytes`: the string has a lone surrogate / reads with a U+FFFD. */
let lone = false, replacement = false;

/**
 * The UTF-8 length of `s` as a JSON string literal (quotes and escapes counted, as
 * `JSON.stringify` writes it), with each lone surrogate counted as the U+FFFD it becomes.
 */
function jsonBytes(s) {
  let n = s.length + 2;
  lone = false;
  replacement = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) {
      if (c >= 0x20) {
        if (c === 0x22 || c === 0x5c) n++;
      } else n += c === 8 || c === 9 || c === 10 || c === 12 || c === 13 ? 1 : 5;
    } else if (c < 0x800) n += 1;
    else if ((c & 0xf800) !== 0xd800) {
      n += 2;
      if (c === 0xfffd) replacement = true;
    } else if (c < 0xdc00 && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 2; // two UTF-16 units, four bytes
      i++;
    } else {
      n += 2;
      lone = replacement = true;
    }
  }
  return n;
}

/** `s` with every lone surrogate replaced by U+FFFD. */
function wellFormed(s) {
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c < 0xdc00 && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) out += s[i] + s[++i];
    else out += (c & 0xf800) === 0xd800 ? "\ufffd" : s[i];
  }
  return out;
}

/** The UTF-8 length of `s` (well-formed or not; a lone surrogate as U+FFFD, 3 bytes). */
function utf8Length(s) {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    n += c < 0x800 ? 1 : 2;
    if (c >= 0xd800 && c < 0xdc00 && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i++;
  }
  return n;
}

/** A safe integer's length in JSON (−0 prints as 0). */
function integerLength(v) {
  let n = 1;
  if (v < 0) {
    v = -v;
    n = 2;
  }
  while (v >= 10) {
    v = Math.floor(v / 10);
    n++;
  }
  return n;
}

// ---------------------------------------------------------------------------------------------
// Reading the args: plain JSON data, counted and frozen in one walk
// ---------------------------------------------------------------------------------------------

/** Thrown by the walk (never on the success path): why the args are refused. */
class Refusal {
  constructor(code, why) {
    this.code = code;
    this.why = why;
    this.path = "";
  }
  get message() {
    return this.code === "args_too_large" ? this.why : `args${this.path}: ${this.why}, not JSON data`;
  }
}

const notJson = (why) => new Refusal("invalid_args", why);
const NESTED = "is nested too deeply (or is cyclic)";
const THROWING_GETTER = "has a throwing getter";

let bytes = 0, budget = 0;

function spend(n) {
  if ((bytes += n) > budget) {
    throw new Refusal("args_too_large", `args are ${bytes} bytes of JSON, more than the ${budget} allowed`);
  }
}

/** The deeply frozen copy of `v`, or a thrown `Refusal`. */
function copy(v, depth) {
  if (depth > MAX_DEPTH) throw notJson(NESTED);
  switch (typeof v) {
    case "string": {
      spend(jsonBytes(v));
      return lone ? wellFormed(v) : v;
    }
    case "number":
      if (v - v !== 0) throw notJson("is not a finite number");
      spend(Number.isSafeInteger(v) ? integerLength(v) : NUMBER_LEN);
      return v;
    case "boolean":
      spend(v ? 4 : 5);
      return v;
    case "object":
      if (v === null) {
        spend(4);
        return v;
      }
      break;
    case "undefined": throw notJson("is undefined");
    case "function": throw notJson("is a function");
    case "symbol": throw notJson("is a symbol");
    case "bigint": throw notJson("is a BigInt");
  }
  let array, plain;
  try {
    array = Array.isArray(v);
    if (!array) {
      const p = Object.getPrototypeOf(v);
      plain = p === Object.prototype || p === null || Object.getPrototypeOf(p) === null;
    }
  } catch {
    throw notJson("cannot be read");
  }
  if (array) return copyArray(v, depth);
  if (plain) return copyObject(v, depth);
  throw notJson("is not a plain object");
}

function copyArray(v, depth) {
  let len;
  try {
    len = v.length;
  } catch { /* below */ }
  if (!Number.isInteger(len) || len < 0 || len > 4294967295) throw notJson("has an unreadable length");
  spend(len > 0 ? len + 1 : 2);
  const out = new Array(len);
  for (let i = 0; i < len; i++) {
    try {
      let item;
      try {
        item = v[i];
      } catch {
        throw notJson(THROWING_GETTER);
      }
      if (item === undefined) throw notJson("is undefined");
      out[i] = copy(item, depth + 1);
    } catch (e) {
      if (e instanceof Refusal && e.code === "invalid_args") e.path = `[${i}]${e.path}`;
      throw e;
    }
  }
  return Object.freeze(out);
}

function copyObject(v, depth) {
  let keys;
  try {
    keys = Object.keys(v);
  } catch {
    throw notJson("cannot be read");
  }
  spend(2);
  const out = {};
  let written = 0, seen = null;
  for (let i = 0; i < keys.length; i++) {
    let key = keys[i], item;
    try {
      item = v[key];
    } catch {
      throw notJson(THROWING_GETTER);
    }
    if (item === undefined) continue; // as JSON.stringify leaves it out
    try {
      spend(jsonBytes(key) + (written++ > 0 ? 2 : 1)); // "key": and the comma before it
      if (replacement) {
        // Two keys that read the same once lone surrogates are U+FFFD: the schema would judge
        // one and `run` would see the other.
        if (lone) key = wellFormed(key);
        if ((seen ??= new Set()).has(key)) {
          throw notJson("is a key that another key of the object also reads as (lone surrogates read as U+FFFD)");
        }
        seen.add(key);
      }
      item = copy(item, depth + 1);
    } catch (e) {
      if (e instanceof Refusal && e.code === "invalid_args") e.path = `.${key}${e.path}`;
      throw e;
    }
    if (key === "__proto__") {
      Object.defineProperty(out, key, { value: item, enumerable: true, writable: true, configurable: true });
    } else out[key] = item;
  }
  return Object.freeze(out);
}

/** The frozen copy of `args` within `max` bytes of JSON, or a thrown `Refusal`. */
function readArgs(args, max) {
  bytes = 0;
  budget = max;
  return copy(args, 0);
}

// ---------------------------------------------------------------------------------------------
// The schema subset (src/core/schema.rs), compiled once into closures
// ---------------------------------------------------------------------------------------------

const T_NULL = 1, T_BOOLEAN = 2, T_OBJECT = 4, T_ARRAY = 8, T_NUMBER = 16, T_STRING = 32, T_INTEGER = 64;
const TYPE_NAMES = [["object", T_OBJECT], ["string", T_STRING], ["number", T_NUMBER], ["integer", T_INTEGER],
  ["boolean", T_BOOLEAN], ["array", T_ARRAY], ["null", T_NULL]];
const TYPE_BITS = new Map(TYPE_NAMES);
const UNSUPPORTED = new Set(["pattern", "patternProperties", "propertyNames", "minItems", "maxItems",
  "uniqueItems", "contains", "prefixItems", "additionalItems", "unevaluatedItems", "unevaluatedProperties",
  "minProperties", "maxProperties", "dependentRequired", "dependentSchemas", "exclusiveMinimum",
  "exclusiveMaximum", "multipleOf", "anyOf", "oneOf", "allOf", "not", "if", "$ref"]);

function typeOf(v) {
  switch (typeof v) {
    case "string": return T_STRING;
    case "number": return Number.isInteger(v) ? T_NUMBER | T_INTEGER : T_NUMBER;
    case "boolean": return T_BOOLEAN;
    default: return v === null ? T_NULL : Array.isArray(v) ? T_ARRAY : T_OBJECT;
  }
}

function expected(bits) {
  return "expected " + TYPE_NAMES.filter(([, b]) => bits & b).map(([n]) => n).join(" or ");
}

/** A bound as the SDK prints it: whole numbers exactly, fractions as JSON does. */
const bound = (n) => (Number.isInteger(n) && Math.abs(n) < 9e15 ? String(n) : JSON.stringify(n));

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
/** A failure's path step for a key; built only when a call fails. */
const keyStep = (key) => (IDENTIFIER.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`);

/** Deep equality of plain JSON data, objects compared without regard to key order. */
function sameJson(a, b) {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  const arr = Array.isArray(a);
  if (arr !== Array.isArray(b)) return false;
  if (arr) {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (let i = 0; i < ka.length; i++) {
    const k = ka[i];
    if (!Object.hasOwn(b, k) || !sameJson(a[k], b[k])) return false;
  }
  return true;
}

const codePoints = (s) => {
  let n = s.length;
  for (let i = 0; i < s.length; i++) if ((s.charCodeAt(i) & 0xfc00) === 0xd800) n--; // well-formed: pairs
  return n;
};

/** An own property of a frozen copy (which holds no undefined), past names it would inherit. */
const ownReader = (key) =>
  key in Object.prototype ? (v) => (Object.hasOwn(v, key) ? v[key] : undefined) : null;

/**
 * Compiles a schema node into `check(v)`: `null` when `v` passes, else the failure as
 * `<path below this node>: <message>` (the caller prepends its step; the root, `args`).
 * Throws `invalid_spec` for a malformed schema, as `defineAction` does.
 */
function compile(spec, path = "input", depth = 0) {
  const fail = (m, key) => {
    const e = new Error(`${path}${key === undefined ? "" : "." + key}: ${m}`);
    e.code = "invalid_spec";
    throw e;
  };
  if (spec === true) return () => null;
  if (spec === false) return () => ": no value is allowed here";
  if (typeof spec !== "object" || spec === null || Array.isArray(spec)) fail("a schema must be an object or a boolean");
  if (depth > 32) fail("nested too deeply");
  let types = 0, minimum, maximum, minLength = -1, maxLength = -1, items = null, constant, options;
  let hasConst = false, additional = null, additionalNever = false;
  const props = [], required = [];
  const count = (v, k) => (Number.isInteger(v) && v >= 0 && v < 4294967296 ? v : fail("must be a non-negative integer", k));
  for (const [key, value] of Object.entries(spec)) {
    const at = `${path}.${key}`;
    switch (key) {
      case "type":
        for (const name of Array.isArray(value) && value.length ? value : [value]) {
          const bit = TYPE_BITS.get(name);
          if (bit === undefined) fail(typeof name === "string" ? "unknown type name" : "must be a type name or a non-empty array of them", "type");
          types |= bit;
        }
        break;
      case "properties":
        if (typeof value !== "object" || value === null || Array.isArray(value)) fail("must be an object", "properties");
        for (const [name, sub] of Object.entries(value)) props.push([name, compile(sub, `${at}.${name}`, depth + 1)]);
        break;
      case "required":
        if (!Array.isArray(value) || value.some((n) => typeof n !== "string")) fail("must be an array of property names", "required");
        required.push(...value);
        break;
      case "items": items = compile(value, at, depth + 1); break;
      case "additionalProperties":
        if (value === false) additionalNever = true;
        else if (value !== true) additional = compile(value, at, depth + 1);
        break;
      case "enum":
        if (!Array.isArray(value)) fail("must be an array", "enum");
        options = value;
        break;
      case "const": constant = value; hasConst = true; break;
      case "minimum": if (typeof value !== "number") fail("must be a number", "minimum"); minimum = value; break;
      case "maximum": if (typeof value !== "number") fail("must be a number", "maximum"); maximum = value; break;
      case "minLength": minLength = count(value, "minLength"); break;
      case "maxLength": maxLength = count(value, "maxLength"); break;
      default:
        if (UNSUPPORTED.has(key)) fail("is not supported by coworkkit's JSON Schema subset; use a Standard Schema (zod, valibot) for it", key);
    }
  }

  // The messages, built once.
  const typeFail = ": " + expected(types);
  const minFail = minimum === undefined ? "" : ": must be at least " + bound(minimum);
  const maxFail = maximum === undefined ? "" : ": must be at most " + bound(maximum);
  const shortFail = ": must have at least this many characters: " + minLength;
  const longFail = ": must have at most this many characters: " + maxLength;

  const checkString = (v) => {
    // Code points lie between ⌈length / 2⌉ and length: count them only when that range
    // straddles a bound.
    const len = v.length;
    if ((minLength < 0 || (len + 1) >> 1 >= minLength) && (maxLength < 0 || len <= maxLength)) return null;
    const n = codePoints(v);
    if (minLength >= 0 && n < minLength) return shortFail;
    if (maxLength >= 0 && n > maxLength) return longFail;
    return null;
  };
  const checkNumber = (v) => {
    if (minimum !== undefined && v < minimum) return minFail;
    if (maximum !== undefined && v > maximum) return maxFail;
    return null;
  };
  const checkArray = (v) => {
    for (let i = 0; i < v.length; i++) {
      const f = items(v[i]);
      if (f !== null) return `[${i}]${f}`;
    }
    return null;
  };

  // Objects: required names in schema order, then every field in the object's own order (as
  // the SDK reports the first failure). The fast path reads the declared properties directly
  // and falls back to the ordered walk only to name a failure, or when other fields matter.
  const propNames = props.map(([k]) => k), propChecks = props.map(([, c]) => c);
  const propReaders = propNames.map(ownReader), requiredReaders = required.map(ownReader);
  const byName = new Map(props);
  const orderedFields = (v) => {
    const keys = Object.keys(v);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i], check = byName.get(key);
      let f;
      if (check !== undefined) f = check(v[key]);
      else if (additionalNever) f = ": is not an allowed property";
      else if (additional !== null) f = additional(v[key]);
      else continue;
      if (f !== null) return keyStep(key) + f;
    }
    return null;
  };
  const walkAll = additionalNever || additional !== null;
  const checkObject = (v) => {
    for (let i = 0; i < required.length; i++) {
      const k = required[i], read = requiredReaders[i];
      if ((read === null ? v[k] : read(v)) === undefined) return keyStep(k) + ": is required";
    }
    if (walkAll) return orderedFields(v);
    for (let i = 0; i < propNames.length; i++) {
      const read = propReaders[i];
      const x = read === null ? v[propNames[i]] : read(v);
      if (x !== undefined && propChecks[i](x) !== null) return orderedFields(v);
    }
    return null;
  };

  // One closure per node; the common nodes (one type, no const or enum) get a closure that
  // tests only what they declare.
  const plain = !hasConst && options === undefined;
  if (plain && types === T_STRING) {
    if (minLength < 0 && maxLength < 0) return (v) => (typeof v === "string" ? null : typeFail);
    return (v) => (typeof v === "string" ? checkString(v) : typeFail);
  }
  if (plain && (types === T_INTEGER || types === T_NUMBER)) {
    const integer = types === T_INTEGER;
    return (v) => (typeof v === "number" && (!integer || Number.isInteger(v)) ? checkNumber(v) : typeFail);
  }
  if (plain && types === T_BOOLEAN) return (v) => (typeof v === "boolean" ? null : typeFail);
  if (plain && types === T_OBJECT) {
    return (v) => (typeof v === "object" && v !== null && !Array.isArray(v) ? checkObject(v) : typeFail);
  }
  return (v) => {
    if (types !== 0 && (typeOf(v) & types) === 0) return typeFail;
    if (hasConst && !sameJson(v, constant)) return ": does not equal the required constant";
    if (options !== undefined && !options.some((o) => sameJson(v, o))) return ": is not one of the allowed values";
    switch (typeof v) {
      case "number": return checkNumber(v);
      case "string": return minLength < 0 && maxLength < 0 ? null : checkString(v);
      case "object":
        if (v === null) return null;
        if (Array.isArray(v)) return items === null ? null : checkArray(v);
        return checkObject(v);
    }
    return null;
  };
}

// ---------------------------------------------------------------------------------------------
// Control of an unknown name (for its record), SPEC §1
// ---------------------------------------------------------------------------------------------

const DESTRUCTIVE = new Set(["delete", "remove", "purge", "destroy", "drop", "erase", "wipe", "truncate",
  "revoke", "reset", "clear", "terminate", "kill", "unlink", "uninstall", "overwrite", "discard", "cancel"]);
const readsDestructive = (name) =>
  (name.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+/g) ?? []).some((w) => DESTRUCTIVE.has(w.toLowerCase()));

// ---------------------------------------------------------------------------------------------
// The gate
// ---------------------------------------------------------------------------------------------

const CALL_ID_MESSAGE = "callId must be a non-empty string of at most 256 bytes";
const BAD_TOKEN_MESSAGE = "confirmToken does not match this call (unknown, or issued for other args or another action)";
const CONFLICT_MESSAGE = "this callId was already used with different args or another action";
const NOT_RUN = Object.freeze({ status: "not_run" });
const REASON_MESSAGE = "reason goes only with confirmToken and decline: true, for the user's own words when they said no";

/** What the model should do next after an outcome that is not ok (the SDK's sentences, SPEC §12). */
function nextStep(gate, code) {
  if (gate === "cancelled") return "Not done: it was cancelled. Do not retry unless the user asks.";
  if (gate === "rejected") {
    switch (code) {
      case "unknown_action": return "Not done: there is no tool by that name. Use one of the tools you were given.";
      case "invalid_args": return "Not done: the arguments are not valid (error.message says where). Fix them, then call again.";
      case "args_too_large": return "Not done: the arguments are too large. Send less.";
      case "bad_token": return "Not done: this confirmToken does not belong to this call. Use the one returned for exactly these arguments, or call without it and ask the user again.";
      case "call_id_conflict": return "Not done: this call id belongs to another call. Use a new one.";
    }
  }
  return "Not done: error.message says why. Do not retry it unchanged; tell the user.";
}

/** A call field read once; a throwing getter reads as undefined. */
function field(call, key) {
  try {
    return call[key];
  } catch {
    return undefined;
  }
}

const text = (s) => (jsonBytes(s), lone ? wellFormed(s) : s);

export class PlainGate {
  constructor({ onActionRecord, maxArgsBytes = 65536 } = {}) {
    this.sessionId = randomId("");
    this.nextRecord = 0;
    this.sink = onActionRecord ?? null;
    this.maxArgsBytes = maxArgsBytes;
    this.actions = new Map();
    this.listeners = []; // `record` listeners (none in the bench, as in the SDK)
    this.abort = new AbortController();
    this.disposed = false;
    // The last 1,024 settled calls: callId → ring slot; the ring holds what a replay needs.
    this.remembered = new Map();
    this.ringIds = new Array(REMEMBERED_CALLS).fill(undefined);
    this.ringNames = new Array(REMEMBERED_CALLS).fill(undefined);
    this.ringArgs = new Array(REMEMBERED_CALLS).fill(undefined);
    this.ringOutcomes = new Array(REMEMBERED_CALLS).fill(undefined);
    this.ringAt = 0;
    this.running = new Map(); // callId → { name, args, promise } while an async run is in flight
    addEventListener("pagehide", () => this.dispose(), { once: true });
  }

  on(event, listener) {
    if (event !== "record") throw new Error("the bar only has record listeners");
    this.listeners.push(listener);
    return () => this.listeners.splice(this.listeners.indexOf(listener) >>> 0, 1);
  }

  defineAction({ name, input, run, control = "open", shareResult = true, recordResult = true }) {
    if (control !== "open") throw new Error("the bar only does open actions");
    if (this.actions.has(name)) throw new Error(`an action named \`${name}\` is already registered`);
    const check = input === undefined ? null : compile(input);
    this.actions.set(name, { run, check, shareResult, recordResult });
  }

  dispose() {
    if (this.disposed) return;
    this.disposed = true;
    this.abort.abort();
  }

  invoke(call) {
    const startedAt = Date.now();
    let name = field(call, "name");
    const raw = field(call, "args");
    let callId = field(call, "callId");
    let token = field(call, "confirmToken");
    const decline = field(call, "decline");
    const reason = field(call, "reason");
    name = typeof name === "string" ? text(name) : "";

    // A bad callId or token is judged after the checks that come first in the SDK; the call
    // then carries a fresh id.
    let late = null;
    if (callId === undefined || callId === null) {
      callId = undefined;
    } else if (typeof callId !== "string") {
      callId = undefined;
      late = "invalid_args";
    } else {
      callId = text(callId);
      if (callId === "" || (callId.length > 85 && utf8Length(callId) > 256)) {
        callId = undefined;
        late = "invalid_args";
      }
    }
    if (token === null) token = undefined;
    else if (token !== undefined && typeof token !== "string") {
      token = undefined;
      late ??= "bad_token";
    }

    let args;
    if (raw === undefined) args = Object.freeze({});
    else {
      try {
        args = readArgs(raw, this.maxArgsBytes);
      } catch (e) {
        if (!(e instanceof Refusal)) throw e;
        return this.refuse(startedAt, name, null, callId, e.code, e.message);
      }
    }
    if (this.disposed) {
      return this.refuse(startedAt, name, args, callId, "disposed", "this coworkkit instance was disposed", "cancelled");
    }
    const action = this.actions.get(name);
    if (action === undefined) {
      return this.refuse(startedAt, name, null, callId, "unknown_action", `no action named \`${name}\` is registered`);
    }

    if (typeof reason === "string" && !decline) {
      return this.refuse(startedAt, name, args, callId, "invalid_args", REASON_MESSAGE);
    }
    if (reason !== undefined && reason !== null && typeof reason !== "string") late ??= "invalid_args";

    if (callId !== undefined) {
      const slot = this.remembered.get(callId);
      if (slot !== undefined) {
        if (this.ringNames[slot] === name && sameJson(this.ringArgs[slot], args)) {
          return Promise.resolve(this.ringOutcomes[slot]);
        }
        return this.refuse(startedAt, name, args, callId, "call_id_conflict", CONFLICT_MESSAGE);
      }
      const live = this.running.get(callId);
      if (live !== undefined) {
        if (live.name === name && sameJson(live.args, args)) return live.promise;
        return this.refuse(startedAt, name, args, callId, "call_id_conflict", CONFLICT_MESSAGE);
      }
    }
    if (token !== undefined || decline) return this.refuse(startedAt, name, args, callId, "bad_token", BAD_TOKEN_MESSAGE);
    if (late !== null) {
      return this.refuse(startedAt, name, args, callId, late, late === "bad_token" ? BAD_TOKEN_MESSAGE
        : typeof reason === "string" || reason === undefined || reason === null ? CALL_ID_MESSAGE : "reason must be a string");
    }
    if (action.check !== null) {
      const f = action.check(args);
      if (f !== null) return this.refuse(startedAt, name, args, callId, "invalid_args", "args" + f);
    }

    callId ??= randomId("ck_");
    const ctx = { callId, control: "open", approver: null, signal: this.abort.signal };
    let value;
    try {
      const run = action.run;
      value = run(args, ctx);
    } catch (e) {
      return Promise.resolve(this.settleRun(startedAt, name, args, callId, action, false, e));
    }
    if (typeof value === "object" && value !== null) {
      let then;
      try {
        then = value.then;
      } catch { /* not a thenable */ }
      if (typeof then === "function") {
        const promise = Promise.resolve(value).then(
          (v) => this.settleRun(startedAt, name, args, callId, action, true, v),
          (e) => this.settleRun(startedAt, name, args, callId, action, false, e),
        );
        this.running.set(callId, { name, args, promise });
        return promise;
      }
    }
    return Promise.resolve(this.settleRun(startedAt, name, args, callId, action, true, value));
  }

  settleRun(startedAt, name, args, callId, action, ok, value) {
    let outcome, recordOutcome;
    if (ok) {
      outcome = value === undefined || !action.shareResult
        ? Object.freeze({ callId, gate: "fired", ok: true })
        : Object.freeze({ callId, gate: "fired", ok: true, result: value });
      recordOutcome = value === undefined || !action.recordResult
        ? Object.freeze({ status: "ok" })
        : Object.freeze({ status: "ok", value });
    } else {
      let message = value;
      if (typeof message !== "string") {
        try {
          message = value.message;
        } catch { /* below */ }
        if (typeof message !== "string") message = "run threw a non-Error value";
      }
      outcome = Object.freeze({ callId, gate: "fired", ok: false, error: Object.freeze({ code: "run_failed", message }), instruction: nextStep("fired", "run_failed") });
      recordOutcome = Object.freeze({ status: "error", code: "run_failed", message });
    }
    this.emit(Object.freeze({
      v: 1, id: this.sessionId + "." + this.nextRecord++, sessionId: this.sessionId, callId, action: name,
      control: "open", controlSource: "declared", gate: "fired", outcome: recordOutcome, args,
      via: "invoke", assurance: "none", startedAt, settledAt: Date.now(),
    }));
    if (this.running.size !== 0) this.running.delete(callId);
    this.remember(callId, name, args, outcome);
    return outcome;
  }

  remember(callId, name, args, outcome) {
    const at = this.ringAt;
    const old = this.ringIds[at];
    if (old !== undefined) this.remembered.delete(old);
    this.ringIds[at] = callId;
    this.ringNames[at] = name;
    this.ringArgs[at] = args;
    this.ringOutcomes[at] = outcome;
    this.remembered.set(callId, at);
    this.ringAt = at + 1 === REMEMBERED_CALLS ? 0 : at + 1;
  }

  /**
   * A call refused on arrival (`rejected`, or `cancelled` after `dispose()`): recorded, not
   * remembered, so a corrected retry is judged afresh.
   */
  refuse(now, name, args, callId, code, message, gate = "rejected") {
    const [control, controlSource] = this.actions.has(name) ? ["open", "declared"]
      : readsDestructive(name) ? ["soft", "destructive_name"] : ["open", "default"];
    callId ??= randomId("ck_");
    this.emit(Object.freeze({
      v: 1, id: this.sessionId + "." + this.nextRecord++, sessionId: this.sessionId, callId, action: name,
      control, controlSource, gate, outcome: NOT_RUN, args, reason: code, via: "invoke",
      assurance: "none", startedAt: now, settledAt: now,
    }));
    return Promise.resolve(Object.freeze({ callId, gate, ok: false, error: Object.freeze({ code, message }), instruction: nextStep(gate, code) }));
  }

  emit(record) {
    if (this.sink !== null) {
      try {
        this.sink(record);
      } catch (e) {
        console.error("coworkkit: onActionRecord threw; the call is unaffected", e);
      }
    }
    const listeners = this.listeners;
    for (let i = 0; i < listeners.length; i++) {
      try {
        listeners[i](record);
      } catch (e) {
        console.error("coworkkit: an event listener threw", e);
      }
    }
  }
}
