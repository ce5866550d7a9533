import { beforeAll, describe, expect, it } from "vitest";
import { useTestApp, type TestOrg } from "../helpers/app.ts";
import { storeKinds } from "../helpers/stores.ts";

interface Operation {
  operationId?: string;
  summary?: string;
  tags?: string[];
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{ name: string; in: string }>;
  requestBody?: unknown;
  responses: Record<string, unknown>;
}

/** Whether the operation's success is an event stream (read its status, never its whole body). */
function streams(op: Operation): boolean {
  const ok = op.responses["200"] as { content?: Record<string, unknown> } | undefined;
  // Only an endless stream (no JSON answer to ask for instead): SYNC's chat streams on request only.
  return ok?.content?.["text/event-stream"] !== undefined && ok.content["application/json"] === undefined;
}

interface Documented {
  path: string;
  method: string;
  op: Operation;
}

const ID_STYLE = /^[a-z]+(?:_[a-z]+)*\.[a-z]+(?:_[a-z]+)*$/;
/** What an operation id's verb says of the method, for the methods with a fixed meaning. */
const VERBS: Record<string, RegExp> = {
  get: /^(list|retrieve|stream)(_|$)/,
  patch: /^update(_|$)/,
  put: /^(set|update)(_|$)/,
  delete: /^delete(_|$)/,
};

/** The values a probe puts in each path parameter: well-formed, naming nothing. */
const PROBE_PARAMS: Record<string, string> = {
  id: "zz_probe0000000",
  engine: "finance",
  key: "openapi-probe",
  version: "1",
  run: `frun_${"0".repeat(32)}`,
  secret: "OPENAPI_PROBE",
};

const isInvoke = (path: string) => path.endsWith("/invoke");

/**
 * The statuses an operation can answer, by what it takes: the rule every operation of
 * `/v1/openapi.json` is held to (api/openapi.ts has the response sets that satisfy it).
 */
function requiredStatuses({ path, method, op }: Documented): string[] {
  const required: string[] = [];
  const [, verb = ""] = (op.operationId ?? "").split(".");
  if (/^(create|deploy)(_|$)/.test(verb)) required.push("201");
  if (method === "delete" && !isInvoke(path)) required.push("204");
  // A credential is checked (401), its scope (403) and its rate (429).
  if (op.security?.some((requirement) => "bearerAuth" in requirement)) required.push("401", "403", "429");
  // A path parameter may name nothing in the caller's organization.
  if (/\{[^}]+\}/.test(path)) required.push("404");
  // Query parameters are checked: an unknown one or a bad value is a 400 naming it.
  if (op.parameters?.some((parameter) => parameter.in === "query")) required.push("400");
  if (["post", "put", "patch"].includes(method)) {
    required.push("413");
    // The JSON body middleware (invocations take any body): malformed 400, not JSON 415.
    if (!isInvoke(path)) required.push("400", "415");
    // Idempotency-Key: in flight 409, reused with another body 422.
    if (method !== "put" && !isInvoke(path)) required.push("409", "422");
  }
  if (op.requestBody) required.push("422");
  return [...new Set(required)];
}

describe.each(storeKinds())("the OpenAPI document on $name", (kind) => {
  const t = useTestApp(kind);
  let org: TestOrg;
  let readOnly: string;
  let operations: Documented[];

  beforeAll(async () => {
    org = await t.newOrg();
    readOnly = await org.addKey({ kind: "read_only" });
    const doc = (await t.request("GET", "/v1/openapi.json")).body;
    operations = Object.entries(doc.paths as Record<string, Record<string, Operation>>).flatMap(
      ([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, op })),
    );
  });

  it("gives every operation a unique operationId in resource.verb style, a summary and a tag", () => {
    expect(operations.length).toBeGreaterThan(80);
    const ids = operations.map(({ op }) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { path, method, op } of operations) {
      const where = `${method.toUpperCase()} ${path}`;
      expect(op.operationId, where).toMatch(ID_STYLE);
      expect(op.summary?.trim(), where).toBeTruthy();
      expect(op.tags?.length, where).toBeGreaterThan(0);
      const [resource = "", verb = ""] = op.operationId!.split(".");
      // The resource is the path's: `/v1/webhook_endpoints/{id}/deliveries` → webhook_endpoints.
      const segments = path.split("/").slice(2);
      const before = segments.slice(0, segments.findIndex((segment) => segment.startsWith("{")) >>> 0);
      expect(before.join("_").startsWith(resource), `${where}: ${op.operationId}`).toBe(true);
      if (isInvoke(path)) expect(verb, where).toBe(`invoke_${method}`);
      else if (VERBS[method]) expect(verb, where).toMatch(VERBS[method]);
    }
  });

  it("documents a success and every problem status each operation can answer", () => {
    for (const documented of operations) {
      const { path, method, op } = documented;
      const statuses = Object.keys(op.responses);
      const where = `${method.toUpperCase()} ${path} (${op.operationId})`;
      expect(
        statuses.some((status) => /^2\d\d$/.test(status)),
        where,
      ).toBe(true);
      expect(statuses, where).toEqual(expect.arrayContaining(requiredStatuses(documented)));
    }
  });

  /** An endless text/event-stream answer: its status is read, its body cancelled. */
  const streamStatus = async (path: string, key: string | undefined) => {
    const response = await t.fetch(path, { headers: key ? { authorization: `Bearer ${key}` } : {} });
    await response.body?.cancel();
    return response.status;
  };

  it("documents what each operation answers to no credential, a read-only key, names that name nothing, and an unknown query parameter", async () => {
    expect(operations.length).toBeGreaterThan(0);
    for (const { path, method, op } of operations) {
      const url = path.replace(/\{([^}]+)\}/g, (_, name: string) => PROBE_PARAMS[name] ?? "probe");
      const body = ["post", "put", "patch"].includes(method) ? {} : undefined;
      const probes: Array<[string, string, string | undefined]> = [
        ["no credential", url, undefined],
        ["a full-access key", url, org.key],
        ["a read-only key", url, readOnly],
      ];
      if (op.parameters?.some((parameter) => parameter.in === "query")) {
        probes.push(["an unknown query parameter", `${url}?openapi_probe=1`, org.key]);
      }
      for (const [who, target, key] of probes) {
        const status = streams(op) ? await streamStatus(target, key) : undefined;
        const response = status ? undefined : await t.request(method.toUpperCase(), target, { key, body });
        const answered = status ?? response!.status;
        const where = `${method.toUpperCase()} ${target} with ${who} answered ${answered} ${response?.text.slice(0, 200) ?? ""}`;
        expect(Object.keys(op.responses), where).toContain(String(answered));
      }
    }
  });
});
