// @ts-check
/**
 * @file Builders of the objects the SDK hands out on every call, each in one crossing.
 *
 * They hold no logic: every value is decided in Rust. What they guarantee (tested in
 * tests/js/objects.test.mjs): the fields come in the order SPEC §3 and §6 give, an optional
 * field is absent (not `undefined`) when not given, and every object but the `ctx` is frozen.
 * Building them from Rust one `Reflect.set` at a time cost a crossing per field.
 */

/**
 * `{ callId, gate, ok, result?, error?, confirmToken?, expiresAt? }`, frozen.
 * @param {string} callId
 * @param {string} gate
 * @param {boolean} ok
 * @param {unknown} result
 * @param {unknown} error
 * @param {string | undefined} confirmToken
 * @param {number | undefined} expiresAt
 */
export function ckOutcome(callId, gate, ok, result, error, confirmToken, expiresAt) {
  /** @type {{ callId: string, gate: string, ok: boolean, result?: unknown, error?: unknown, confirmToken?: string, expiresAt?: number }} */
  const o = { callId, gate, ok };
  if (result !== undefined) o.result = result;
  if (error !== undefined) o.error = error;
  if (confirmToken !== undefined) o.confirmToken = confirmToken;
  if (expiresAt !== undefined) o.expiresAt = expiresAt;
  return Object.freeze(o);
}

/**
 * `{ code, message }`, frozen.
 * @param {string} code
 * @param {string} message
 */
export function ckError(code, message) {
  return Object.freeze({ code, message });
}

/**
 * The action record of SPEC §6, frozen. `id` may be a number `n`, meaning `sessionId + "." + n`.
 * @param {string | number} id
 * @param {string} sessionId
 * @param {string} callId
 * @param {string} action
 * @param {string} control
 * @param {string} controlSource
 * @param {string} gate
 * @param {unknown} outcome
 * @param {unknown} args
 * @param {unknown} approver
 * @param {string | undefined} reason
 * @param {number} startedAt
 * @param {number} settledAt
 */
export function ckRecord(id, sessionId, callId, action, control, controlSource, gate, outcome, args, approver, reason, startedAt, settledAt) {
  if (typeof id === "number") id = sessionId + "." + id;
  /** @type {{ v: 1, id: string, sessionId: string, callId: string, action: string, control: string, controlSource: string, gate: string, outcome: unknown, args: unknown, approver?: unknown, reason?: string, startedAt?: number, settledAt?: number }} */
  const r = { v: 1, id, sessionId, callId, action, control, controlSource, gate, outcome, args };
  if (approver !== undefined) r.approver = approver;
  if (reason !== undefined) r.reason = reason;
  r.startedAt = startedAt;
  r.settledAt = settledAt;
  return Object.freeze(r);
}

/**
 * A record's `outcome`: `{ status: "ok", value? }`, `{ status: "error", code, message }` or
 * `{ status }`, frozen.
 * @param {string} status
 * @param {unknown} value
 * @param {string | undefined} code
 * @param {string | undefined} message
 */
export function ckRecordOutcome(status, value, code, message) {
  /** @type {{ status: string, value?: unknown, code?: string, message?: string }} */
  const o = { status };
  if (status === "ok") { if (value !== undefined) o.value = value; }
  else if (status === "error") { o.code = code; o.message = message; }
  return Object.freeze(o);
}

/**
 * The `ctx` that `run` receives: `{ callId, control, approver, signal }`.
 * @param {string} callId
 * @param {string} control
 * @param {unknown} approver
 * @param {AbortSignal} signal
 */
export function ckContext(callId, control, approver, signal) {
  return { callId, control, approver, signal };
}
