import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../core/index.ts";

describe("loadConfig", () => {
  const base = { TESSERA_DATA_DIR: "/nonexistent" };

  it("takes TESSERA_PUBLIC_URL without its trailing slashes, and leaves it unset by default", () => {
    expect(loadConfig(base).publicUrl).toBeUndefined();
    expect(loadConfig({ ...base, TESSERA_PUBLIC_URL: "https://tessera.example.com//" }).publicUrl).toBe(
      "https://tessera.example.com",
    );
  });

  it("refuses a TESSERA_PUBLIC_URL that is not an http(s) URL, naming the variable", () => {
    for (const value of ["tessera.example.com", "ftp://tessera.example.com"]) {
      let error: unknown;
      try {
        loadConfig({ ...base, TESSERA_PUBLIC_URL: value });
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).message).toContain("TESSERA_PUBLIC_URL");
    }
  });

  it("takes TESSERA_FUNCTIONS_URL as a host of its own, or as a port of its own when it names another than PORT", () => {
    expect(loadConfig(base).functionsOrigin).toBeUndefined();
    expect(
      loadConfig({ ...base, TESSERA_FUNCTIONS_URL: "https://Functions.Example.com/" }).functionsOrigin,
    ).toEqual({
      url: "https://functions.example.com",
      host: "functions.example.com",
      port: undefined,
    });
    expect(loadConfig({ ...base, TESSERA_FUNCTIONS_URL: "http://127.0.0.1:8788" }).functionsOrigin).toEqual({
      url: "http://127.0.0.1:8788",
      host: "127.0.0.1:8788",
      port: 8788,
    });
    // Another host on the main listener's port: told apart by Host, no second listener.
    expect(
      loadConfig({ ...base, PORT: "8787", TESSERA_FUNCTIONS_URL: "http://localhost:8787" }).functionsOrigin
        ?.port,
    ).toBeUndefined();
  });

  it("refuses a TESSERA_FUNCTIONS_URL that is not an origin, or is the dashboard's own", () => {
    for (const env of [
      { TESSERA_FUNCTIONS_URL: "functions.example.com" },
      { TESSERA_FUNCTIONS_URL: "https://example.com/functions" },
      { TESSERA_FUNCTIONS_URL: "https://user@functions.example.com" },
      { TESSERA_FUNCTIONS_URL: "http://127.0.0.1:8787" },
      {
        TESSERA_FUNCTIONS_URL: "https://tessera.example.com",
        TESSERA_PUBLIC_URL: "https://tessera.example.com/",
      },
    ]) {
      expect(() => loadConfig({ ...base, ...env }), JSON.stringify(env)).toThrow(/TESSERA_FUNCTIONS_URL/);
    }
  });

  it("puts /metrics on a listener of its own with TESSERA_METRICS_PORT, on loopback unless said", () => {
    expect(loadConfig(base).metricsListener).toBeUndefined();
    expect(loadConfig({ ...base, TESSERA_METRICS_PORT: "" }).metricsListener).toBeUndefined();
    expect(loadConfig({ ...base, TESSERA_METRICS_PORT: "9464" }).metricsListener).toEqual({
      host: "127.0.0.1",
      port: 9464,
    });
    const token = { TESSERA_METRICS_TOKEN: "a-token-of-sixteen-or-more" };
    expect(
      loadConfig({ ...base, ...token, TESSERA_METRICS_PORT: "9464", TESSERA_METRICS_HOST: "0.0.0.0" })
        .metricsListener,
    ).toEqual({ host: "0.0.0.0", port: 9464 });
  });

  it("refuses a metrics listener on another interface without a token, or on a port taken already", () => {
    expect(() =>
      loadConfig({ ...base, TESSERA_METRICS_PORT: "9464", TESSERA_METRICS_HOST: "0.0.0.0" }),
    ).toThrow(/TESSERA_METRICS_HOST: .*TESSERA_METRICS_TOKEN/);
    expect(() => loadConfig({ ...base, PORT: "8787", TESSERA_METRICS_PORT: "8787" })).toThrow(
      /TESSERA_METRICS_PORT/,
    );
    expect(() =>
      loadConfig({ ...base, TESSERA_FUNCTIONS_URL: "http://127.0.0.1:8788", TESSERA_METRICS_PORT: "8788" }),
    ).toThrow(/TESSERA_METRICS_PORT/);
  });

  it("turns tracing on with an OTLP endpoint, by the OpenTelemetry SDK's variables and defaults", () => {
    expect(loadConfig(base).tracing).toBeUndefined();
    expect(loadConfig({ ...base, OTEL_EXPORTER_OTLP_ENDPOINT: "" }).tracing).toBeUndefined();
    expect(loadConfig({ ...base, OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/" }).tracing).toEqual({
      url: "http://collector:4318/v1/traces",
      protocol: "http/protobuf",
      serviceName: "tessera",
      sampler: { name: "parentbased_always_on", ratio: 1 },
      queryMinMs: 1,
    });
    const traces = loadConfig({
      ...base,
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318",
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://traces.example.com/otlp",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json",
      OTEL_SERVICE_NAME: "tessera-eu",
      OTEL_TRACES_SAMPLER: "ParentBased_TraceIdRatio",
      OTEL_TRACES_SAMPLER_ARG: "0.1",
      TESSERA_TRACE_QUERY_MIN_MS: "0",
    }).tracing;
    expect(traces).toEqual({
      url: "https://traces.example.com/otlp",
      protocol: "http/json",
      serviceName: "tessera-eu",
      sampler: { name: "parentbased_traceidratio", ratio: 0.1 },
      queryMinMs: 0,
    });
    const disabled = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_SDK_DISABLED: "TRUE" };
    expect(loadConfig({ ...base, ...disabled }).tracing).toBeUndefined();
  });

  it("refuses OTLP over gRPC, an unknown sampler and a ratio outside 0–1, naming the variable", () => {
    const on = { ...base, OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" };
    expect(() => loadConfig({ ...on, OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" })).toThrow(
      /OTEL_EXPORTER_OTLP_PROTOCOL: .*http\/protobuf/,
    );
    expect(() => loadConfig({ ...on, OTEL_TRACES_SAMPLER: "jaeger_remote" })).toThrow(/OTEL_TRACES_SAMPLER/);
    expect(() =>
      loadConfig({ ...on, OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "1.5" }),
    ).toThrow(/OTEL_TRACES_SAMPLER_ARG/);
    expect(() => loadConfig({ ...on, OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" })).toThrow(
      /OTEL_EXPORTER_OTLP_ENDPOINT/,
    );
  });
});
