import { beforeAll, describe, expect, it } from "vitest";
import { useTestApp, withTestApp, type TestOrg } from "../helpers/app.ts";
import { createFaultyStore } from "../helpers/faults.ts";
import { storeKinds } from "../helpers/stores.ts";

const PROBLEM_MEMBERS = ["code", "detail", "errors", "request_id", "status", "title", "type"];
const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

describe.each(storeKinds())("HTTP conventions on $name", (kind) => {
  let org: TestOrg;

  const t = useTestApp(kind, { env: { TESSERA_MAX_BODY_BYTES: "1024" } });

  beforeAll(async () => {
    t.clock.set("2025-03-15T10:00:00Z");
    org = await t.newOrg();
  });

  it("ends every JSON body with one newline: an object, a list page (cached or not), a problem", async () => {
    const created = await t.request("POST", "/v1/contacts", { key: org.key, body: { name: "Line End" } });
    const listed = await t.request("GET", "/v1/contacts", { key: org.key });
    const again = await t.request("GET", "/v1/contacts", { key: org.key });
    const problem = await t.request("GET", "/v1/contacts?sort=nope", { key: org.key });
    const me = await t.request("GET", "/v1/me", { key: org.key });
    for (const response of [created, listed, again, problem, me]) {
      expect(response.text.endsWith("}\n"), response.text.slice(-40)).toBe(true);
      expect(response.text.endsWith("\n\n")).toBe(false);
      expect(JSON.parse(response.text)).toBeTruthy();
    }
    expect(created.headers.get("content-type")).toBe("application/json");
    expect(problem.headers.get("content-type")).toBe("application/problem+json");
  });

  /** A POST whose body is a stream, so no Content-Length is declared. */
  const postStream = (path: string, text: string) => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        const bytes = new TextEncoder().encode(text);
        // Several chunks, as a client streaming a large upload would send them.
        for (let at = 0; at < bytes.length; at += 256) controller.enqueue(bytes.slice(at, at + 256));
        controller.close();
      },
    });
    const init = {
      method: "POST",
      headers: { authorization: `Bearer ${org.key}`, "content-type": "application/json" },
      body,
      duplex: "half",
    };
    return t.app.request(path, init as RequestInit);
  };

  describe("request ids", () => {
    it("sets X-Request-Id on every response, success or error, inside /v1 or not", async () => {
      const responses = [
        await t.request("GET", "/healthz"),
        await t.request("GET", "/v1/openapi.json"),
        await t.request("GET", "/v1/contacts"),
        await t.request("GET", "/v1/contacts", { key: org.key }),
        await t.request("GET", "/v1/contacts/con_missing", { key: org.key }),
        await t.request("GET", "/v1/no_such_route", { key: org.key }),
        await t.request("GET", "/no_such_route"),
        await t.request("POST", "/v1/contacts", {
          key: org.key,
          raw: "{",
          headers: { "content-type": "application/json" },
        }),
      ];
      const ids = responses.map((response) => response.headers.get("x-request-id"));
      for (const id of ids) expect(id).toMatch(/^req_[0-9A-Za-z]{20}$/);
      expect(new Set(ids).size).toBe(ids.length);
    });

    it("keeps a well-formed client X-Request-Id, in the header and in a problem body", async () => {
      const id = "client-trace_42.a:b";
      const ok = await t.request("GET", "/v1/contacts", { key: org.key, headers: { "x-request-id": id } });
      expect(ok.headers.get("x-request-id")).toBe(id);
      const problem = await t.request("GET", "/v1/contacts/con_missing", {
        key: org.key,
        headers: { "x-request-id": id },
      });
      expect(problem.headers.get("x-request-id")).toBe(id);
      expect(problem.body.request_id).toBe(id);
    });

    it.each([
      ["spaces", "two words"],
      ["markup", "<script>alert(1)</script>"],
      ["more than 128 characters", "a".repeat(129)],
      ["an empty value", ""],
    ])("replaces a client X-Request-Id with %s by one of its own", async (_, given) => {
      const response = await t.request("GET", "/v1/contacts/con_missing", {
        key: org.key,
        headers: { "x-request-id": given },
      });
      const id = response.headers.get("x-request-id");
      expect(id).toMatch(/^req_[0-9A-Za-z]{20}$/);
      expect(response.body.request_id).toBe(id);
    });
  });

  describe("problem details (RFC 9457)", () => {
    it("renders errors as application/problem+json with every member", async () => {
      const response = await t.request("POST", "/v1/contacts", { key: org.key, body: { email: "nope" } });
      expect(response.status).toBe(422);
      expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      expect(Object.keys(response.body).sort()).toEqual(PROBLEM_MEMBERS);
      expect(response.body).toMatchObject({
        type: "https://tessera.dev/problems/validation-failed",
        title: "Validation failed",
        status: 422,
        code: "validation_failed",
        request_id: response.headers.get("x-request-id"),
      });
      expect(response.body.detail).toEqual(expect.any(String));
      const params = response.body.errors.map((e: { param: string }) => e.param);
      expect(params).toEqual(expect.arrayContaining(["name", "email"]));
      for (const error of response.body.errors) {
        expect(Object.keys(error).sort()).toEqual(["code", "message", "param"]);
      }
    });

    it("answers 400 for malformed JSON", async () => {
      const response = await t.request("POST", "/v1/contacts", {
        key: org.key,
        raw: '{"name": "Ada",',
        headers: { "content-type": "application/json" },
      });
      expect(response.status).toBe(400);
      expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      expect(response.body.code).toBe("invalid_request");
      expect(response.body.errors).toEqual([
        { param: "body", code: "malformed_json", message: expect.any(String) },
      ]);
    });

    it.each([
      ["a form", "application/x-www-form-urlencoded", "name=Ada"],
      ["JSON labelled as text", "text/plain", '{"name":"Ada"}'],
    ])("answers 415 for %s", async (_, type, raw) => {
      const response = await t.request("POST", "/v1/contacts", {
        key: org.key,
        raw,
        headers: { "content-type": type },
      });
      expect(response.status).toBe(415);
      expect(response.body.code).toBe("unsupported_media_type");
    });

    it("accepts a JSON media type with parameters or a +json suffix", async () => {
      for (const type of ["application/json; charset=utf-8", "application/merge-patch+json"]) {
        const response = await t.request("POST", "/v1/contacts", {
          key: org.key,
          raw: '{"name":"Ada"}',
          headers: { "content-type": type },
        });
        expect(response.status).toBe(201);
      }
    });

    it("answers 413 for a body over TESSERA_MAX_BODY_BYTES with Content-Length declared", async () => {
      const raw = JSON.stringify({ name: "x".repeat(2000) });
      const response = await t.request("POST", "/v1/contacts", {
        key: org.key,
        raw,
        headers: { "content-type": "application/json", "content-length": String(raw.length) },
      });
      expect(response.status).toBe(413);
      expect(response.body.code).toBe("payload_too_large");
    });

    it("answers 413 for a body over TESSERA_MAX_BODY_BYTES streamed without Content-Length", async () => {
      const response = await postStream("/v1/contacts", JSON.stringify({ name: "x".repeat(2000) }));
      expect(response.status).toBe(413);
      expect(((await response.json()) as { code: string }).code).toBe("payload_too_large");
    });

    it("answers 413 when Content-Length understates a body over the limit", async () => {
      const raw = JSON.stringify({ name: "x".repeat(2000) });
      const response = await t.request("POST", "/v1/contacts", {
        key: org.key,
        raw,
        headers: { "content-type": "application/json", "content-length": "10" },
      });
      expect(response.status).toBe(413);
    });

    it("accepts a body of exactly TESSERA_MAX_BODY_BYTES", async () => {
      const shell = JSON.stringify({ name: "Ada", metadata: { pad: "" } });
      const raw = JSON.stringify({ name: "Ada", metadata: { pad: "p".repeat(1024 - shell.length) } });
      expect(Buffer.byteLength(raw)).toBe(1024);
      const response = await postStream("/v1/contacts", raw);
      expect(response.status).not.toBe(413);
    });

    it("answers 404 problem+json for an unknown route, inside /v1 and outside", async () => {
      for (const response of [
        await t.request("GET", "/v1/no_such_route", { key: org.key }),
        await t.request("GET", "/nothing/here"),
      ]) {
        expect(response.status).toBe(404);
        expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
        expect(response.body.code).toBe("not_found");
        expect(Object.keys(response.body).sort()).toEqual(PROBLEM_MEMBERS);
      }
    });

    it("answers 405 with Allow for a known path and an unsupported method", async () => {
      const response = await t.request("PUT", "/v1/contacts", { key: org.key, body: {} });
      expect(response.status).toBe(405);
      expect(response.body.code).toBe("method_not_allowed");
      expect(response.headers.get("allow")).toBe("GET, HEAD, POST");
    });

    it("renders an unforeseen failure as a bare 500 that leaks nothing", async () => {
      const faulty = createFaultyStore(t.store);
      await withTestApp(faulty.store, {}, async (broken) => {
        const mine = await broken.newOrg();
        const internal =
          'relation "secret_internal_table" does not exist at /srv/tessera/store/postgres.ts:42';
        faulty.failQueries(/INSERT INTO contacts/, new Error(internal));

        const response = await broken.request("POST", "/v1/contacts", {
          key: mine.key,
          body: { name: "Ada" },
        });
        expect(response.status).toBe(500);
        expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
        expect(Object.keys(response.body).sort()).toEqual(PROBLEM_MEMBERS);
        expect(response.body).toMatchObject({ code: "internal", status: 500, errors: [] });
        expect(response.body.request_id).toBe(response.headers.get("x-request-id"));
        for (const leak of ["secret_internal_table", "postgres.ts", "/srv/", "Error:", "    at "]) {
          expect(response.text).not.toContain(leak);
        }

        faulty.heal();
        const healed = await broken.request("POST", "/v1/contacts", { key: mine.key, body: { name: "Ada" } });
        expect(healed.status).toBe(201);
      });
    });
  });

  describe("resources", () => {
    it("answers POST with 201 and a Location that retrieves the object", async () => {
      const created = await t.request("POST", "/v1/contacts", { key: org.key, body: { name: "Ada" } });
      expect(created.status).toBe(201);
      const location = created.headers.get("location");
      expect(location).toBe(`/v1/contacts/${created.body.id}`);
      const fetched = await t.request("GET", location!, { key: org.key });
      expect(fetched.status).toBe(200);
      expect(fetched.body).toEqual(created.body);
    });

    it("returns single objects bare, with id, object, timestamps and metadata", async () => {
      const created = await t.request("POST", "/v1/products", {
        key: org.key,
        body: { name: "Widget", price: 12.5, currency: "EUR", metadata: { sku_family: "w" } },
      });
      expect(created.body).toMatchObject({
        id: expect.stringMatching(/^prod_/),
        object: "product",
        created_at: expect.stringMatching(RFC3339_UTC),
        updated_at: expect.stringMatching(RFC3339_UTC),
        metadata: { sku_family: "w" },
      });
      expect(created.body).not.toHaveProperty("data");
    });

    it("answers DELETE with 204 and no body, after which the object is gone", async () => {
      const created = await t.request("POST", "/v1/contacts", { key: org.key, body: { name: "Gone" } });
      const deleted = await t.request("DELETE", `/v1/contacts/${created.body.id}`, { key: org.key });
      expect(deleted.status).toBe(204);
      expect(deleted.text).toBe("");
      const fetched = await t.request("GET", `/v1/contacts/${created.body.id}`, { key: org.key });
      expect(fetched.status).toBe(404);
    });
  });

  describe("lists", () => {
    let lister: TestOrg;
    beforeAll(async () => {
      lister = await t.newOrg();
      for (const name of ["Ada", "Bob", "Cyd"]) {
        await t.request("POST", "/v1/contacts", { key: lister.key, body: { name } });
      }
    });

    it("wraps lists in {data, meta: {total, page, per_page}}", async () => {
      const first = await t.request("GET", "/v1/contacts?per_page=2&sort=name", { key: lister.key });
      expect(first.status).toBe(200);
      expect(Object.keys(first.body).sort()).toEqual(["data", "meta"]);
      expect(first.body.meta).toEqual({ total: 3, page: 1, per_page: 2 });
      expect(first.body.data.map((c: { name: string }) => c.name)).toEqual(["Ada", "Bob"]);

      const second = await t.request("GET", "/v1/contacts?per_page=2&page=2&sort=name", { key: lister.key });
      expect(second.body.meta).toEqual({ total: 3, page: 2, per_page: 2 });
      expect(second.body.data.map((c: { name: string }) => c.name)).toEqual(["Cyd"]);

      const defaults = await t.request("GET", "/v1/contacts", { key: lister.key });
      expect(defaults.body.meta).toEqual({ total: 3, page: 1, per_page: 25 });
    });

    it("sorts descending with a leading minus", async () => {
      const response = await t.request("GET", "/v1/contacts?sort=-name", { key: lister.key });
      expect(response.body.data.map((c: { name: string }) => c.name)).toEqual(["Cyd", "Bob", "Ada"]);
    });

    it("accepts the edges of the paging window", async () => {
      for (const query of ["per_page=1", "per_page=100", "page=100&per_page=100", "page=10000&per_page=1"]) {
        const response = await t.request("GET", `/v1/contacts?${query}`, { key: lister.key });
        expect(response.status, query).toBe(200);
      }
    });

    it.each([
      ["per_page=0", "per_page"],
      ["per_page=101", "per_page"],
      ["per_page=ten", "per_page"],
      ["page=0", "page"],
      ["page=-1", "page"],
      ["page=101&per_page=100", "page"],
      ["page=10001", "page"],
      ["sort=secret_hash", "sort"],
      ["sort=-org_id", "sort"],
      ["colour=red", "colour"],
      ["lifecycle_stage=lead,wizard", "lifecycle_stage"],
      ["created_after=yesterday", "created_after"],
    ])("answers 400 naming the parameter for %s", async (query, param) => {
      const response = await t.request("GET", `/v1/contacts?${query}`, { key: lister.key });
      expect(response.status).toBe(400);
      expect(response.body.code).toBe("invalid_request");
      expect(response.body.errors.map((e: { param: string }) => e.param)).toContain(param);
      expect(response.body.detail).toContain(param);
    });
  });
});
