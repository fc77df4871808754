// @ts-check
/**
 * @file `verifyReceipt` (SPEC §13): a passkey receipt checked for exactly the call the server
 * was asked to make. The checks run cheapest first, each with its own code, and the nonce is
 * claimed last, so that only a receipt that passed everything else uses it up:
 *
 *   bad_statement       the statement is not canonical JSON, not v: 1, or lacks a field
 *   wrong_call          another action, or other args, than this request asks for
 *   wrong_origin        another origin or rpId than expected, in the statement
 *   expired             expiresAt passed, issuedAt in the future, or a lifetime over the cap
 *   wrong_origin        the assertion made on another origin, or for another RP ID
 *   bad_assertion       a malformed assertion, another challenge, no UP or UV
 *   unknown_credential  the app's lookup gives no passkey of this user with that id
 *   bad_assertion       a bad signature, a counter at or below the stored one
 *   replayed            the nonce was claimed before
 *
 * The signature itself is @simplewebauthn/server's to check (an optional peer dependency,
 * loaded at the first call).
 */
import { createHash } from "node:crypto";
import { clip, quote, serverError } from "./errors.js";
import { canonicalJson, readStatement } from "./statement.js";

/** @typedef {import("./server.js").VerifyReceiptOptions} VerifyReceiptOptions */
/** @typedef {import("./server.js").StoredCredential} StoredCredential */

const BASE64URL = /^[A-Za-z0-9_-]*$/;
/** Authenticator data: the RP ID hash (32 bytes), flags (1), signature counter (4). */
const FLAGS_AT = 32;
const MIN_AUTHENTICATOR_DATA = 37;
const USER_PRESENT = 0x01;
const USER_VERIFIED = 0x04;

/** @type {Promise<typeof import("@simplewebauthn/server")> | undefined} */
let library;

/**
 * @simplewebauthn/server, imported once; a `missing_dependency` error when it is not installed.
 * @returns {Promise<typeof import("@simplewebauthn/server")>}
 */
function webauthn() {
  if (library) return library;
  library = import("@simplewebauthn/server").catch((error) => {
    library = undefined;
    if (error?.code === "ERR_MODULE_NOT_FOUND" && String(error.message).includes("@simplewebauthn/server")) {
      throw serverError("missing_dependency",
        "coworkkit/server checks signatures with @simplewebauthn/server, which is not installed: npm install @simplewebauthn/server");
    }
    throw error;
  });
  return library;
}

/**
 * @param {string} message
 * @returns {never}
 */
function badOptions(message) {
  throw serverError("invalid_options", `verifyReceipt: ${message}`);
}

/**
 * The options with their defaults, or `invalid_options` naming the bad one.
 * @param {VerifyReceiptOptions} options
 */
function readOptions(options) {
  if (options === null || typeof options !== "object") badOptions(`options must be an object, not ${quote(options)}`);
  const { action, origin, rpID, credential, onCounter, nonces, maxLifetimeMs = 600_000, clockSkewMs = 30_000 } = options;
  for (const [name, value] of Object.entries({ action, origin, rpID })) {
    if (typeof value !== "string" || value === "") badOptions(`${name} must be a non-empty string, not ${quote(value)}`);
  }
  if (!Object.hasOwn(options, "args")) badOptions("args is missing: the args this request asks for");
  let args;
  try {
    args = canonicalJson(JSON.parse(JSON.stringify(options.args) ?? "null"));
  } catch (error) {
    badOptions(`args must be JSON data (${error instanceof Error ? error.message : String(error)})`);
  }
  if (typeof credential !== "function") badOptions(`credential must be a function (id) => the stored passkey of the signed-in user, not ${quote(credential)}`);
  if (onCounter !== undefined && typeof onCounter !== "function") badOptions(`onCounter must be a function, not ${quote(onCounter)}`);
  if (nonces === null || typeof nonces !== "object" || typeof nonces.claim !== "function") {
    badOptions(`nonces must be a nonce store (memoryNonces(), redisNonces(client), or { claim }), not ${quote(nonces)}`);
  }
  if (typeof maxLifetimeMs !== "number" || !(maxLifetimeMs > 0)) badOptions(`maxLifetimeMs must be a positive number, not ${quote(maxLifetimeMs)}`);
  if (typeof clockSkewMs !== "number" || !(clockSkewMs >= 0) || !Number.isFinite(clockSkewMs)) {
    badOptions(`clockSkewMs must be a finite number ≥ 0, not ${quote(clockSkewMs)}`);
  }
  return { action, args, origin, rpID, credential, onCounter, nonces, maxLifetimeMs, clockSkewMs };
}

