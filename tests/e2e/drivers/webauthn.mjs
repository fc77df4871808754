// Virtual WebAuthn authenticators behind one interface (see README.md, "Passkeys"):
//
//   page.webauthn                      // { virtualAuthenticators: boolean, scope: "page" | "browser" | null }
//   const auth = await page.addVirtualAuthenticator({ isUserVerified: false })   // options below
//   auth.id · auth.options
//   await auth.setUserVerified(true)   // later user verifications succeed (false: they fail)
//   await auth.credentials()           // [{ credentialId, isResidentCredential, rpId, userHandle, signCount, privateKey }]
//   await auth.addCredential(c)        // one of those (from another authenticator) now held here too
//   await auth.remove()                // page.close() removes the page's authenticators too
//
// Chromium: the DevTools protocol's WebAuthn domain, per page. Firefox and WebKit: the WebDriver
// WebAuthn extension commands (POST /session/{id}/webauthn/authenticator, …), which geckodriver
// answers (Firefox's authenticators are the whole browser's) and WebKitWebDriver does not.

/**
 * The authenticator a passkey test wants unless it says otherwise (the WebDriver WebAuthn
 * extension's names): CTAP2, built in ("internal", a platform authenticator), discoverable
 * credentials, able to verify the user and doing so, the user consenting to every request.
 */
export const AUTHENTICATOR_DEFAULTS = Object.freeze({
  protocol: "ctap2", transport: "internal", hasResidentKey: true, hasUserVerification: true,
  isUserVerified: true, isUserConsenting: true,
});

/** The defaults with `options` over them; an option the interface does not know is an error. */
export function authenticatorOptions(options = {}) {
  for (const key of Object.keys(options)) {
    if (!(key in AUTHENTICATOR_DEFAULTS)) {
      throw new TypeError(`unknown virtual authenticator option "${key}" (known: ${Object.keys(AUTHENTICATOR_DEFAULTS).join(", ")})`);
    }
  }
  return { ...AUTHENTICATOR_DEFAULTS, ...options };
}

/** base64 or base64url text as base64url without padding. */
const base64url = (text) => (text == null ? null : Buffer.from(text, "base64").toString("base64url"));

/** A stored credential as an engine reports it, its binary fields as base64url in every engine. */
export function credentialOf(c) {
  return {
    credentialId: base64url(c.credentialId),
    isResidentCredential: c.isResidentCredential,
    rpId: c.rpId,
    userHandle: base64url(c.userHandle || null),
    signCount: c.signCount,
    privateKey: base64url(c.privateKey),
  };
}

/** One virtual authenticator; `ops` are the engine's commands for it. */
export class VirtualAuthenticator {
  #ops;
  #forget;
  #removed = false;

  constructor(id, options, ops, forget) {
    this.id = id;
    this.options = Object.freeze({ ...options });
    this.#ops = ops;
    this.#forget = forget;
  }

  /** Whether later user verifications succeed. */
  async setUserVerified(isUserVerified) {
    if (typeof isUserVerified !== "boolean") throw new TypeError("setUserVerified takes a boolean");
    await this.#ops.setUserVerified(this.id, isUserVerified);
  }

  /** The credentials the authenticator holds. */
  async credentials() {
    return (await this.#ops.credentials(this.id)).map(credentialOf);
  }

  /**
   * Puts a credential that `credentials()` of some authenticator gave (its private key too) on
   * this one: a passkey held by an authenticator that was made to behave otherwise.
   */
  async addCredential(credential) {
    await this.#ops.addCredential(this.id, credential);
  }

  /** Removes the authenticator (again: nothing). */
  async remove() {
    if (this.#removed) return;
    this.#removed = true;
    this.#forget(this);
    await this.#ops.remove(this.id);
  }
}

/**
 * A page's authenticators over the WebDriver WebAuthn extension: `send(method, path, body)`
 * is the WebDriver client of the page's session, `sessionId` its id.
 */
export function webDriverAuthenticators(send, sessionId) {
  const at = (id = "") => `/session/${sessionId}/webauthn/authenticator${id ? `/${id}` : ""}`;
  return {
    add: (options) => send("POST", at(), options),
    setUserVerified: (id, isUserVerified) => send("POST", `${at(id)}/uv`, { isUserVerified }),
    credentials: (id) => send("GET", `${at(id)}/credentials`),
    addCredential: (id, c) => send("POST", `${at(id)}/credential`, {
      credentialId: c.credentialId, isResidentCredential: c.isResidentCredential, rpId: c.rpId,
      privateKey: c.privateKey, signCount: c.signCount, ...(c.userHandle ? { userHandle: c.userHandle } : {}),
    }),
    remove: (id) => send("DELETE", at(id)),
  };
}

/**
 * The authenticators a page added, removed when the page closes. `ops` are the engine's
 * commands (`add(options)` → id, `setUserVerified`, `credentials`, `remove`).
 */
export class PageAuthenticators {
  #ops;
  #live = new Set();

  constructor(ops) { this.#ops = ops; }

  async add(options) {
    const resolved = authenticatorOptions(options);
    const id = await this.#ops.add(resolved);
    const auth = new VirtualAuthenticator(id, resolved, this.#ops, (a) => this.#live.delete(a));
    this.#live.add(auth);
    return auth;
  }

  async removeAll() {
    for (const auth of [...this.#live]) await auth.remove().catch(() => {});
  }
}
