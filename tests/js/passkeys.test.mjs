// tests/e2e/passkeys.mjs in node, without a browser: the receipt's challenge derivation, and
// registration, assertion and receipt verification against a software authenticator written
// here from the WebAuthn data layout (P-256 key from node:crypto, "none" attestation), so that
// each check the module relies on is seen both to pass and to refuse. What browsers' real
// authenticators produce is tested in tests/e2e/webauthn-driver.test.mjs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash, generateKeyPairSync, randomBytes, sign, webcrypto } from "node:crypto";
import { createRequire } from "node:module";
import {
  statementChallenge, CredentialStore, registrationOptions, authenticationOptions,
  verifyRegistration, verifyAssertion, verifyReceipt,
} from "../e2e/passkeys.mjs";

// The npm test tooling (one lock for every tool) lives in tests/e2e.
const { isoCBOR } = createRequire(new URL("../e2e/package.json", import.meta.url))("@simplewebauthn/server/helpers");

const ORIGIN = "http://localhost:8080";
const RP_ID = "localhost";
const b64url = (bytes) => Buffer.from(bytes).toString("base64url");
const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_AT = 0x40;

/** A CTAP2-like authenticator in node: one P-256 credential, a signature counter. */
class SoftAuthenticator {
  constructor({ rpId = RP_ID, origin = ORIGIN, userVerified = true } = {}) {
    this.rpId = rpId;
    this.origin = origin;
    this.userVerified = userVerified;
    this.counter = 0;
    this.credentialId = randomBytes(16);
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    this.privateKey = privateKey;
    const { x, y } = publicKey.export({ format: "jwk" });
    // COSE_Key: kty EC2 (2), alg ES256 (-7), crv P-256 (1), x, y.
    this.cosePublicKey = isoCBOR.encode(new Map([[1, 2], [3, -7], [-1, 1],
      [-2, Buffer.from(x, "base64url")], [-3, Buffer.from(y, "base64url")]]));
  }

  #authData(flags, attested = new Uint8Array()) {
    const head = Buffer.alloc(37);
    createHash("sha256").update(this.rpId).digest().copy(head, 0);
    head[32] = flags | (this.userVerified ? FLAG_UV : 0);
    head.writeUInt32BE(this.counter, 33);
    return Buffer.concat([head, attested]);
  }

  #clientData(type, challenge) {
    return Buffer.from(JSON.stringify({ type, challenge, origin: this.origin, crossOrigin: false }));
  }

  /** `navigator.credentials.create` for these options, in the toJSON() shape. */
  create(options) {
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(this.credentialId.length);
    const attested = Buffer.concat([Buffer.alloc(16), idLength, this.credentialId, this.cosePublicKey]);
    const authData = this.#authData(FLAG_UP | FLAG_AT, attested);
    const attestationObject = isoCBOR.encode(new Map([["fmt", "none"], ["attStmt", new Map()], ["authData", authData]]));
    const id = b64url(this.credentialId);
    return {
      id, rawId: id, type: "public-key", clientExtensionResults: {}, authenticatorAttachment: "platform",
      response: {
        clientDataJSON: b64url(this.#clientData("webauthn.create", options.challenge)),
        attestationObject: b64url(attestationObject), transports: ["internal"],
      },
    };
  }

  /** `navigator.credentials.get` with this challenge (base64url), in the toJSON() shape. */
  get(challenge) {
    this.counter += 1;
    const authData = this.#authData(FLAG_UP);
    const clientDataJSON = this.#clientData("webauthn.get", challenge);
    const signed = Buffer.concat([authData, createHash("sha256").update(clientDataJSON).digest()]);
    const id = b64url(this.credentialId);
    return {
      id, rawId: id, type: "public-key", clientExtensionResults: {}, authenticatorAttachment: "platform",
      response: {
        clientDataJSON: b64url(clientDataJSON), authenticatorData: b64url(authData),
        signature: b64url(sign("sha256", signed, this.privateKey)), userHandle: null,
      },
    };
  }
}

/** A store with one credential of `authenticator`, enrolled through the module. */
async function enrolled(authenticator, user = "ada") {
  const store = new CredentialStore();
  const options = await registrationOptions({ rpID: RP_ID, userName: user });
  await verifyRegistration(authenticator.create(options), {
    expectedChallenge: options.challenge, expectedOrigin: ORIGIN, expectedRPID: RP_ID, credentialStore: store, user,
  });
  return store;
}

const STATEMENT = JSON.stringify({ action: "pay", args: { amount: 12, to: "Zoë ✓" }, nonce: "n-1", v: 1 });
const verifyOptions = (store) => ({ expectedOrigin: ORIGIN, expectedRPID: RP_ID, credentialStore: store });

