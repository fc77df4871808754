// The demo's own small server side (www/ is the page): passkeys for confirmations, kept in
// memory, and the one action whose receipt the server checks before it acts. What an app's
// server does with coworkkit's passkey receipts (SPEC §4.1), in a few endpoints:
//
//   POST /api/passkeys/options   { user }                  → registration options (JSON form)
//   POST /api/passkeys           { user, credential }      → { id }: the passkey is enrolled
//   GET  /api/passkeys?user=ann                            → { ids }: what passkey.credentials gives
//   POST /api/projects/delete    { projectId, receipt }    → { deleted } once the receipt holds
//
// A receipt holds when @simplewebauthn/server verifies its assertion (user verification
// required) with the challenge SHA-256(statement), for an enrolled passkey, from this origin;
// and its statement is a deleteProject of exactly this project, not expired, its nonce never
// seen before. WebAuthn wants a domain for the relying party, so passkeys work on
// http://localhost:<port>/, not on 127.0.0.1.
//
// The WebAuthn library is dev tooling, installed with the rest in tests/e2e/node_modules by
// scripts/setup; tests/e2e/passkeys.mjs wraps it (and the e2e tests verify with it too).
import { isDeepStrictEqual } from "node:util";
import { CredentialStore, registrationOptions, verifyReceipt, verifyRegistration } from "../tests/e2e/passkeys.mjs";

/** The largest request body the API reads. */
const MAX_BODY = 64 * 1024;

/**
 * The API's handler, with a fresh in-memory store: `(req, res) => Promise<boolean>`, true when
 * the request was one of its own (answered), false to let the static server have it.
 */
export function demoApi() {
  const credentials = new CredentialStore();
  /** user → the challenge of the registration options last handed out. */
  const challenges = new Map();
  /** Nonces of the statements whose receipts were accepted, with their expiry. */
  const usedNonces = new Map();

  const routes = {
    "POST /api/passkeys/options": async ({ user }, site) => {
      if (!isUser(user)) return [400, { error: "user must be a short id" }];
      const options = await registrationOptions({ rpID: site.rpID, rpName: "Tasklane", userName: user, credentialStore: credentials });
      challenges.set(user, options.challenge);
      return [200, options];
    },
    "POST /api/passkeys": async ({ user, credential }, site) => {
      const expectedChallenge = challenges.get(user);
      if (!isUser(user) || !expectedChallenge) return [400, { error: "ask for registration options first" }];
      challenges.delete(user);
      try {
        const info = await verifyRegistration(credential, {
          expectedChallenge, expectedOrigin: site.origin, expectedRPID: site.rpID, credentialStore: credentials, user,
        });
        return [200, { id: info.credential.id }];
      } catch (error) {
        return [400, { error: `the passkey was not enrolled: ${error.message}` }];
      }
    },
    "GET /api/passkeys": async (_, site, url) => {
      const user = url.searchParams.get("user");
      return [200, { ids: isUser(user) ? credentials.ids(user) : [] }];
    },
    "POST /api/projects/delete": async ({ projectId, receipt }, site) => {
      let statement;
      try {
        statement = await verifyReceipt(receipt, { expectedOrigin: site.origin, expectedRPID: site.rpID, credentialStore: credentials });
      } catch (error) {
        return [403, { error: `refused: the passkey receipt did not verify (${error.message})` }];
      }
      const now = Date.now();
      for (const [nonce, expiresAt] of usedNonces) if (expiresAt < now) usedNonces.delete(nonce);
      const exactly = statement.v === 1 && statement.action === "deleteProject"
        && isDeepStrictEqual(statement.args, { projectId }) && statement.origin === site.origin;
      if (!exactly) return [403, { error: "refused: the receipt is for another call" }];
      if (!(statement.expiresAt > now)) return [403, { error: "refused: the receipt has expired" }];
      if (usedNonces.has(statement.nonce)) return [403, { error: "refused: this receipt was used before" }];
      usedNonces.set(statement.nonce, statement.expiresAt);
      const by = credentials.get(receipt.credential.id)?.user;
      return [200, { deleted: projectId, by }];
    },
  };

  return async (req, res) => {
    const url = new URL(req.url, "http://x");
    const route = routes[`${req.method} ${url.pathname}`];
    if (!route) return false;
    const host = req.headers.host ?? "";
    const site = { origin: `http://${host}`, rpID: host.replace(/:\d+$/, "") };
    let status, body;
    try {
      const input = req.method === "POST" ? JSON.parse(await readBody(req)) : {};
      [status, body] = await route(input ?? {}, site, url);
    } catch (error) {
      [status, body] = [400, { error: `bad request: ${error.message}` }];
    }
    res.writeHead(status, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" });
    res.end(JSON.stringify(body));
    return true;
  };
}

const isUser = (user) => typeof user === "string" && /^[a-z]{1,16}$/.test(user);

function readBody(req) {
  return new Promise((resolve, reject) => {
    let size = 0;
    const chunks = [];
    req.on("data", (chunk) => {
      size += chunk.length;
      if (size > MAX_BODY) { reject(new Error("body too large")); req.destroy(); return; }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}
