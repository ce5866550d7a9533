import {
  disposable,
  installTracer,
  tracer,
  withDeadline,
  type Disposable,
  type Logger,
  type TracingConfig,
} from "../core/index.ts";

/** How long shutdown waits for the last spans to reach the collector. */
const FLUSH_DEADLINE_MS = 5_000;

/**
 * Starts OpenTelemetry tracing when the config turns it on (OTEL_EXPORTER_OTLP_ENDPOINT,
 * docs/tracing.md) and installs its tracer for the whole process (core/trace.ts). The SDK is
 * imported here and only then: with tracing off no module of it is loaded. Disposing it removes
 * the tracer and sends what is buffered (for at most 5 s): registered first, it is released last.
 *
 * @example
 *   const tracing = await startTracing(config.tracing, log);
 *   releasers.add("tracing", () => tracing.dispose());
 */
export async function startTracing(config: TracingConfig | undefined, log: Logger): Promise<Disposable> {
  if (!config) return disposable({ dispose: () => Promise.resolve() });
  const { createOtelTracer } = await import("./tracing-otel.ts");
  const otel = await createOtelTracer(config);
  installTracer(otel.tracer);
  // Where spans go, without a user or password the URL may carry; the headers (a key) are never logged.
  const exporter = new URL(config.url);
  log.info("tracing", {
    exporter: `${exporter.protocol}//${exporter.host}${exporter.pathname}`,
    protocol: config.protocol,
    sampler: config.sampler.name,
    service: config.serviceName,
  });
  return disposable({
    async dispose() {
      if (tracer() === otel.tracer) installTracer(undefined);
      await withDeadline(otel.shutdown(), "flushing traces", FLUSH_DEADLINE_MS).catch((error: unknown) =>
        log.warn("traces not flushed", { error: error instanceof Error ? error.message : String(error) }),
      );
    },
  });
}
