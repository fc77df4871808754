// @ts-check
/**
 * @file The one-pass reader of what an agent sends: an `invoke` call and its args (SPEC §3.6),
 * and a provider's tool call (SPEC §7).
 *
 * What it guarantees for args, each rule tested in tests/js/args.test.mjs:
 * - What it accepts is plain JSON data: objects whose prototype is null or an
 *   `Object.prototype` (of any realm: one whose own prototype is null), arrays, strings, finite
 *   numbers, booleans and `null`. Anything else (a function, symbol, BigInt, class instance,
 *   non-finite number, undefined array item, a cycle or nesting past `MAX_DEPTH`) is refused
 *   with the path of the first offender (for a property whose read throws, its object's path).
 * - It never throws on what an agent hands it: every read is in a `try`, and a Proxy whose trap
 *   throws or a throwing getter is refused like any other non-JSON value. (An exception would
 *   cross into the wasm and skip the Rust caller's cleanup.) An undefined property is skipped,
 *   as `JSON.stringify` skips it.
 * - It counts the JSON size as it goes, in UTF-8 bytes, and stops as soon as the count passes
 *   the budget, so a hostile million-key object costs no more than the budget allows (a Proxy's
 *   traps included: each key's descriptor is asked for as the walk reaches it). The count
 *   never exceeds the exact size (SPEC §3: the UTF-8 length of the JSON), so nothing within the
 *   budget is refused here; Rust measures the whole value again, exactly. It counts 4 or 5 for
 *   a literal; a number as `JSON.stringify` prints it; a string's bytes + 2 (its escapes are
 *   left to Rust); for an array 2 + a comma per item, paid from its `length` before any item is
 *   read (so a Proxy claiming 2^32 − 1 items stops at once); for an object 2, and per property
 *   the key's bytes + 3, and a comma before each but the first.
 * - Lone surrogates read as U+FFFD, in strings and keys, as the Rust `Value` has them; two keys
 *   of one object that then read the same are refused (the schema would check one and `run`
 *   would see the other).
 * - For `invoke` it also builds the deeply frozen copy that `run` and the record receive: own,
 *   enumerable data properties only, and a key the new object would inherit (`__proto__`,
 *   `constructor`…) is defined, not assigned, so no prototype setter runs.
 *
 * And for a tool call, each rule tested in tests/js/toolcall.test.mjs:
 * - It recognises five shapes: OpenAI Chat `{id, type: "function", function: {name,
 *   arguments}}`, OpenAI Responses `{type: "function_call", call_id, name, arguments}`,
 *   Anthropic `{type: "tool_use", id, name, input}`, the Vercel AI SDK's `{toolCallId,
 *   toolName, input}` (`type` absent; `"tool-input-available"`, the stream chunk that
 *   `useChat`'s `onToolCall` is handed as its `toolCall`; or `"tool-call"`, an item of
 *   `generateText`'s `toolCalls`) and MCP's `tools/call` params `{name, arguments}` (none of
 *   the other shapes' fields, nor `invoke`'s `args` or `callId`: an MCP call has no id of its
 *   own, and an `invoke` call sent here must not run with its args or its id dropped). Anything
 *   else is refused, and answered in the closest shape.
 * - AG-UI's tool call has OpenAI Chat's shape, so no field tells them apart: the app names it
 *   (`agUi`, from `handleToolCall(call, { format: "ag-ui" })`). Then the call must have that
 *   shape, or it is refused, and it is answered as AG-UI's whatever it was.
 * - It reads the call's fields once each, in one order: `type`, `id`, `call_id`, `name`,
 *   `tool_use_id`, `arguments`, `input`, `toolCallId`, `toolName`, `args`, `callId`, then
 *   `function`'s `name` and `arguments`; a read that throws reads as `undefined`, as for args.
 *   (`args` and `callId` are only looked at: whether they are there.)
 * - A string field longer than 4 × `max` + 4096 UTF-16 units is refused by its length, before it
 *   is copied or parsed. `arguments` and `input` that are not strings are read as args (with
 *   `max` as the budget) whether or not the shape uses them. The first refusal of any field,
 *   in the read order, is the one that stands.
 * - Arguments given as JSON text are read with lone surrogates as U+FFFD, then `JSON.parse`d
 *   and read as args. Text that Rust's `str::trim` would leave empty, `null` or no arguments at
 *   all are no arguments (`{}`); arguments that are not a JSON object are refused.
 *
 * What it read reaches Rust as one run of UTF-8 bytes per call, the tape, in the format
 * documented beside its decoder, `core::tape` (src/core/tape.rs). It is written as bytes, not
 * built as a string: the glue copies it into wasm memory in one go, where a string built by
 * `+=` would first be flattened, then encoded a character at a time. The bytes a reader returns
 * are a view of a buffer that the next reader reuses, so they are copied (as the glue does) or
 * decoded at once.
 */