/**
 * @param {string} message
 * @returns {never}
 */
function badAssertion(message) {
  throw serverError("bad_assertion", message);
}

/**
 * The bytes of a base64url field of the assertion, or `bad_assertion`.
 * @param {unknown} value
 * @param {string} name
 */
function bytes(value, name) {
  if (typeof value !== "string" || !BASE64URL.test(value)) badAssertion(`the assertion's ${name} must be base64url, not ${quote(value)}`);
  return Buffer.from(value, "base64url");
}

/** @param {string | Uint8Array} data */
const sha256 = (data) => createHash("sha256").update(data).digest();

/**
 * What the assertion says, checked before any key is looked up: its shape, its client data
 * (type, origin, challenge) and its authenticator data (RP ID hash, UP and UV flags).
 * @param {unknown} credential the receipt's `credential`
 * @param {string} statement the statement's text, whose SHA-256 must be the challenge
 * @param {{ origin: string, rpID: string }} expected
 * @returns {{ id: string, response: import("@simplewebauthn/server").AuthenticationResponseJSON }}
 */
function readAssertion(credential, statement, { origin, rpID }) {
  if (credential === null || typeof credential !== "object") badAssertion(`a receipt's credential must be an assertion object, not ${quote(credential)}`);
  const assertion = /** @type {Record<string, any>} */ (credential);
  const { id, rawId, type, response } = assertion;
  if (typeof id !== "string" || id === "" || !BASE64URL.test(id)) badAssertion(`the assertion's id must be base64url, not ${quote(id)}`);
  if (rawId !== id) badAssertion(`the assertion's rawId ${quote(rawId)} is not its id ${quote(id)}`);
  if (type !== "public-key") badAssertion(`the assertion's type must be "public-key", not ${quote(type)}`);
  if (response === null || typeof response !== "object") badAssertion(`the assertion has no response: ${quote(response)}`);
  bytes(response.signature, "signature");

  let client;
  try {
    client = JSON.parse(bytes(response.clientDataJSON, "clientDataJSON").toString("utf8"));
  } catch (error) {
    if (/** @type {{ code?: string }} */ (error).code) throw error;
    badAssertion("the assertion's clientDataJSON is not JSON");
  }
  if (client === null || typeof client !== "object") badAssertion("the assertion's clientDataJSON is not an object");
  if (client.type !== "webauthn.get") badAssertion(`the assertion's client data has type ${quote(client.type)}, not "webauthn.get"`);
  if (client.origin !== origin) throw serverError("wrong_origin", `the assertion was made on ${quote(client.origin)}, not on ${quote(origin)}`);
  if (client.crossOrigin === true) throw serverError("wrong_origin", `the assertion was made in a frame of another site (top origin ${quote(client.topOrigin)})`);
  const challenge = sha256(Buffer.from(statement, "utf8")).toString("base64url");
  if (client.challenge !== challenge) {
    badAssertion(`the assertion signed the challenge ${quote(client.challenge)}, not ${quote(challenge)}, the SHA-256 of this statement`);
  }

  const data = bytes(response.authenticatorData, "authenticatorData");
  if (data.length < MIN_AUTHENTICATOR_DATA) badAssertion(`the assertion's authenticatorData is ${data.length} bytes, too short to hold its flags`);
  if (!data.subarray(0, FLAGS_AT).equals(sha256(rpID))) throw serverError("wrong_origin", `the assertion was made for another relying party than ${quote(rpID)}`);
  const flags = data[FLAGS_AT];
  if (!(flags & USER_PRESENT)) badAssertion("the assertion's authenticator data says the person was not present (no UP flag)");
  if (!(flags & USER_VERIFIED)) badAssertion("the authenticator did not verify the person (no UV flag): a passkey confirmation needs their PIN or biometric");
  const json = { ...assertion, clientExtensionResults: assertion.clientExtensionResults ?? {} };
  return { id, response: /** @type {import("@simplewebauthn/server").AuthenticationResponseJSON} */ (json) };
}

/**
 * The app's stored passkey for `id`, as @simplewebauthn/server takes it; `unknown_credential`
 * when the lookup gives none (or another one).
 * @param {VerifyReceiptOptions["credential"]} lookup
 * @param {string} id
 */
