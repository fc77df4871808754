// What src/js/passkey.js promises (SPEC §4.1): the statement is canonical JSON (RFC 8785 for
// JSON data) with exactly the spec's fields; the challenge is the SHA-256 of its UTF-8 bytes;
// the prompt asks for user verification by the ids given, with the timeout and the signal;
// the assertion comes back in the `PublicKeyCredential.toJSON()` shape, base64url without
// padding; the receipt and the verification are frozen all the way down.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import {
  ckBase64url, ckCanonicalJson, ckFromBase64url, ckPasskeyAsk, ckPasskeyIds, ckReceipt, ckStatement, ckVerification,
} from "../../src/js/passkey.js";

test("canonical JSON: keys sorted by UTF-16 code units at every depth, integer-like keys too, no spaces", () => {
  assert.equal(ckCanonicalJson({ b: 1, a: [3, { d: true, c: null }] }), '{"a":[3,{"c":null,"d":true}],"b":1}');
  // An object lists "1" and "10" before "9" and "a" whatever the order they came in: canonical
  // order is by code units, where "10" < "9".
  assert.equal(ckCanonicalJson({ a: 0, 9: 1, 10: 2, 1: 3 }), '{"1":3,"10":2,"9":1,"a":0}');
  // UTF-16 order, not code point order: U+FB01 sorts after the surrogate pair of U+1F600.
  assert.equal(ckCanonicalJson({ "\uFB01": 1, "\u{1F600}": 2, "\u00e9": 3 }), '{"é":3,"😀":2,"ﬁ":1}');
  // RFC 8785's own example of key order (its §3.2.3).
  const rfc = { "\u20ac": "Euro Sign", "\r": "Carriage Return", "\ufb33": "Hebrew Letter Dalet With Dagesh", "1": "One", "\ud83d\ude00": "Emoji: Grinning Face", "\u0080": "Control", "\u00f6": "Latin Small Letter O With Diaeresis" };
  const order = ["\r", "1", "\u0080", "\u00f6", "\u20ac", "\ud83d\ude00", "\ufb33"];
  assert.equal(ckCanonicalJson(rfc), "{" + order.map((k) => JSON.stringify(k) + ":" + JSON.stringify(rfc[k])).join(",") + "}");
});

test("canonical JSON: strings and numbers exactly as JSON.stringify writes them", () => {
  for (const value of ["a\"b\\c\n\u0007\u2028", -0, 1e21, 1e-7, 0.1 + 0.2, 2 ** 53, -1.5, "", [], {}, true, null]) {
    assert.equal(ckCanonicalJson(value), JSON.stringify(value), String(value));
  }
  assert.equal(ckCanonicalJson({ n: -0, big: 1e21 }), '{"big":1e+21,"n":0}');
});

test("a statement: the spec's ten fields, sorted, v 1, args canonical", () => {
  const text = ckStatement("http://localhost:8080", "localhost", "deleteProject", { z: 1, projectId: "p1" }, "call_7", "sess", "00ff", 1000, 121000);
  assert.equal(text, '{"action":"deleteProject","args":{"projectId":"p1","z":1},"callId":"call_7","expiresAt":121000,"issuedAt":1000,"nonce":"00ff","origin":"http://localhost:8080","rpId":"localhost","sessionId":"sess","v":1}');
  const parsed = JSON.parse(text);
  assert.deepEqual(Object.keys(parsed), ["action", "args", "callId", "expiresAt", "issuedAt", "nonce", "origin", "rpId", "sessionId", "v"]);
});

test("base64url: what the browser's encoder writes, without padding, and back; anything else refused", () => {
  for (const length of [0, 1, 2, 3, 4, 31, 32, 33, 255]) {
    const bytes = Uint8Array.from({ length }, (_, i) => (i * 151 + 7) & 255);
    const text = ckBase64url(bytes);
    assert.equal(text, Buffer.from(bytes).toString("base64url"), `length ${length}`);
    assert.doesNotMatch(text, /[+/=]/);
    assert.deepEqual(ckFromBase64url(text), bytes);
  }
  assert.deepEqual(ckFromBase64url("-_8="), Uint8Array.from([0xfb, 0xff]), "padding is accepted");
  for (const bad of ["a+b", "a/b", "a b", "abcde", "ab=c", "é"]) {
    assert.throws(() => ckFromBase64url(bad), TypeError, bad);
  }
});

/** A `navigator.credentials` and `PublicKeyCredential` of the test's own, for node. */
function fakeBrowser(answer) {
  const asked = [];
  class PublicKeyCredential {
    constructor(fields) { Object.assign(this, fields); }
    getClientExtensionResults() { return { credProps: { rk: true } }; }
  }
  class AuthenticatorAssertionResponse {
    constructor(fields) { Object.assign(this, fields); }
  }
  const credentials = { get: async (options) => { asked.push(options); return answer(PublicKeyCredential, AuthenticatorAssertionResponse, options); } };
  const saved = {};
  const globals = { PublicKeyCredential, AuthenticatorAssertionResponse, navigator: { credentials } };
  for (const [name, value] of Object.entries(globals)) {
    saved[name] = Object.getOwnPropertyDescriptor(globalThis, name);
    Object.defineProperty(globalThis, name, { value, configurable: true, writable: true });
  }
  const restore = () => {
    for (const [name, descriptor] of Object.entries(saved)) {
      if (descriptor) Object.defineProperty(globalThis, name, descriptor);
      else delete globalThis[name];
    }
  };
  return { asked, restore };
}

const bytes = (...values) => Uint8Array.from(values).buffer;

