// coworkkit/server's verifyReceipt (SPEC §13) against receipts real browsers made through the
// package (tests/server/receipts.mjs says where they come from). Each refusal code has a test
// whose receipt breaks that check and no other: the same receipt, or its twin, is accepted in
// the same test with that one thing put right. Time is the clock's (Date.now, mocked per test)
// at the moment the person confirmed, unless a test moves it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { verifyAuthenticationResponse } from "@simplewebauthn/server";
import { verifyReceipt, memoryNonces } from "../../src/server/index.js";
import { canonicalJson } from "../../src/server/statement.js";
import { copyOf, loadReceipts, passkeysOf, statementOf } from "./receipts.mjs";

const ROOT = resolve(fileURLToPath(import.meta.url), "../../..");
const ALL = loadReceipts();
const ENGINES = Object.keys(ALL);
/** The receipts the SDK made and a server should accept for their own call. */
const ACCEPTED = ["call_7", "c1", "c2", "c3", "ann-p1", "ann-p1-again", "max-p1"];
const DAY = 86_400_000;

/** Sets the clock to `at`, else to just after the person confirmed `file`'s statement. */
function clockAt(t, file, at) {
  const s = statementOf(file);
  const now = at ?? s.issuedAt + Math.min(1000, Math.floor((s.expiresAt - s.issuedAt) / 2));
  t.mock.method(Date, "now", () => now);
  return now;
}

/** verifyReceipt's options for `file`'s own call, on the server of the user who signed it. */
function optionsFor(file, more = {}) {
  const { action, args, origin, rpID } = file.expect;
  return { action, args, origin, rpID, credential: passkeysOf(file, file.user), nonces: memoryNonces(), ...more };
}

/** `promise` rejects with `code`, its message starting "coworkkit:" and matching `says`. */
async function refused(promise, code, says) {
  await assert.rejects(promise, (error) => {
    assert.equal(error.code, code, error.message);
    assert.match(error.message, /^coworkkit: /);
    if (says) assert.match(error.message, says);
    return true;
  });
}

