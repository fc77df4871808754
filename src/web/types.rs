//! The public TypeScript types of the package, emitted into `coworkkit.d.ts` (STYLE habit 6).
//! The wasm-bindgen signatures name these through `unchecked_param_type` /
//! `unchecked_return_type`, so the `.d.ts` has no `any` in a public type.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = r#"
/** How firmly a call is gated before it fires (SPEC §1). */
export type Control = "open" | "soft" | "hard";
/** How a call settled, or `needs_confirmation` for a soft call's first answer. */
export type Gate =
  | "fired" | "needs_confirmation" | "needs_hand_mode" | "confirmed"
  | "cancelled" | "timeout" | "rejected";
/** Why the effective control is what it is. */
export type ControlSource = "declared" | "default" | "destructive_name";
/**
 * Every stable code: `Outcome.error.code`, a record's `reason`, and the `code` of a thrown
 * `Error`. Rejections carry the error's code; cancellations and timeouts carry their reason
 * (`cancelled_by_user`, `cancelled_by_app`, `action_disposed`, `disposed`, `declined`,
 * `expired`).
 */
export type ErrorCode =
  | "unknown_action" | "invalid_args" | "args_too_large" | "bad_token" | "token_expired"
  | "call_id_conflict" | "too_many_pending" | "element_unavailable" | "invalid_spec"
  | "duplicate_action" | "not_admin" | "run_failed" | "needs_user_activation" | "disposed"
  | "hand_mode_off" | "unknown_proposal" | "proposal_not_visible"
  | "model_context_unavailable" | "model_context_refused" | "passkey_unavailable"
  | "passkey_required" | "invalid_grant"
  | "cancelled_by_user" | "cancelled_by_app" | "action_disposed" | "declined" | "expired";
/** The door a call came through, on its record. */
export type Via = "invoke" | "tool_call" | "webmcp";
/**
 * What stands behind the decision that let a call run, on its record (SPEC §6). Records alone
 * cannot tell an agent's word from a person's click; this says which the SDK had:
 * - `"none"`: nothing decided it: an open call, or one that never ran (rejected, cancelled,
 *   declined, timed out, needs Hand mode).
 * - `"agent"`: a soft call confirmed with its token. The agent holds its own token: this is
 *   the agent's word that the person agreed, and an agent that lies gets it too.
 * - `"grant"`: a soft call fired by a grant a person made during their own gesture.
 * - `"input"`: a hard card confirmed by trusted input: a person, or an agent that drives the
 *   browser's input (to the page they are the same).
 * - `"passkey"`: a user-verified passkey assertion over this call's statement, on this device.
 *   It proves a verified person answered a prompt over it, not which card they read.
 * - `"other-device"`: the same, made on another device that drew the call from its statement
 *   (SPEC §4.3; not built yet, so no record carries it today).
 *
 * A call that ran and failed keeps the assurance of what let it run.
 */
export type Assurance = "none" | "agent" | "grant" | "input" | "passkey" | "other-device";
/** Plain JSON data: what arguments must be. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A subset of JSON Schema (SPEC §2). */
export interface JsonSchema {
  type?: "object" | "string" | "number" | "integer" | "boolean" | "array" | "null"
    | Array<"object" | "string" | "number" | "integer" | "boolean" | "array" | "null">;
  description?: string;
  properties?: { [key: string]: JsonSchema };
  required?: string[];
  items?: JsonSchema;
  enum?: Json[];
  const?: Json;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  additionalProperties?: boolean | JsonSchema;
}

/** Who is at the keyboard when a hard card is confirmed. */
export interface Approver { id: string; role?: string; }

/** What `run` receives beside the frozen arguments. */
export interface ActionContext {
  callId: string;
  control: Control;
  /** Who confirmed the hard card; `null` for open and soft calls or without an `approver` option. */
  approver: Approver | null;
  /** Aborts when the instance is disposed or the page is left. */
  signal: AbortSignal;
  /**
   * Only for `verify: "passkey"` actions (SPEC §4.1): the statement of this call and the
   * passkey assertion over it, for the app's server to check before it acts.
   */
  receipt?: Receipt;
}

/**
 * A passkey assertion in the shape of `PublicKeyCredential.toJSON()`: base64url strings, which
 * a server's WebAuthn library (e.g. `@simplewebauthn/server`'s `verifyAuthenticationResponse`)
 * takes as it is.
 */
