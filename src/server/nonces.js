// @ts-check
/**
 * @file Where a receipt's nonce is claimed (SPEC §13): once, atomically, and remembered until
 * its statement can no longer be accepted. `memoryNonces()` serves one process;
 * `redisNonces(client)` serves any number that share the Redis server; any object with
 * `claim(nonce, expiresAt) → Promise<boolean>` serves as the app's own store.
 */
import { quote, serverError } from "./errors.js";

/** The key prefix of `redisNonces`. */
const REDIS_PREFIX = "coworkkit:nonce:";
/** Below this many entries, `memoryNonces` never sweeps between claims. */
const SWEEP_FLOOR = 1024;

/**
 * @param {unknown} nonce
 * @param {unknown} expiresAt
 */
function checkClaim(nonce, expiresAt) {
  if (typeof nonce !== "string" || nonce === "") throw serverError("invalid_options", `a nonce to claim must be a non-empty string, not ${quote(nonce)}`);
  if (typeof expiresAt !== "number" || !Number.isFinite(expiresAt)) {
    throw serverError("invalid_options", `a nonce's expiresAt must be a time in epoch milliseconds, not ${quote(expiresAt)}`);
  }
}

/**
 * Nonces in this process's memory. Each is held until its `expiresAt`; expired ones are swept
 * as claims come (whenever the map has doubled since the last sweep, and before refusing at the
 * bound). At `max` unexpired nonces it refuses new claims with `nonce_store_full`: forgetting a
 * nonce that still counts would let its receipt replay.
 * @type {typeof import("./server.js").memoryNonces}
 */
export const memoryNonces = function memoryNonces(options = {}) {
  const max = options?.max ?? 100_000;
  if (!Number.isSafeInteger(max) || max < 1) throw serverError("invalid_options", `memoryNonces' max must be a positive integer, not ${quote(max)}`);
  /** nonce → the time until which it is held (epoch ms) */
  const held = new Map();
  let sweepAt = SWEEP_FLOOR;
  /** @param {number} now */
  const sweep = (now) => {
    for (const [nonce, until] of held) if (until <= now) held.delete(nonce);
    sweepAt = Math.max(SWEEP_FLOOR, held.size * 2);
  };
  return {
    async claim(nonce, expiresAt) {
      checkClaim(nonce, expiresAt);
      const now = Date.now();
      const until = held.get(nonce);
      if (until !== undefined && until > now) return false;
      held.delete(nonce);
      if (held.size >= sweepAt || held.size >= max) sweep(now);
      if (held.size >= max) {
        throw serverError("nonce_store_full", `memoryNonces holds ${held.size} unexpired nonces, its max: it refuses ${quote(nonce)} rather than forget one that still counts`);
      }
      held.set(nonce, expiresAt);
      return true;
    },
    get size() {
      sweep(Date.now());
      return held.size;
    },
  };
};

/**
 * Nonces in Redis: one `SET <prefix><nonce> 1 NX PXAT <expiresAt>` per claim, which sets the
 * key only if it is absent and lets Redis drop it at `expiresAt`; atomic across every process
 * that shares the server. `client` is a node-redis v4 or v5 client (`createClient()`, connected).
 * @type {typeof import("./server.js").redisNonces}
 */
export const redisNonces = function redisNonces(client, options = {}) {
  if (client === null || typeof client !== "object" || typeof client.set !== "function") {
    throw serverError("invalid_options", `redisNonces needs a node-redis client (with set()), not ${quote(client)}`);
  }
  const prefix = options?.prefix ?? REDIS_PREFIX;
  if (typeof prefix !== "string") throw serverError("invalid_options", `redisNonces' prefix must be a string, not ${quote(prefix)}`);
  return {
    async claim(nonce, expiresAt) {
      checkClaim(nonce, expiresAt);
      const reply = await client.set(prefix + nonce, "1", { NX: true, PXAT: Math.ceil(expiresAt) });
      if (reply === null) return false;
      if (String(reply) === "OK") return true;
      throw serverError("invalid_options", `Redis answered SET … NX PXAT with ${quote(reply)}, not "OK" or null`);
    },
  };
};