test("the prompt: SHA-256 of the statement as the challenge, the ids as bytes, UV required, timeout and signal; the answer in toJSON's shape", async () => {
  const authenticatorData = new Uint8Array(37);
  authenticatorData[32] = 0x05;
  const browser = fakeBrowser((PublicKeyCredential, Response) => new PublicKeyCredential({
    rawId: bytes(1, 2, 250),
    authenticatorAttachment: "platform",
    response: new Response({ clientDataJSON: bytes(123, 125), authenticatorData: authenticatorData.buffer, signature: bytes(48, 69), userHandle: bytes(117) }),
  }));
  try {
    const signal = new AbortController().signal;
    const statement = '{"action":"x","nonce":"ü"}';
    const got = await ckPasskeyAsk(statement, "localhost", ["AQL6", "-_8"], 30000, signal);
    const [options] = browser.asked;
    assert.equal(options.signal, signal);
    const { publicKey } = options;
    const expected = createHash("sha256").update(Buffer.from(statement, "utf8")).digest();
    assert.deepEqual(Buffer.from(publicKey.challenge), expected);
    assert.equal(publicKey.rpId, "localhost");
    assert.equal(publicKey.userVerification, "required");
    assert.equal(publicKey.timeout, 30000);
    assert.deepEqual(publicKey.allowCredentials.map((c) => [c.type, [...c.id]]), [["public-key", [1, 2, 250]], ["public-key", [0xfb, 0xff]]]);
    assert.equal(got.credentialId, "AQL6");
    assert.deepEqual(got.allowed, ["AQL6", "-_8"]);
    assert.deepEqual([...got.authenticatorData], [...authenticatorData]);
    assert.deepEqual(got.credential, {
      id: "AQL6", rawId: "AQL6", type: "public-key",
      response: { clientDataJSON: "e30", authenticatorData: Buffer.from(authenticatorData).toString("base64url"), signature: "MEU", userHandle: "dQ" },
      clientExtensionResults: { credProps: { rk: true } },
      authenticatorAttachment: "platform",
    });
  } finally {
    browser.restore();
  }
});

test("the prompt: no userHandle or attachment, no such fields; what the browser throws goes through; a bad id asks nothing", async () => {
  const browser = fakeBrowser((PublicKeyCredential, Response, options) => {
    if (options.publicKey.rpId === "refuse") throw new DOMException("The operation either timed out or was not allowed.", "NotAllowedError");
    return new PublicKeyCredential({ rawId: bytes(9), authenticatorAttachment: null, response: new Response({ clientDataJSON: bytes(), authenticatorData: bytes(), signature: bytes(), userHandle: null }) });
  });
  try {
    const signal = new AbortController().signal;
    const got = await ckPasskeyAsk("{}", "localhost", ["CQ"], 1, signal);
    assert.deepEqual(Object.keys(got.credential.response), ["clientDataJSON", "authenticatorData", "signature"]);
    assert.equal("authenticatorAttachment" in got.credential, false);
    await assert.rejects(ckPasskeyAsk("{}", "refuse", ["CQ"], 1, signal), { name: "NotAllowedError" });
    const before = browser.asked.length;
    await assert.rejects(ckPasskeyAsk("{}", "localhost", ["not base64url!"], 1, signal), TypeError);
    await assert.rejects(ckPasskeyAsk("{}", "localhost", Promise.resolve([]), 1, signal), { name: "NotFoundError" });
    assert.equal(browser.asked.length, before, "nothing was asked");
  } finally {
    browser.restore();
  }
});

test("the prompt: an answer that is not a public-key assertion is refused", async () => {
  const browser = fakeBrowser(() => ({ rawId: bytes(1), response: {} }));
  try {
    await assert.rejects(ckPasskeyAsk("{}", "localhost", ["AQ"], 1, new AbortController().signal), TypeError);
  } finally {
    browser.restore();
  }
});

test("a receipt and a verification: frozen all the way down", () => {
  const credential = { id: "AQ", rawId: "AQ", type: /** @type {const} */ ("public-key"), response: { clientDataJSON: "", authenticatorData: "", signature: "" }, clientExtensionResults: {} };
  const receipt = ckReceipt("{}", credential);
  assert.deepEqual(Object.keys(receipt), ["statement", "credential"]);
  for (const o of [receipt, receipt.credential, receipt.credential.response, receipt.credential.clientExtensionResults]) {
    assert.ok(Object.isFrozen(o));
  }
  const verification = ckVerification("AQ", receipt);
  assert.deepEqual(verification, { method: "passkey", credentialId: "AQ", receipt });
  assert.ok(Object.isFrozen(verification));
});

test("the app's ids: an array of base64url strings, or a promise of one; else refused, saying why", async () => {
  assert.deepEqual(await ckPasskeyIds(["AQID", "-_8"]), ["AQID", "-_8"]);
  assert.deepEqual(await ckPasskeyIds(Promise.resolve(["AQID"])), ["AQID"]);
  const given = ["AQID"];
  const copy = await ckPasskeyIds(given);
  assert.notEqual(copy, given, "a copy: the app may change its list later");
  await assert.rejects(ckPasskeyIds([]), { name: "NotFoundError", message: "no passkey is set up for this approver" });
  await assert.rejects(ckPasskeyIds(Promise.resolve([])), { name: "NotFoundError" });
  for (const bad of [["a+b"], ["abcde"], [""], [1], ["AQ=="], [null]]) {
    await assert.rejects(ckPasskeyIds(bad), { name: "TypeError", message: /not a base64url credential id/ }, JSON.stringify(bad));
  }
  for (const bad of ["AQID", { 0: "AQID", length: 1 }, null, undefined]) {
    await assert.rejects(ckPasskeyIds(bad), { name: "TypeError", message: /must give an array/ }, String(bad));
  }
  await assert.rejects(ckPasskeyIds(Promise.reject(new Error("the server is down"))), { message: "passkey.credentials failed: the server is down" });
});
