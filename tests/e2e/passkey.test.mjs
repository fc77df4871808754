// Passkey-verified confirmation (SPEC §4.1, §8 second paragraph), end to end: a real WebAuthn
// ceremony against the driver's virtual authenticator (drivers/webauthn.mjs: the DevTools
// protocol in Chromium, geckodriver's WebDriver extension in Firefox), trusted clicks on the
// card, and every receipt checked in node by the package's own coworkkit/server (pkg/server.js,
// whose signature check is @simplewebauthn/server's, a verifier nobody here wrote). Every
// receipt the browser made is kept for tests/server/ (receipts.mjs says where), with the
// variants only a browser can make: an assertion without user verification, and one made on
// another origin, each over a statement the SDK wrote. Pages are served on localhost: WebAuthn
// wants a domain for the relying party id. In an engine without virtual authenticators
// (WebKitGTK's WebKitWebDriver answers none of the commands) the last tests say what the SDK
// does there.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { verifyAuthenticationResponse } from "@simplewebauthn/server";
import { startServer } from "../../scripts/serve.mjs";
import { verifyReceipt, memoryNonces } from "../../pkg/server.js";
import { launch, onPart, partCenter, waitFor, sleep, ENGINE, TEST_TIMEOUT } from "./harness.mjs";
import { CredentialStore, registrationOptions, statementChallenge, verifyRegistration } from "./passkeys.mjs";
import { clearReceipts, saveReceipt } from "./receipts.mjs";

const ROOT = resolve(fileURLToPath(import.meta.url), "../../..");
let env, origin;

before(async () => {
  env = await launch();
  origin = env.url.replace("127.0.0.1", "localhost").replace(/\/$/, "");
  if (ENGINE !== "webkit") clearReceipts();
});
after(async () => {
  await env?.close();
});

/** Whether this engine's driver has virtual authenticators (tests/e2e/drivers/README.md). */
const VIRTUAL = ENGINE !== "webkit";
const withAuthenticators = () => (VIRTUAL
  ? { timeout: TEST_TIMEOUT }
  : { skip: `${ENGINE}: its driver has no virtual authenticator (the "passkeys in ${ENGINE}" test says what the SDK does there)` });

/** A fresh page on localhost with the package loaded. */
async function openPage() {
  const page = await env.browser.newPage();
  await page.goto(origin + "/fixtures/blank.html");
  await waitFor(page, () => window.ready === true);
  return page;
}

/** Enrols a passkey for `user` on the page's authenticator; its id (kept in `store`). */
async function enrol(page, store, user = "ann") {
  const options = await registrationOptions({ rpID: "localhost", userName: user, credentialStore: store });
  const created = await page.evaluate(async (options) => {
    const credential = await navigator.credentials.create({ publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options) });
    return credential.toJSON();
  }, options);
  const info = await verifyRegistration(created, {
    expectedChallenge: options.challenge, expectedOrigin: origin, expectedRPID: "localhost", credentialStore: store, user,
  });
  return info.credential.id;
}

const ANN = { id: "ann", role: "admin" };
const MAX = { id: "max", role: "member" };

/**
 * The SDK on the page: one passkey action, `deleteProject`, that logs what `run` got. `ids` is
 * what `passkey.credentials` answers (changeable later through `window.ids`).
 */
async function setUp(page, { ids, armDelayMs = 300, confirmTimeoutMs = 120000, timeoutMs = 60000, passkey = true, approver = ANN } = {}) {
  await page.evaluate(({ ids, armDelayMs, confirmTimeoutMs, timeoutMs, passkey, approver }) => {
    const { Coworkkit } = window.coworkkit;
    window.ids = ids;
    window.log = { records: [], runs: [], outcomes: [], asked: 0, events: [] };
    // Counts the prompts the SDK opens (the page's own code is trusted to do so).
    if (navigator.credentials) {
      const get = navigator.credentials.get.bind(navigator.credentials);
      navigator.credentials.get = (options) => { window.log.asked += 1; return get(options); };
    }
    window.ck = new Coworkkit({
      armDelayMs, confirmTimeoutMs,
      approver: () => approver,
      onActionRecord: (r) => window.log.records.push(r),
      ...(passkey ? { passkey: { credentials: () => window.ids, timeoutMs } } : {}),
    });
    window.ck.on("proposal", (p) => window.log.events.push(["proposal", p]));
    window.ck.on("resolved", (r) => window.log.events.push(["resolved", r]));
    window.ck.defineAction({
      name: "deleteProject",
      description: "Permanently delete a project.",
      control: "hard",
      verify: "passkey",
      input: { type: "object", properties: { projectId: { type: "string" } }, required: ["projectId"] },
      run: (args, ctx) => {
        window.log.runs.push({ args, callId: ctx.callId, receipt: ctx.receipt, frozen: Object.isFrozen(ctx.receipt) && Object.isFrozen(ctx.receipt.credential.response) });
        return { deleted: args.projectId };
      },
    });
    window.call = (projectId, callId) => window.ck.invoke({ name: "deleteProject", args: { projectId }, ...(callId ? { callId } : {}) })
      .then((o) => { window.log.outcomes.push(o); return o; });
  }, { ids, armDelayMs, confirmTimeoutMs, timeoutMs, passkey, approver });
}

