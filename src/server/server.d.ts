// coworkkit/server (SPEC §13): the server's check of a passkey receipt (SPEC §4.1, §4.3).
// Node ≥ 20, ESM. Needs `@simplewebauthn/server` (an optional peer dependency of coworkkit:
// install it beside coworkkit on the server; a browser-only app installs nothing more).

/**
 * The passkey assertion of a receipt, in the `PublicKeyCredential.toJSON()` shape (WebAuthn's
 * `AuthenticationResponseJSON`): base64url strings.
 */
export interface ReceiptCredential {
  id: string;
  rawId: string;
  type: "public-key";
  response: {
    clientDataJSON: string;
    authenticatorData: string;
    signature: string;
    userHandle?: string;
  };
  authenticatorAttachment?: "platform" | "cross-platform";
  clientExtensionResults?: Record<string, unknown>;
}

/** What the SDK hands `run` as `ctx.receipt`, and what the page sends to the server. */
export interface Receipt {
  /** The signed statement: canonical JSON (RFC 8785), its SHA-256 the WebAuthn challenge. */
  statement: string;
  credential: ReceiptCredential;
}

/** The person who approved, as a statement carries it. */
export interface Approver {
  id: string;
  role?: string;
}

/** A JSON value, as a statement's `args` holds it. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The statement of a receipt, parsed (SPEC §4.1). Times are epoch milliseconds. */
export interface Statement {
  v: 1;
  origin: string;
  rpId: string;
  action: string;
  args: Json;
  callId: string;
  sessionId: string;
  nonce: string;
  issuedAt: number;
  expiresAt: number;
  approver?: Approver;
}

/**
 * A passkey the app stored when the person registered it. `publicKey` is the COSE public key
 * (`registrationInfo.credential.publicKey` of @simplewebauthn/server), as bytes or base64url.
 */
export interface StoredCredential {
  id: string;
  publicKey: Uint8Array | string;
  counter: number;
  transports?: string[];
}

/**
 * Where nonces are claimed: `claim` resolves true the first time it sees `nonce`, false every
 * time after, and keeps it at least until `expiresAt` (epoch ms: the statement's `expiresAt`
 * plus `clockSkewMs`). It must be atomic across every process that checks receipts.
 */
export interface NonceStore {
  claim(nonce: string, expiresAt: number): Promise<boolean>;
}

/** The nonce store of `memoryNonces()`: one process only. */
export interface MemoryNonceStore extends NonceStore {
  /** The nonces held now, expired ones dropped first. */
  readonly size: number;
}

export interface MemoryNoncesOptions {
  /**
   * How many unexpired nonces it holds (default 100 000). At the bound it refuses new claims
   * (an `Error` with code `nonce_store_full`) rather than forget a nonce that still counts.
   */
  max?: number;
}

/**
 * The part of a node-redis (v4 or v5) client that `redisNonces` uses: `set(key, value, { NX,
 * PXAT })`, answering `"OK"` when it set the key and `null` when the key was there.
 */
export interface RedisSetClient {
  set(key: string, value: string, options: { NX: true; PXAT: number }): Promise<unknown>;
}

export interface RedisNoncesOptions {
  /** Prepended to each nonce to make its key (default `"coworkkit:nonce:"`). */
  prefix?: string;
}

export interface VerifyReceiptOptions {
  /** The action this request asks the server to do. */
  action: string;
  /** Its args, compared in depth with the statement's. */
  args: Json;
  /** The page's origin, e.g. `"https://app.example"`. */
  origin: string;
  /** The relying party id the passkeys were registered for, e.g. `"app.example"`. */
  rpID: string;
  /**
   * The stored passkey with this id *of the signed-in user*, or null (or undefined) when this
   * user has none with that id.
   */
  credential: (id: string) => StoredCredential | null | undefined | Promise<StoredCredential | null | undefined>;
  /** Called once a receipt is accepted, with the authenticator's new signature counter. */
  onCounter?: (id: string, counter: number) => void | Promise<void>;
  /** The longest `expiresAt − issuedAt` accepted (default 600 000: ten minutes). */
  maxLifetimeMs?: number;
  /** How far in the future `issuedAt` may be (default 30 000). */
  clockSkewMs?: number;
  /** Where nonces are claimed: `memoryNonces()`, `redisNonces(client)` or the app's own store. */
  nonces: NonceStore;
}

export interface VerifiedReceipt {
  statement: Statement;
  /** The base64url id of the passkey that signed. */
  credentialId: string;
  /** The approver as the statement carries it, when it does. */
  approver?: Approver;
}

/** The codes of a refused receipt (`error.code`). */
export type ReceiptRefusal =
  | "bad_statement"
  | "wrong_call"
  | "wrong_origin"
  | "unknown_credential"
  | "bad_assertion"
  | "expired"
  | "replayed";

/** The codes of the errors this module throws: a refusal, or a fault of the set-up. */
export type ServerErrorCode = ReceiptRefusal | "invalid_options" | "missing_dependency" | "nonce_store_full";

/** Every error this module throws or rejects with. Its message starts `coworkkit:`. */
export interface ServerError extends Error {
  code: ServerErrorCode;
}

/**
 * Checks a receipt for exactly this call: resolves with what was signed, or rejects with a
 * `ServerError` whose `code` says which check failed. The nonce is claimed last, so only a
 * receipt that passed every other check uses it up.
 */
export function verifyReceipt(receipt: unknown, options: VerifyReceiptOptions): Promise<VerifiedReceipt>;

/** Nonces in this process's memory: for a server that runs as one process. */
export function memoryNonces(options?: MemoryNoncesOptions): MemoryNonceStore;

/** Nonces in Redis, one atomic `SET key 1 NX PXAT expiresAt` each: for any number of processes. */
export function redisNonces(client: RedisSetClient, options?: RedisNoncesOptions): NonceStore;
