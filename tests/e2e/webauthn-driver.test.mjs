// The driver layer's virtual WebAuthn authenticators (drivers/webauthn.mjs), in the engine of
// COWORKKIT_ENGINE, on a static page without the SDK (fixtures/webauthn.html) served on
// localhost (WebAuthn wants a domain for its RP ID; localhost is a secure context): a passkey
// enrolled with navigator.credentials.create answers navigator.credentials.get with user
// verification, and both verify in node with @simplewebauthn/server (tests/e2e/passkeys.mjs),
// the assertion as the SDK's receipt; with user verification off, a get that requires it fails
// and one that does not is refused by the server; with no authenticator a get fails within its
// timeout. Where the engine has no virtual authenticators (WebKit), what it has instead.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { launch, waitFor, TEST_TIMEOUT } from "./harness.mjs";
import {
  CredentialStore, registrationOptions, authenticationOptions, verifyRegistration, verifyAssertion,
  verifyReceipt, statementChallenge,
} from "./passkeys.mjs";

const RP_ID = "localhost";
const FLAG_UV = 0x04;
/** How much later than its own `timeout` a failed request may settle on a loaded machine. */
const SLACK_MS = 2000;

let env;
let origin;
before(async () => {
  env = await launch();
  const url = new URL(env.url);
  url.hostname = RP_ID;
  origin = url.origin;
});
after(() => env?.close());

async function openPage() {
  const page = await env.browser.newPage();
  await page.goto(`${origin}/fixtures/webauthn.html`);
  await waitFor(page, () => window.ready === true);
  return page;
}

/** Runs `fn(page)` on a fresh page, closed afterwards (which removes its authenticators). */
async function withPage(fn) {
  const page = await openPage();
  try {
    return await fn(page);
  } finally {
    await page.close();
  }
}

/** The page's `create`/`get` with these JSON options: `{ ok } | { error: { name, message } }`, and `ms`. */
const create = (page, options) => page.evaluate((o) => window.webauthn.create(o), options);
const get = (page, options) => page.evaluate((o) => window.webauthn.get(o), options);

/** Whether an assertion's authenticator data has the UV flag. */
const userVerified = (assertion) => (Buffer.from(assertion.response.authenticatorData, "base64url")[32] & FLAG_UV) !== 0;

/** An SDK-like statement and the request options whose challenge is its SHA-256. */
async function statementRequest(credentialId, { userVerification = "required", timeout = 10_000 } = {}) {
  const statement = JSON.stringify({ action: "transfer", args: { amount: 1 }, nonce: randomBytes(16).toString("base64url"), origin, rpId: RP_ID, v: 1 });
  const options = await authenticationOptions({
    rpID: RP_ID, challenge: Buffer.from(statementChallenge(statement), "base64url"), allowCredentials: [credentialId], timeout,
  });
  return { statement, options: { ...options, userVerification } };
}

/** Enrols a passkey for `user` on the page's authenticator; the registration verified in node. */
async function enrol(page, store, user = "ada") {
  const options = await registrationOptions({ rpID: RP_ID, userName: user, challenge: randomBytes(32) });
  const created = await create(page, options);
  assert.equal(created.error, undefined, `create failed: ${JSON.stringify(created.error)}`);
  const info = await verifyRegistration(created.ok, {
    expectedChallenge: options.challenge, expectedOrigin: origin, expectedRPID: RP_ID, credentialStore: store, user,
  });
  assert.equal(info.userVerified, true, "the registration was user-verified");
  return { id: info.credential.id, userHandle: options.user.id };
}

const verifyOptions = (store) => ({ expectedOrigin: origin, expectedRPID: RP_ID, credentialStore: store });