const log = (page) => page.evaluate(() => window.log);
const part = (page, name, fn) => onPart(page, name, fn);
const status = (page) => part(page, "status", function () { return this.hidden ? null : this.textContent; });
const armed = (page) => part(page, "confirm", function () { return this.dataset.armed === "true" && this.dataset.waiting !== "true"; });
const cardOpen = (page) => part(page, "card", function () { return this.open; });

/** Waits until Confirm is armed, then clicks it with the driver's (trusted) mouse. */
async function confirmArmed(page) {
  await waitFor(page, () => true);
  for (const until = Date.now() + 5000; !(await armed(page)); await sleep(25)) {
    if (Date.now() > until) throw new Error("Confirm never armed");
  }
  await sleep(50);
  const at = await partCenter(page, "confirm");
  await page.mouse.click(at.x, at.y);
}
const clickCancel = async (page) => { const at = await partCenter(page, "cancel"); await page.mouse.click(at.x, at.y); };
async function waitUntil(page, fn, arg, timeout = 15000) { return waitFor(page, fn, arg, timeout); }

test("a trusted click and a user-verified passkey fire the call once; its receipt verifies on a server for exactly that call", withAuthenticators(), async () => {
  const page = await openPage();
  const auth = await page.addVirtualAuthenticator();
  const store = new CredentialStore();
  const id = await enrol(page, store);
  await setUp(page, { ids: [id] });
  await page.evaluate(() => { window.pending = window.call("p1", "call_7"); });
  await waitUntil(page, () => window.log.events.length === 1);
  const [[, proposal]] = (await log(page)).events;
  assert.equal(await part(page, "confirm", function () { return this.textContent; }), "Confirm with passkey");
  await confirmArmed(page);
  await waitUntil(page, () => window.log.outcomes.length === 1);
  const { outcomes, runs, records, asked, events } = await log(page);
  assert.equal(asked, 1, "one prompt");
  assert.equal(runs.length, 1, "run once");
  assert.deepEqual([outcomes[0].gate, outcomes[0].ok, outcomes[0].result], ["confirmed", true, { deleted: "p1" }]);
  assert.equal(records.length, 1);
  const [record] = records;
  const { receipt } = runs[0];
  assert.ok(runs[0].frozen, "ctx.receipt is frozen");
  assert.deepEqual(record.verification, { method: "passkey", credentialId: id, receipt });
  assert.equal(record.assurance, "passkey", "a user-verified assertion over this call's statement");

  // The statement is of exactly this call.
  const statement = JSON.parse(receipt.statement);
  assert.deepEqual(Object.keys(statement), ["action", "args", "callId", "expiresAt", "issuedAt", "nonce", "origin", "rpId", "sessionId", "v"]);
  assert.deepEqual(statement, {
    action: "deleteProject", args: { projectId: "p1" }, callId: "call_7", expiresAt: proposal.expiresAt,
    issuedAt: statement.issuedAt, nonce: statement.nonce, origin, rpId: "localhost", sessionId: record.sessionId, v: 1,
  });
  assert.match(statement.nonce, /^[0-9a-f]{32}$/);
  assert.ok(statement.issuedAt >= record.startedAt && statement.issuedAt <= record.settledAt);

  // Never to the agent: not in the outcome, nor in any event.
  const seen = JSON.stringify([outcomes, events]);
  for (const secret of [receipt.statement, receipt.credential.response.signature, statement.nonce]) {
    assert.ok(!seen.includes(secret), "the receipt reaches no outcome or event");
  }

  // A verifier nobody here wrote: the assertion is over SHA-256(statement), user-verified.
  const credential = store.get(id);
  const verified = await verifyAuthenticationResponse({
    response: receipt.credential, expectedChallenge: statementChallenge(receipt.statement),
    expectedOrigin: origin, expectedRPID: "localhost", requireUserVerification: true,
    credential: { id: credential.id, publicKey: credential.publicKey, counter: 0 },
  });
  assert.equal(verified.verified, true);
  assert.equal(verified.authenticationInfo.userVerified, true);

  // coworkkit/server accepts it for this call, once; the passkey is looked up as ann's.
  saveReceipt("call_7", { receipt, expect: { action: "deleteProject", args: { projectId: "p1" }, origin, rpID: "localhost" }, user: "ann", approver: ANN, store });
  const check = serverFor(store, "ann");
  const accepted = await check(receipt, { action: "deleteProject", args: { projectId: "p1" } });
  assert.deepEqual(accepted, { statement, credentialId: id });
  await refused(check(receipt, { action: "deleteProject", args: { projectId: "p1" } }), "replayed", "the same receipt again");

  // A tampered statement, other args, another action: each refused, by its own check.
  const tampered = { ...receipt, statement: receipt.statement.replace('"p1"', '"p2"') };
  await assert.rejects(verifyAuthenticationResponse({
    response: tampered.credential, expectedChallenge: statementChallenge(tampered.statement),
    expectedOrigin: origin, expectedRPID: "localhost", requireUserVerification: true,
    credential: { id: credential.id, publicKey: credential.publicKey, counter: 0 },
  }), "the signature is over the statement as it was");
  const fresh = serverFor(store, "ann");
  await refused(fresh(tampered, { action: "deleteProject", args: { projectId: "p2" } }), "bad_assertion", "a tampered statement");
  await refused(fresh(receipt, { action: "deleteProject", args: { projectId: "p2" } }), "wrong_call", "other args");
  await refused(fresh(receipt, { action: "archiveProject", args: { projectId: "p1" } }), "wrong_call", "another action");
  await auth.remove();
  await page.close();
});