async function storedCredential(lookup, id) {
  const stored = await lookup(id);
  if (stored === null || stored === undefined) {
    throw serverError("unknown_credential", `no passkey ${quote(id)} of this user: the lookup gave none`);
  }
  if (typeof stored !== "object") badOptions(`credential(${quote(id)}) must give { id, publicKey, counter } or null, not ${quote(stored)}`);
  if (stored.id !== id) throw serverError("unknown_credential", `the lookup of ${quote(id)} gave another passkey, ${quote(stored.id)}`);
  const { publicKey, counter, transports } = stored;
  let key;
  if (publicKey instanceof Uint8Array) key = new Uint8Array(publicKey);
  else if (typeof publicKey === "string" && BASE64URL.test(publicKey) && publicKey !== "") key = new Uint8Array(Buffer.from(publicKey, "base64url"));
  else badOptions(`credential(${quote(id)}).publicKey must be the COSE key as bytes or base64url, not ${quote(publicKey)}`);
  if (!Number.isSafeInteger(counter) || counter < 0) badOptions(`credential(${quote(id)}).counter must be an integer ≥ 0, not ${quote(counter)}`);
  return { id, publicKey: key, counter, ...(Array.isArray(transports) ? { transports: [...transports] } : {}) };
}

/** @type {typeof import("./server.js").verifyReceipt} */
export const verifyReceipt = async function verifyReceipt(receipt, options) {
  const expected = readOptions(options);
  const { verifyAuthenticationResponse } = await webauthn();
  if (receipt === null || typeof receipt !== "object") throw serverError("bad_statement", `a receipt must be { statement, credential }, not ${quote(receipt)}`);
  const { statement: text, credential } = /** @type {Record<string, unknown>} */ (receipt);
  const statement = readStatement(text);
  const signed = /** @type {string} */ (text);

  if (statement.action !== expected.action) {
    throw serverError("wrong_call", `the receipt approves ${quote(statement.action)}, not ${quote(expected.action)}`);
  }
  const args = canonicalJson(statement.args);
  if (args !== expected.args) throw serverError("wrong_call", `the receipt approves ${statement.action} with args ${clip(args)}, not ${clip(expected.args)}`);
  if (statement.origin !== expected.origin) throw serverError("wrong_origin", `the statement was made on ${quote(statement.origin)}, not on ${quote(expected.origin)}`);
  if (statement.rpId !== expected.rpID) throw serverError("wrong_origin", `the statement names the relying party ${quote(statement.rpId)}, not ${quote(expected.rpID)}`);

  const now = Date.now();
  if (now >= statement.expiresAt) throw serverError("expired", `the statement expired at ${new Date(statement.expiresAt).toISOString()}, ${now - statement.expiresAt} ms ago`);
  if (statement.issuedAt > now + expected.clockSkewMs) {
    throw serverError("expired", `the statement's issuedAt ${new Date(statement.issuedAt).toISOString()} is ${statement.issuedAt - now} ms in the future (clockSkewMs ${expected.clockSkewMs})`);
  }
  const lifetime = statement.expiresAt - statement.issuedAt;
  if (lifetime > expected.maxLifetimeMs) {
    throw serverError("expired", `the statement lives ${lifetime} ms from issuedAt to expiresAt, over maxLifetimeMs ${expected.maxLifetimeMs}`);
  }

  const { id, response } = readAssertion(credential, signed, expected);
  const stored = await storedCredential(expected.credential, id);
  let verified, newCounter;
  try {
    ({ verified, authenticationInfo: { newCounter } } = await verifyAuthenticationResponse({
      response, expectedChallenge: sha256(Buffer.from(signed, "utf8")).toString("base64url"),
      expectedOrigin: expected.origin, expectedRPID: expected.rpID, credential: stored, requireUserVerification: true,
    }));
  } catch (error) {
    badAssertion(`the assertion did not verify: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!verified) badAssertion(`the signature does not verify with the stored public key of ${quote(id)}`);

  const claimed = await expected.nonces.claim(statement.nonce, statement.expiresAt + expected.clockSkewMs);
  if (claimed === false) throw serverError("replayed", `the nonce ${quote(statement.nonce)} was used before: this receipt was already accepted`);
  if (claimed !== true) badOptions(`nonces.claim must resolve to true or false, not ${quote(claimed)}`);
  await expected.onCounter?.(id, newCounter);
  return { statement, credentialId: id, ...(statement.approver ? { approver: statement.approver } : {}) };
};