import {
  MAX_DEPTH, TAG_NULL, TAG_TRUE, TAG_FALSE, TAG_INT, TAG_DOUBLE, TAG_STRING, TAG_ARRAY,
  TAG_ARRAY_END, TAG_OBJECT, TAG_OBJECT_END, TAG_LENGTH_END, TAG_NUMBER_END, TAG_TOO_LARGE,
  TAG_NOT_JSON, TAG_REFUSED, TAG_ABSENT, TAG_OTHER, TAG_DECLINE, TAG_NO_DECLINE, WHY_TOO_DEEP,
  WHY_NOT_FINITE, WHY_UNDEFINED, WHY_FUNCTION, WHY_SYMBOL, WHY_BIGINT, WHY_NOT_PLAIN,
  WHY_UNREADABLE, WHY_BAD_LENGTH, WHY_GETTER_THREW, WHY_DUPLICATE_KEY, SHAPE_OPENAI_CHAT,
  SHAPE_OPENAI_RESPONSES, SHAPE_ANTHROPIC, SHAPE_MCP, SHAPE_AI_SDK, SHAPE_AG_UI, MAX_FIELD_BYTES,
} from "./codes.js";

/**
 * `object[key]`, or `undefined` when the read throws (a getter, a Proxy trap).
 * @param {unknown} object
 * @param {PropertyKey} key
 * @returns {unknown}
 */
export function safeGet(object, key) {
  // What `Reflect.get` answers (`undefined` for a primitive), as a plain read, which is faster.
  if ((typeof object !== "object" || object === null) && typeof object !== "function") return undefined;
  try { return /** @type {Record<PropertyKey, unknown>} */ (object)[key]; } catch { return undefined; }
}

/** Set by {@link utf8Length}: whether the string it measured has a lone surrogate. */
let sawLone = false;
/** Set by {@link utf8Length}: whether the string it measured reads with a U+FFFD. */
let sawReplacement = false;

/**
 * The UTF-8 length of `s` as Rust will hold it (a lone surrogate as U+FFFD, 3 bytes); also
 * records in `sawLone` whether `s` has one, and in `sawReplacement` whether it then holds a
 * U+FFFD (a lone surrogate, or one of its own), so the common well-formed string is walked once.
 * @param {string} s
 * @returns {number}
 */
export function utf8Length(s) {
  let n = s.length;
  sawLone = sawReplacement = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    n += c < 0x800 ? 1 : 2;
    if ((c & 0xf800) !== 0xd800) {
      if (c === 0xfffd) sawReplacement = true;
      continue;
    }
    if (c < 0xdc00 && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i++;
    else sawLone = sawReplacement = true;
  }
  return n;
}

/**
 * `s` with each lone surrogate replaced by U+FFFD (what Rust sees of it).
 * @param {string} s
 * @returns {string}
 */
