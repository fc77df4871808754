// What src/js/read.js does with a soft token on its way in, and what it never does to anything
// an agent sends: a `confirmToken` reaches the tape as exactly the string it is (the engine
// judges it), anything else as "other", never converted; and no `toJSON`, `toString`,
// `valueOf` or `Symbol.toPrimitive` of the agent's is ever called, nor `JSON.stringify`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ckReadCall, ckReadToolCall, ckReadValue } from "../../src/js/read.js";
import { MAX_FIELD_BYTES } from "../../src/js/codes.js";

const BIG = 1 << 30;
const text = (bytes) => new TextDecoder().decode(bytes);
/** An invoke call's tape: name, callId, confirmToken, decline, reason, args. */
const callTape = (call) => text(ckReadCall(call, BIG).tape);
/** The confirmToken part of a call `{ name: "x", confirmToken }`'s tape. */
const tokenOf = (confirmToken) => {
  const t = callTape({ name: "x", confirmToken });
  assert.ok(t.startsWith("s1:xu"), t);
  assert.ok(t.endsWith("0uu"), t);
  return t.slice("s1:xu".length, -"0uu".length);
};

const TOKEN = "ckt_" + "0123456789abcdef".repeat(2);

/**
 * An object that counts every conversion asked of it: each method a coercion or
 * `JSON.stringify` would call.
 */
function tempting(calls, value = TOKEN) {
  const count = (name) => () => { calls.push(name); return value; };
  return {
    toString: count("toString"),
    valueOf: count("valueOf"),
    toJSON: count("toJSON"),
    [Symbol.toPrimitive]: count("toPrimitive"),
  };
}

test("a token string reaches the tape as exactly itself, its length in UTF-8 bytes", () => {
  assert.equal(tokenOf(TOKEN), `s36:${TOKEN}`);
  // Whatever the shape, a string is the engine's to judge (bad_token): nothing is trimmed,
  // cased or cut.
  for (const s of ["", " ", TOKEN + " ", TOKEN.toUpperCase(), "ckt_", TOKEN + "\0", "ckp_1", "é" + TOKEN]) {
    assert.equal(tokenOf(s), `s${Buffer.byteLength(s)}:${s}`, JSON.stringify(s));
  }
  // A lone surrogate is U+FFFD, as for every string Rust reads.
  assert.equal(tokenOf("ckt_\ud800"), "s7:ckt_\ufffd");
  // Up to MAX_FIELD_BYTES bytes it is carried; one byte more and it is other, uncopied.
  const at = "t".repeat(MAX_FIELD_BYTES);
  assert.equal(tokenOf(at), `s${MAX_FIELD_BYTES}:${at}`);
  assert.equal(tokenOf(at + "t"), "x");
});

test("a token that is not a string is other, never converted to one", () => {
  const calls = [];
  for (const v of [42, 0, true, {}, [TOKEN], new String(TOKEN), tempting(calls), Object.assign(() => {}, tempting(calls)), Symbol("t"), 10n]) {
    assert.equal(tokenOf(v), "x", String(typeof v));
  }
  assert.deepEqual(calls, [], "no conversion was asked of the token");
  // Absent and null are no token at all.
  assert.equal(tokenOf(undefined), "u");
  assert.equal(tokenOf(null), "u");
  // A getter is read once, in the call's read order, and a throwing one is no token.
  let reads = 0;
  assert.equal(callTape({ name: "x", get confirmToken() { reads++; return TOKEN; } }), `s1:xus36:${TOKEN}0uu`);
  assert.equal(reads, 1);
  assert.equal(callTape({ name: "x", get confirmToken() { throw new Error("no"); } }), "s1:xuu0uu");
});

test("a token inside a tool call's arguments is read as the args' own string, unconverted", () => {
  const calls = [];
  const tape = text(ckReadToolCall({ type: "tool_use", id: "t", name: "x", input: { confirmToken: TOKEN } }, 4096));
  assert.equal(tape, `2s1:ts1:x{1:12:confirmTokens36:${TOKEN}}`);
  const other = text(ckReadToolCall({ type: "tool_use", id: "t", name: "x", input: { confirmToken: tempting(calls) } }, 4096));
  assert.match(other, /^2s1:ts1:x!3args\.confirmToken\.toString$/, "an object with methods is not JSON data");
  assert.deepEqual(calls, []);
});

test("toJSON is never called, on the args, on the call or anywhere below, nor JSON.stringify", () => {
  const calls = [];
  const stringify = JSON.stringify;
  // Every object inherits a counting toJSON for the duration: any JSON.stringify of anything
  // the reader holds would call it.
  Object.defineProperty(Object.prototype, "toJSON", { value: function () { calls.push("inherited toJSON"); return 1; }, configurable: true, writable: true });
  JSON.stringify = (...a) => { calls.push("JSON.stringify"); return stringify(...a); };
  try {
    const plain = { a: { b: [1, { c: "d" }] }, e: null };
    assert.equal(text(ckReadValue(plain, BIG)), "{2:1:a{1:1:b[2:i1;{1:1:cs1:d}]}1:en}");
    const reading = ckReadCall({ name: "x", args: plain, confirmToken: TOKEN, ...tempting(calls) }, BIG);
    assert.equal(text(reading.tape), `s1:xus36:${TOKEN}0u{2:1:a{1:1:b[2:i1;{1:1:cs1:d}]}1:en}`);
    // An own toJSON is a function: refused by its path, not called. A Date (whose prototype
    // has one) is not plain data.
    const own = tempting(calls);
    assert.equal(text(ckReadValue({ v: { toJSON: own.toJSON } }, BIG)), "!3args.v.toJSON");
    assert.equal(text(ckReadValue({ when: new Date(0) }, BIG)), "!6args.when");
    assert.equal(text(ckReadValue({ big: 1n }, BIG)), "!5args.big");
    // A refusal for size does not stringify to measure either.
    assert.match(text(ckReadValue({ s: "x".repeat(100) }, 10)), /^#\d+;$/);
    // Tool calls: arguments as an object and as text.
    text(ckReadToolCall({ type: "tool_use", id: "t", name: "x", input: plain }, 4096));
    text(ckReadToolCall({ type: "function_call", call_id: "c", name: "x", arguments: '{"a":[1,{"b":2}]}' }, 4096));
    text(ckReadToolCall({ id: "c", type: "function", function: { name: "x", arguments: plain, ...tempting(calls) }, ...tempting(calls) }, 4096));
  } finally {
    delete Object.prototype.toJSON;
    JSON.stringify = stringify;
  }
  assert.deepEqual(calls, []);
});
