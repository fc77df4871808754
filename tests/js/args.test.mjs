// The rules src/js/read.js enforces for args and invoke calls, tested where they live: what is plain JSON data, the size
// count and its early stop, lone surrogates, duplicate keys, the depth limit, the frozen copy,
// and the call's tape. (The tape's decoding is tested in Rust: tests/core_tape.rs; the two are
// tied by tests/fixtures/tapes.txt, see tapes.test.mjs.)
import { test } from "node:test";
import assert from "node:assert/strict";
import { ArgsReader, ckReadCall, ckReadValue, wellFormed, utf8Length, REASON_READ_UNITS } from "../../src/js/read.js";
import { MAX_DEPTH, MAX_FIELD_BYTES } from "../../src/js/codes.js";

const BIG = 1 << 30;
/** A tape's bytes as text (decoded at once: the reader's buffer is reused). */
const text = (bytes) => new TextDecoder().decode(bytes);
const tape = (v, budget = BIG) => text(ckReadValue(v, budget));
/** An invoke call's tape, as text. */
const callTape = (call, budget = BIG) => text(ckReadCall(call, budget).tape);
/** Reads `v` with the copy, as `invoke` does: `{ copy, tape }`. */
function copied(v, budget = BIG) {
  const reader = new ArgsReader(budget, true);
  return { copy: reader.all(v), tape: text(reader.bytes()) };
}
/** `depth` arrays around `leaf`. */
function nested(depth, leaf) {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

test("plain JSON data is read as its tape", () => {
  assert.equal(tape(null), "n");
  assert.equal(tape(true) + tape(false), "tf");
  assert.equal(tape(42), "i42;");
  assert.equal(tape(-7), "i-7;");
  assert.equal(tape("héllo"), "s6:héllo");
  assert.equal(tape([1, "a", null]), "[3:i1;s1:an]");
  assert.equal(tape({ a: { b: [] } }), "{1:1:a{1:1:b[0:]}}");
  assert.equal(tape(Object.create(null)), "{0:}", "a null-prototype object is plain");
});

test("numbers: safe integers in decimal, anything else (-0, 2^53, fractions) by its bits", () => {
  assert.equal(tape(Number.MAX_SAFE_INTEGER), "i9007199254740991;");
  assert.equal(tape(-Number.MAX_SAFE_INTEGER), "i-9007199254740991;");
  assert.equal(tape(-0), "d8000000000000000");
  assert.equal(tape(2 ** 53), "d4340000000000000");
  assert.equal(tape(1.5), "d3ff8000000000000");
  assert.equal(tape(Number.MIN_VALUE), "d0000000000000001");
});

test("what is not plain JSON data is refused with its reason and path", () => {
  class Task {}
  const cases = [
    [undefined, "!2args"],
    [() => 1, "!3args"],
    [{ f: function () {} }, "!3args.f"],
    [{ s: Symbol("x") }, "!4args.s"],
    [{ n: 1n }, "!5args.n"],
    [{ when: new Date(0) }, "!6args.when"],
    [{ m: new Map() }, "!6args.m"],
    [{ t: new Task() }, "!6args.t"],
    [{ list: [1, new Uint8Array(1)] }, "!6args.list[1]"],
    [{ x: NaN }, "!1args.x"],
    [[Infinity], "!1args[0]"],
    [{ x: -Infinity }, "!1args.x"],
    [[1, undefined], "!2args[1]"],
    [[1, , 3], "!2args[1]"], // a hole reads as undefined
  ];
  for (const [value, expected] of cases) assert.equal(tape(value), expected, expected);
});

test("an undefined property is skipped, as JSON.stringify skips it; the count still says how many keys were seen", () => {
  assert.equal(tape({ a: undefined, b: 1 }), "{2:1:bi1;}");
  assert.deepEqual(copied({ a: undefined, b: 1 }).copy, { b: 1 });
});

test("a Proxy whose trap throws and a throwing getter are refused, never thrown", () => {
  const boom = () => { throw new Error("boom"); };
  const cases = [
    [new Proxy({}, { getPrototypeOf: boom }), "!7args"],
    [new Proxy({}, { ownKeys: boom }), "!7args"],
    // An object's throwing property is named by the object's path (an array's, by its index).
    [new Proxy({ a: 1 }, { get: boom }), "!9args"],
    [{ a: { get b() { throw new Error("no"); } } }, "!9args.a"],
    [Object.defineProperty([1, 2], 1, { get: boom }), "!9args[1]"],
    [new Proxy([], { get: (t, k) => (k === "length" ? boom() : undefined) }), "!8args"],
  ];
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  cases.push([{ gone: proxy }, "!7args.gone"]);
  for (const [value, expected] of cases) assert.equal(tape(value), expected, expected);
});

test("an array's length must be an array length", () => {
  const claiming = (length) => new Proxy([], { get: (t, k) => (k === "length" ? length : 1) });
  assert.equal(tape(claiming(2 ** 32)), "!8args");
  assert.equal(tape(claiming(1.5)), "!8args");
  assert.equal(tape(claiming(-1)), "!8args");
  assert.equal(tape(claiming("3")), "!8args");
});

test("the depth limit: items may sit MAX_DEPTH containers down, not one more; a cycle is too deep", () => {
  assert.equal(MAX_DEPTH, 64);
  assert.equal(tape(nested(MAX_DEPTH, 1)), "[1:".repeat(MAX_DEPTH) + "i1;" + "]".repeat(MAX_DEPTH));
  assert.equal(tape(nested(MAX_DEPTH + 1, 1)), "!0args" + "[0]".repeat(MAX_DEPTH + 1));
  const cycle = { a: 1 };
  cycle.self = cycle;
  // The depth is checked before the kind, so the first value one level too deep is named.
  assert.equal(tape(cycle), "!0args" + ".self".repeat(MAX_DEPTH) + ".a");
});

test("the size: never more than the JSON's UTF-8 bytes, counted as it goes", () => {
  // {"a":1} is 7 bytes: braces, the key and its colon, the value.
  assert.equal(tape({ a: 1 }, 7), "{1:1:ai1;}");
  assert.equal(tape({ a: 1 }, 6), "#7;");
  // {"a":1,"b":2} is 13: a comma between properties, none after the last.
  assert.equal(tape({ a: 1, b: 2 }, 13), "{2:1:ai1;1:bi2;}");
  assert.equal(tape({ a: 1, b: 2 }, 12), "#13;");
  assert.equal(tape({ a: 1, u: undefined }, 7), "{2:1:ai1;}", "a property left out costs no comma");
  assert.equal(tape("é€😀", 11), "s9:é€😀", "a string is its UTF-8 bytes and two quotes");
  assert.equal(tape("é€😀", 10), "#11;");
  assert.equal(tape([1, 2, 3], 6 + 3), "[3:i1;i2;i3;]", "2 brackets and a comma per item, then the items");
  assert.equal(tape([], 2), "[0:]");
  assert.equal(tape(true, 4) + tape(false, 5) + tape(null, 4), "tfn");
  assert.equal(tape(false, 4), "#5;");
  assert.equal(tape(-12, 3), "i-12;");
  assert.equal(tape(-12, 2), "#3;");
  assert.equal(tape(0.5, 3), "d3fe0000000000000", "a fraction counts as JSON.stringify prints it");
  assert.equal(tape(0.5, 2), "#3;");
  assert.equal(tape(-0, 1), "d8000000000000000", "-0 prints as 0");
  assert.equal(tape(1e15, 16), "i1000000000000000;", "an integer, its digits");
  assert.equal(tape(1e15, 15), "#16;");
  assert.equal(tape(1e21, 5), "d444b1ae4d6e2ef50", "1e+21");
  // Exact where JSON.stringify needs no escapes; an escape is left to Rust's exact measure.
  for (const v of [{ a: [1.5, -2.25e-9, "x"], b: { c: null, d: true } }, [0.1, 0.2, 1e300], { "é": "€" }]) {
    const size = new TextEncoder().encode(JSON.stringify(v)).length;
    assert.notEqual(tape(v, size)[0], "#", JSON.stringify(v));
    assert.equal(tape(v, size - 1), `#${size};`, JSON.stringify(v));
  }
  assert.notEqual(tape("a\"b", 5)[0], "#", "the escape of the quote is not counted here");
});

/**
 * A Proxy over `target` whose handler is `handler`, with every trap it receives counted in
 * `traps` (by name), whether or not `handler` defines it: the reader's work on it, all of it.
 */
function counted(target, handler, traps) {
  const meta = new Proxy(handler, {
    get(h, trap) {
      return (...a) => {
        traps[trap] = (traps[trap] ?? 0) + 1;
        return h[trap] ? h[trap](...a) : Reflect[trap](...a);
      };
    },
  });
  return new Proxy(target, meta);
}
const total = (traps) => Object.values(traps).reduce((a, b) => a + b, 0);

test("the walk stops at the budget: a huge object costs no more than the budget allows, in every trap", () => {
  const keys = Array.from({ length: 100000 }, (_, i) => "k" + i);
  const traps = {};
  const huge = counted({}, {
    ownKeys: () => keys,
    getOwnPropertyDescriptor: () => ({ value: 1, enumerable: true, configurable: true }),
    get: () => 1,
  }, traps);
  assert.match(tape(huge, 100), /^#\d+;$/);
  // About 100 / 7 keys fit the budget; each costs its descriptor and its read, and the object
  // its prototype and its key list: the work is bounded by the budget, not the 100,000 keys.
  assert.ok(total(traps) < 40, `traps: ${JSON.stringify(traps)}`);
  assert.equal(traps.ownKeys, 1);
  const arrayTraps = {};
  const claiming = counted([], { get: (t, k) => (k === "length" ? 4294967295 : 1) }, arrayTraps);
  assert.equal(tape(claiming, 1 << 20), "#4294967296;", "the length is paid for before any item is read");
  assert.deepEqual(arrayTraps, { get: 1 }, "only the length was read");
  // Within the budget, the same object is read whole (nothing is refused for being a Proxy).
  const smallTraps = {};
  const small = counted({}, {
    ownKeys: () => ["a", "b"],
    getOwnPropertyDescriptor: () => ({ value: 1, enumerable: true, configurable: true }),
    get: () => 1,
  }, smallTraps);
  assert.equal(tape(small), "{2:1:ai1;1:bi1;}");
});

test("lone surrogates read as U+FFFD in strings and keys, and are counted as its 3 bytes", () => {
  assert.equal(tape("\ud800"), "s3:\ufffd");
  assert.equal(tape("a\udc00b"), "s5:a\ufffdb");
  assert.equal(tape("\ud83d\ude00"), "s4:😀", "a pair is one character");
  assert.equal(tape("\ude00\ud83d"), "s6:\ufffd\ufffd", "the wrong order is two lone ones");
  assert.equal(tape({ "k\ud800": 1 }), "{1:4:k\ufffdi1;}");
  const { copy } = copied({ ["\udfff"]: "x\ud800" });
  assert.deepEqual(Object.entries(copy), [["\ufffd", "x\ufffd"]]);
  assert.equal(wellFormed("ok"), "ok");
  assert.equal(utf8Length("\ud800"), 3);
});

test("two keys that read the same once lone surrogates are U+FFFD are refused", () => {
  assert.equal(tape({ "\ud800": 1, "\udbff": 2 }), "!aargs.\ufffd");
  assert.equal(tape({ "\ufffd": 1, "\ud800": 2 }), "!aargs.\ufffd", "a real U+FFFD and a lone surrogate");
  assert.equal(tape({ a: { "x\ud800": 1, "x\udc00": 2 } }), "!aargs.a.x\ufffd");
  assert.equal(tape({ "\ufffd": 1, "\ufffdb": 2 }), "{2:3:\ufffdi1;4:\ufffdbi2;}", "distinct keys stay");
});

test("the copy is deep, frozen, and made of own data properties only", () => {
  let reads = 0;
  const input = { get a() { reads++; return { b: [1, { c: "d" }] }; }, e: null };
  const { copy } = copied(input);
  assert.equal(reads, 1, "every property is read once");
  assert.deepEqual(copy, { a: { b: [1, { c: "d" }] }, e: null });
  for (const v of [copy, copy.a, copy.a.b, copy.a.b[1]]) assert.ok(Object.isFrozen(v));
  assert.deepEqual(Object.getOwnPropertyDescriptor(copy, "a"), { value: copy.a, writable: false, enumerable: true, configurable: false });
  assert.equal(Object.getPrototypeOf(copy), Object.prototype);
  assert.ok(Array.isArray(copy.a.b));
  input.e = 1;
  assert.equal(copy.e, null, "later changes to the input change nothing");
  const nullProto = Object.assign(Object.create(null), { x: 1 });
  assert.equal(Object.getPrototypeOf(copied(nullProto).copy), Object.prototype);
});

test("keys the copy would inherit (__proto__, constructor…) are defined, never assigned", () => {
  const input = JSON.parse('{"__proto__": {"polluted": true}, "constructor": 1, "toString": "x", "hasOwnProperty": 2}');
  const { copy, tape: t } = copied(input);
  assert.equal(Object.getPrototypeOf(copy), Object.prototype, "no prototype setter ran");
  assert.deepEqual(Object.keys(copy), ["__proto__", "constructor", "toString", "hasOwnProperty"]);
  assert.deepEqual(copy.__proto__, { polluted: true });
  assert.equal(copy.polluted, undefined);
  assert.equal(copy.constructor, 1);
  assert.equal({}.polluted, undefined);
  assert.equal(t, '{4:9:__proto__{1:8:pollutedt}11:constructori1;8:toStrings1:x14:hasOwnPropertyi2;}');
});

test("without the copy, a container reads as null; after a refusal, as undefined", () => {
  assert.equal(new ArgsReader(BIG, false).all({ a: 1 }), null);
  assert.equal(new ArgsReader(BIG, false).all("s"), "s");
  assert.equal(new ArgsReader(BIG, true).all({ f() {} }), undefined);
});

test("an invoke call: its fields in order, then decline and reason, then the args; absent args are `u`", () => {
  assert.equal(callTape({ name: "getTask", args: { a: 1 }, callId: "c1" }), "s7:getTasks2:c1u0u{1:1:ai1;}");
  assert.equal(callTape({ name: "x" }), "s1:xuu0uu");
  assert.equal(callTape({ name: 1, callId: 2, confirmToken: "t", decline: true, args: null }), "xxs1:t1un");
  assert.equal(callTape({ name: "x", callId: null, confirmToken: {}, decline: "yes" }), "s1:xux1uu");
  assert.equal(callTape({ name: "n\ud800" }), "s4:n\ufffduu0uu");
  assert.equal(callTape({ name: "x", args: { f() {} } }), "s1:xuu0u!3args.f");
  assert.equal(callTape(null), "uuu0uu");
  assert.equal(callTape({ name: "x", confirmToken: "t", decline: true, reason: "Not now" }), "s1:xus1:t1s7:Not nowu");
  assert.equal(callTape({ name: "x", reason: ["no"] }), "s1:xuu0xu");
});

test("an invoke call's reason is read up to REASON_READ_UNITS code units, never refused for its length", () => {
  const long = "n".repeat(REASON_READ_UNITS - 1) + "\ud83d\ude00" + "x".repeat(5_000_000);
  const tape = callTape({ name: "x", decline: true, confirmToken: "t", reason: long, args: { a: 1 } });
  // The cut falls inside the pair: its first half reads as U+FFFD (3 bytes).
  assert.equal(tape, `s1:xus1:t1s${REASON_READ_UNITS - 1 + 3}:${"n".repeat(REASON_READ_UNITS - 1)}\ufffd{1:1:ai1;}`);
});

test("an invoke call whose tape outgrows the reader's buffer, with fields that move the args up", () => {
  const long = "x".repeat(5000);
  assert.equal(callTape({ name: "x", args: [long, "é\ud800"], callId: "c1", confirmToken: "tök", reason: "ü" }),
    `s1:xs2:c1s4:tök0s2:ü[2:s5000:${long}s5:é\ufffd]`);
  assert.equal(callTape({ name: "x", args: [1] }), "s1:xuu0u[1:i1;]", "the next call reads afresh");
});

test("an invoke call: every property is read once, in order; a throwing getter reads as undefined", () => {
  const seen = [];
  const call = new Proxy({ name: "x", args: {}, callId: "c" }, { get: (t, k) => { seen.push(k); return t[k]; } });
  ckReadCall(call, BIG);
  assert.deepEqual(seen, ["name", "args", "callId", "confirmToken", "decline", "reason"]);
  const throwing = { get name() { throw new Error("no"); }, get callId() { throw new Error("no"); }, get reason() { throw new Error("no"); } };
  assert.equal(callTape(throwing), "uuu0uu");
});

test("an invoke call: one reading holds the tape, the frozen copy and the callId string; no id is made for an absent callId", () => {
  const reading = ckReadCall({ name: "x", args: { a: [1] }, callId: "call_9" }, BIG);
  assert.equal(text(reading.tape), "s1:xs6:call_9u0u{1:1:a[1:i1;]}");
  assert.deepEqual(reading.copy, { a: [1] });
  assert.ok(Object.isFrozen(reading.copy.a));
  assert.equal(reading.callId, "call_9");
  assert.equal(ckReadCall({ name: "x", args: {} }, BIG).callId, undefined, "the engine makes the id");
  const refused = ckReadCall({ name: "x", args: { f() {} }, callId: 5 }, BIG);
  assert.equal(refused.copy, undefined, "no copy of refused args");
  assert.equal(refused.callId, undefined);
});

test("an invoke call: name, callId and confirmToken longer than MAX_FIELD_BYTES UTF-8 bytes read as other, uncopied", () => {
  assert.equal(MAX_FIELD_BYTES, 256);
  const at = "a".repeat(MAX_FIELD_BYTES), over = at + "a";
  assert.equal(callTape({ name: at, callId: at, confirmToken: at }), `s256:${at}s256:${at}s256:${at}0uu`);
  assert.equal(callTape({ name: over, callId: over, confirmToken: over }), "xxx0uu");
  // Bytes, not UTF-16 units: 128 × "é" is 256 bytes, 129 is one character more.
  const e128 = "é".repeat(128), e129 = e128 + "é";
  assert.equal(callTape({ name: "x", callId: e128 }), `s1:xs256:${e128}u0uu`);
  assert.equal(callTape({ name: "x", callId: e129 }), "s1:xxu0uu");
  const reading = ckReadCall({ name: "x", callId: over }, BIG);
  assert.equal(reading.callId, undefined, "an oversize callId is not handed over");
  // A huge string is refused by its length, before any walk over it.
  const huge = "é".repeat(8 << 20);
  const started = performance.now();
  assert.equal(callTape({ name: huge, callId: huge, confirmToken: huge }), "xxx0uu");
  assert.ok(performance.now() - started < 1000, "an oversize field costs no walk over it");
});

test("an invoke call made from a getter while the args are read keeps its own copy", () => {
  let inner;
  const reading = ckReadCall({
    name: "outer",
    args: { get a() { const r = ckReadCall({ name: "inner", args: { b: 2 } }, BIG); inner = [text(r.tape), r.copy]; return 1; } },
  }, BIG);
  assert.equal(inner[0], "s5:inneruu0u{1:1:bi2;}");
  assert.deepEqual(inner[1], { b: 2 });
  assert.equal(text(reading.tape), "s5:outeruu0u{1:1:ai1;}");
  assert.deepEqual(reading.copy, { a: 1 });
});