export interface PasskeyCredentialJSON {
  id: string;
  rawId: string;
  type: "public-key";
  response: {
    clientDataJSON: string;
    authenticatorData: string;
    signature: string;
    userHandle?: string;
  };
  authenticatorAttachment?: string;
  clientExtensionResults: { [extension: string]: unknown };
}

/**
 * What a `verify: "passkey"` call carries to `run` (`ctx.receipt`) and the record: the
 * statement (canonical JSON, keys sorted: `action`, `args`, `callId`, `expiresAt`, `issuedAt`,
 * `nonce`, `origin`, `rpId`, `sessionId`, `v`) and the passkey's assertion over it, whose
 * challenge is the SHA-256 of the statement's UTF-8 bytes. The server checks both (SPEC §4.1).
 */
export interface Receipt {
  readonly statement: string;
  readonly credential: Readonly<PasskeyCredentialJSON>;
}

/** A record's `verification`: the passkey that confirmed the call. */
export interface Verification {
  method: "passkey";
  /** The credential's id, base64url. */
  credentialId: string;
  receipt: Receipt;
}

/** The `passkey` option: what `verify: "passkey"` actions need (SPEC §4.1). */
export interface PasskeyOptions {
  /** The WebAuthn relying party id. Default `location.hostname`. */
  rpId?: string;
  /**
   * The base64url ids of the passkeys that may confirm for this approver (the `approver`
   * option's answer, `null` without one). No ids: the call is `rejected` with
   * `passkey_unavailable`. Called when a call arrives and again when the person confirms.
   */
  credentials: (approver: Approver | null) => readonly string[] | Promise<readonly string[]>;
  /** The browser prompt's timeout. Default 60000. */
  timeoutMs?: number;
}

/** What an element action does to its element (SPEC §5). */
export type ElementOperation = "click" | "fill" | "select";

/** What every action spec has, whether it runs a function or operates on an element. */
export interface ActionSpecBase<A = { [key: string]: Json }> {
  /** 1–64 chars, `^[A-Za-z][A-Za-z0-9_-]*$`. */
  name: string;
  /** What the agent reads; also the card's fallback text. */
  description: string;
  /** Declared control; wins over everything. Default: `defaultControl`, or `soft` for names that read destructive. */
  control?: Control;
  /** The arguments' schema: the JSON Schema subset, or any Standard Schema v1 (zod, valibot, …). */
  input?: JsonSchema | StandardSchemaV1;
  /** The JSON Schema that tool manifests show, for a Standard Schema `input` without a JSON Schema export. */
  inputJsonSchema?: { [keyword: string]: unknown };
  /** Hard only: the card's text for these arguments; never leaves the page. */
  confirmationSummary?: (args: Readonly<A>) => string;
  /** Roles that may confirm this action's card. */
  approvers?: string[];
  /** Default true; false omits `result` from the agent's outcome. */
  shareResult?: boolean;
  /** Default true; false omits `value` from the record's outcome. */
  recordResult?: boolean;
  /** Hint for manifests (MCP `readOnlyHint`); never changes the gate. */
  readOnly?: boolean;
  /** Hint for manifests (MCP `idempotentHint`); never changes the gate. */
  idempotent?: boolean;
  /** Hint for WebMCP (`untrustedContentHint`): results carry text other people wrote. Never changes the gate. */
  untrustedContent?: boolean;
  /**
   * Hard only: after the trusted click on Confirm, the person's passkey (user verification
   * required) must sign a statement of exactly this call; `run` gets it as `ctx.receipt`
   * (SPEC §4.1). Needs the `passkey` option.
   */
  verify?: "passkey";
}

/** An action that calls the app's own `run`. */
export interface RunActionSpec<A = { [key: string]: Json }, R = unknown> extends ActionSpecBase<A> {
  run: (args: Readonly<A>, ctx: ActionContext) => R | Promise<R>;
  element?: never;
  operation?: never;
}

/**
 * An element action (SPEC §5): clicks, fills or selects in the page, only while Hand mode is
 * armed. `element` is resolved at call time (a selector through `document.querySelector`).
 * `fill` and `select` take the text from `args.value`; without `input` they get the schema
 * `{ type: "object", properties: { value: { type: "string" } }, required: ["value"] }`.
 */
export interface ElementActionSpec<A = { value?: string }> extends ActionSpecBase<A> {
  element: Element | string;
  operation: ElementOperation;
  run?: never;
}