/**
 * A server of its own (its own memoryNonces) for `user`, whose passkeys are those of `store`
 * that are `user`'s: `(receipt, { action, args, ...options }) => verifyReceipt(...)`.
 */
function serverFor(store, user) {
  const nonces = memoryNonces();
  return (receipt, options) => verifyReceipt(receipt, {
    origin, rpID: "localhost", nonces,
    credential: (id) => {
      const c = store.get(id);
      return c && c.user === user ? { id: c.id, publicKey: c.publicKey, counter: 0 } : null;
    },
    ...options,
  });
}

/** Rejects with a coworkkit/server error of `code`, whose message starts "coworkkit:". */
async function refused(promise, code, label) {
  await assert.rejects(promise, (error) => {
    assert.equal(error.code, code, `${label}: ${error.message}`);
    assert.match(error.message, /^coworkkit: /, label);
    return true;
  }, label);
}

test("a receipt verifies for its own call only: replayed for a second call, or after its statement expired, it fails", withAuthenticators(), async () => {
  const page = await openPage();
  await page.addVirtualAuthenticator();
  const store = new CredentialStore();
  const id = await enrol(page, store);
  await setUp(page, { ids: [id], confirmTimeoutMs: 4000 });
  for (const n of [1, 2]) {
    await page.evaluate((n) => { window.call("p1", `c${n}`); }, n);
    await confirmArmed(page);
    await waitUntil(page, (n) => window.log.outcomes.length === n, n);
  }
  const { runs } = await log(page);
  assert.equal(runs.length, 2);
  const [first, second] = runs.map((r) => r.receipt);
  const statements = [first, second].map((r) => JSON.parse(r.statement));
  assert.deepEqual(statements.map((s) => s.callId), ["c1", "c2"]);
  assert.notEqual(statements[0].nonce, statements[1].nonce);
  const expect = { action: "deleteProject", args: { projectId: "p1" }, origin, rpID: "localhost" };
  saveReceipt("c1", { receipt: first, expect, user: "ann", approver: ANN, store });
  saveReceipt("c2", { receipt: second, expect, user: "ann", approver: ANN, store });
  const check = serverFor(store, "ann");
  const call = { action: "deleteProject", args: { projectId: "p1" } };
  await check(first, call);
  // The second call, answered with the first call's receipt: refused.
  await refused(check(first, call), "replayed", "the first call's receipt for the second call");
  await check(second, call);
  // The statement of a third call, checked once its card's time has passed.
  await page.evaluate(() => { window.call("p1", "c3"); });
  await confirmArmed(page);
  await waitUntil(page, () => window.log.outcomes.length === 3);
  const third = (await log(page)).runs[2].receipt;
  saveReceipt("c3", { receipt: third, expect, user: "ann", approver: ANN, store });
  const late = JSON.parse(third.statement).expiresAt - Date.now() + 50;
  await sleep(Math.max(0, late));
  await refused(check(third, call), "expired", "an expired statement");
  // The signature itself is fine: it is the expiry.
  const credential = store.get(id);
  const verified = await verifyAuthenticationResponse({
    response: third.credential, expectedChallenge: statementChallenge(third.statement),
    expectedOrigin: origin, expectedRPID: "localhost", requireUserVerification: true,
    credential: { id: credential.id, publicKey: credential.publicKey, counter: 0 },
  });
  assert.equal(verified.verified, true);
  await page.close();
});