for (const engine of ENGINES) {
  const R = ALL[engine];

  test(`${engine}: every receipt the SDK made is accepted for its own call, returns what was signed, and only once`, async (t) => {
    for (const name of [...ACCEPTED, "long-lived"]) {
      const file = R[name];
      clockAt(t, file);
      const nonces = memoryNonces();
      const options = optionsFor(file, { nonces, ...(name === "long-lived" ? { maxLifetimeMs: DAY } : {}) });
      const result = await verifyReceipt(file.receipt, options);
      assert.deepEqual(result, { statement: statementOf(file), credentialId: file.receipt.credential.id }, name);
      assert.equal(result.statement.action, file.expect.action);
      await refused(verifyReceipt(file.receipt, options), "replayed", /was used before/);
    }
  });

  test(`${engine}: bad_statement: a statement the passkey signed that is not canonical, not v: 1, or lacks a field`, async (t) => {
    clockAt(t, R["ann-p1-again"]);
    // Each was signed by ann's passkey over its own bytes (the signature is good, passkey.test.mjs
    // checks it); the statement is the one thing wrong.
    const dup = R["duplicate-key"], spaced = R.spaced;
    assert.equal(canonicalJson(JSON.parse(dup.receipt.statement)), R["ann-p1-again"].receipt.statement, "it parses to the accepted statement");
    assert.equal(canonicalJson(JSON.parse(spaced.receipt.statement)), R["ann-p1-again"].receipt.statement, "it parses to the accepted statement");
    await refused(verifyReceipt(dup.receipt, optionsFor(dup)), "bad_statement", /not canonical.*character \d+/);
    await refused(verifyReceipt(spaced.receipt, optionsFor(spaced)), "bad_statement", /not canonical/);
    await refused(verifyReceipt(R.v2.receipt, optionsFor(R.v2)), "bad_statement", /v must be 1, not 2/);
    await refused(verifyReceipt(R["no-session"].receipt, optionsFor(R["no-session"])), "bad_statement", /has no sessionId/);
    // Their twin, in canonical form, is accepted.
    await verifyReceipt(R["ann-p1-again"].receipt, optionsFor(R["ann-p1-again"]));
    // Unsigned shapes: refused before any signature is looked at.
    const receipt = R["ann-p1"].receipt;
    for (const statement of [undefined, 42, "", "[1]", "{\"v\":1"]) {
      await refused(verifyReceipt({ ...receipt, statement }, optionsFor(R["ann-p1"])), "bad_statement");
    }
    const extra = canonicalJson({ ...statementOf(R["ann-p1"]), extra: 1 });
    await refused(verifyReceipt({ ...receipt, statement: extra }, optionsFor(R["ann-p1"])), "bad_statement", /do(es)? not know: extra/);
    await refused(verifyReceipt(null, optionsFor(R["ann-p1"])), "bad_statement", /must be \{ statement, credential \}/);
  });

  test(`${engine}: wrong_call: another action or other args than this request asks for`, async (t) => {
    const file = R["ann-p1"];
    clockAt(t, file);
    const nonces = memoryNonces();
    await refused(verifyReceipt(file.receipt, optionsFor(file, { nonces, action: "archiveProject" })), "wrong_call", /approves "deleteProject", not "archiveProject"/);
    await refused(verifyReceipt(file.receipt, optionsFor(file, { nonces, args: { projectId: "p2" } })), "wrong_call", /"p2"/);
    await refused(verifyReceipt(file.receipt, optionsFor(file, { nonces, args: { projectId: "p1", force: true } })), "wrong_call");
    await refused(verifyReceipt(file.receipt, optionsFor(file, { nonces, args: {} })), "wrong_call");
    // Deep, by value: key order and undefined members are no difference; the nonce was not used up.
    await verifyReceipt(file.receipt, optionsFor(file, { nonces, args: { note: undefined, projectId: "p1" } }));
  });

  test(`${engine}: wrong_origin: another origin or RP ID, in the statement or in the assertion`, async (t) => {
    const file = R["ann-p1"];
    clockAt(t, file);
    // The statement names another origin / RP ID; the assertion was made here, for localhost.
    await refused(verifyReceipt(R["statement-origin"].receipt, optionsFor(file)), "wrong_origin", /statement was made on "https:\/\/localhost:8443"/);
    await refused(verifyReceipt(R["statement-rpid"].receipt, optionsFor(file)), "wrong_origin", /relying party "example.com"/);
    // The statement is ann-p1's own; the assertion over it was made on another port of localhost.
    const other = R["other-origin"];
    assert.equal(other.receipt.statement, file.receipt.statement);
    await refused(verifyReceipt(other.receipt, optionsFor(file)), "wrong_origin", /assertion was made on "http:\/\/localhost:\d+", not on/);
    // The server expecting another site refuses the genuine receipt.
    await refused(verifyReceipt(file.receipt, optionsFor(file, { origin: "https://app.example" })), "wrong_origin");
    await refused(verifyReceipt(file.receipt, optionsFor(file, { rpID: "app.example" })), "wrong_origin");
    await verifyReceipt(file.receipt, optionsFor(file));
  });

  test(`${engine}: unknown_credential: a passkey the lookup does not give for this user (another person's, or none)`, async (t) => {
    const file = R["max-p1"];
    clockAt(t, file);
    // On max's own session his receipt is accepted...
    const { credentialId } = await verifyReceipt(file.receipt, optionsFor(file, { credential: async (id) => passkeysOf(file, "max")(id) }));
    assert.equal(credentialId, file.credentials.find((c) => c.user === "max").id);
    // ...and the same genuine receipt, on ann's session (a store of its own), is not: her lookup
    // gives no passkey with that id.
    await refused(verifyReceipt(file.receipt, optionsFor(file, { credential: passkeysOf(file, "ann") })), "unknown_credential", /no passkey ".+" of this user/);
    await refused(verifyReceipt(file.receipt, optionsFor(file, { credential: async () => undefined })), "unknown_credential");
    // A lookup that answers with another passkey than the one asked for.
    const ann = file.credentials.find((c) => c.user === "ann");
    await refused(verifyReceipt(file.receipt, optionsFor(file, { credential: () => ({ ...ann, counter: 0 }) })), "unknown_credential", /gave another passkey/);
  });

  test(`${engine}: bad_assertion: another statement's challenge, a bad signature, no user verification`, async (t) => {
    const first = R["ann-p1"], again = R["ann-p1-again"];
    clockAt(t, first);
    // Challenge: ann's genuine assertion of the second call, under the first call's statement.
    await refused(verifyReceipt({ statement: first.receipt.statement, credential: again.receipt.credential }, optionsFor(first)), "bad_assertion", /challenge .* not .*SHA-256 of this statement/);
    // Signature: one bit of it flipped; and the stored key of another passkey under this id.
    const flipped = copyOf(first.receipt);
    const sig = Buffer.from(flipped.credential.response.signature, "base64url");
    sig[sig.length - 1] ^= 1;
    flipped.credential.response.signature = sig.toString("base64url");
    await refused(verifyReceipt(flipped, optionsFor(first)), "bad_assertion", /signature does not verify|did not verify/);
    const maxKey = first.credentials.find((c) => c.user === "max").publicKey;
    const swapped = (id) => ({ ...passkeysOf(first, "ann")(id), publicKey: maxKey });
    await refused(verifyReceipt(first.receipt, optionsFor(first, { credential: swapped })), "bad_assertion");
    // UV: a good signature over ann-p1's statement, by an authenticator that did not verify her.
    const noUv = R["no-uv"];
    assert.equal(noUv.receipt.statement, first.receipt.statement);
    const credential = passkeysOf(first, "ann")(noUv.receipt.credential.id);
    const signed = await verifyAuthenticationResponse({
      response: noUv.receipt.credential, expectedChallenge: JSON.parse(Buffer.from(noUv.receipt.credential.response.clientDataJSON, "base64url")).challenge,
      expectedOrigin: first.expect.origin, expectedRPID: "localhost", requireUserVerification: false,
      credential: { ...credential, publicKey: new Uint8Array(Buffer.from(credential.publicKey, "base64url")) },
    });
    assert.equal(signed.verified, true, "its signature is good");
    await refused(verifyReceipt(noUv.receipt, optionsFor(first)), "bad_assertion", /no UV flag/);
    // Each one's genuine counterpart passes (its nonce untouched by the refusals).
    const nonces = memoryNonces();
    await verifyReceipt(first.receipt, optionsFor(first, { nonces }));
    await verifyReceipt(again.receipt, optionsFor(again, { nonces }));
  });

  test(`${engine}: expired: expiresAt passed, issuedAt in the future beyond the skew, a lifetime over maxLifetimeMs`, async (t) => {
    const file = R["ann-p1"];
    const s = statementOf(file);
    clockAt(t, file, s.expiresAt);
    await refused(verifyReceipt(file.receipt, optionsFor(file)), "expired", /expired at .*, 0 ms ago/);
    t.mock.restoreAll();
    clockAt(t, file, s.expiresAt - 1);
    await verifyReceipt(file.receipt, optionsFor(file));
    t.mock.restoreAll();
    clockAt(t, file, s.issuedAt - 30_001);
    await refused(verifyReceipt(file.receipt, optionsFor(file)), "expired", /30001 ms in the future \(clockSkewMs 30000\)/);
    await verifyReceipt(file.receipt, optionsFor(file, { clockSkewMs: 30_001 }));
    t.mock.restoreAll();
    clockAt(t, file, s.issuedAt - 30_000);
    await verifyReceipt(file.receipt, optionsFor(file));
    // A card that waited a day: over the default ten minutes, and over any cap below its lifetime.
    const long = R["long-lived"];
    const ls = statementOf(long);
    t.mock.restoreAll();
    clockAt(t, long);
    await refused(verifyReceipt(long.receipt, optionsFor(long)), "expired", /over maxLifetimeMs 600000/);
    await refused(verifyReceipt(long.receipt, optionsFor(long, { maxLifetimeMs: ls.expiresAt - ls.issuedAt - 1 })), "expired");
    await verifyReceipt(long.receipt, optionsFor(long, { maxLifetimeMs: ls.expiresAt - ls.issuedAt }));
  });

  test(`${engine}: replayed: the nonce is claimed last, so only a receipt that passed every other check uses it up`, async (t) => {
    const file = R["ann-p1"];
    clockAt(t, file);
    const nonces = memoryNonces();
    const claims = [];
    const watched = { claim: (nonce, until) => { claims.push(nonce); return nonces.claim(nonce, until); } };
    const options = optionsFor(file, { nonces: watched });
    await refused(verifyReceipt(file.receipt, { ...options, args: { projectId: "p2" } }), "wrong_call");
    await refused(verifyReceipt(file.receipt, { ...options, credential: passkeysOf(file, "max") }), "unknown_credential");
    await refused(verifyReceipt(R["no-uv"].receipt, options), "bad_assertion");
    assert.deepEqual(claims, [], "no refused receipt claimed its nonce");
    await verifyReceipt(file.receipt, options);
    await refused(verifyReceipt(file.receipt, options), "replayed", new RegExp(statementOf(file).nonce));
    // The page-signed statement with the same nonce (another receipt of that nonce) is refused too.
    const same = R["with-approver"];
    const twin = R["ann-p1-again"];
    await verifyReceipt(twin.receipt, optionsFor(twin, { nonces }));
    await refused(verifyReceipt(same.receipt, optionsFor(same, { nonces })), "replayed");
    // The nonce is kept until the statement's expiresAt plus the clock skew.
    const kept = [];
    await verifyReceipt(file.receipt, optionsFor(file, { nonces: { claim: async (n, until) => { kept.push([n, until]); return true; } } }));
    assert.deepEqual(kept, [[statementOf(file).nonce, statementOf(file).expiresAt + 30_000]]);
  });

  test(`${engine}: onCounter gets the new signature counter once a receipt is accepted; a counter stored back refuses an older assertion`, async (t) => {
    const first = R["ann-p1"], again = R["ann-p1-again"];
    clockAt(t, first);
    const counters = new Map();
    const calls = [];
    const onCounter = (id, counter) => { calls.push([id, counter]); counters.set(id, counter); };
    const nonces = memoryNonces();
    const options = (file) => optionsFor(file, { nonces, onCounter, credential: passkeysOf(file, "ann", counters) });
    await verifyReceipt(again.receipt, options(again));
    const id = again.receipt.credential.id;
    const counterOf = (file) => Buffer.from(file.receipt.credential.response.authenticatorData, "base64url").readUInt32BE(33);
    assert.deepEqual(calls, [[id, counterOf(again)]]);
    if (counterOf(again) > 0) await refused(verifyReceipt(again.receipt, options(again)), "bad_assertion", /counter/);
    else await refused(verifyReceipt(again.receipt, options(again)), "replayed");
    assert.equal(calls.length, 1, "not called for a refused receipt");
    if (counterOf(again) > counterOf(first)) {
      // The earlier assertion, after the later one's counter was stored: a cloned authenticator's sign.
      await refused(verifyReceipt(first.receipt, options(first)), "bad_assertion", /counter value \d+ was lower than expected/);
    } else {
      t.diagnostic(`${engine}'s virtual authenticator keeps its counter at ${counterOf(again)}`);
    }
  });

  test(`${engine}: the approver is returned as the statement carries it`, async (t) => {
    const file = R["with-approver"];
    clockAt(t, file);
    const result = await verifyReceipt(file.receipt, optionsFor(file));
    assert.deepEqual(result.approver, { id: "ann", role: "admin" });
    assert.deepEqual(result.statement, JSON.parse(file.receipt.statement));
    assert.equal("approver" in (await verifyReceipt(R["ann-p1"].receipt, optionsFor(R["ann-p1"]))), false, "none when the statement has none");
  });
}