/** An action the agent may call (SPEC §2): a `run` function, or an element + operation. */
export type ActionSpec<A = { [key: string]: Json }, R = unknown> =
  | RunActionSpec<A, R>
  | ElementActionSpec<A>;

/** Returned by `mountHandModeSwitch`. */
export interface MountHandle {
  /** Removes what was mounted. Idempotent. */
  dispose(): void;
}

/** Returned by `mountWatchPanel`. */
export interface WatchPanelHandle extends MountHandle {
  /**
   * What "Copy JSON Lines" copies: the kept rows (the last 500) that pass the panel's filter,
   * oldest first, one `JSON.stringify(record)` per line, each line ending in `\n`.
   */
  jsonLines(): string;
}

/** Returned by `defineAction`. */
export interface ActionHandle {
  readonly name: string;
  /** Unregisters the action and cancels its waiting calls. Idempotent. */
  dispose(): void;
}

/** What the agent sends to `invoke`. */
export interface InvokeCall {
  name: string;
  args?: { [key: string]: Json };
  callId?: string;
  confirmToken?: string;
  decline?: boolean;
  /**
   * With `decline: true` and the token: why the user said no, in their words (at most 200
   * characters are kept). Anywhere else the call is rejected (`invalid_args`).
   */
  reason?: string;
}

/** What `invoke` resolves to (SPEC §3). */
export interface Outcome {
  callId: string;
  gate: Gate;
  /** True only when `run` ran and did not throw. */
  ok: boolean;
  result?: unknown;
  error?: { code: ErrorCode; message: string };
  /** Soft, first call: pass it back with the same args on the user's yes. */
  confirmToken?: string;
  /** Epoch ms at which the token or card expires. */
  expiresAt?: number;
  /** On every outcome that is not `ok` (but `needs_confirmation`): what the model should do next. */
  instruction?: string;
}

/** A hard proposal waiting for a person (`pending()`, the `proposal` event). */
export interface Proposal {
  id: string;
  callId: string;
  action: string;
  control: Control;
  args: Readonly<{ [key: string]: Json }>;
  expiresAt: number;
}

/** One per settled call (SPEC §6). */
export interface ActionRecord {
  v: 1;
  id: string;
  sessionId: string;
  callId: string;
  action: string;
  control: Control;
  controlSource: ControlSource;
  gate: Exclude<Gate, "needs_confirmation">;
  outcome:
    | { status: "ok"; value?: unknown }
    | { status: "error"; code: ErrorCode; message: string }
    | { status: "not_run" };
  args: Readonly<Json>;
  approver?: Approver;
  /** Why it was rejected, cancelled or timed out. */
  reason?: ErrorCode;
  /** The door it came through; for a soft call, the door of its first call. */
  via: Via;
  /** The passkey that confirmed a `verify: "passkey"` call that ran. */
  verification?: Verification;
  /** What stands behind the decision that let it run: see {@link Assurance}. */
  assurance: Assurance;
  /** The person's own words when they said no with a reason (SPEC §12). */
  note?: string;
  /** The id of the remembered grant that let a soft call fire without asking (SPEC §12). */
  grant?: string;
  startedAt: number;
  settledAt: number;
}

/** A remembered "yes, for a while" to a soft action (SPEC §12): `ck.grant`, `ck.grants()`. */
export interface Grant {
  readonly id: string;
  readonly action: string;
  readonly createdAt: number;
  /** Epoch ms at which it ends. */
  readonly expiresAt: number;
  /** How many calls it may let through in all; absent: any number until it expires. */
  readonly maxUses?: number;
  /** How many calls it let through so far. */
  readonly uses: number;
  /** The arguments a call must have, key by key; absent: any arguments. */
  readonly match?: Readonly<{ [key: string]: Json }>;
}

/** Options of `ck.grant(action, options)`. */
export interface GrantOptions {
  /** How long it lives, in ms: above 0, at most 86400000 (24 h). Default 1800000 (30 min). */
  ttlMs?: number;
  /** How many calls it may let through, at least 1. Default: no limit. */
  maxUses?: number;
  /** Only calls whose arguments have each of these keys with an equal JSON value. */
  match?: { [key: string]: Json };
}

/** Options of `ck.cancel(id, options)`. */
export interface CancelOptions {
  /** The person's words for the assistant (SPEC §12): the outcome quotes them, the record keeps them as `note`. */
  reason?: string;
}

