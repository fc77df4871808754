// @ts-check
/**
 * @file The statement of a receipt (SPEC §4.1), read as the server must: canonical JSON
 * (RFC 8785) byte for byte, `v: 1`, every field the SDK writes and of the right kind, nothing
 * else. A statement that parses to the same value from other bytes (other spacing, another key
 * order, a duplicate key, `1.0` for `1`) is refused: the signature is over the bytes, and what
 * the server acts on must be exactly what they say.
 */
import { quote, serverError } from "./errors.js";

/**
 * JSON text in canonical form (RFC 8785, for JSON data): keys sorted by UTF-16 code units, no
 * spaces, strings and numbers as `JSON.stringify` writes them. Key by key, not one
 * `JSON.stringify` of a sorted copy: objects list integer-like keys first whatever the order.
 * @param {unknown} value parsed JSON
 * @returns {string}
 */
export function canonicalJson(value) {
  if (Array.isArray(value)) return "[" + value.map(canonicalJson).join(",") + "]";
  if (value !== null && typeof value === "object") {
    const object = /** @type {Record<string, unknown>} */ (value);
    return "{" + Object.keys(object).sort().map((key) => JSON.stringify(key) + ":" + canonicalJson(object[key])).join(",") + "}";
  }
  return JSON.stringify(value);
}

/** The fields the SDK writes into every statement, and the one it may add. */
const FIELDS = ["action", "args", "callId", "expiresAt", "issuedAt", "nonce", "origin", "rpId", "sessionId", "v"];
const OPTIONAL = ["approver"];
/** 128 random bits and more; the SDK writes 32 hex digits. */
const NONCE = /^[A-Za-z0-9_-]{16,128}$/;

/**
 * @param {string} message
 * @returns {never}
 */
function bad(message) {
  throw serverError("bad_statement", message);
}

/**
 * @param {Record<string, unknown>} statement
 * @param {string} field
 */
function nonEmptyString(statement, field) {
  const value = statement[field];
  if (typeof value !== "string" || value === "") bad(`the statement's ${field} must be a non-empty string, not ${quote(value)}`);
}

/**
 * Reads a receipt's statement: the parsed statement, or a `bad_statement` refusal naming what
 * is wrong with it.
 * @param {unknown} text
 * @returns {import("./server.js").Statement}
 */
export function readStatement(text) {
  if (typeof text !== "string") bad(`a receipt's statement must be a string, not ${quote(text)}`);
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    bad(`the statement is not JSON (${error instanceof Error ? error.message : String(error)}): ${quote(text)}`);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) bad(`the statement must be a JSON object, not ${quote(text)}`);
  let canonical;
  try {
    canonical = canonicalJson(parsed);
  } catch {
    bad("the statement is nested too deeply to be written again");
  }
  if (canonical !== text) {
    let at = 0;
    while (at < text.length && text[at] === canonical[at]) at++;
    bad(`the statement is not canonical JSON (RFC 8785, sorted keys, no spaces, no duplicate key): it differs at character ${at}, ${quote(text.slice(at, at + 24))}`);
  }
  const statement = /** @type {Record<string, unknown>} */ (parsed);
  if (statement.v !== 1) bad(`the statement's v must be 1, not ${quote(statement.v)}`);
  const missing = FIELDS.filter((field) => !Object.hasOwn(statement, field));
  if (missing.length) bad(`the statement has no ${missing.join(", ")}`);
  const unknown = Object.keys(statement).filter((field) => !FIELDS.includes(field) && !OPTIONAL.includes(field));
  if (unknown.length) bad(`the statement has fields this server does not know: ${unknown.join(", ")}`);
  for (const field of ["origin", "rpId", "action", "callId", "sessionId"]) nonEmptyString(statement, field);
  if (typeof statement.nonce !== "string" || !NONCE.test(statement.nonce)) {
    bad(`the statement's nonce must be 16 to 128 characters of [A-Za-z0-9_-], not ${quote(statement.nonce)}`);
  }
  for (const field of ["issuedAt", "expiresAt"]) {
    const value = statement[field];
    if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
      bad(`the statement's ${field} must be a time in epoch milliseconds, not ${quote(value)}`);
    }
  }
  if (/** @type {number} */ (statement.expiresAt) <= /** @type {number} */ (statement.issuedAt)) {
    bad(`the statement's expiresAt ${statement.expiresAt} is not after its issuedAt ${statement.issuedAt}`);
  }
  if (Object.hasOwn(statement, "approver")) {
    const approver = /** @type {Record<string, unknown> | null} */ (statement.approver);
    const ok = approver !== null && typeof approver === "object" && !Array.isArray(approver)
      && typeof approver.id === "string" && approver.id !== ""
      && Object.keys(approver).every((key) => key === "id" || (key === "role" && typeof approver.role === "string"));
    if (!ok) bad(`the statement's approver must be { id, role? } with strings, not ${quote(approver)}`);
  }
  return /** @type {import("./server.js").Statement} */ (/** @type {unknown} */ (statement));
}
