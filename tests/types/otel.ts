// coworkkit/otel against @opentelemetry/api's own types: the app's Tracer is what recordSpans
// takes, and what it returns is a record listener for ck.on("record") and onActionRecord. No cast.
import { trace, type Tracer } from "@opentelemetry/api";
import { recordSpans, type RecordSpansOptions } from "coworkkit/otel";
import { Coworkkit, type ActionRecord } from "coworkkit";

declare const ck: Coworkkit;
declare const tracer: Tracer;

export const off: () => void = ck.on("record", recordSpans({ tracer: trace.getTracer("my-app") }));
export const listener: (record: ActionRecord) => void = recordSpans({ tracer, args: true, values: false });
export const make = () => new Coworkkit({ onActionRecord: recordSpans({ tracer }) });
export const options: RecordSpansOptions = { tracer };

// @ts-expect-error a tracer is needed
export const none = recordSpans({});
// @ts-expect-error a TracerProvider is not a Tracer
export const provider = recordSpans({ tracer: trace.getTracerProvider() });
// @ts-expect-error args is a boolean
export const text = recordSpans({ tracer, args: "yes" });