/** Options of `ck.cancelAll(options)`. */
export interface CancelAllOptions extends CancelOptions {
  /** Only this action's cards. */
  action?: string;
}

/** The payload of the `resolved` event. */
export interface Resolution { id: string; callId: string; action: string; outcome: Outcome; }

export type CoworkkitEvent = "proposal" | "resolved" | "record" | "handmode" | "grants";
/** The payload of each event. */
export interface CoworkkitEventMap {
  proposal: Proposal;
  resolved: Resolution;
  record: ActionRecord;
  handmode: boolean;
  /** The live grants, after any change (made, used, revoked, expired, ended by `dispose`). */
  grants: readonly Grant[];
}
export interface Coworkkit {
  on(event: "proposal", listener: (proposal: Proposal) => void): () => void;
  on(event: "resolved", listener: (resolution: Resolution) => void): () => void;
  on(event: "record", listener: (record: ActionRecord) => void): () => void;
  on(event: "handmode", listener: (armed: boolean) => void): () => void;
  on(event: "grants", listener: (grants: readonly Grant[]) => void): () => void;
}

/**
 * What `exposeToModelContext` needs of a model context: WebMCP's `registerTool` (Chromium's
 * `document.modelContext`, or a polyfill's `navigator.modelContext`). Registering resolves,
 * or rejects (or throws) when the browser refuses the tool; aborting `signal` removes it.
 */
export interface ModelContextLike {
  registerTool(tool: ModelContextTool, options: { signal: AbortSignal; exposedTo?: string[] }): unknown;
}

/** One action as the browser's own agent sees it (SPEC §7.2). */
export interface ModelContextTool {
  name: string;
  /** The card's readable title. */
  title: string;
  /** Exactly `tools("mcp")`'s description. */
  description: string;
  /** Exactly `tools("mcp")`'s schema: a soft action's takes `confirmToken` and `decline`. */
  inputSchema: ToolInputSchema;
  annotations: {
    /** True for open actions marked `readOnly`. */
    readOnlyHint: boolean;
    /** True for soft and hard actions. */
    consequentialHint: boolean;
    /** True for actions marked `untrustedContent`. */
    untrustedContentHint: boolean;
  };
  /**
   * A fresh call through the tool-call door; resolves with the compact outcome (a hard tool
   * once a person decided on the card). Never rejects.
   */
  execute(input?: { [key: string]: Json } | null): Promise<ToolResultContent>;
}

/** Options of `exposeToModelContext`; all optional. */
export interface ExposeOptions {
  /** Default: `document.modelContext`, else `navigator.modelContext`. */
  modelContext?: ModelContextLike;
  /** Only these actions (default: every action, those defined later included). */
  actions?: string[];
  /** Handed to `registerTool` as it is. */
  exposedTo?: string[];
}

/** Returned by `exposeToModelContext`. */
export interface ModelContextExposure {
  /** Resolves once every registration made by the call was accepted; rejects with code `model_context_refused` naming the first refused action. */
  readonly ready: Promise<void>;
  /** Removes every tool this exposure registered. Idempotent. */
  dispose(): void;
}

/** Options of `new Coworkkit(options)`; all optional. */
export interface CoworkkitOptions {
  /** Whole-app baseline. Default `"open"`. */
  defaultControl?: Control;
  onActionRecord?: (record: ActionRecord) => void;
  /** Hard card and soft token lifetime. Default 120000. */
  confirmTimeoutMs?: number;
  /**
   * Confirm counts no input until this long after the first frame painted with the card's
   * current content (the tab visible, the window focused); every change of the card and every
   * ignored input starts it again (SPEC §4.2). Default 500.
   */
  armDelayMs?: number;
  /** Who is at the keyboard. */
  approver?: () => Approver | null | undefined;
  /** Hard proposals waiting at once. Default 16. */
  maxPending?: number;
  /** Serialized args above this many UTF-8 bytes are rejected. Default 65536. */
  maxArgsBytes?: number;
  /** Where the SDK's own DOM goes. Default `document.body`. */
  container?: Element;
  /** What `verify: "passkey"` actions need (SPEC §4.1). */
  passkey?: PasskeyOptions;
  /**
   * The card's words: its buttons, the reason field's label (default "Tell the assistant why
   * (optional)") and the button that cancels every waiting card (default "Cancel all"; the
   * count follows it: "Cancel all 3"); `confirmPasskey` is Confirm's on a `verify: "passkey"`
   * card (default "Confirm with passkey").
   */
  labels?: { confirm?: string; cancel?: string; reason?: string; cancelAll?: string; confirmPasskey?: string };
}
"#;