export function wellFormed(s) {
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xdc00 && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00 && c >= 0xd800) out += s[i] + s[++i];
    else out += (c & 0xf800) === 0xd800 ? "\ufffd" : s[i];
  }
  return out;
}

/**
 * `s` as Rust sees it, measured and replaced in one go.
 * @param {string} s
 * @returns {string}
 */
export function asRustSees(s) {
  utf8Length(s);
  return sawLone ? wellFormed(s) : s;
}

// Rust's `char::is_whitespace` (Unicode White_Space) as a class: JavaScript's `\s` less U+FEFF,
// plus U+0085, so that JS trims and tests for blank exactly as Rust's `str::trim` would.
const EDGE_SPACE = /^(\x85|[^\S\ufeff])+|(\x85|[^\S\ufeff])+$/g;
const ALL_SPACE = /^(\x85|[^\S\ufeff])*$/;

/**
 * What Rust's `str::trim` leaves of `s`.
 * @param {string} s
 * @returns {string}
 */
export const rustTrim = (s) => s.replace(EDGE_SPACE, "");

/**
 * Whether Rust's `str::trim` would leave `s` empty.
 * @param {string} s
 * @returns {boolean}
 */
export const rustBlank = (s) => ALL_SPACE.test(s);

// The tags as the bytes the tape holds.
const [NULL, TRUE, FALSE, INT, STRING, ARRAY, ARRAY_END, OBJECT, OBJECT_END, LENGTH_END,
  NUMBER_END, TOO_LARGE, NOT_JSON, ABSENT, OTHER, DECLINE, NO_DECLINE] = [TAG_NULL, TAG_TRUE,
  TAG_FALSE, TAG_INT, TAG_STRING, TAG_ARRAY, TAG_ARRAY_END, TAG_OBJECT, TAG_OBJECT_END,
  TAG_LENGTH_END, TAG_NUMBER_END, TAG_TOO_LARGE, TAG_NOT_JSON, TAG_ABSENT, TAG_OTHER,
  TAG_DECLINE, TAG_NO_DECLINE].map((tag) => tag.charCodeAt(0));

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The tape buffer that readers share, one at a time: a reader that starts while another is
 * reading (a getter in the args that calls `invoke`) finds none and makes its own. One that
 * grew past 64 KiB is not kept.
 * @type {Uint8Array | null}
 */
let spare = new Uint8Array(1024);

/**
 * An `invoke` call's string field as it is read: itself when it has at most `MAX_FIELD_BYTES`
 * UTF-8 bytes, else `null`, which the tape then carries as `OTHER`. A string's UTF-8 length is at
 * least its UTF-16 length, so a longer one is refused without a walk over it.
 * @param {unknown} v
 * @returns {unknown}
 */
const bounded = (v) =>
  typeof v !== "string" || (v.length <= MAX_FIELD_BYTES && utf8Length(v) <= MAX_FIELD_BYTES) ? v : OVERSIZE;

/**
 * The most of an `invoke` call's `reason` that is read, in UTF-16 code units: a person's reason
 * is cut to 200 characters in Rust (`core::card::reason_text`), and this bound keeps an agent's
 * megabyte string out of wasm memory without refusing a long one.
 */
export const REASON_READ_UNITS = 1000;

/**
 * An `invoke` call's `reason` as it is read: a string's first {@link REASON_READ_UNITS} code
 * units (a cut through a surrogate pair leaves a lone one, read as U+FFFD), anything else as it
 * is.
 * @param {unknown} v
 * @returns {unknown}
 */
const reasonField = (v) => typeof v === "string" && v.length > REASON_READ_UNITS ? v.slice(0, REASON_READ_UNITS) : v;

/** What {@link bounded} turns an oversize string into: neither a string nor absent. */
const OVERSIZE = Object.freeze({});

/**
 * How many bytes a call's field takes on the tape (see {@link ArgsReader#field}).
 * @param {unknown} v
 */
const fieldLength = (v) => {
  if (typeof v !== "string") return 1;
  const n = utf8Length(v);
  return String(n).length + n + 2;
};

