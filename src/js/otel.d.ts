// coworkkit/otel (SPEC §14): action records as OpenTelemetry spans through the app's own tracer.
// It imports nothing at run time; `@opentelemetry/api` is an optional peer dependency whose
// `Tracer` (`trace.getTracer(name)`) fits `SpanTracer` below.

/** The attributes of a record's span: strings only (JSON text for args and values). */
export type SpanAttributes = { [key: string]: string };

/**
 * What `recordSpans` needs of a span: `setStatus` and `end`. An `@opentelemetry/api` `Span`
 * fits it.
 */
export interface RecordSpan {
  /** Called with `{ code: 2 }` (`SpanStatusCode.ERROR`) for a record whose outcome is not ok. */
  setStatus(status: { code: 2 }): unknown;
  /** Called once, with the record's `settledAt` (epoch ms). */
  end(endTime: number): void;
}

/**
 * What `recordSpans` needs of a tracer: `startSpan(name, { startTime, attributes })`. An
 * `@opentelemetry/api` `Tracer` fits it.
 */
export interface SpanTracer {
  startSpan(name: string, options: { startTime: number; attributes: SpanAttributes }): RecordSpan;
}

/** Options of `recordSpans`. */
export interface RecordSpansOptions {
  /** The app's tracer: `trace.getTracer("my-app")` of `@opentelemetry/api`. */
  tracer: SpanTracer;
  /** Also `gen_ai.tool.call.arguments`: the record's args as JSON. Default false. */
  args?: boolean;
  /** Also `gen_ai.tool.call.result`: the record's outcome value as JSON, when it ran and kept one. Default false. */
  values?: boolean;
}

/**
 * The fields of an `ActionRecord` (SPEC §6) that a span is made of; every `ActionRecord` is
 * one.
 */
export interface SpanRecord {
  callId: string;
  action: string;
  control: string;
  gate: string;
  assurance: string;
  via: string;
  outcome:
    | { status: "ok"; value?: unknown }
    | { status: "error"; code: string; message: string }
    | { status: "not_run" };
  args: unknown;
  approver?: { id: string };
  reason?: string;
  verification?: { method: string };
  grant?: string;
  startedAt: number;
  settledAt: number;
}

/**
 * A record listener for `ck.on("record", …)` or `onActionRecord` that writes each record as
 * one span, `execute_tool {action}`, from `startedAt` to `settledAt`, with the GenAI semantic
 * conventions' attributes (`gen_ai.operation.name` = `execute_tool`, `gen_ai.tool.name`,
 * `gen_ai.tool.call.id`, `gen_ai.tool.type` = `function`) and coworkkit's own
 * (`coworkkit.control`, `.gate`, `.assurance`, `.via`, `.approver.id`, `.grant`,
 * `.verification.method`, each when the record has it). A record whose outcome is not ok gets
 * status `ERROR` and `error.type`: the outcome's `code` when `run` failed, else the record's
 * `reason`, else its gate. Args and values only when asked.
 *
 * Throws an `Error` with code `invalid_options` when `tracer` has no `startSpan`, or `args` or
 * `values` is not a boolean.
 */
export declare function recordSpans(options: RecordSpansOptions): (record: SpanRecord) => void;

/** `error.type` of a record whose outcome is not ok: the outcome's `code`, else `reason`, else the gate. */
export declare function errorType(record: SpanRecord): string;

/** The attributes `recordSpans` gives a record's span (`args`, `values` as its options). */
export declare function spanAttributes(record: SpanRecord, args: boolean, values: boolean): SpanAttributes;
