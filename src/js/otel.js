// @ts-check
/**
 * @file `coworkkit/otel` (SPEC §14): action records as OpenTelemetry spans, through the app's
 * own tracer. `ck.on("record", recordSpans({ tracer }))`, or `onActionRecord: recordSpans(…)`.
 *
 * One span per record, named `execute_tool {action}` as the GenAI semantic conventions name a
 * tool's execution, from the record's `startedAt` to its `settledAt` (epoch ms, which the API
 * takes as a `TimeInput`). Its kind is left to the tracer's default, `INTERNAL`, which is what
 * the conventions ask of `execute_tool`. Attributes, each only when the record has it:
 *
 *   gen_ai.operation.name        "execute_tool"
 *   gen_ai.tool.name             record.action
 *   gen_ai.tool.call.id          record.callId
 *   gen_ai.tool.type             "function" (the conventions' word for a tool the client runs)
 *   coworkkit.control            record.control
 *   coworkkit.gate               record.gate
 *   coworkkit.assurance          record.assurance
 *   coworkkit.via                record.via
 *   coworkkit.approver.id        record.approver.id
 *   coworkkit.grant              record.grant
 *   coworkkit.verification.method  record.verification.method
 *   error.type                   see below
 *   gen_ai.tool.call.arguments   JSON of record.args, only with `args: true`
 *   gen_ai.tool.call.result      JSON of record.outcome.value, only with `values: true` and an
 *                                outcome `ok` that kept its value
 *
 * Every record whose outcome is not `ok` (`error`: run failed; `not_run`: rejected, cancelled,
 * timed out, needs Hand mode) gets status `ERROR` and `error.type` = the code that says why:
 * `outcome.code` for an `error` outcome (`run_failed`, `element_unavailable`, …), else the
 * record's `reason` (`invalid_args`, `cancelled_by_user`, `expired`, `hand_mode_off`, …), else
 * its gate. The status carries no description: a record's messages and a person's note can
 * hold what the app never meant to export.
 *
 * It imports nothing, `@opentelemetry/api` included: the tracer is the app's, the status code
 * `ERROR` is the API's stable `2` (`SpanStatusCode.ERROR`, also OTLP's), and the span kind is
 * the default. So the module loads in any bundle without resolving the API package, and never
 * brings a second copy of it beside the app's. Its types are otel.d.ts.
 */

/** `SpanStatusCode.ERROR` of `@opentelemetry/api` (and `STATUS_CODE_ERROR` of OTLP). */
const STATUS_ERROR = 2;

/** @typedef {import("./otel.js").RecordSpansOptions} RecordSpansOptions */
/** @typedef {import("./otel.js").SpanRecord} SpanRecord */
/** @typedef {import("./otel.js").SpanAttributes} SpanAttributes */

/**
 * An `Error` with a stable `code`, its message prefixed `coworkkit:` as every error the
 * package throws.
 * @param {string} message
 * @returns {Error & { code: string }}
 */
function invalidOptions(message) {
  const error = /** @type {Error & { code: string }} */ (new Error(`coworkkit: recordSpans: ${message}`));
  error.code = "invalid_options";
  return error;
}

/**
 * What a value is, for an error message.
 * @param {unknown} value
 */
function describe(value) {
  if (value === null) return "null";
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? value.slice(0, 40) + "…" : value);
  if (typeof value === "object") return Array.isArray(value) ? "an array" : "an object";
  return typeof value === "undefined" ? "undefined" : `${typeof value} ${String(value)}`;
}

/**
 * JSON text of `value`, or `undefined` when it has none (a value `run` returned that JSON
 * cannot write: a BigInt, a cycle, `undefined`).
 * @param {unknown} value
 * @returns {string | undefined}
 */
function json(value) {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

/**
 * The code that says why a call that is not ok was not: `outcome.code`, else `reason`, else
 * the gate.
 * @param {SpanRecord} record
 * @returns {string}
 */
export function errorType(record) {
  const outcome = record.outcome;
  if (outcome.status === "error" && typeof outcome.code === "string") return outcome.code;
  return record.reason ?? record.gate;
}

/**
 * The attributes of a record's span (see the file's comment).
 * @param {SpanRecord} record
 * @param {boolean} args
 * @param {boolean} values
 * @returns {SpanAttributes}
 */
export function spanAttributes(record, args, values) {
  /** @type {SpanAttributes} */
  const out = {
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": record.action,
    "gen_ai.tool.call.id": record.callId,
    "gen_ai.tool.type": "function",
    "coworkkit.control": record.control,
    "coworkkit.gate": record.gate,
    "coworkkit.assurance": record.assurance,
    "coworkkit.via": record.via,
  };
  if (record.approver) out["coworkkit.approver.id"] = record.approver.id;
  if (record.grant !== undefined) out["coworkkit.grant"] = record.grant;
  if (record.verification) out["coworkkit.verification.method"] = record.verification.method;
  const outcome = record.outcome;
  if (outcome.status !== "ok") out["error.type"] = errorType(record);
  if (args) {
    const text = json(record.args);
    if (text !== undefined) out["gen_ai.tool.call.arguments"] = text;
  }
  if (values && outcome.status === "ok" && "value" in outcome) {
    const text = json(outcome.value);
    if (text !== undefined) out["gen_ai.tool.call.result"] = text;
  }
  return out;
}

/**
 * A record listener that writes each record as one span through `options.tracer`.
 * @type {typeof import("./otel.js").recordSpans}
 */
export function recordSpans(options) {
  if (typeof options !== "object" || options === null) {
    throw invalidOptions(`expected { tracer } (an OpenTelemetry Tracer: trace.getTracer("my-app")), got ${describe(options)}`);
  }
  const { tracer, args = false, values = false } = options;
  if (typeof tracer !== "object" || tracer === null || typeof tracer.startSpan !== "function") {
    throw invalidOptions(`tracer must be an OpenTelemetry Tracer (trace.getTracer("my-app") of @opentelemetry/api), got ${describe(tracer)}`);
  }
  if (typeof args !== "boolean") throw invalidOptions(`args must be true or false, got ${describe(args)}`);
  if (typeof values !== "boolean") throw invalidOptions(`values must be true or false, got ${describe(values)}`);
  return (record) => {
    const span = tracer.startSpan(`execute_tool ${record.action}`, {
      startTime: record.startedAt,
      attributes: spanAttributes(record, args, values),
    });
    if (record.outcome.status !== "ok") span.setStatus({ code: STATUS_ERROR });
    span.end(record.settledAt);
  };
}