const isEnumerable = Object.prototype.propertyIsEnumerable;

const bits = new DataView(new ArrayBuffer(8));
/** @param {number} at */
const hex8 = (at) => bits.getUint32(at).toString(16).padStart(8, "0");

/**
 * Reads one value as plain JSON data and writes its tape. A refusal replaces the tape and ends
 * the walk by throwing the reader itself, which {@link ArgsReader#all} catches.
 */
export class ArgsReader {
  /**
   * @param {number} budget the largest JSON size, in UTF-8 bytes, that is acceptable
   * @param {boolean} copy whether to build the frozen copy
   */
  constructor(budget, copy) {
    this.budget = budget;
    this.spent = 0;
    this.copy = copy;
    this.out = spare ?? new Uint8Array(1024);
    spare = null;
    /** How many bytes of `out` are written; where the value's tape starts (after a call's fields). */
    this.at = this.start = 0;
    /** Why the value is not JSON data, a `WHY_*` code; unset while it may be. @type {string | undefined} */
    this.why = undefined;
    /**
     * The path to the value refused, below `args`: each container adds its step as the refusal
     * comes back up, so a value that is read builds none.
     */
    this.path = "";
  }

  /**
   * Reads `v`: returns its frozen copy (`null` for a container without `copy`), or `undefined`
   * after a refusal, which the tape then holds.
   * @param {unknown} v
   * @returns {unknown}
   */
  all(v) {
    try {
      return this.read(v, 0);
    } catch (e) {
      if (e !== this) throw e;
      if (this.why === undefined) return;
      this.at = this.start;
      this.put(NOT_JSON);
      this.raw(this.why + "args" + this.path);
    }
  }

  /**
   * The tape written, as a view of the reader's buffer, which goes back to be shared: copy or
   * decode it before the next read.
   */
  bytes() {
    if (this.out.length <= 65536) spare = this.out;
    return this.out.subarray(0, this.at);
  }

  /** @param {number} n bytes about to be written */
  room(n) {
    if (this.at + n <= this.out.length) return;
    const out = new Uint8Array(Math.max(2 * this.out.length, this.at + n));
    out.set(this.out.subarray(0, this.at));
    this.out = out;
  }

  /** @param {number} tag a tag's byte */
  put(tag) {
    this.room(1);
    this.out[this.at++] = tag;
  }

  /** @param {number} n a count, in decimal */
  count(n) {
    if (n < 10) this.put(48 + n);
    else this.ascii("" + n);
  }

  /** @param {string} s ASCII text */
  ascii(s) {
    this.room(s.length);
    for (let i = 0; i < s.length; i++) this.out[this.at++] = s.charCodeAt(i);
  }

  /**
   * `tag` (unless 0), `n`, `:`, then `s` as its `n` UTF-8 bytes (a lone surrogate as U+FFFD):
   * a string, a key.
   * @param {number} tag
   * @param {number} n the {@link utf8Length} of `s`
   * @param {string} s
   */
  counted(tag, n, s) {
    if (tag) this.put(tag);
    this.count(n);
    this.room(n + 1);
    const out = this.out;
    let at = this.at;
    out[at++] = LENGTH_END;
    if (n === s.length) for (let i = 0; i < n; i++) out[at++] = s.charCodeAt(i);
    else at += encoder.encodeInto(s, out.subarray(at)).written;
    this.at = at;
  }

  /**
   * A call's field: a string, absent (`undefined` or `null`), or anything else.
   * @param {unknown} v
   */
  field(v) {
    if (typeof v === "string") this.counted(STRING, utf8Length(v), v);
    else this.put(v === undefined || v === null ? ABSENT : OTHER);
  }

  /**
   * `s` (a refusal's message, a whole tape) as it is.
   * @param {string} s
   */
  raw(s) {
    this.room(utf8Length(s));
    this.at += encoder.encodeInto(s, this.out.subarray(this.at)).written;
  }