#[wasm_bindgen(typescript_custom_section)]
const TS_INTEROP: &'static str = r#"
/** A manifest format for `tools(format)`. */
export type ToolFormat = "json" | "openai" | "openai-responses" | "anthropic" | "mcp" | "ag-ui";
/** A tool's argument schema in a manifest: always an object schema at the root. */
export interface ToolInputSchema { type: "object"; properties?: { [key: string]: { [keyword: string]: unknown } }; required?: string[]; additionalProperties?: boolean | { [keyword: string]: unknown }; [keyword: string]: unknown; }
/** `tools("json")`: coworkkit's neutral listing, description and schema as declared. */
export interface JsonTool { name: string; description: string; control: Control; inputSchema: ToolInputSchema; readOnly: boolean; idempotent: boolean; }
/** `tools("openai")`: an OpenAI Chat Completions function tool. */
export interface OpenAITool { type: "function"; function: { name: string; description: string; parameters: ToolInputSchema }; }
/** `tools("openai-responses")`: an OpenAI Responses function tool (non-strict). */
export interface OpenAIResponsesTool { type: "function"; name: string; description: string; parameters: ToolInputSchema; strict: false; }
/** `tools("anthropic")`: an Anthropic Messages tool. */
export interface AnthropicTool { name: string; description: string; input_schema: ToolInputSchema; }
/** MCP tool annotations (hints; MCP's defaults: readOnlyHint false, destructiveHint true). */
export interface McpToolAnnotations { title?: string; readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean; }
/** `tools("mcp")`: an MCP `tools/list` entry. */
export interface McpTool { name: string; description: string; inputSchema: ToolInputSchema; annotations: McpToolAnnotations; }
/** `tools("ag-ui")`: an AG-UI `Tool`, what a run's `tools` carries (`RunAgentInput.tools`). */
export interface AgUiTool { name: string; description: string; parameters: ToolInputSchema; }
/** The entry type of each manifest format. */
export interface ToolManifestMap { json: JsonTool; openai: OpenAITool; "openai-responses": OpenAIResponsesTool; anthropic: AnthropicTool; mcp: McpTool; "ag-ui": AgUiTool; }
/** Any manifest. */
export type ToolManifest = JsonTool[] | OpenAITool[] | OpenAIResponsesTool[] | AnthropicTool[] | McpTool[] | AgUiTool[];

/** An OpenAI Chat Completions tool call (`message.tool_calls[i]`). */
export interface OpenAIToolCall { id: string; type: "function"; function: { name: string; arguments: string | { [key: string]: Json } }; }
/** An OpenAI Responses function call (an `output` item). */
export interface OpenAIResponsesToolCall { type: "function_call"; call_id: string; name: string; arguments: string | { [key: string]: Json }; id?: string; status?: string; }
/** An Anthropic `tool_use` content block. */
export interface AnthropicToolUse { type: "tool_use"; id: string; name: string; input: unknown; }
/** MCP `tools/call` params: what an MCP server's handler gets as `request.params`. */
export interface McpToolCall { name: string; arguments?: { [key: string]: unknown } | string | undefined; _meta?: { [key: string]: unknown } | undefined; }
/**
 * A Vercel AI SDK tool call: `useChat`'s `onToolCall({ toolCall })` (at run time the stream's
 * `tool-input-available` chunk), or an item of `generateText`'s `toolCalls`.
 */
export interface AiSdkToolCall { type?: "tool-input-available" | "tool-call" | undefined; toolCallId: string; toolName: string; input: unknown; dynamic?: boolean | undefined; providerExecuted?: boolean | undefined; }
/**
 * An AG-UI tool call (`AssistantMessage.toolCalls[i]`, as `@ag-ui/client` assembles it from
 * `TOOL_CALL_START`, `TOOL_CALL_ARGS` and `TOOL_CALL_END`): OpenAI Chat's shape, so
 * `handleToolCall` is told, `{ format: "ag-ui" }`.
 */
