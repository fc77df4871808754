// The demo's own small server side (www/ is the page): passkeys for confirmations, kept in
// memory, and the one action whose receipt the server checks before it acts. What an app's
// server does with coworkkit's passkey receipts (SPEC §4.1, §13), in a few endpoints:
//
//   POST /api/passkeys/options   { user }                        → registration options (JSON form)
//   POST /api/passkeys           { user, credential }            → { id }: the passkey is enrolled
//   GET  /api/passkeys?user=ann                                  → { ids }: what passkey.credentials gives
//   POST /api/projects/delete    { user, projectId, receipt }    → { deleted, by } once the receipt holds
//
// `user` stands in for the signed-in session (the demo's "Acting as" list). The delete is the
// server's decision twice over: only an admin may delete (the page's `approvers` is a courtesy
// to the person, not a control), and the receipt must pass coworkkit/server's verifyReceipt for
// exactly this project, signed by a passkey of *that* user (the lookup is bound to the user), its
// nonce claimed in memoryNonces() (this server is one process) and its counter stored back.
// WebAuthn wants a domain for the relying party, so passkeys work on http://localhost:<port>/,
// not on 127.0.0.1.
//
// Registration uses tests/e2e/passkeys.mjs (@simplewebauthn/server, installed with the rest of
// the dev tooling in tests/e2e/node_modules by scripts/setup, which also links it as the root
// node_modules); the receipt check is the package's own, imported from src/server as the demo
// runs from the tree.
import { verifyReceipt, memoryNonces } from "../src/server/index.js";
import { CredentialStore, registrationOptions, verifyRegistration } from "../tests/e2e/passkeys.mjs";

/** The server's own roles: who may do what is decided here, whatever the page shows. */
const ROLES = { ann: "admin", max: "member" };

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
  /** The nonces of accepted receipts, until their statements expire (one process: memory). */
  const nonces = memoryNonces();

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
    "POST /api/projects/delete": async ({ user, projectId, receipt }, site) => {
      if (!isUser(user) || typeof projectId !== "string") return [400, { error: "user and projectId are needed" }];
      if (ROLES[user] !== "admin") return [403, { error: `refused: only an admin deletes a project, and ${user} is a ${ROLES[user] ?? "guest"}` }];
      try {
        await verifyReceipt(receipt, {
          action: "deleteProject", args: { projectId },
          origin: site.origin, rpID: site.rpID,
          // A passkey of the signed-in user only: another person's passkey approves nothing here.
          credential: (id) => {
            const c = credentials.get(id);
            return c && c.user === user ? c : null;
          },
          onCounter: (id, counter) => { credentials.get(id).counter = counter; },
          nonces,
        });
      } catch (error) {
        if (!error.code || error.code === "invalid_options") throw error;
        return [403, { error: `refused (${error.code}): ${error.message}`, code: error.code }];
      }
      return [200, { deleted: projectId, by: user }];
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