/** Confirms the next card of the page, waits for its run; the receipt `run` got. */
async function confirmedReceipt(page, projectId, callId) {
  const before = (await log(page)).runs.length;
  await page.evaluate(([p, c]) => { window.call(p, c); }, [projectId, callId]);
  await confirmArmed(page);
  await waitUntil(page, (n) => window.log.runs.length > n, before);
  return (await log(page)).runs.at(-1).receipt;
}

/**
 * An assertion the page asks for itself (not through the SDK), over the challenge of
 * `statement`, by the passkey `id`: the PublicKeyCredential.toJSON() shape.
 */
function pageAssertion(page, statement, id, userVerification) {
  const options = { challenge: statementChallenge(statement), rpId: "localhost", allowCredentials: [{ type: "public-key", id }], userVerification };
  return page.evaluate(async (options) => {
    const got = await navigator.credentials.get({ publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(options) });
    return got.toJSON();
  }, options);
}

test("the receipts coworkkit/server is tested with: two people's passkeys, a card of a day, and assertions over an SDK statement without UV and from another origin", withAuthenticators(), async () => {
  const page = await openPage();
  const auth = await page.addVirtualAuthenticator();
  const store = new CredentialStore();
  const annId = await enrol(page, store, "ann");
  const maxId = await enrol(page, store, "max");
  const expect = { action: "deleteProject", args: { projectId: "p1" }, origin, rpID: "localhost" };
  const call = { action: "deleteProject", args: { projectId: "p1" } };
  const save = (name, receipt, more = {}) => saveReceipt(name, { receipt, expect, user: "ann", approver: ANN, store, ...more });

  // Through the SDK: ann twice; ann on a card that waits a day; max (a member) once.
  await setUp(page, { ids: [annId] });
  const annFirst = await confirmedReceipt(page, "p1", "s1");
  const annAgain = await confirmedReceipt(page, "p1", "s2");
  await page.evaluate(() => window.ck.dispose());
  await setUp(page, { ids: [annId], confirmTimeoutMs: 86_400_000 });
  const longLived = await confirmedReceipt(page, "p1", "s3");
  await page.evaluate(() => window.ck.dispose());
  await setUp(page, { ids: [maxId], approver: MAX });
  const maxs = await confirmedReceipt(page, "p1", "s4");
  await page.evaluate(() => window.ck.dispose());
  save("ann-p1", annFirst);
  save("ann-p1-again", annAgain);
  save("long-lived", longLived);
  save("max-p1", maxs, { user: "max", approver: MAX });
  const lifetime = (r) => { const s = JSON.parse(r.statement); return s.expiresAt - s.issuedAt; };
  assert.ok(lifetime(longLived) > 86_000_000 && lifetime(annFirst) <= 120_000, "a card of a day, and one of two minutes");
  assert.equal(maxs.credential.id, maxId);

  // The SDK never fires on an assertion without UV; the page's own request makes one, over the
  // statement the SDK wrote for ann's first call. Its signature is good: only UV is missing.
  await auth.setUserVerified(false);
  const noUv = await pageAssertion(page, annFirst.statement, annId, "discouraged");
  await auth.setUserVerified(true);
  const credential = store.get(annId);
  const signed = await verifyAuthenticationResponse({
    response: noUv, expectedChallenge: statementChallenge(annFirst.statement), expectedOrigin: origin,
    expectedRPID: "localhost", requireUserVerification: false, credential: { id: annId, publicKey: credential.publicKey, counter: 0 },
  });
  assert.deepEqual([signed.verified, signed.authenticationInfo.userVerified], [true, false]);
  save("no-uv", { statement: annFirst.statement, credential: noUv }, { kind: "no-uv" });

  // The same statement signed on another origin (another port of localhost: the same RP ID).
  const other = await startServer({ mounts: [["/pkg/", join(ROOT, "pkg")], ["/fixtures/", join(ROOT, "tests/e2e/fixtures")]], html: env.browser.html });
  const otherOrigin = other.url.replace("127.0.0.1", "localhost").replace(/\/$/, "");
  let elsewhere;
  try {
    await page.goto(otherOrigin + "/fixtures/blank.html");
    elsewhere = await pageAssertion(page, annFirst.statement, annId, "required");
  } finally {
    await other.close();
  }
  const there = await verifyAuthenticationResponse({
    response: elsewhere, expectedChallenge: statementChallenge(annFirst.statement), expectedOrigin: otherOrigin,
    expectedRPID: "localhost", requireUserVerification: true, credential: { id: annId, publicKey: credential.publicKey, counter: 0 },
  });
  assert.equal(there.verified, true);
  save("other-origin", { statement: annFirst.statement, credential: elsewhere }, { kind: "other-origin" });

  // Statements the SDK never writes, signed by ann's passkey at the page's own request (what a
  // page script can do): each breaks one rule of the statement, its signature good.
  await page.goto(origin + "/fixtures/blank.html");
  const base = JSON.parse(annAgain.statement);
  const canonical = (value) => (Array.isArray(value) ? `[${value.map(canonical).join(",")}]`
    : value && typeof value === "object" ? `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(",")}}`
      : JSON.stringify(value));
  const { sessionId, ...noSession } = base;
  const variants = {
    "duplicate-key": annAgain.statement.replace('"args":', '"args":{"projectId":"p2"},"args":'),
    spaced: JSON.stringify(JSON.parse(canonical(base)), null, 1),
    v2: canonical({ ...base, v: 2 }),
    "no-session": canonical(noSession),
    "statement-origin": canonical({ ...base, origin: "https://localhost:8443" }),
    "statement-rpid": canonical({ ...base, rpId: "example.com" }),
    "with-approver": canonical({ ...base, approver: ANN }),
  };
  assert.ok(sessionId && JSON.parse(variants["duplicate-key"]).args.projectId === "p1", "the last args is the call's");
  const pageSigned = {};
  for (const [name, statement] of Object.entries(variants)) {
    const assertion = await pageAssertion(page, statement, annId, "required");
    const ok = await verifyAuthenticationResponse({
      response: assertion, expectedChallenge: statementChallenge(statement), expectedOrigin: origin,
      expectedRPID: "localhost", requireUserVerification: true, credential: { id: annId, publicKey: credential.publicKey, counter: 0 },
    });
    assert.equal(ok.verified, true, name);
    pageSigned[name] = { statement, credential: assertion };
    save(name, pageSigned[name], { kind: "page-signed" });
  }

  // What coworkkit/server makes of them, on ann's server.
  for (const name of ["duplicate-key", "spaced", "v2", "no-session"]) await refused(serverFor(store, "ann")(pageSigned[name], call), "bad_statement", name);
  for (const name of ["statement-origin", "statement-rpid"]) await refused(serverFor(store, "ann")(pageSigned[name], call), "wrong_origin", name);
  assert.deepEqual((await serverFor(store, "ann")(pageSigned["with-approver"], call)).approver, ANN);
  const ann = serverFor(store, "ann");
  for (const receipt of [annFirst, annAgain]) await ann(receipt, call);
  await refused(serverFor(store, "ann")(longLived, call), "expired", "a lifetime of a day, over the default ten minutes");
  await serverFor(store, "ann")(longLived, { ...call, maxLifetimeMs: 86_400_000 });
  await refused(serverFor(store, "ann")(maxs, call), "unknown_credential", "max's passkey on ann's server");
  await serverFor(store, "max")(maxs, call);
  await refused(serverFor(store, "ann")({ statement: annFirst.statement, credential: noUv }, call), "bad_assertion", "no UV");
  await refused(serverFor(store, "ann")({ statement: annFirst.statement, credential: elsewhere }, call), "wrong_origin", "another origin");
  await page.close();
});

