// Passkeys on the server side, for the end-to-end tests and the demo server: registration
// options and their verification, an in-memory store of enrolled credentials (id, public key,
// counter), and assertions checked against an expected challenge (the driver tests' plumbing:
// `verifyReceipt` here checks only the signature and UV over a statement's challenge). All of
// it is @simplewebauthn/server's verification; this module only decides the options (resident
// key, user verification required) and keeps the credentials. What an app's server checks of
// the SDK's receipts (the statement, the call, the origin, the user's passkey, the time, the
// nonce) is the package's own coworkkit/server (src/server), which the passkey, hostile and demo
// tests use.
//
//   const store = new CredentialStore();
//   const options = await registrationOptions({ rpID: "localhost", userName: "ada" });
//   // page: navigator.credentials.create({ publicKey: <options, base64url fields decoded> })
//   await verifyRegistration(created, { expectedChallenge: options.challenge, expectedOrigin,
//     expectedRPID: "localhost", credentialStore: store, user: "ada" });
//   store.ids("ada")                        // what passkey.credentials("ada") returns to the SDK
//   await verifyAssertion(asserted, { expectedChallenge, expectedOrigin, expectedRPID, credentialStore: store });
//   const statement = await verifyReceipt(ctx.receipt, { expectedOrigin, expectedRPID, credentialStore: store });
import { createHash } from "node:crypto";
import {
  generateRegistrationOptions, verifyRegistrationResponse,
  generateAuthenticationOptions, verifyAuthenticationResponse,
} from "@simplewebauthn/server";

/**
 * The WebAuthn challenge of a statement: base64url (no padding) of SHA-256 over its UTF-8
 * bytes, as the SDK computes it (SPEC §4.1).
 */
export function statementChallenge(statement) {
  if (typeof statement !== "string") throw new TypeError("the statement must be a string");
  return createHash("sha256").update(statement, "utf8").digest("base64url");
}

/**
 * Enrolled credentials, in memory: `{ id, publicKey, counter, transports, user }` by credential
 * id (base64url). `publicKey` is the COSE public key bytes verifyRegistrationResponse returned.
 */
export class CredentialStore {
  #byId = new Map();

  /** Keeps a credential (replacing one with the same id). */
  add({ id, publicKey, counter = 0, transports = [] }, user = null) {
    if (typeof id !== "string" || id === "") throw new TypeError("a credential needs its base64url id");
    if (!(publicKey instanceof Uint8Array)) throw new TypeError("a credential needs its public key bytes");
    const credential = { id, publicKey, counter, transports: [...transports], user };
    this.#byId.set(id, credential);
    return credential;
  }

  /** The stored credential with this id, or undefined. */
  get(id) { return this.#byId.get(id); }

  has(id) { return this.#byId.has(id); }

  delete(id) { return this.#byId.delete(id); }

  /** The ids of `user`'s credentials (every credential's when `user` is undefined), in enrolment order. */
  ids(user) {
    return [...this.#byId.values()].filter((c) => user === undefined || c.user === user).map((c) => c.id);
  }

  /** `allowCredentials` for `user`: `[{ id, transports }]`. */
  allowCredentials(user) {
    return this.ids(user).map((id) => ({ id, transports: [...this.#byId.get(id).transports] }));
  }

  get size() { return this.#byId.size; }
}

/**
 * Options for `navigator.credentials.create` (the JSON form, base64url strings for the binary
 * fields): a discoverable credential with user verification required, no attestation, the
 * user's credentials in `credentialStore` excluded. `challenge` (string or bytes) defaults to
 * 32 random bytes.
 */
export function registrationOptions({ rpID, rpName = rpID, userName, userID, challenge, timeout, credentialStore } = {}) {
  return generateRegistrationOptions({
    rpID, rpName, userName,
    ...(userID === undefined ? {} : { userID: typeof userID === "string" ? new TextEncoder().encode(userID) : userID }),
    ...(challenge === undefined ? {} : { challenge }),
    ...(timeout === undefined ? {} : { timeout }),
    attestationType: "none",
    authenticatorSelection: { residentKey: "required", userVerification: "required" },
    excludeCredentials: credentialStore?.allowCredentials(userName) ?? [],
  });
}

/**
 * Options for `navigator.credentials.get` (JSON form): user verification required,
 * `allowCredentials` the ids given (or the store's credentials of `user`).
 */
export function authenticationOptions({ rpID, challenge, timeout, allowCredentials, credentialStore, user } = {}) {
  return generateAuthenticationOptions({
    rpID,
    ...(challenge === undefined ? {} : { challenge }),
    ...(timeout === undefined ? {} : { timeout }),
    userVerification: "required",
    allowCredentials: allowCredentials?.map((id) => (typeof id === "string" ? { id } : id))
      ?? credentialStore?.allowCredentials(user) ?? [],
  });
}

/**
 * Verifies a registration (the `PublicKeyCredential.toJSON()` shape of what `create` returned)
 * and keeps the credential in `credentialStore` under `user`. Throws when it does not verify;
 * returns simplewebauthn's `registrationInfo` (its `credential` is what was stored).
 */
export async function verifyRegistration(response, {
  expectedChallenge, expectedOrigin, expectedRPID, credentialStore, user = null, requireUserVerification = true,
}) {
  const { verified, registrationInfo } = await verifyRegistrationResponse({
    response, expectedChallenge, expectedOrigin, expectedRPID, requireUserVerification,
  });
  if (!verified) throw new Error("the registration did not verify");
  const { id, publicKey, counter } = registrationInfo.credential;
  credentialStore.add({ id, publicKey, counter, transports: response.response?.transports ?? [] }, user);
  return registrationInfo;
}

/**
 * Verifies an assertion (the `PublicKeyCredential.toJSON()` shape of what `get` returned)
 * against `expectedChallenge` (base64url), for a credential of `credentialStore`, and moves the
 * stored counter on. Throws when the credential is unknown or the assertion does not verify
 * (user verification is required unless `requireUserVerification: false`); returns
 * simplewebauthn's `authenticationInfo`.
 */
export async function verifyAssertion(response, {
  expectedChallenge, expectedOrigin, expectedRPID, credentialStore, requireUserVerification = true,
}) {
  const credential = credentialStore.get(response?.id);
  if (!credential) throw new Error(`unknown credential ${JSON.stringify(response?.id)}`);
  const { verified, authenticationInfo } = await verifyAuthenticationResponse({
    response, expectedChallenge, expectedOrigin, expectedRPID, credential, requireUserVerification,
  });
  if (!verified) throw new Error("the assertion did not verify");
  credential.counter = authenticationInfo.newCounter;
  return authenticationInfo;
}

/**
 * Verifies an assertion over a statement `{ statement, credential }` as far as WebAuthn goes:
 * the expected challenge is `statementChallenge(statement)`, the assertion must verify with user
 * verification for a credential of `credentialStore`. Returns the parsed statement; throws
 * otherwise. For the driver tests' own statements; a server checks the SDK's receipts with
 * coworkkit/server's verifyReceipt, which also checks what the statement says.
 */
export async function verifyReceipt(receipt, { expectedOrigin, expectedRPID, credentialStore }) {
  if (typeof receipt?.statement !== "string" || typeof receipt.credential !== "object" || receipt.credential === null) {
    throw new TypeError("a receipt is { statement: string, credential: object }");
  }
  await verifyAssertion(receipt.credential, {
    expectedChallenge: statementChallenge(receipt.statement),
    expectedOrigin, expectedRPID, credentialStore, requireUserVerification: true,
  });
  return JSON.parse(receipt.statement);
}
