// @ts-check
/**
 * @file The errors of coworkkit/server: an `Error` with a `code` (server.d.ts's
 * `ServerErrorCode`) and a message that starts `coworkkit:` and names the value at fault.
 */

/**
 * @param {import("./server.js").ServerErrorCode} code
 * @param {string} message what is wrong, naming the bad value
 * @returns {import("./server.js").ServerError}
 */
export function serverError(code, message) {
  const error = /** @type {import("./server.js").ServerError} */ (new Error(`coworkkit: ${message}`));
  error.code = code;
  return error;
}

/**
 * A text cut to `max` characters.
 * @param {string} text
 * @param {number} [max]
 */
export function clip(text, max = 80) {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * A value as a message quotes it: JSON, cut to `max` characters.
 * @param {unknown} value
 * @param {number} [max]
 * @returns {string}
 */
export function quote(value, max = 80) {
  let text;
  try {
    text = typeof value === "string" ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  } catch {
    text = Object.prototype.toString.call(value);
  }
  return clip(text, max);
}
