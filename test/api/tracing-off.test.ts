import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startOtlpReceiver } from "../helpers/otlp.ts";
import { startServerProcess } from "../helpers/process.ts";

/**
 * Tracing off costs no module: a real `tessera serve` whose module loads are recorded (a
 * resolve hook registered with `--import`) loads nothing of `@opentelemetry/` while it starts
 * and serves, unless OTEL_EXPORTER_OTLP_ENDPOINT is set.
 */

const scratch = mkdtempSync(join(tmpdir(), "tessera-tracing-off-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** NODE_OPTIONS that record every module URL resolved under node_modules/@opentelemetry/ into `file`. */
function recordingLoads(file: string): string {
  const hooks = `import { appendFileSync } from "node:fs";
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (resolved.url.includes("/node_modules/@opentelemetry/")) appendFileSync(${JSON.stringify(file)}, resolved.url + "\\n");
  return resolved;
}`;
  const register = `import { register } from "node:module";
register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});`;
  return `--import=data:text/javascript,${encodeURIComponent(register)}`;
}

async function loadsOfServe(name: string, env: Record<string, string>): Promise<string[]> {
  const loads = join(scratch, `${name}.loads`);
  writeFileSync(loads, "");
  const server = await startServerProcess({
    TESSERA_DATA_DIR: join(scratch, name),
    NODE_OPTIONS: recordingLoads(loads),
    ...env,
  });
  try {
    const key = /(sk_live_\w+)/.exec(server.output())?.[1];
    expect(key).toBeDefined();
    const listed = await fetch(`${server.url}/v1/contacts`, { headers: { authorization: `Bearer ${key}` } });
    expect(listed.status).toBe(200);
  } finally {
    expect(await server.stop()).toBe(0);
  }
  return readFileSync(loads, "utf8").split("\n").filter(Boolean);
}

describe("tracing off", () => {
  it("loads no module of OpenTelemetry while the server starts and serves", async () => {
    const off = { OTEL_EXPORTER_OTLP_ENDPOINT: "", OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "" };
    expect(await loadsOfServe("off", off)).toEqual([]);
  }, 60_000);

  it("loads the SDK when OTEL_EXPORTER_OTLP_ENDPOINT is set (the recording works), and exports protobuf", async () => {
    const collector = await startOtlpReceiver();
    try {
      const loads = await loadsOfServe("on", { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url });
      expect(loads.some((url) => url.includes("/@opentelemetry/sdk-trace-node/"))).toBe(true);
      // OTLP/HTTP's default encoding; the last spans were sent as the server stopped.
      expect(collector.bodies.map(({ path, contentType }) => ({ path, contentType }))).toContainEqual({
        path: "/v1/traces",
        contentType: "application/x-protobuf",
      });
    } finally {
      await collector.close();
    }
  }, 60_000);
});
