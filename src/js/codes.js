// @ts-check
/**
 * @file The codes that cross between this JavaScript and the Rust beside it, each named once.
 *
 * Every constant here has a Rust twin of the same name (in `core::tape`, `core::value` or
 * `web::js`); `tests/boundary_codes.rs` reads this file and fails when a value differs or a
 * name is missing on either side. So keep to one `export const NAME = literal;` per line.
 */

/** Nesting deeper than this is refused: never useful for arguments, and it bounds the walk. */
export const MAX_DEPTH = 64;

// The tape (its format is documented beside its decoder, src/core/tape.rs).
export const TAG_NULL = "n";
export const TAG_TRUE = "t";
export const TAG_FALSE = "f";
/** A safe integer in decimal, then `TAG_NUMBER_END`. */
export const TAG_INT = "i";
/** Any other number: the 16 hex digits of its bits. */
export const TAG_DOUBLE = "d";
/** A string: its UTF-8 length, `TAG_LENGTH_END`, its text. Also a call's field that is a string. */
export const TAG_STRING = "s";
export const TAG_ARRAY = "[";
export const TAG_ARRAY_END = "]";
export const TAG_OBJECT = "{";
export const TAG_OBJECT_END = "}";
export const TAG_LENGTH_END = ":";
export const TAG_NUMBER_END = ";";
/** Instead of a value: over the budget after this many bytes. */
export const TAG_TOO_LARGE = "#";
/** Instead of a value: not JSON data, a `WHY_*` code and the path follow. */
export const TAG_NOT_JSON = "!";
/** Instead of a tool call's arguments: the whole `invalid_args` message follows. */
export const TAG_REFUSED = "?";
/** A call's field that is `undefined` or `null` (also: no `args` at all). */
export const TAG_ABSENT = "u";
/** A call's field that is neither a string nor absent. */
export const TAG_OTHER = "x";
export const TAG_DECLINE = "1";
export const TAG_NO_DECLINE = "0";

// Why a value is not JSON data (after `TAG_NOT_JSON`).
export const WHY_TOO_DEEP = "0";
export const WHY_NOT_FINITE = "1";
export const WHY_UNDEFINED = "2";
export const WHY_FUNCTION = "3";
export const WHY_SYMBOL = "4";
export const WHY_BIGINT = "5";
export const WHY_NOT_PLAIN = "6";
export const WHY_UNREADABLE = "7";
export const WHY_BAD_LENGTH = "8";
export const WHY_GETTER_THREW = "9";
export const WHY_DUPLICATE_KEY = "a";

// The provider shape of a tool call, which its answer comes back in.
export const SHAPE_OPENAI_CHAT = 0;
export const SHAPE_OPENAI_RESPONSES = 1;
export const SHAPE_ANTHROPIC = 2;
/** MCP `tools/call` params `{ name, arguments }`, answered with a `CallToolResult`. */
export const SHAPE_MCP = 3;
/** The Vercel AI SDK's `{ toolCallId, toolName, input }`, answered with what `addToolOutput` takes. */
export const SHAPE_AI_SDK = 4;
/**
 * AG-UI's tool call `{ id, type: "function", function: { name, arguments } }` (OpenAI Chat's
 * shape: named by the app, `handleToolCall(call, { format: "ag-ui" })`), answered with a `tool`
 * message.
 */
export const SHAPE_AG_UI = 5;

// What an element action does to its element.
export const OP_CLICK = 0;
export const OP_FILL = 1;
export const OP_SELECT = 2;

// How `ckRun` went (its report's `how`): `run` returned, threw, or gave a thenable to wait for.
export const RUN_RETURNED = 0;
export const RUN_THREW = 1;
export const RUN_LATER = 2;

// The first check an element failed, as `ckHand` answers it.
export const ELEMENT_MISSING = 0;
export const ELEMENT_DETACHED = 1;
export const ELEMENT_OWN_DOM = 2;
export const ELEMENT_INERT = 3;
export const ELEMENT_HIDDEN = 4;
export const ELEMENT_DISABLED = 5;
export const ELEMENT_NOT_HTML = 6;
export const ELEMENT_NOT_EDITABLE = 7;
export const ELEMENT_NOT_SELECT = 8;
export const ELEMENT_NO_OPTION = 9;

// Names that cross as their number: the index here is the Rust enum's `as u8`, or its index in
// the Rust list (`core::record`, `core::control`, `core::error`).
export const GATES = /** @type {const} */ (["fired", "needs_confirmation", "needs_hand_mode", "confirmed", "cancelled", "timeout", "rejected"]);
export const CONTROLS = /** @type {const} */ (["open", "soft", "hard"]);
export const CONTROL_SOURCES = /** @type {const} */ (["declared", "default", "destructive_name"]);
export const VIAS = /** @type {const} */ (["invoke", "tool_call", "webmcp"]);
export const STATUSES = /** @type {const} */ (["ok", "error", "not_run"]);
export const ASSURANCES = /** @type {const} */ (["none", "agent", "grant", "input", "passkey", "other-device"]);
/** Every error code, then the reasons a call is cancelled or timed out with. */
export const CODES = /** @type {const} */ (["unknown_action", "invalid_args", "args_too_large", "bad_token", "token_expired", "call_id_conflict", "too_many_pending", "element_unavailable", "invalid_spec", "duplicate_action", "not_admin", "run_failed", "needs_user_activation", "disposed", "hand_mode_off", "unknown_proposal", "proposal_not_visible", "model_context_unavailable", "model_context_refused", "passkey_unavailable", "passkey_required", "invalid_grant", "cancelled_by_user", "cancelled_by_app", "action_disposed", "declined", "expired"]);

/**
 * The longest `name`, `callId` or `confirmToken` of an `invoke` call that is read, in UTF-8
 * bytes; a longer one reads as `TAG_OTHER` before it is copied anywhere. Nothing longer can be
 * valid: a name has at most 64 bytes, a `callId` at most 256, a token far fewer.
 */
export const MAX_FIELD_BYTES = 256;

// The names above as types, for the JSDoc of the objects built from them.
/** @typedef {typeof GATES[number]} Gate */
/** @typedef {typeof CONTROLS[number]} Control */
/** @typedef {typeof CONTROL_SOURCES[number]} ControlSource */
/** @typedef {typeof VIAS[number]} Via */
/** @typedef {typeof STATUSES[number]} Status */
/** @typedef {typeof ASSURANCES[number]} Assurance */
/** @typedef {typeof CODES[number]} Code */