  /** @param {number} n */
  spend(n) {
    if ((this.spent += n) <= this.budget) return;
    this.at = this.start;
    this.put(TOO_LARGE);
    this.count(this.spent);
    this.put(NUMBER_END);
    throw this;
  }

  /**
   * @param {string} why a `WHY_*` code
   * @returns {never}
   */
  fail(why) {
    this.why = why;
    throw this;
  }

  /**
   * @param {unknown} v
   * @param {number} depth
   * @returns {unknown}
   */
  read(v, depth) {
    if (depth > MAX_DEPTH) this.fail(WHY_TOO_DEEP);
    switch (typeof v) {
      case "string": {
        const n = utf8Length(v);
        const text = sawLone ? wellFormed(v) : v;
        this.spend(n + 2);
        this.counted(STRING, n, text);
        return text;
      }
      case "number":
        if (!Number.isFinite(v)) this.fail(WHY_NOT_FINITE);
        if (Number.isSafeInteger(v) && !Object.is(v, -0)) {
          const digits = "" + v;
          this.spend(digits.length);
          this.put(INT);
          this.ascii(digits);
          this.put(NUMBER_END);
        } else {
          // As JSON.stringify prints it (String(n); -0 prints as 0).
          this.spend(v === 0 ? 1 : ("" + v).length);
          bits.setFloat64(0, v);
          this.raw(TAG_DOUBLE + hex8(0) + hex8(4));
        }
        return v;
      case "boolean":
        this.spend(v ? 4 : 5);
        this.put(v ? TRUE : FALSE);
        return v;
      case "undefined": this.fail(WHY_UNDEFINED);
      case "function": this.fail(WHY_FUNCTION);
      case "symbol": this.fail(WHY_SYMBOL);
      case "bigint": this.fail(WHY_BIGINT);
    }
    if (v === null) {
      this.spend(4);
      this.put(NULL);
      return v;
    }
    // A plain object's prototype is `Object.prototype` (whose own prototype is null) or null.
    let array = false, plain = false, readable = true;
    try {
      array = Array.isArray(v);
      if (!array) {
        const p = Object.getPrototypeOf(v);
        plain = p === null || Object.getPrototypeOf(p) === null;
      }
    } catch {
      readable = false;
    }
    if (array) return this.array(/** @type {unknown[]} */ (v), depth);
    if (plain) return this.object(/** @type {Record<string, unknown>} */ (v), depth);
    this.fail(readable ? WHY_NOT_PLAIN : WHY_UNREADABLE);
  }

  /**
   * @param {unknown[]} v
   * @param {number} depth
   * @returns {readonly unknown[] | null}
   */
  array(v, depth) {
    const len = safeGet(v, "length");
    if (typeof len !== "number" || !Number.isInteger(len) || len < 0 || len > 4294967295) this.fail(WHY_BAD_LENGTH);
    this.spend(len > 0 ? len + 1 : 2);
    this.put(ARRAY);
    this.count(len);
    this.put(LENGTH_END);
    const out = this.copy ? new Array(len) : null;
    for (let i = 0; i < len; i++) {
      let item;
      try {
        try { item = v[i]; } catch { this.fail(WHY_GETTER_THREW); }
        if (item === undefined) this.fail(WHY_UNDEFINED);
        item = this.read(item, depth + 1);
      } catch (e) {
        if (e === this) this.path = "[" + i + "]" + this.path;
        throw e;
      }
      if (out) out[i] = item;
    }
    this.put(ARRAY_END);
    return out && Object.freeze(out);
  }