export interface AgUiToolCall { id: string; type: "function"; function: { name: string; arguments: string }; }
/** `handleToolCall`'s options. */
export interface HandleToolCallOptions {
  /** `"ag-ui"`: the call is AG-UI's; the answer is a `tool` message. Absent: the call's shape decides. */
  format?: "ag-ui";
}
/** What `handleToolCall` accepts. */
export type ToolCall = OpenAIToolCall | OpenAIResponsesToolCall | AnthropicToolUse | AiSdkToolCall | McpToolCall;
/** The OpenAI Chat Completions message answering a tool call. */
export interface OpenAIToolMessage { role: "tool"; tool_call_id: string; content: string; }
/** The OpenAI Responses input item answering a function call. */
export interface OpenAIResponsesToolOutput { type: "function_call_output"; call_id: string; output: string; }
/** The Anthropic content block answering a `tool_use`. */
export interface AnthropicToolResult { type: "tool_result"; tool_use_id: string; content: string; is_error: boolean; }
/**
 * The MCP `CallToolResult` answering `tools/call`: the outcome as text and as structured content.
 * A type, not an interface, as the MCP SDK's result type takes only objects with an index signature.
 */
export type McpToolResult = { content: [{ type: "text"; text: string }]; structuredContent: ToolResultContent; isError: boolean; };
/** What `useChat`'s `addToolOutput` takes for an AI SDK tool call: `tool` is the name called, `output` the outcome. */
export interface AiSdkToolOutput { tool: string; toolCallId: string; output: ToolResultContent; }
/**
 * The AG-UI `tool` message answering a tool call, for the next run's `messages`
 * (`agent.addMessage(message)`); `id` is a fresh UUID.
 */
export interface AgUiToolMessage { id: string; role: "tool"; toolCallId: string; content: string; }
/** What `handleToolCall` resolves to: the shape of the call it got. */
export type ToolResult = OpenAIToolMessage | OpenAIResponsesToolOutput | AnthropicToolResult | AiSdkToolOutput | McpToolResult;
/** The JSON inside a tool result's `content` / `output`; MCP's `structuredContent` (hence a type: an interface has no implicit index signature). */
export type ToolResultContent = { gate: Gate; ok: boolean; result?: unknown; error?: { code: ErrorCode; message: string }; confirmToken?: string; instruction?: string; };

/** A Standard Schema v1 issue. */
export interface StandardSchemaIssue { readonly message: string; readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }>; }
/** A Standard Schema v1 validation result. */
export type StandardSchemaResult = { readonly value: unknown; readonly issues?: undefined } | { readonly issues: ReadonlyArray<StandardSchemaIssue> };
/** A Standard Schema v1 object (zod, valibot, arktype, …); `jsonSchema` is the Standard JSON Schema export when the library has one. */
export interface StandardSchemaV1 {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: string;
    validate(value: unknown): StandardSchemaResult | Promise<StandardSchemaResult>;
    readonly jsonSchema?: { input(options: { target: "draft-2020-12" }): { [keyword: string]: unknown } };
  };
}

export interface Coworkkit {
  /**
   * The manifest of every registered action for an LLM, in `format` (SPEC §7). Fresh plain
   * objects each time; an unknown format throws `invalid_spec`.
   */
  tools<F extends ToolFormat>(format: F): Array<ToolManifestMap[F]>;
  /**
   * Runs a provider tool call through `invoke` and answers in the matching tool-result shape,
   * the outcome as compact JSON content. The provider's call id is the `callId`, so a re-sent
   * call never runs twice. Never rejects: a malformed call is a `rejected` outcome in the
   * closest shape.
   */
  handleToolCall(call: OpenAIToolCall): Promise<OpenAIToolMessage>;
  handleToolCall(call: OpenAIResponsesToolCall): Promise<OpenAIResponsesToolOutput>;
  handleToolCall(call: AnthropicToolUse): Promise<AnthropicToolResult>;
  handleToolCall(call: AiSdkToolCall): Promise<AiSdkToolOutput>;
  handleToolCall(call: McpToolCall): Promise<McpToolResult>;
  /**
   * An AG-UI tool call, answered with a `tool` message for the next run. Its shape is OpenAI
   * Chat's, so the format is named; a call of another shape is `rejected`, still answered as
   * a `tool` message. Options other than these throw `invalid_spec`.
   */
  handleToolCall(call: AgUiToolCall, options: { format: "ag-ui" }): Promise<AgUiToolMessage>;
  /** A call of any known shape, its shape known only when it runs. */
  handleToolCall(call: ToolCall): Promise<ToolResult>;
  handleToolCall(call: ToolCall | AgUiToolCall, options?: HandleToolCallOptions): Promise<ToolResult | AgUiToolMessage>;
}
"#;
