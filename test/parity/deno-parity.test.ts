/**
 * Deno compatibility (ARCHITECTURE.md, "Edge functions"): every example under
 * examples/functions/ gives the same responses under the real `deno` binary and
 * under Tessera. For each example, one Deno process serves it (fully offline: npm:
 * imports come from the repository's node_modules) and the same requests go, in
 * order, to it and to the function deployed through `POST /v1/functions` on an
 * in-process app. Compared: the status, the headers in COMPARED_HEADERS and every
 * `x-` header but the platform's own, and the body text, with each side's origin
 * replaced by `{origin}`. Deno's answers are also kept as a snapshot, so a change to
 * an example (or to Deno) shows in review. Skipped only when Deno cannot run here.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileFunction, stopCompiler } from "../../runtime/index.ts";
import type { Store } from "../../store/index.ts";
import { createTestApp, type TestApp, type TestOrg } from "../helpers/app.ts";
import { denoEnv, denoMissing, runDeno, startDenoServer, type DenoServer } from "../helpers/deno.ts";
import { collectUpload } from "../../cli/functions.ts";
import { storeKinds } from "../helpers/stores.ts";
import { CASES, type ParityCase, type ParityRequest } from "./cases.ts";

const EXAMPLES = fileURLToPath(new URL("../../examples/functions/", import.meta.url));
const COMPARED_HEADERS = ["content-type", "location", "set-cookie", "cache-control", "allow", "vary"];
/** Added by Tessera's API to every response (nosniff on the dashboard's origin); not the function's. */
const PLATFORM_HEADERS = new Set([
  "x-request-id",
  "x-ratelimit-limit",
  "x-ratelimit-remaining",
  "x-ratelimit-reset",
  "x-content-type-options",
]);
/** Sent on both sides, so the function sees the same request headers (fetch would add its own). */
const BASE_HEADERS = {
  accept: "*/*",
  "accept-language": "en",
  "user-agent": "tessera-parity",
  "accept-encoding": "identity",
};

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const missing = denoMissing();
if (missing) console.warn(`Deno parity skipped: ${missing}`);

describe.skipIf(missing !== null)("Deno parity of examples/functions", () => {
  const denoDir = mkdtempSync(join(tmpdir(), "tessera-parity-deno-"));
  const servers = new Map<string, Promise<DenoServer>>();
  let store: Store;
  let t: TestApp;
  let org: TestOrg;

  beforeAll(async () => {
    for (const example of CASES) servers.set(example.name, startDeno(example, denoDir));
    store = await storeKinds()[0]!.open();
    t = await createTestApp(store);
    org = await t.newOrg();
  });

  afterAll(async () => {
    await Promise.all(
      [...servers.values()].map((server) =>
        server.then(
          (s) => s.stop(),
          () => undefined,
        ),
      ),
    );
    await t?.dispose();
    await store?.dispose();
    await stopCompiler();
    rmSync(denoDir, { recursive: true, force: true });
  });

  it("type-checks every example with deno check, offline", async () => {
    const entries = CASES.map((example) => `${example.name}/${example.entry}`);
    const checked = await runDeno(["check", "--quiet", ...entries, "_shared/dev-host.ts"], {
      cwd: EXAMPLES,
      env: denoEnv(denoDir),
    });
    expect(checked.output).toBe("");
    expect(checked.code).toBe(0);
  });

  describe.each(CASES)("$name", (example) => {
    const answers: Answer[] = [];
    let deployed: Promise<void> | undefined;

    it("compiles with Tessera's compiler, vendored npm packages included", async () => {
      const compiled = await compileFunction(await collectUpload(join(EXAMPLES, example.name)), undefined, {
        maxBundleBytes: 10 * 1024 * 1024,
      });
      expect(compiled.entrypoint).toBe(example.entry);
      expect(compiled.warnings).toEqual([]);
    });

    it.each(example.requests.map((request, index) => ({ request, index, title: describeRequest(request) })))(
      "deno answers $title",
      async ({ request, index }) => {
        const server = await servers.get(example.name)!;
        answers[index] = await askDeno(server.url, example.name, request);
        expect(answers[index]).toMatchSnapshot();
      },
    );

    it.each(example.requests.map((request, index) => ({ request, index, title: describeRequest(request) })))(
      "tessera answers $title as deno does",
      async ({ request, index }) => {
        deployed ??= deploy(t, org, example);
        await deployed;
        const answer = await askTessera(t, org, example.name, request);
        expect(answers[index], "the deno side of this request did not run").toBeDefined();
        expect(answer).toEqual(answers[index]);
      },
    );
  });
});

