// @ts-check
/**
 * @file The browser's side of a passkey-verified confirmation (SPEC §4.1): the statement of one
 * call as canonical JSON, the WebAuthn prompt over its SHA-256, and the receipt `run` and the
 * record carry. Rust decides everything else: when a prompt may start (a trusted, armed click
 * on the card), which credentials may answer, and whether an assertion is accepted (its UV flag
 * and credential id, `core::passkey`); only the engine confirms.
 *
 * Every job here is the browser's own: `crypto.subtle.digest` hashes, `navigator.credentials.get`
 * asks, `btoa` and `atob` encode (base64url is base64 with `-_` for `+/` and no padding).
 */

/**
 * base64url, without padding, of `bytes`, through the browser's encoder (`btoa`).
 * @param {Uint8Array} bytes
 * @returns {string}
 */
export function ckBase64url(bytes) {
  let binary = "";
  for (let i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/**
 * The bytes of a base64url text (padding optional), through the browser's decoder (`atob`).
 * Throws a `TypeError` on anything else, `+`, `/` and whitespace included.
 * @param {string} text
 * @returns {Uint8Array<ArrayBuffer>}
 */
export function ckFromBase64url(text) {
  if (!/^[A-Za-z0-9_-]*={0,2}$/.test(text)) throw new TypeError("not base64url: " + JSON.stringify(text.slice(0, 40)));
  let binary;
  try {
    binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  } catch {
    throw new TypeError("not base64url: " + JSON.stringify(text.slice(0, 40)));
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * JSON text in canonical form (RFC 8785, the JSON Canonicalization Scheme, for JSON data):
 * object keys sorted by their UTF-16 code units (`Array.prototype.sort`'s order), no spaces,
 * strings and numbers as `JSON.stringify` writes them. Written key by key rather than through
 * one `JSON.stringify` of a sorted copy: an object lists integer-like keys ("10", "9") first,
 * in numeric order, whatever order they were added in.
 * @param {unknown} value plain JSON data (the SDK's own frozen snapshot)
 * @returns {string}
 */
export function ckCanonicalJson(value) {
  if (Array.isArray(value)) return "[" + value.map(ckCanonicalJson).join(",") + "]";
  if (value !== null && typeof value === "object") {
    const object = /** @type {Record<string, unknown>} */ (value);
    const fields = Object.keys(object).sort().map((key) => JSON.stringify(key) + ":" + ckCanonicalJson(object[key]));
    return "{" + fields.join(",") + "}";
  }
  return JSON.stringify(value);
}

/**
 * The statement a passkey signs for one call (SPEC §4.1): `{ v: 1, origin, rpId, action, args,
 * callId, sessionId, nonce, issuedAt, expiresAt }` as canonical JSON (`ckCanonicalJson`), so a
 * server that parses it, or writes the same fields again with any RFC 8785 library, reads
 * exactly what was signed.
 * @param {string} origin
 * @param {string} rpId
 * @param {string} action
 * @param {unknown} args the call's frozen snapshot
 * @param {string} callId
 * @param {string} sessionId
 * @param {string} nonce
 * @param {number} issuedAt epoch ms
 * @param {number} expiresAt epoch ms
 * @returns {string}
 */
export function ckStatement(origin, rpId, action, args, callId, sessionId, nonce, issuedAt, expiresAt) {
  return ckCanonicalJson({ v: 1, origin, rpId, action, args, callId, sessionId, nonce, issuedAt, expiresAt });
}

/**
 * The credential ids `passkey.credentials(approver)` gave, or what its promise resolved to: a
 * non-empty array of base64url strings, else a rejection whose message says why (an `Error`
 * named `NotFoundError` when there are none at all).
 * @param {unknown} answer
 * @returns {Promise<string[]>}
 */
export async function ckPasskeyIds(answer) {
  let ids;
  try {
    ids = await answer;
  } catch (e) {
    throw new Error("passkey.credentials failed: " + (e instanceof Error ? e.message : String(e)));
  }
  if (!Array.isArray(ids)) throw new TypeError("passkey.credentials must give an array of base64url credential ids");
  if (!ids.every((id) => typeof id === "string" && /^[A-Za-z0-9_-]+$/.test(id) && id.length % 4 !== 1)) {
    throw new TypeError("passkey.credentials gave something that is not a base64url credential id");
  }
  if (ids.length === 0) {
    const none = new Error("no passkey is set up for this approver");
    none.name = "NotFoundError";
    throw none;
  }
  return [...ids];
}

/**
 * A passkey assertion in the `PublicKeyCredential.toJSON()` shape (WebAuthn's
 * `AuthenticationResponseJSON`), which servers' WebAuthn libraries take as it is.
 * @typedef {object} CredentialJson
 * @property {string} id
 * @property {string} rawId
 * @property {"public-key"} type
 * @property {{ clientDataJSON: string, authenticatorData: string, signature: string, userHandle?: string }} response
 * @property {string} [authenticatorAttachment]
 * @property {Record<string, unknown>} clientExtensionResults
 */

/**
 * What `ckPasskeyAsk` resolves to, for Rust to judge.
 * @typedef {object} Assertion
 * @property {string} credentialId base64url
 * @property {Uint8Array} authenticatorData its flags are byte 32
 * @property {CredentialJson} credential
 * @property {string[]} allowed the ids it was asked with
 */

/**
 * Asks the browser for a user-verified assertion, by one of the ids `answer` gives (see
 * `ckPasskeyIds`), over the SHA-256 of `statement`'s UTF-8 bytes. Aborting `signal` ends the
 * prompt. Rejects as `ckPasskeyIds` does, or with what the browser threw: a `NotAllowedError`
 * when the person dismissed the prompt or it timed out, an `AbortError` once aborted.
 * @param {string} statement
 * @param {string} rpId
 * @param {unknown} answer what `passkey.credentials(approver)` returned
 * @param {number} timeoutMs
 * @param {AbortSignal} signal
 * @returns {Promise<Assertion>}
 */
export async function ckPasskeyAsk(statement, rpId, answer, timeoutMs, signal) {
  const ids = await ckPasskeyIds(answer);
  const allowCredentials = ids.map((id) => ({ type: /** @type {const} */ ("public-key"), id: ckFromBase64url(id) }));
  const challenge = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(statement));
  const publicKey = { challenge, rpId, allowCredentials, userVerification: /** @type {const} */ ("required"), timeout: timeoutMs };
  const got = await navigator.credentials.get({ publicKey, signal });
  if (!(got instanceof PublicKeyCredential) || !(got.response instanceof AuthenticatorAssertionResponse)) {
    throw new TypeError("the browser gave no public-key assertion");
  }
  const response = got.response;
  const authenticatorData = new Uint8Array(response.authenticatorData);
  const credentialId = ckBase64url(new Uint8Array(got.rawId));
  /** @type {CredentialJson["response"]} */
  const json = {
    clientDataJSON: ckBase64url(new Uint8Array(response.clientDataJSON)),
    authenticatorData: ckBase64url(authenticatorData),
    signature: ckBase64url(new Uint8Array(response.signature)),
  };
  if (response.userHandle) json.userHandle = ckBase64url(new Uint8Array(response.userHandle));
  /** @type {CredentialJson} */
  const credential = { id: credentialId, rawId: credentialId, type: "public-key", response: json, clientExtensionResults: { ...got.getClientExtensionResults() } };
  if (got.authenticatorAttachment) credential.authenticatorAttachment = got.authenticatorAttachment;
  return { credentialId, authenticatorData, credential, allowed: ids };
}

/**
 * What a `verify: "passkey"` call carries to `run` and its record.
 * @typedef {{ readonly statement: string, readonly credential: Readonly<CredentialJson> }} Receipt
 */

/**
 * A record's `verification`.
 * @typedef {{ readonly method: "passkey", readonly credentialId: string, readonly receipt: Receipt }} Verification
 */

/**
 * `{ statement, credential }`, deeply frozen: `run` and the record share it, and neither may
 * change what the other sees.
 * @param {string} statement
 * @param {CredentialJson} credential a fresh object `ckPasskeyAsk` made
 * @returns {Receipt}
 */
export function ckReceipt(statement, credential) {
  Object.freeze(credential.response);
  Object.freeze(credential.clientExtensionResults);
  return Object.freeze({ statement, credential: Object.freeze(credential) });
}

/**
 * A record's `verification`: `{ method: "passkey", credentialId, receipt }`, frozen.
 * @param {string} credentialId
 * @param {Receipt} receipt
 * @returns {Verification}
 */
export function ckVerification(credentialId, receipt) {
  return Object.freeze({ method: "passkey", credentialId, receipt });
}
