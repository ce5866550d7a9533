/**
 * Tracing as Tessera's code sees it: spans with attributes, an outcome and a W3C `traceparent`.
 * Off by default, and then nothing is installed: every call site asks `tracer()` (a read of one
 * variable) and goes its own way untouched. When an OTLP endpoint is configured, the composition
 * root loads the OpenTelemetry SDK (api/tracing.ts) and installs its tracer here; no module of the
 * SDK is loaded otherwise (docs/tracing.md).
 *
 * Attributes never hold a secret: no header value, body, query string, SQL parameter or secret
 * name. What a span may carry is said where it is made; `fail` records an error's type, never its
 * message (a message may quote the input).
 */

/** OpenTelemetry's span kinds: a request served, a request made, work within. */
export type SpanKind = "internal" | "server" | "client" | "producer" | "consumer";

export type SpanAttributes = Readonly<Record<string, string | number | boolean | undefined>>;

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: SpanAttributes;
  /**
   * The parent: one of our spans, or a W3C `traceparent` value (an incoming request's header);
   * `null` starts a new trace; left out, the span `within` made active here, if any.
   */
  parent?: TraceSpan | string | null;
  /** Spans of other traces this one follows from, as `traceparent` values (a webhook's event's request). */
  links?: readonly string[];
  /** When it started, as a `performance.now()` reading: a span recorded after the fact (a store query). */
  startTime?: number;
}

export interface TraceSpan {
  /** Whether the sampler kept it: only then are its attributes and children recorded. */
  readonly recording: boolean;
  /** The W3C `traceparent` naming this span (`00-<trace id>-<span id>-<flags>`), for an outbound request. */
  readonly traceparent: string;
  /** Sets attributes; an undefined value is left out. */
  set(attributes: SpanAttributes): void;
  rename(name: string): void;
  /**
   * Marks it failed, with `error.type`: an AppError's code, an Error's name, or the string given
   * (a status code). Never the message.
   */
  fail(error: unknown): void;
  /** Ends it, now or at a `performance.now()` reading. */
  end(endTime?: number): void;
}

export interface Tracer {
  start(name: string, options?: SpanOptions): TraceSpan;
  /** Runs `fn` with `span` active: spans started inside it without a parent (store queries) are its children. */
  within<T>(span: TraceSpan, fn: () => T): T;
  /** The span `within` made active here, if any. */
  active(): TraceSpan | undefined;
  /** A store query shorter than this gets no span, even in a sampled trace (TESSERA_TRACE_QUERY_MIN_MS). */
  readonly queryMinMs: number;
}

let installed: Tracer | undefined;

/** The tracer, or undefined while tracing is off: the one read a hot path pays. */
export function tracer(): Tracer | undefined {
  return installed;
}

/** Installs the tracer (api/tracing.ts, once the SDK is up), or removes it (undefined) at shutdown. */
export function installTracer(next: Tracer | undefined): void {
  installed = next;
}

/** The active span when tracing is on and the trace is sampled: the parent a store query would record under. */
export function recordingSpan(): TraceSpan | undefined {
  const span = installed?.active();
  return span?.recording ? span : undefined;
}

/** Runs `fn` with `span` active, or just runs it (no span, or tracing off). */
export function withinSpan<T>(span: TraceSpan | undefined, fn: () => T): T {
  const current = installed;
  return span === undefined || current === undefined ? fn() : current.within(span, fn);
}

/**
 * Runs `fn` in a span of its own, a child of the active one, marked failed when `fn` throws;
 * `fn` gets the span (undefined while tracing is off) to add what it learns.
 *
 * @example
 *   const rows = await traced("sync.tool", { "tessera.sync.tool": name }, () => run(args));
 */
export async function traced<T>(
  name: string,
  attributes: SpanAttributes,
  fn: (span: TraceSpan | undefined) => Promise<T>,
  kind: SpanKind = "internal",
): Promise<T> {
  const current = installed;
  if (current === undefined) return fn(undefined);
  const span = current.start(name, { kind, attributes });
  try {
    return await current.within(span, () => fn(span));
  } catch (error) {
    span.fail(error);
    throw error;
  } finally {
    span.end();
  }
}