test("the page says whether the engine has virtual authenticators, and the engine agrees", { timeout: TEST_TIMEOUT }, async (t) => {
  await withPage(async (page) => {
    const { virtualAuthenticators, scope } = page.webauthn;
    assert.equal(typeof virtualAuthenticators, "boolean");
    await assert.rejects(page.addVirtualAuthenticator({ userVerification: true }), /unknown virtual authenticator option "userVerification"/);
    const before = await page.evaluate(() => window.webauthn.facts());
    t.diagnostic(`${env.version}: virtualAuthenticators ${virtualAuthenticators} (scope ${scope}); page: ${JSON.stringify(before)}`);
    if (!virtualAuthenticators) {
      assert.equal(scope, null);
      const refused = await page.addVirtualAuthenticator().then(() => null, (e) => e);
      assert.ok(refused, "addVirtualAuthenticator rejects where the engine has none");
      t.diagnostic(`addVirtualAuthenticator: ${refused.message}`);
      return;
    }
    assert.ok(["page", "browser"].includes(scope));
    assert.equal(before.isSecureContext, true);
    assert.equal(before.publicKeyCredential, true);
    assert.equal(before.isUserVerifyingPlatformAuthenticatorAvailable, false, "no platform authenticator before one is added");
    const auth = await page.addVirtualAuthenticator();
    assert.equal(typeof auth.id, "string");
    assert.deepEqual({ ...auth.options }, { protocol: "ctap2", transport: "internal", hasResidentKey: true, hasUserVerification: true, isUserVerified: true, isUserConsenting: true });
    assert.deepEqual(await auth.credentials(), []);
    const during = await page.evaluate(() => window.webauthn.facts());
    assert.equal(during.isUserVerifyingPlatformAuthenticatorAvailable, true, "an internal authenticator with user verification is a platform one");
    await auth.remove();
    await auth.remove(); // twice: nothing
    const after = await page.evaluate(() => window.webauthn.facts());
    assert.equal(after.isUserVerifyingPlatformAuthenticatorAvailable, false, "removed");
  });
});

test("a passkey enrolled with create answers get with user verification; both verify in node, the assertion as a receipt", { timeout: TEST_TIMEOUT }, async (t) => {
  await withPage(async (page) => {
    if (!page.webauthn.virtualAuthenticators) return t.skip(`${env.version} has no virtual authenticators`);
    const auth = await page.addVirtualAuthenticator();
    const store = new CredentialStore();
    const started = Date.now();
    const { id, userHandle } = await enrol(page, store);
    const held = await auth.credentials();
    assert.equal(held.length, 1);
    assert.deepEqual({ ...held[0], signCount: undefined, privateKey: undefined },
      { credentialId: id, isResidentCredential: true, rpId: RP_ID, userHandle, signCount: undefined, privateKey: undefined });

    const counters = [];
    for (let round = 1; round <= 2; round++) {
      const { statement, options } = await statementRequest(id);
      const got = await get(page, options);
      assert.equal(got.error, undefined, `get failed: ${JSON.stringify(got.error)}`);
      assert.equal(got.ok.id, id);
      assert.equal(got.ok.response.userHandle, userHandle);
      assert.equal(userVerified(got.ok), true, "the UV flag is set");
      const parsed = await verifyReceipt({ statement, credential: got.ok }, verifyOptions(store));
      assert.deepEqual(parsed, JSON.parse(statement));
      // The signature counter moves on with each assertion (verifyAssertion refuses one that
      // does not); the count the authenticator reports is its engine's bookkeeping (measured:
      // Chromium's is the last one signed, Firefox's one more).
      counters.push([store.get(id).counter, (await auth.credentials())[0].signCount]);
      assert.ok(store.get(id).counter > (counters.at(-2)?.[0] ?? 0), `round ${round}: counters ${JSON.stringify(counters)}`);
      // The receipt is for its own statement only.
      const other = statement.replace('"amount":1', '"amount":100');
      await assert.rejects(verifyReceipt({ statement: other, credential: got.ok }, verifyOptions(store)), /challenge/);
    }
    t.diagnostic(`enrolment and two assertions, verified: ${Date.now() - started} ms; [asserted, authenticator's] sign counts ${JSON.stringify(counters)}`);
  });
});

