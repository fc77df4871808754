// Passkeys in the demo: enrolling one for confirmations, and the server's check of a receipt
// before a project is deleted. The server side is the demo's own small API (scripts/demo-api.mjs:
// registration with @simplewebauthn/server, receipts with coworkkit/server, in memory);
// coworkkit itself only needs `passkey.credentials` (the ids below) and hands `run` the receipt
// to send.

/** Why this page cannot use passkeys, or null when it can. */
export function passkeysUnavailable() {
  if (!window.isSecureContext) return "Passkeys need a secure page (https or localhost).";
  if (/^\d+\.\d+\.\d+\.\d+$/.test(location.hostname)) {
    return `Passkeys need a domain name, not an IP address: open ${location.protocol}//localhost:${location.port}/`;
  }
  if (typeof PublicKeyCredential !== "function" || typeof PublicKeyCredential.parseCreationOptionsFromJSON !== "function") {
    return "This browser cannot enrol passkeys here.";
  }
  return null;
}

async function api(method, path, body) {
  const response = await fetch(path, {
    method,
    headers: body ? { "content-type": "application/json" } : undefined,
    body: body ? JSON.stringify(body) : undefined,
  });
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(answer.error ?? `the server said ${response.status}`);
  return answer;
}

/** The base64url ids of `user`'s passkeys (what coworkkit's `passkey.credentials` returns). */
export async function passkeyIds(user) {
  if (!user || passkeysUnavailable()) return [];
  return (await api("GET", `/api/passkeys?user=${encodeURIComponent(user)}`)).ids;
}

/**
 * Enrols a passkey for `user` (the browser's own prompt: fingerprint, face or PIN); resolves to
 * its id. Must run inside the click that asked for it.
 */
export async function enrolPasskey(user) {
  const options = await api("POST", "/api/passkeys/options", { user });
  const created = await navigator.credentials.create({ publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options) });
  return (await api("POST", "/api/passkeys", { user, credential: created.toJSON() })).id;
}

/**
 * Asks the server to delete a project as `user` (the demo's stand-in for a signed-in session);
 * it checks who may, and the passkey receipt, first, and says why not.
 */
export function deleteOnServer(user, projectId, receipt) {
  return api("POST", "/api/projects/delete", { user, projectId, receipt });
}