  /**
   * @param {Record<string, unknown>} v
   * @param {number} depth
   * @returns {Readonly<Record<string, unknown>> | null}
   */
  object(v, depth) {
    // Its own string keys, and then whether each is enumerable as the walk reaches it:
    // `Object.keys` would ask a Proxy for the descriptor of every key it claims (a hundred
    // thousand traps) before the budget is first checked. (`getOwnPropertyNames` asks for the
    // key list alone; in Chromium it and the check per key cost what `Object.keys` does, where
    // `Reflect.ownKeys`, with the symbols, costs three times as much.)
    /** @type {string[]} */
    let keys = [];
    try { keys = Object.getOwnPropertyNames(v); } catch { this.fail(WHY_UNREADABLE); }
    /** @type {Record<string, unknown> | null} */
    const out = this.copy ? {} : null;
    /** @type {Set<string> | null} */
    let marked = null;
    this.spend(2);
    this.put(OBJECT);
    this.count(keys.length);
    this.put(LENGTH_END);
    // The comma before each key but the first that is kept.
    let comma = 0;
    for (let i = 0; i < keys.length; i++) {
      let key = keys[i], item;
      let listed = false;
      try { listed = isEnumerable.call(v, key); } catch { this.fail(WHY_UNREADABLE); }
      if (!listed) continue;
      try { item = v[key]; } catch { this.fail(WHY_GETTER_THREW); }
      if (item === undefined) continue;
      const n = utf8Length(key);
      const marks = sawReplacement;
      if (sawLone) key = wellFormed(key);
      try {
        if (marks) {
          if ((marked ??= new Set()).has(key)) this.fail(WHY_DUPLICATE_KEY);
          marked.add(key);
        }
        this.spend(n + 3 + comma);
        comma = 1;
        this.counted(0, n, key);
        item = this.read(item, depth + 1);
      } catch (e) {
        if (e === this) this.path = "." + key + this.path;
        throw e;
      }
      if (!out) continue;
      if (key in out) Object.defineProperty(out, key, { value: item, enumerable: true, writable: true, configurable: true });
      else out[key] = item;
    }
    this.put(OBJECT_END);
    return out && Object.freeze(out);
  }
}

/**
 * Reads a value as plain JSON data, within `budget` bytes; returns its tape (see
 * {@link ArgsReader#bytes}).
 * @param {unknown} value
 * @param {number} budget
 * @returns {Uint8Array}
 */
export function ckReadValue(value, budget) {
  const reader = new ArgsReader(budget, false);
  reader.all(value);
  return reader.bytes();
}

/**
 * {@link ckReadValue}'s tape, as text.
 * @param {unknown} value
 * @param {number} budget
 */
const valueTape = (value, budget) => decoder.decode(ckReadValue(value, budget));

/** What `ckReadCall` reads a primitive call as: nothing at all. */
const NONE = Object.freeze(Object.create(null));

/**
 * What {@link ckReadCall} read, handed over whole: the tape, the frozen copy of the args
 * (`undefined` when there were none or they were refused) and the `callId` string (so Rust hands
 * the same JS string back in the call's `ctx`, outcome and record without decoding its own copy;
 * `undefined` unless the call had one within the bound). The tape is a view of a shared buffer:
 * read it first.
 */
export class CallReading {
  /**
   * @param {Uint8Array} tape
   * @param {unknown} copy
   * @param {string | undefined} callId
   */
  constructor(tape, copy, callId) {
    this.tape = tape;
    this.copy = copy;
    this.callId = callId;
  }
}

/**
 * Reads an `invoke` call: each property once, in the order `name`, `args`, `callId`,
 * `confirmToken`, `decline`, `reason` (a getter that throws reads as `undefined`), and the args
 * as {@link ckReadValue} does, building their frozen copy. `name`, `callId` and `confirmToken`
 * strings longer than `MAX_FIELD_BYTES` UTF-8 bytes read as `OTHER`, uncopied; `reason` is cut
 * to its first {@link REASON_READ_UNITS} code units. An absent `callId` is left to Rust, which
 * makes the call's id.
 * @param {unknown} call
 * @param {number} budget
 * @returns {CallReading}
 */