function startDeno(example: ParityCase, denoDir: string): Promise<DenoServer> {
  const cwd = join(EXAMPLES, example.name);
  const env = denoEnv(denoDir, example.secrets);
  const args = {
    serve: ["serve", "--allow-net", "--allow-env", example.entry],
    run: ["run", "--allow-net", "--allow-env", example.entry],
    host: ["run", "--allow-net", "--allow-env", "--allow-read", "../_shared/dev-host.ts", "."],
  }[example.deno];
  return startDenoServer(args, { cwd, env });
}

function describeRequest(request: ParityRequest): string {
  const title = `${request.method ?? "GET"} ${request.path || "/"}`;
  return request.note ? `${title} (${request.note})` : title;
}

function prepared(request: ParityRequest): { headers: Record<string, string>; body?: string | Uint8Array } {
  const made = request.prepare?.();
  return {
    headers: { ...BASE_HEADERS, ...request.headers, ...made?.headers },
    body: made?.body ?? request.body,
  };
}

async function askDeno(origin: string, name: string, request: ParityRequest): Promise<Answer> {
  const { headers, body } = prepared(request);
  const response = await fetch(`${origin}/v1/functions/${name}/invoke${request.path}`, {
    method: request.method ?? "GET",
    headers,
    body,
    redirect: "manual",
  });
  return normalize(response, origin);
}

async function askTessera(t: TestApp, org: TestOrg, name: string, request: ParityRequest): Promise<Answer> {
  const { headers, body } = prepared(request);
  const response = await t.app.request(`/v1/functions/${name}/invoke${request.path}`, {
    method: request.method ?? "GET",
    headers: { ...headers, authorization: `Bearer ${org.key}` },
    body,
  });
  return normalize(response, "http://localhost");
}

async function normalize(response: Response, origin: string): Promise<Answer> {
  const headers: Record<string, string> = {};
  for (const name of COMPARED_HEADERS) {
    const value =
      name === "set-cookie" ? response.headers.getSetCookie().join("\n") : response.headers.get(name);
    if (value) headers[name] = value.replaceAll(origin, "{origin}");
  }
  for (const [name, value] of response.headers) {
    if (name.startsWith("x-") && !PLATFORM_HEADERS.has(name))
      headers[name] = value.replaceAll(origin, "{origin}");
  }
  const body = (await response.text()).replaceAll(origin, "{origin}");
  return { status: response.status, headers, body };
}

/** Deploys an example as `tessera functions deploy` would, with its secrets and the data it reads. */
async function deploy(t: TestApp, org: TestOrg, example: ParityCase): Promise<void> {
  const created = await t.request("POST", "/v1/functions", {
    key: org.key,
    body: {
      name: example.name,
      files: await collectUpload(join(EXAMPLES, example.name)),
      // Parity is about answers: a first request that compiles a framework's routes can pass the
      // 50 ms default on a loaded machine (CPU limits have their own tests).
      limits: { cpu_time_ms: 1_000 },
    },
  });
  if (created.status !== 201) {
    throw new Error(
      `POST /v1/functions answered ${created.status} (is the function runtime in?): ${created.text}`,
    );
  }
  if (example.secrets) {
    const secrets = await t.request("PUT", `/v1/functions/${example.name}/secrets`, {
      key: org.key,
      body: example.secrets,
    });
    expect(secrets.status, secrets.text).toBeLessThan(300);
  }
  if (example.name === "overdue-reminder") await seedInvoices(t, org);
}

/**
 * The invoices behind overdue-reminder's dev-fixtures.json, created through the API:
 * open invoices past their due date are overdue at request time (ARCHITECTURE.md, "Engines and resources");
 * the others are left in draft, which is never overdue.
 */
async function seedInvoices(t: TestApp, org: TestOrg): Promise<void> {
  const fixtures = (await collectUpload(join(EXAMPLES, "overdue-reminder")))["dev-fixtures.json"] as string;
  const { invoices } = JSON.parse(fixtures) as { invoices: Array<Record<string, unknown>> };
  for (const { status, ...invoice } of invoices) {
    const created = await t.request("POST", "/v1/invoices", {
      key: org.key,
      body: { ...invoice, status: status === "overdue" ? "open" : "draft" },
    });
    expect(created.status, created.text).toBe(201);
  }
}