/**
 * A prompt that does not confirm: nothing fires, the card stays, says so and re-arms, Cancel
 * still cancels, one record. `prepare(page, store)` sets the authenticator up and returns the ids
 * the app names.
 */
async function failedPrompt(prepare, expectedStatus, options) {
  const page = await openPage();
  try {
    await failedPromptOn(page, prepare, expectedStatus, options);
  } finally {
    await page.close();
  }
}

async function failedPromptOn(page, prepare, expectedStatus, { timeoutMs = 60000 } = {}) {
  const store = new CredentialStore();
  const ids = await prepare(page, store);
  await setUp(page, { ids, timeoutMs });
  await page.evaluate(() => { window.call("p1"); });
  await confirmArmed(page);
  const said = await waitUntil(page, () => {
    const host = document.querySelector("[data-coworkkit=card]");
    return host && window.log.asked >= 1 ? true : false;
  });
  assert.ok(said);
  const text = await (async () => {
    for (const until = Date.now() + timeoutMs + 10000; Date.now() < until; await sleep(50)) {
      const s = await status(page);
      if (s && !s.startsWith("Waiting")) return s;
    }
    throw new Error("the card never said the prompt failed");
  })();
  assert.match(text, expectedStatus);
  assert.equal(await cardOpen(page), true, "the card stays");
  assert.deepEqual((await log(page)).runs, [], "nothing fired");
  assert.equal((await log(page)).outcomes.length, 0, "still waiting");
  // It re-arms: a second click starts a second prompt.
  await confirmArmed(page);
  await waitUntil(page, () => window.log.asked === 2);
  for (const until = Date.now() + timeoutMs + 10000; ; await sleep(50)) {
    const s = await status(page);
    if (s && !s.startsWith("Waiting")) break;
    if (Date.now() > until) throw new Error("the second prompt never ended");
  }
  await clickCancel(page);
  await waitUntil(page, () => window.log.outcomes.length === 1);
  const { outcomes, records, runs } = await log(page);
  assert.deepEqual(runs, []);
  assert.equal(outcomes[0].gate, "cancelled");
  assert.equal(records.length, 1, "exactly one record");
  assert.equal(records[0].verification, undefined);
  assert.equal(records[0].assurance, "none", "a failed prompt decided nothing");
  assert.equal(await cardOpen(page), false);
}