export function ckReadCall(call, budget) {
  // `safeGet`'s reads, each written out so that V8 sees each key: a primitive has none, and a
  // read that throws reads as `undefined`.
  const o = /** @type {Record<string, unknown>} */ ((typeof call === "object" && call !== null) || typeof call === "function" ? call : NONE);
  let name, raw, id, token, decline, reason;
  try { name = o.name; } catch { /* undefined */ }
  try { raw = o.args; } catch { /* undefined */ }
  const reader = new ArgsReader(budget, true);
  reader.field(bounded(name));
  // `callId`, `confirmToken`, `decline` and `reason` come before the args on the tape but are
  // read after them: the args are written past room for the four at their shortest (`uu0u`),
  // and moved up if they need more.
  const fieldsAt = reader.at;
  reader.room(4);
  reader.at = reader.start = fieldsAt + 4;
  /** @type {unknown} */
  let copy;
  if (raw === undefined) reader.put(ABSENT);
  else copy = reader.all(raw);
  try { id = bounded(o.callId); } catch { /* undefined */ }
  try { token = bounded(o.confirmToken); } catch { /* undefined */ }
  try { decline = o.decline; } catch { /* undefined */ }
  try { reason = reasonField(o.reason); } catch { /* undefined */ }
  const end = reader.at, more = fieldLength(id) + fieldLength(token) + fieldLength(reason) - 3;
  if (more > 0) {
    reader.room(more);
    reader.out.copyWithin(reader.start + more, reader.start, end);
  }
  reader.at = fieldsAt;
  reader.field(id);
  reader.field(token);
  reader.put(decline ? DECLINE : NO_DECLINE);
  reader.field(reason);
  reader.at = end + more;
  return new CallReading(reader.bytes(), copy, typeof id === "string" ? id : undefined);
}

// A provider's tool call.

/** The tape of no arguments: an empty object. */
const NO_ARGS = TAG_OBJECT + 0 + TAG_LENGTH_END + TAG_OBJECT_END;

export const UNKNOWN_SHAPE = TAG_REFUSED + "not a tool call coworkkit knows: expected OpenAI Chat {id, type: \"function\", function: {name, arguments}}, OpenAI Responses {type: \"function_call\", call_id, name, arguments}, Anthropic {type: \"tool_use\", id, name, input}, AI SDK {toolCallId, toolName, input} or MCP tools/call params {name, arguments}";
export const NOT_AG_UI = TAG_REFUSED + "not an AG-UI tool call: expected {id, type: \"function\", function: {name, arguments}}";
export const NOT_AN_OBJECT = TAG_REFUSED + "args: a tool call's arguments must be a JSON object";

/**
 * Whether `tape` (as text) is a tool call's arguments as Rust takes them: an object or a
 * refusal.
 * @param {string} tape
 */
const isArgsTape = (tape) => [TAG_OBJECT, TAG_TOO_LARGE, TAG_NOT_JSON, TAG_REFUSED].includes(tape[0]);

/**
 * Reads a provider tool call; `max` is `maxArgsBytes`; `agUi`: the app says it is AG-UI's.
 * Returns its tape (see {@link ArgsReader#bytes}).
 * @param {unknown} call
 * @param {number} max
 * @param {boolean} [agUi]
 * @returns {Uint8Array}
 */