test("a statement's challenge is base64url(SHA-256(its UTF-8 bytes)), unpadded", async () => {
  // FIPS 180-2's "abc" vector: ba7816bf…f20015ad.
  assert.equal(statementChallenge("abc"), Buffer.from("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "hex").toString("base64url"));
  // The same digest as the page computes it (TextEncoder, SubtleCrypto), for text beyond ASCII.
  const pageSide = b64url(await webcrypto.subtle.digest("SHA-256", new TextEncoder().encode(STATEMENT)));
  assert.equal(statementChallenge(STATEMENT), pageSide);
  assert.notEqual(statementChallenge(STATEMENT), b64url(createHash("sha256").update(STATEMENT, "latin1").digest()));
  assert.match(statementChallenge(STATEMENT), /^[A-Za-z0-9_-]{43}$/);
  assert.throws(() => statementChallenge(new TextEncoder().encode("abc")), TypeError);
});

test("registration options ask for a discoverable credential with user verification", async () => {
  const store = new CredentialStore();
  const options = await registrationOptions({ rpID: RP_ID, userName: "ada", challenge: new Uint8Array([1, 2, 3]) });
  assert.equal(options.rp.id, RP_ID);
  assert.equal(options.challenge, "AQID");
  assert.equal(options.authenticatorSelection.residentKey, "required");
  assert.equal(options.authenticatorSelection.userVerification, "required");
  assert.equal(options.attestation, "none");
  const authenticator = new SoftAuthenticator();
  await verifyRegistration(authenticator.create(options), {
    expectedChallenge: options.challenge, expectedOrigin: ORIGIN, expectedRPID: RP_ID, credentialStore: store, user: "ada",
  });
  const again = await registrationOptions({ rpID: RP_ID, userName: "ada", credentialStore: store });
  assert.deepEqual(again.excludeCredentials, [{ id: b64url(authenticator.credentialId), transports: ["internal"], type: "public-key" }]);
  const get = await authenticationOptions({ rpID: RP_ID, credentialStore: store, user: "ada", timeout: 5000 });
  assert.equal(get.userVerification, "required");
  assert.deepEqual(get.allowCredentials.map((c) => c.id), [b64url(authenticator.credentialId)]);
  assert.equal(get.timeout, 5000);
});

test("a registration is kept under its user; one for another challenge is refused", async () => {
  const authenticator = new SoftAuthenticator();
  const store = await enrolled(authenticator, "ada");
  const id = b64url(authenticator.credentialId);
  assert.deepEqual(store.ids("ada"), [id]);
  assert.deepEqual(store.ids("bob"), []);
  assert.equal(store.get(id).counter, 0);
  assert.deepEqual(store.get(id).publicKey, new Uint8Array(authenticator.cosePublicKey));

  const options = await registrationOptions({ rpID: RP_ID, userName: "bob" });
  const other = new SoftAuthenticator();
  await assert.rejects(verifyRegistration(other.create({ challenge: "c29tZXRoaW5nIGVsc2U" }), {
    expectedChallenge: options.challenge, expectedOrigin: ORIGIN, expectedRPID: RP_ID, credentialStore: store, user: "bob",
  }), /challenge/);
  assert.equal(store.size, 1);
});

test("a receipt verifies for its own statement and gives it back parsed; the counter moves on", async () => {
  const authenticator = new SoftAuthenticator();
  const store = await enrolled(authenticator);
  const credential = authenticator.get(statementChallenge(STATEMENT));
  assert.deepEqual(await verifyReceipt({ statement: STATEMENT, credential }, verifyOptions(store)), JSON.parse(STATEMENT));
  assert.equal(store.get(credential.id).counter, 1);
  // The same assertion again: its counter did not move past the stored one.
  await assert.rejects(verifyReceipt({ statement: STATEMENT, credential }, verifyOptions(store)), /counter/);
});

test("a receipt is refused for another statement, without UV, from an unknown credential, origin or RP", async () => {
  const authenticator = new SoftAuthenticator();
  const store = await enrolled(authenticator);
  const credential = authenticator.get(statementChallenge(STATEMENT));
  const other = STATEMENT.replace('"amount":12', '"amount":1200');
  await assert.rejects(verifyReceipt({ statement: other, credential }, verifyOptions(store)), /challenge/);

  authenticator.userVerified = false;
  const withoutUv = authenticator.get(statementChallenge(STATEMENT));
  await assert.rejects(verifyReceipt({ statement: STATEMENT, credential: withoutUv }, verifyOptions(store)), /user verification/i);
  // verifyAssertion takes it only when told that user verification is not required.
  const info = await verifyAssertion(withoutUv, { ...verifyOptions(store), expectedChallenge: statementChallenge(STATEMENT), requireUserVerification: false });
  assert.equal(info.userVerified, false);

  const stranger = new SoftAuthenticator();
  await assert.rejects(verifyReceipt({ statement: STATEMENT, credential: stranger.get(statementChallenge(STATEMENT)) }, verifyOptions(store)), /unknown credential/);

  authenticator.userVerified = true;
  const fresh = () => authenticator.get(statementChallenge(STATEMENT));
  await assert.rejects(verifyReceipt({ statement: STATEMENT, credential: fresh() }, { ...verifyOptions(store), expectedOrigin: "http://localhost:9999" }), /origin/);
  await assert.rejects(verifyReceipt({ statement: STATEMENT, credential: fresh() }, { ...verifyOptions(store), expectedRPID: "example.com" }), /RP ID/i);

  for (const bad of [null, {}, { statement: STATEMENT }, { statement: 1, credential: fresh() }]) {
    await assert.rejects(verifyReceipt(bad, verifyOptions(store)), TypeError);
  }
});