test("an authenticator that does not verify the person: nothing fires, the card re-arms, Cancel cancels", withAuthenticators(), async () => {
  await failedPrompt(async (page, store) => {
    const auth = await page.addVirtualAuthenticator();
    const id = await enrol(page, store);
    await auth.setUserVerified(false);
    return [id];
  }, /did not verify you|did not finish/);
});

test("a dismissed prompt: nothing fires, the card re-arms, Cancel cancels", withAuthenticators(), async () => {
  await failedPrompt(async (page, store) => {
    // The passkey, moved to an authenticator whose person says no to every request.
    const enrolling = await page.addVirtualAuthenticator();
    const id = await enrol(page, store);
    const [credential] = await enrolling.credentials();
    await enrolling.remove();
    const refusing = await page.addVirtualAuthenticator({ isUserConsenting: false });
    await refusing.addCredential(credential);
    return [id];
  }, /did not finish/, { timeoutMs: 3000 });
});

test("an authenticator holding only another credential: nothing fires, the card re-arms, Cancel cancels", withAuthenticators(), async () => {
  await failedPrompt(async (page, store) => {
    const named = await page.addVirtualAuthenticator();
    const id = await enrol(page, store);
    await named.remove();
    await page.addVirtualAuthenticator();
    await enrol(page, store, "max");
    return [id];
  }, /did not finish|cannot confirm/, { timeoutMs: 3000 });
});

test("no authenticator at all: nothing fires, the card re-arms, Cancel cancels", withAuthenticators(), async () => {
  await failedPrompt(async (page, store) => {
    const auth = await page.addVirtualAuthenticator();
    const id = await enrol(page, store);
    await auth.remove();
    return [id];
  }, /did not finish/, { timeoutMs: 3000 });
});