export function ckReadToolCall(call, max, agUi = false) {
  const longest = max * 4 + 4096;
  let refusal = "";
  /**
   * One field: a string within `longest`, `undefined`, or (for arguments, `args` set) the tape
   * of a value that is not a string; `null` for anything refused or not of use.
   * @param {unknown} from
   * @param {string} key
   * @param {boolean} [args]
   * @returns {string | [string] | null | undefined}
   */
  const read = (from, key, args) => {
    const v = safeGet(from, key);
    if (typeof v === "string") {
      if (v.length <= longest) return v;
      refusal ||= TAG_TOO_LARGE + v.length + TAG_NUMBER_END;
    } else if (v === undefined) return v;
    else if (args && v !== null) {
      const tape = valueTape(v, max);
      if (tape[0] !== TAG_TOO_LARGE && tape[0] !== TAG_NOT_JSON) return [tape];
      refusal ||= tape;
    }
    return null;
  };
  const type = read(call, "type"), id = read(call, "id"), callId = read(call, "call_id"),
    name = read(call, "name"), useId = read(call, "tool_use_id"),
    args = read(call, "arguments", true), input = read(call, "input", true),
    aiId = read(call, "toolCallId"), aiName = read(call, "toolName"),
    invoked = safeGet(call, "args") !== undefined || safeGet(call, "callId") !== undefined,
    fn = safeGet(call, "function");
  let fnName, fnArgs;
  let isFn = false;
  try { isFn = typeof fn === "object" && fn !== null && !Array.isArray(fn); } catch {} // a revoked Proxy
  if (isFn) {
    fnName = read(fn, "name");
    fnArgs = read(fn, "arguments", true);
  }
  const aiSdk = (type === undefined || type === "tool-input-available" || type === "tool-call")
    && (aiId !== undefined || aiName !== undefined);
  // MCP's params carry only `name` and `arguments` (and `_meta`, not read): any field of
  // another shape makes the call that shape's, or none.
  const mcp = typeof name === "string" && type === undefined && id === undefined && callId === undefined
    && useId === undefined && input === undefined && aiId === undefined && aiName === undefined && !invoked
    && fn === undefined;
  const given = agUi ? (type === "function" && isFn ? SHAPE_AG_UI : undefined)
    : type === "function_call" ? SHAPE_OPENAI_RESPONSES
    : type === "tool_use" ? SHAPE_ANTHROPIC
    : type === "function" && isFn ? SHAPE_OPENAI_CHAT
    : aiSdk ? SHAPE_AI_SDK
    : mcp ? SHAPE_MCP
    : undefined;
  // An unknown call is answered in the shape it looks closest to (an AG-UI one as AG-UI's).
  const shape = agUi ? SHAPE_AG_UI : given ?? (callId !== undefined ? SHAPE_OPENAI_RESPONSES
    : aiId !== undefined ? SHAPE_AI_SDK
    : input !== undefined || useId !== undefined ? SHAPE_ANTHROPIC
    : SHAPE_OPENAI_CHAT);
  const raw = shape === SHAPE_OPENAI_RESPONSES || shape === SHAPE_MCP ? args
    : shape === SHAPE_ANTHROPIC || shape === SHAPE_AI_SDK ? input
    : fnArgs;
  let tape;
  if (refusal) tape = refusal;
  else if (given === undefined) tape = agUi ? NOT_AG_UI : UNKNOWN_SHAPE;
  else if (typeof raw === "string") tape = parsedArgs(raw, max);
  else tape = raw ? raw[0] : NO_ARGS;
  if (!isArgsTape(tape)) tape = NOT_AN_OBJECT;
  const callName = shape === SHAPE_AI_SDK ? aiName
    : (shape === SHAPE_OPENAI_CHAT || shape === SHAPE_AG_UI) && fnName !== undefined ? fnName
    : name;
  const out = new ArgsReader(0, false);
  out.count(shape);
  out.field(shape === SHAPE_OPENAI_RESPONSES ? callId : shape === SHAPE_AI_SDK ? aiId : id);
  out.field(callName);
  out.raw(tape);
  return out.bytes();
}

/**
 * Arguments given as JSON text, read as args.
 * @param {string} raw
 * @param {number} max
 * @returns {string}
 */
function parsedArgs(raw, max) {
  const text = asRustSees(raw);
  if (rustBlank(text)) return NO_ARGS;
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    const m = safeGet(e, "message");
    return TAG_REFUSED + "args: not valid JSON: " + (typeof m === "string" ? m : "");
  }
  return valueTape(parsed, max);
}
