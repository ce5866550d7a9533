import { beforeAll, describe, expect, it } from "vitest";
import { declareRoutes, operation } from "../../api/routes/declare.ts";
import { ENGINES } from "../../engines/index.ts";
import { useTestApp, type TestOrg } from "../helpers/app.ts";
import { storeKinds } from "../helpers/stores.ts";

/**
 * Path parameters are validated by the schema `/v1/openapi.json` shows (api/path-params.ts,
 * api/routes/declare.ts): what the document refuses, the server refuses, with the 404 a lookup
 * that found nothing gives.
 */

interface Parameter {
  name: string;
  in: string;
  schema: { pattern?: string; enum?: string[] };
}

interface Documented {
  method: string;
  path: string;
  parameters: Parameter[];
}

/** A value no path parameter's pattern or values admit. */
const NAMES_NOTHING = "-";

describe.each(storeKinds())("path parameters on $name", (kind) => {
  const t = useTestApp(kind);
  let org: TestOrg;
  let readOnly: string;
  let operations: Documented[];

  beforeAll(async () => {
    org = await t.newOrg();
    readOnly = await org.addKey({ kind: "read_only" });
    const doc = (await t.request("GET", "/v1/openapi.json")).body as {
      paths: Record<string, Record<string, { parameters?: Parameter[] }>>;
    };
    operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({
        method,
        path,
        parameters: (op.parameters ?? []).filter((parameter) => parameter.in === "path"),
      })),
    );
  });

  it("answers an id of another type with the house's 404, naming the id", async () => {
    const response = await t.request("GET", "/v1/invoices/key_abc", { key: org.key });
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    expect(response.body).toMatchObject({
      type: "https://tessera.dev/problems/not-found",
      title: "Not found",
      status: 404,
      detail: "No such invoice: 'key_abc'",
      code: "not_found",
      errors: [],
    });
  });

  it("names an unknown engine and the engines there are", async () => {
    const response = await t.request("GET", "/v1/engines/hr/state", { key: org.key });
    expect(response.status).toBe(404);
    expect(response.body.detail).toBe(`No such engine: 'hr'; one of ${ENGINES.join(", ")}`);
  });

  it("checks a fixed scope before the parameters, and a scope a parameter names after it", async () => {
    const invoice = await t.request("PATCH", `/v1/invoices/${NAMES_NOTHING}`, { key: readOnly, body: {} });
    expect(invoice.status).toBe(403);
    const engine = await t.request("PUT", "/v1/engines/hr/state/k", { key: readOnly, body: { value: 1 } });
    expect(engine.status).toBe(404);
  });

  it("documents a pattern or the values of every path parameter, and refuses what they do not admit with 404", async () => {
    // The invoke operations are served by the invocation path, which resolves the function itself;
    // an engine state key is decoded from the raw path (`a%2Fb` is `a/b`), which no schema sees.
    const declared = operations.filter(({ path }) => !path.endsWith("/invoke"));
    expect(declared.filter(({ parameters }) => parameters.length > 0).length).toBeGreaterThan(50);
    for (const { method, path, parameters } of declared) {
      const where = `${method.toUpperCase()} ${path}`;
      for (const { name, schema } of parameters.filter((parameter) => parameter.name !== "key")) {
        expect(schema.pattern ?? schema.enum, `${where}: {${name}}`).toBeDefined();
        if (schema.pattern) expect(new RegExp(schema.pattern).test(NAMES_NOTHING), where).toBe(false);
      }
      if (parameters.length === 0) continue;
      const url = path.replace(/\{[^}]+\}/g, NAMES_NOTHING);
      const body = ["post", "put", "patch"].includes(method) ? {} : undefined;
      const response = await t.request(method.toUpperCase(), url, { key: org.key, body });
      expect(response.status, `${where}: ${response.text}`).toBe(404);
      expect(response.body.detail, where).toMatch(/^No such [a-z_]+: '-'/);
      expect(response.body.errors, where).toEqual([]);
    }
  });
});

describe("declaring a route", () => {
  it("refuses a scope named by a parameter on an operation without parameters: it would never be checked", () => {
    const unchecked = operation({
      method: "get",
      path: "/",
      operationId: "probes.list",
      summary: "A probe",
      scope: () => "finance",
      ok: { 200: { description: "Nothing" } },
      handler: (c) => c.json({}),
    });
    expect(() => declareRoutes({ tags: ["probe"] }, [unchecked])).toThrow(/needs `params`/);
  });
});