/**
 * Holds the page's next passkey prompts open, as a person who has not answered yet: each waits
 * until `window.answer()` asks the real authenticator (without the SDK's signal, so that its
 * answer arrives even after the SDK aborted). `window.aborted` lists the prompts whose signal
 * the SDK aborted. (The page's own code is trusted; this is the browser's prompt, slowed.)
 */
/** (Before `setUp`, whose prompt counter then counts these.) */
function holdPrompts(page) {
  return page.evaluate(() => {
    window.aborted = [];
    window.answers = [];
    const get = navigator.credentials.get.bind(navigator.credentials);
    navigator.credentials.get = (options) => {
      options.signal?.addEventListener("abort", () => window.aborted.push(true));
      return new Promise((resolve, reject) => {
        window.answer = () => get({ publicKey: options.publicKey }).then(
          (c) => { window.answers.push("assertion"); resolve(c); },
          (e) => { window.answers.push(e.name); reject(e); });
      });
    };
  });
}

test("Cancel, expiry and dispose while the prompt is open abort it; a real assertion arriving late fires nothing; one record each", withAuthenticators(), async () => {
  for (const ending of ["cancel", "expiry", "dispose"]) {
    const page = await openPage();
    const store = new CredentialStore();
    await page.addVirtualAuthenticator();
    const id = await enrol(page, store);
    await holdPrompts(page);
    await setUp(page, { ids: [id], confirmTimeoutMs: ending === "expiry" ? 3000 : 120000 });
    await page.evaluate(() => { window.call("p1"); });
    await confirmArmed(page);
    await waitUntil(page, () => window.log.asked === 1);
    assert.match(await status(page), /Waiting for your passkey/, ending);
    if (ending === "cancel") await clickCancel(page);
    if (ending === "dispose") await page.evaluate(() => window.ck.dispose());
    await waitUntil(page, () => window.log.outcomes.length === 1 && window.aborted.length === 1);
    // The person answers now: a real, user-verified assertion over that statement, too late.
    await page.evaluate(() => window.answer());
    await waitUntil(page, () => window.answers.length === 1);
    await sleep(300);
    assert.deepEqual(await page.evaluate(() => window.answers), ["assertion"], ending);
    const { outcomes, records, runs } = await log(page);
    assert.deepEqual(runs, [], ending);
    assert.equal(outcomes[0].gate, ending === "expiry" ? "timeout" : "cancelled", ending);
    assert.equal(records.length, 1, `${ending}: one record`);
    assert.equal(records[0].verification, undefined, ending);
    assert.equal(records[0].assurance, "none", ending);
    await page.close();
  }
});

test("one prompt at a time: clicks on a waiting card open no second prompt, and its answer confirms once", withAuthenticators(), async () => {
  const page = await openPage();
  const store = new CredentialStore();
  await page.addVirtualAuthenticator();
  const id = await enrol(page, store);
  await holdPrompts(page);
  await setUp(page, { ids: [id], armDelayMs: 100 });
  await page.evaluate(() => { window.call("p1"); });
  await confirmArmed(page);
  await waitUntil(page, () => window.log.asked === 1);
  const at = await partCenter(page, "confirm");
  for (let i = 0; i < 5; i++) { await page.mouse.click(at.x, at.y); await sleep(150); }
  assert.equal((await log(page)).asked, 1);
  await page.evaluate(() => window.answer());
  await waitUntil(page, () => window.log.outcomes.length === 1);
  const { outcomes, records, runs, asked } = await log(page);
  assert.deepEqual([asked, runs.length, records.length, outcomes[0].gate, records[0].assurance], [1, 1, 1, "confirmed", "passkey"]);
  await page.close();
});

