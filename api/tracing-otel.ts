import { AsyncLocalStorage } from "node:async_hooks";
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Link,
  type Span,
  type SpanContext,
} from "@opentelemetry/api";
import {
  defaultResource,
  detectResources,
  envDetector,
  resourceFromAttributes,
} from "@opentelemetry/resources";
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  NodeTracerProvider,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type Sampler,
  type SpanExporter,
} from "@opentelemetry/sdk-trace-node";
import { ATTR_ERROR_TYPE, ATTR_SERVICE_NAME } from "@opentelemetry/semantic-conventions";
import {
  isAppError,
  type SpanAttributes,
  type SpanOptions,
  type TraceSpan,
  type Tracer,
  type TracingConfig,
} from "../core/index.ts";

/**
 * The tracer core/trace.ts installs when tracing is on: OpenTelemetry's Node SDK (its tracer
 * provider, a batch span processor, the OTLP/HTTP exporter). Loaded by api/tracing.ts only then:
 * nothing imports this module statically.
 *
 * It registers nothing globally (no global tracer provider, context manager or propagator): the
 * active span lives in an AsyncLocalStorage of its own, and `traceparent` is read and written here.
 * Nothing else in the process is instrumented, so nothing else would use them, and two servers in
 * one process (tests) each keep their own.
 */
export interface OtelTracer {
  tracer: Tracer;
  /** Exports what is buffered, then stops. */
  shutdown(): Promise<void>;
}

const KINDS = {
  internal: SpanKind.INTERNAL,
  server: SpanKind.SERVER,
  client: SpanKind.CLIENT,
  producer: SpanKind.PRODUCER,
  consumer: SpanKind.CONSUMER,
} as const;

/** W3C Trace Context §3.2: version 00, a trace id and a parent id (not all zeros), the flags. */
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

export async function createOtelTracer(config: TracingConfig): Promise<OtelTracer> {
  const provider = new NodeTracerProvider({
    resource: defaultResource()
      .merge(detectResources({ detectors: [envDetector] }))
      .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: config.serviceName })),
    sampler: samplerOf(config.sampler),
    spanProcessors: [new BatchSpanProcessor(await exporterOf(config))],
  });
  const otel = provider.getTracer("tessera");
  const active = new AsyncLocalStorage<OtelSpan>();

  const contextOf = (parent: SpanOptions["parent"]): Context => {
    if (parent === null) return ROOT_CONTEXT;
    if (parent === undefined) return active.getStore()?.context ?? ROOT_CONTEXT;
    if (typeof parent === "string") {
      const remote = spanContextOf(parent);
      return remote ? trace.setSpanContext(ROOT_CONTEXT, remote) : ROOT_CONTEXT;
    }
    return parent instanceof OtelSpan ? parent.context : ROOT_CONTEXT;
  };

  const tracer: Tracer = {
    queryMinMs: config.queryMinMs,
    start(name, options = {}) {
      const parent = contextOf(options.parent);
      const links: Link[] = [];
      for (const traceparent of options.links ?? []) {
        const context = spanContextOf(traceparent);
        if (context) links.push({ context });
      }
      const span = otel.startSpan(
        name,
        {
          kind: KINDS[options.kind ?? "internal"],
          attributes: defined(options.attributes),
          links,
          ...(options.startTime !== undefined ? { startTime: epochMs(options.startTime) } : {}),
        },
        parent,
      );
      return new OtelSpan(span, trace.setSpan(parent, span));
    },
    within(span, fn) {
      return span instanceof OtelSpan ? active.run(span, fn) : fn();
    },
    active: () => active.getStore(),
  };
  return {
    tracer,
    async shutdown() {
      try {
        await provider.shutdown();
      } finally {
        // On Node 20 a used AsyncLocalStorage keeps promise hooks on for the whole process, a cost on
        // every promise; disabled, Node removes them once no storage is left. A process that stops
        // tracing (a test file, in a worker the next files share) stops paying for it.
        active.disable();
      }
    },
  };
}

/** One span, with the context its children start from. */
class OtelSpan implements TraceSpan {
  constructor(
    readonly span: Span,
    readonly context: Context,
  ) {}

  get recording(): boolean {
    return this.span.isRecording();
  }

  get traceparent(): string {
    const { traceId, spanId, traceFlags } = this.span.spanContext();
    return `00-${traceId}-${spanId}-${(traceFlags & 0xff).toString(16).padStart(2, "0")}`;
  }

  set(attributes: SpanAttributes): void {
    this.span.setAttributes(defined(attributes));
  }

  rename(name: string): void {
    this.span.updateName(name);
  }

  fail(error: unknown): void {
    this.span.setStatus({ code: SpanStatusCode.ERROR });
    this.span.setAttribute(ATTR_ERROR_TYPE, errorType(error));
  }

  end(endTime?: number): void {
    this.span.end(endTime === undefined ? undefined : epochMs(endTime));
  }
}

/** An error as `error.type`: a code or a class, never a message (it may quote input). */
function errorType(error: unknown): string {
  if (typeof error === "string") return error;
  if (isAppError(error)) return error.code;
  if (error instanceof Error) return error.name;
  return "_OTHER";
}

function defined(attributes: SpanAttributes | undefined): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const key in attributes) {
    const value = attributes[key];
    if (value !== undefined) out[key] = value;
  }
  return out;
}

/** A `performance.now()` reading as milliseconds since the epoch (OpenTelemetry's `TimeInput`). */
function epochMs(reading: number): number {
  return performance.timeOrigin + reading;
}

/** The span context a well-formed `traceparent` names, or undefined (a malformed one starts a new trace). */
function spanContextOf(traceparent: string): SpanContext | undefined {
  const match = TRACEPARENT.exec(traceparent.trim().toLowerCase());
  if (!match || /^0+$/.test(match[1]!) || /^0+$/.test(match[2]!)) return undefined;
  return { traceId: match[1]!, spanId: match[2]!, traceFlags: parseInt(match[3]!, 16), isRemote: true };
}

/** OTEL_TRACES_SAMPLER's samplers (the SDK's names). */
function samplerOf(sampler: TracingConfig["sampler"]): Sampler {
  const root = sampler.name.endsWith("always_off")
    ? new AlwaysOffSampler()
    : sampler.name.endsWith("traceidratio")
      ? new TraceIdRatioBasedSampler(sampler.ratio)
      : new AlwaysOnSampler();
  return sampler.name.startsWith("parentbased_") ? new ParentBasedSampler({ root }) : root;
}

/**
 * OTLP/HTTP in the configured encoding; headers, timeout and compression come from the
 * exporter's own OTEL_EXPORTER_OTLP_* variables.
 */
async function exporterOf(config: TracingConfig): Promise<SpanExporter> {
  if (config.protocol === "http/json") {
    const { OTLPTraceExporter } = await import("@opentelemetry/exporter-trace-otlp-http");
    return new OTLPTraceExporter({ url: config.url });
  }
  const { OTLPTraceExporter } = await import("@opentelemetry/exporter-trace-otlp-proto");
  return new OTLPTraceExporter({ url: config.url });
}