test("options that cannot be right, and a stored passkey in no passkey's shape, are the app's error (invalid_options), named", async (t) => {
  const file = ALL[ENGINES[0]]["ann-p1"];
  clockAt(t, file);
  const base = optionsFor(file);
  const cases = [
    [{ ...base, nonces: undefined }, /nonces must be a nonce store/],
    [{ ...base, credential: { [file.receipt.credential.id]: {} } }, /credential must be a function/],
    [{ ...base, args: { n: 1n } }, /args must be JSON data/],
    [{ ...base, origin: "" }, /origin must be a non-empty string/],
    [{ ...base, maxLifetimeMs: 0 }, /maxLifetimeMs must be a positive number/],
    [{ ...base, clockSkewMs: -1 }, /clockSkewMs must be a finite number/],
    [{ ...base, onCounter: "db.setCounter" }, /onCounter must be a function/],
    [(({ args, ...rest }) => rest)(base), /args is missing/],
  ];
  for (const [options, says] of cases) await refused(verifyReceipt(file.receipt, options), "invalid_options", says);
  // A stored passkey the app's lookup gives in a shape that cannot be one.
  await refused(verifyReceipt(file.receipt, { ...base, credential: () => ({ id: file.receipt.credential.id, publicKey: 7, counter: 0 }) }), "invalid_options", /publicKey must be the COSE key/);
});

test("without @simplewebauthn/server installed, verifyReceipt rejects with missing_dependency and says what to install", async () => {
  // The module's files alone, in a folder with no node_modules above it.
  const dir = mkdtempSync(join(tmpdir(), "coworkkit-server-"));
  try {
    cpSync(join(ROOT, "src/server"), dir, { recursive: true });
    const alone = await import(pathToFileURL(join(dir, "index.js")).href);
    const file = ALL[ENGINES[0]]["ann-p1"];
    await refused(alone.verifyReceipt(file.receipt, optionsFor(file)), "missing_dependency", /npm install @simplewebauthn\/server/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