test("passkey_unavailable on arrival: no passkey option (and a warning), no ids, ids that are not base64url, an IP address", { timeout: TEST_TIMEOUT }, async () => {
  const page = await openPage();
  await setUp(page, { ids: [], passkey: false });
  assert.ok(page.warnings.some((w) => /verify: "passkey".*no passkey option/.test(w)), JSON.stringify(page.warnings));
  // Where the engine has no WebAuthn at all (WebKitGTK), that is the reason every time.
  const webauthn = await page.evaluate(() => typeof PublicKeyCredential === "function");
  const because = (why) => (webauthn ? why : /no WebAuthn/);
  const refused = async (label) => {
    const o = await page.evaluate(() => window.call("p1"));
    assert.equal(o.gate, "rejected", label);
    assert.equal(o.error.code, "passkey_unavailable", label);
    return o.error.message;
  };
  assert.match(await refused("no option"), /passkey option is missing/);
  await setUp(page, { ids: [] });
  assert.match(await refused("no ids"), because(/no passkey is set up/));
  await page.evaluate(() => { window.ids = Promise.resolve([]); });
  assert.match(await refused("a promise of no ids"), because(/no passkey is set up/));
  await page.evaluate(() => { window.ids = ["not base64url!"]; });
  assert.match(await refused("a bad id"), because(/not a base64url credential id/));
  await page.evaluate(() => { window.ids = Promise.reject(new Error("the server is down")); window.ids.catch(() => {}); });
  assert.match(await refused("a failed lookup"), because(/the server is down/));
  const { records, runs, asked } = await log(page);
  assert.equal(records.length, 4, "one record each (the second instance's)");
  assert.ok(records.every((r) => r.gate === "rejected" && r.reason === "passkey_unavailable" && r.assurance === "none"));
  assert.deepEqual([runs, asked], [[], 0]);
  assert.equal(await page.evaluate(() => document.querySelector("[data-coworkkit=card]")), null, "never a card");
  await page.close();

  // On 127.0.0.1 there is no relying party id: refused on arrival, never a prompt.
  const ip = await env.browser.newPage();
  await ip.goto(env.url + "fixtures/blank.html");
  await waitFor(ip, () => window.ready === true);
  await setUp(ip, { ids: ["AQID"] });
  const o = await ip.evaluate(() => window.call("p1"));
  assert.deepEqual([o.gate, o.error.code], ["rejected", "passkey_unavailable"]);
  assert.match(o.error.message, because(/not an IP address/));
  await ip.close();
});

test("verify: \"passkey\" is for hard actions only, and is no manifest's business", { timeout: TEST_TIMEOUT }, async () => {
  const page = await openPage();
  await setUp(page, { ids: ["AQID"] });
  const thrown = await page.evaluate(() => {
    const tries = [{ control: "soft" }, { control: "open" }, {}, { control: "hard", verify: "yes" }];
    return tries.map((t) => {
      try { window.ck.defineAction({ name: "x" + Math.random().toString(36).slice(2, 8), description: "d", run: () => 1, verify: "passkey", ...t }); return null; } catch (e) { return e.code; }
    });
  });
  assert.deepEqual(thrown, ["invalid_spec", "invalid_spec", "invalid_spec", "invalid_spec"]);
  const tools = await page.evaluate(() => JSON.stringify([window.ck.tools("mcp"), window.ck.tools("openai")]));
  assert.ok(!/passkey|verify/i.test(tools), "nothing about the passkey in a manifest");
  await page.close();
});

test(`passkeys in ${ENGINE}: what the engine offers a page, and what the SDK answers`, { timeout: TEST_TIMEOUT }, async () => {
  const page = await openPage();
  const has = await page.evaluate(() => ({
    webauthn: typeof PublicKeyCredential === "function" && typeof navigator.credentials?.get === "function",
    secure: window.isSecureContext,
  }));
  assert.equal(has.secure, true, "localhost is a secure context");
  await setUp(page, { ids: ["AQID"], timeoutMs: 2000 });
  await page.evaluate(() => { window.call("p1"); });
  if (!has.webauthn) {
    await waitUntil(page, () => window.log.outcomes.length === 1);
    const [o] = (await log(page)).outcomes;
    assert.deepEqual([o.gate, o.error.code], ["rejected", "passkey_unavailable"]);
    assert.match(o.error.message, /no WebAuthn/);
  } else {
    // The card opens; without an authenticator the prompt fails, the card says so and nothing fires.
    await confirmArmed(page);
    for (const until = Date.now() + 20000; ; await sleep(50)) {
      const s = await status(page);
      if (s && !s.startsWith("Waiting")) break;
      if (Date.now() > until) throw new Error("the prompt never ended");
    }
    assert.deepEqual((await log(page)).runs, []);
    await clickCancel(page);
    await waitUntil(page, () => window.log.outcomes.length === 1);
    assert.equal((await log(page)).outcomes[0].gate, "cancelled");
  }
  console.log(`# ${ENGINE}: WebAuthn ${has.webauthn ? "present" : "absent"}; virtual authenticators ${VIRTUAL ? "yes" : "no"}`);
  await page.close();
});
