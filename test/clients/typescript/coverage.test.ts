import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { Tessera } from "../../../clients/typescript/src/index.ts";
import { APIResource } from "../../../clients/typescript/src/core/base-client.ts";
import { OPERATIONS, type OperationEntry } from "../../../clients/typescript/src/generated/operations.ts";
import { generateTypeScriptClient, type OpenApiDocument } from "../../../scripts/clients-typescript.ts";

/**
 * Every operation of the API has exactly one client method, and every method calls an operation:
 * a route added to the document without regenerating the client (scripts/clients-typescript.ts)
 * fails here.
 */
const document = JSON.parse(
  readFileSync(new URL("../../../openapi/openapi.json", import.meta.url), "utf8"),
) as {
  paths: Record<string, Record<string, { operationId?: string }>>;
};
const documented = Object.entries(document.paths).flatMap(([path, item]) =>
  Object.entries(item).flatMap(([method, op]) =>
    op.operationId ? [{ operationId: op.operationId, httpMethod: method.toUpperCase(), path }] : [],
  ),
);

type Method = (...args: unknown[]) => unknown;

/** Every method of every resource of a client, by its path (`sync.actions.approve`). */
function clientMethods(node: object, prefix: string[] = []): Map<string, { owner: object; fn: Method }> {
  const found = new Map<string, { owner: object; fn: Method }>();
  for (const [name, value] of Object.entries(node)) {
    if (value instanceof APIResource)
      for (const entry of clientMethods(value, [...prefix, name])) found.set(...entry);
  }
  if (prefix.length === 0) return found;
  for (const name of Object.getOwnPropertyNames(Object.getPrototypeOf(node))) {
    const value = (node as Record<string, unknown>)[name];
    if (name !== "constructor" && name !== "toJSON" && typeof value === "function") {
      found.set([...prefix, name].join("."), { owner: node, fn: value as Method });
    }
  }
  return found;
}

/** A client whose fetch records what it was asked and answers what each kind of operation expects. */
function recordingClient() {
  const sent: Array<{ method: string; path: string }> = [];
  const client = new Tessera({
    apiKey: "sk_test_coverage",
    baseURL: "http://tessera.test",
    maxRetries: 0,
    fetch: async (url, init) => {
      sent.push({ method: init.method!, path: new URL(url).pathname });
      const accept = new Headers(init.headers).get("accept");
      if (accept === "text/event-stream")
        return new Response("", { headers: { "content-type": "text/event-stream" } });
      const body = { data: [], meta: { total: 0, page: 1, per_page: 25, next_cursor: null, limit: 25 } };
      return Response.json(body);
    },
  });
  return { client, sent };
}

describe("the client covers the API", () => {
  it("is generated from the document as committed (node --import tsx scripts/clients-typescript.ts)", async () => {
    const files = await generateTypeScriptClient(document as unknown as OpenApiDocument);
    expect(files.size).toBe(5);
    for (const [path, content] of files) {
      expect(readFileSync(new URL(`../../../${path}`, import.meta.url), "utf8"), `${path} is stale`).toBe(
        content,
      );
    }
  });

  it("has one entry in its operation table per operation of the document, and no other", () => {
    const table = OPERATIONS.map(({ operationId, httpMethod, path }) => ({ operationId, httpMethod, path }));
    expect(table).toEqual(documented);
    expect(new Set(OPERATIONS.map((op) => op.operationId)).size).toBe(OPERATIONS.length);
    expect(documented.length).toBe(110);
  });

  it("has a method for every entry, and every method of the client is in the table", () => {
    const methods = clientMethods(new Tessera({ apiKey: "sk_test_coverage" }));
    const named = new Set(OPERATIONS.map((op) => op.clientMethod));
    expect([...methods.keys()].sort()).toEqual([...named].sort());
    // One method per operation, except `functions.invoke`, which takes the HTTP method as an argument.
    const shared = OPERATIONS.filter((op) =>
      OPERATIONS.some((other) => other !== op && other.clientMethod === op.clientMethod),
    );
    expect(shared.map((op) => op.operationId).sort()).toEqual([
      "functions.invoke_delete",
      "functions.invoke_get",
      "functions.invoke_patch",
      "functions.invoke_post",
      "functions.invoke_put",
    ]);
    expect(shared.every((op) => op.clientMethod === "functions.invoke" && op.httpMethodArgument)).toBe(true);
  });

  it.each(OPERATIONS.map((op) => [op.operationId, op] as const))(
    "%s: the method sends the documented HTTP method to the documented path",
    async (_, op: OperationEntry) => {
      const { client, sent } = recordingClient();
      const { owner, fn } = clientMethods(client).get(op.clientMethod)!;
      const pathParams = [...op.path.matchAll(/\{([^}]+)\}/g)].map((_, index) => `p${index}`);
      const args: unknown[] = [...pathParams];
      if (op.httpMethodArgument) args.push({ method: op.httpMethod });
      else if (op.operationId === "engines.set_state") args.push({ value: 1 });
      else if (op.operationId === "sync.chat") args.push({ message: "hi" });
      await (fn.apply(owner, args) as PromiseLike<unknown>);
      let index = 0;
      const path = op.path.replace(/\{[^}]+\}/g, () => pathParams[index++]!);
      expect(sent).toEqual([{ method: op.httpMethod, path }]);
    },
  );
});