test("with user verification off, a get that requires it fails or lacks UV, and the server refuses what it does not fail", { timeout: TEST_TIMEOUT }, async (t) => {
  await withPage(async (page) => {
    if (!page.webauthn.virtualAuthenticators) return t.skip(`${env.version} has no virtual authenticators`);
    const auth = await page.addVirtualAuthenticator();
    const store = new CredentialStore();
    const { id } = await enrol(page, store);
    await auth.setUserVerified(false);

    const required = await statementRequest(id, { timeout: 10_000 });
    const refused = await get(page, required.options);
    if (refused.error) {
      assert.equal(refused.error.name, "NotAllowedError");
      assert.ok(refused.ms < required.options.timeout, `failed at once (${refused.ms} ms), not at its timeout`);
      t.diagnostic(`userVerification "required", UV off: ${refused.error.name} after ${Math.round(refused.ms)} ms`);
    } else {
      assert.equal(userVerified(refused.ok), false, "an assertion without user verification has no UV flag");
      await assert.rejects(verifyReceipt({ statement: required.statement, credential: refused.ok }, verifyOptions(store)), /user verification/i);
      t.diagnostic(`userVerification "required", UV off: an assertion without UV after ${Math.round(refused.ms)} ms`);
    }

    // A page that asks for less gets an assertion; its UV flag is unset and the server refuses it.
    const discouraged = await statementRequest(id, { userVerification: "discouraged" });
    const lacking = await get(page, discouraged.options);
    assert.equal(lacking.error, undefined, `get failed: ${JSON.stringify(lacking.error)}`);
    assert.equal(userVerified(lacking.ok), false);
    await assert.rejects(verifyReceipt({ statement: discouraged.statement, credential: lacking.ok }, verifyOptions(store)), /user verification/i);
    const info = await verifyAssertion(lacking.ok, { ...verifyOptions(store), expectedChallenge: discouraged.options.challenge, requireUserVerification: false });
    assert.equal(info.userVerified, false);
    t.diagnostic(`userVerification "discouraged", UV off: an assertion without UV after ${Math.round(lacking.ms)} ms, refused by verifyReceipt`);

    await auth.setUserVerified(true);
    const again = await statementRequest(id);
    const got = await get(page, again.options);
    assert.equal(got.error, undefined, `get failed once UV was back on: ${JSON.stringify(got.error)}`);
    assert.deepEqual(await verifyReceipt({ statement: again.statement, credential: got.ok }, verifyOptions(store)), JSON.parse(again.statement));
  });
});

test("with no authenticator, a get fails within its timeout", { timeout: TEST_TIMEOUT }, async (t) => {
  await withPage(async (page) => {
    if (!page.webauthn.virtualAuthenticators) return t.skip(`${env.version} has no virtual authenticators`);
    const timeout = 1000;
    // A credential id no authenticator knows, on a page that never had one.
    const unknown = await statementRequest(randomBytes(32).toString("base64url"), { timeout });
    const never = await get(page, unknown.options);
    assert.equal(never.error?.name, "NotAllowedError", JSON.stringify(never));
    assert.ok(never.ms < timeout + SLACK_MS, `settled in ${never.ms} ms`);

    // A passkey whose authenticator was removed.
    const auth = await page.addVirtualAuthenticator();
    const { id } = await enrol(page, new CredentialStore());
    await auth.remove();
    const gone = await statementRequest(id, { timeout });
    const removed = await get(page, gone.options);
    assert.equal(removed.error?.name, "NotAllowedError", JSON.stringify(removed));
    assert.ok(removed.ms < timeout + SLACK_MS, `settled in ${removed.ms} ms`);
    t.diagnostic(`no authenticator, timeout ${timeout} ms: NotAllowedError after ${Math.round(never.ms)} ms; authenticator removed: after ${Math.round(removed.ms)} ms`);
  });
});

test("without virtual authenticators, what the engine offers a page", { timeout: TEST_TIMEOUT }, async (t) => {
  await withPage(async (page) => {
    if (page.webauthn.virtualAuthenticators) return t.skip(`${env.version} has virtual authenticators`);
    const facts = await page.evaluate(() => window.webauthn.facts());
    assert.equal(facts.isSecureContext, true);
    const options = await registrationOptions({ rpID: RP_ID, userName: "ada", timeout: 1000 });
    const created = await create(page, options);
    assert.notEqual(created.error, undefined, "no create completes without an authenticator");
    if (!facts.credentialsCreate) {
      // No Credential Management API at all: the SDK's check finds no WebAuthn (passkey_unavailable).
      assert.equal(facts.publicKeyCredential, false);
      assert.equal(facts.credentialsGet, false);
      assert.equal(created.error.name, "TypeError");
    }
    t.diagnostic(`${env.version}: ${JSON.stringify(facts)}; create: ${created.error.name}: ${created.error.message}`);
  });
});
