import { beforeAll, describe, expect, it } from "vitest";
import { ENGINES, MAX_STATE_VALUE_BYTES } from "../../engines/index.ts";
import { useTestApp, withTestApp, type TestOrg } from "../helpers/app.ts";
import { storeKinds } from "../helpers/stores.ts";

const url = (engine: string, key: string) => `/v1/engines/${engine}/state/${encodeURIComponent(key)}`;

describe.each(storeKinds())("engine state API on $name", (kind) => {
  let org: TestOrg;

  const t = useTestApp(kind);

  beforeAll(async () => {
    t.clock.set("2025-03-15T10:00:00Z");
    org = await t.newOrg();
  });

  const put = (path: string, value: unknown, headers: Record<string, string> = {}, key = org.key) =>
    t.request("PUT", path, { key, body: { value }, headers });
  const get = (path: string, key = org.key) => t.request("GET", path, { key });
  /** Every entry of an engine, straight from the table, to show a refusal changed nothing. */
  const rows = async (orgId = org.id) =>
    t.store.query(
      "SELECT engine, key, value, version FROM engine_state WHERE org_id = $1 ORDER BY engine, key",
      [orgId],
    );

  describe("round trips", () => {
    it("creates with 201, ETag and Location, replaces with 200, reads and deletes", async () => {
      const created = await put(url("finance", "invoices/cursor"), { page: 1 });
      expect(created.status, created.text).toBe(201);
      expect(created.body).toEqual({
        object: "engine_state_entry",
        engine: "finance",
        key: "invoices/cursor",
        value: { page: 1 },
        version: 1,
        created_at: "2025-03-15T10:00:00Z",
        updated_at: "2025-03-15T10:00:00Z",
      });
      expect(created.headers.get("etag")).toBe('"1"');
      expect(created.headers.get("location")).toBe("/v1/engines/finance/state/invoices%2Fcursor");

      t.clock.advance(1000);
      const replaced = await put(url("finance", "invoices/cursor"), { page: 2 });
      expect(replaced.status).toBe(200);
      expect(replaced.body).toMatchObject({
        version: 2,
        value: { page: 2 },
        updated_at: "2025-03-15T10:00:01Z",
      });
      expect(replaced.headers.get("etag")).toBe('"2"');
      expect(replaced.headers.get("location")).toBeNull();

      const read = await get(created.headers.get("location")!);
      expect(read.status).toBe(200);
      expect(read.body).toEqual(replaced.body);
      expect(read.headers.get("etag")).toBe('"2"');

      const deleted = await t.request("DELETE", url("finance", "invoices/cursor"), { key: org.key });
      expect(deleted.status).toBe(204);
      expect(deleted.text).toBe("");
      const gone = await get(url("finance", "invoices/cursor"));
      expect(gone.status).toBe(404);
      expect(gone.body.code).toBe("not_found");
      const again = await t.request("DELETE", url("finance", "invoices/cursor"), { key: org.key });
      expect(again.status).toBe(404);
    });

    it.each([
      ["an object", { nested: { list: [1, 2.5, "three", null, true] } }],
      ["an array", []],
      ["a string", "plain ✓"],
      ["a number", -42.125],
      ["a boolean", true],
      ["null", null],
    ])("stores %s as the value", async (_, value) => {
      const path = url("growth", `values/${JSON.stringify(value)}`);
      expect((await put(path, value)).status).toBe(201);
      expect((await get(path)).body.value).toEqual(value);
    });

    it("answers a GET whose If-None-Match names the current version with 304", async () => {
      const path = url("talent", "cached");
      await put(path, 1);
      const fresh = await t.request("GET", path, { key: org.key, headers: { "if-none-match": '"1"' } });
      expect(fresh.status).toBe(304);
      expect(fresh.headers.get("etag")).toBe('"1"');
      const stale = await t.request("GET", path, {
        key: org.key,
        headers: { "if-none-match": '"0", W/"7"' },
      });
      expect(stale.status).toBe(200);
    });
  });

  describe("keys in URLs", () => {
    it.each([
      ["a slash sent raw", "a/b", "/v1/engines/finance/state/a/b"],
      ["a slash percent-encoded", "a/b", "/v1/engines/finance/state/a%2Fb"],
      ["a literal %2F", "a%2Fb", "/v1/engines/finance/state/a%252Fb"],
      ["spaces", "my key", "/v1/engines/finance/state/my%20key"],
      ["a plus sign", "a+b", "/v1/engines/finance/state/a+b"],
      ["unicode", "日本/ä/😀", `/v1/engines/finance/state/${encodeURIComponent("日本/ä/😀")}`],
      [
        "punctuation",
        "?#&=;:@!$'()*,[]{}~\"<>\\^`|",
        `/v1/engines/finance/state/${encodeURIComponent("?#&=;:@!$'()*,[]{}~\"<>\\^`|")}`,
      ],
      ["dots inside", "a.b..c", "/v1/engines/finance/state/a.b..c"],
      ["a trailing slash", "dir/", "/v1/engines/finance/state/dir/"],
    ])("round-trips a key with %s", async (_, key, path) => {
      const value = { key };
      const written = await put(path, value);
      expect(written.status, written.text).toBeLessThan(300);
      expect(written.body.key).toBe(key);
      const read = await get(url("finance", key));
      expect(read.status, read.text).toBe(200);
      expect(read.body).toMatchObject({ key, value });
      const listed = await get(`/v1/engines/finance/state?prefix=${encodeURIComponent(key)}&limit=100`);
      expect(listed.body.data.map((e: { key: string }) => e.key)).toContain(key);
    });

    it("names in Location a key that round-trips", async () => {
      const key = "odd key/with ünïcode & 100%";
      const created = await put(url("finance", key), 1);
      expect(created.status).toBe(201);
      expect((await get(created.headers.get("location")!)).body.key).toBe(key);
    });
  });

  describe("listing", () => {
    let lister: TestOrg;
    const keys = Array.from({ length: 23 }, (_, i) => `jobs/${String(i).padStart(3, "0")}`);
    beforeAll(async () => {
      lister = await t.newOrg();
      for (const key of [...keys].reverse()) await put(url("growth", key), { key }, {}, lister.key);
      await put(url("growth", "other"), 0, {}, lister.key);
      await put(url("finance", "jobs/elsewhere"), 0, {}, lister.key);
    });

    it("pages a prefix by cursor in key order, with no duplicates or gaps", async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const query: string = `prefix=jobs%2F&limit=5${cursor ? `&cursor=${cursor}` : ""}`;
        const page = await get(`/v1/engines/growth/state?${query}`, lister.key);
        expect(page.status, page.text).toBe(200);
        expect(page.body.meta.limit).toBe(5);
        expect(page.body.data.length).toBeLessThanOrEqual(5);
        for (const entry of page.body.data)
          expect(entry).toMatchObject({
            object: "engine_state_entry",
            engine: "growth",
            value: { key: entry.key },
          });
        seen.push(...page.body.data.map((e: { key: string }) => e.key));
        cursor = page.body.meta.next_cursor;
        pages++;
      } while (cursor);
      expect(seen).toEqual(keys);
      expect(pages).toBe(5);
    });

    it("lists 25 by default, every key of the engine without a prefix", async () => {
      const page = await get("/v1/engines/growth/state", lister.key);
      expect(page.body.meta).toEqual({ next_cursor: null, limit: 25 });
      expect(page.body.data.map((e: { key: string }) => e.key)).toEqual([...keys, "other"]);
    });

    it.each([
      ["limit=0", "limit"],
      ["limit=101", "limit"],
      ["limit=ten", "limit"],
      ["limit=-1", "limit"],
      ["cursor=not-a-cursor!", "cursor"],
      ["prefix=%0A", "prefix"],
      [`prefix=${"p".repeat(513)}`, "prefix"],
      ["page=2", "page"],
      ["sort=key", "sort"],
    ])("refuses ?%s with a 400 naming %s", async (query, param) => {
      const response = await get(`/v1/engines/growth/state?${query}`, lister.key);
      expect(response.status).toBe(400);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
      expect(response.body).toMatchObject({ code: "invalid_request" });
      expect(response.body.errors[0].param).toBe(param);
    });
  });

  describe("conditional writes", () => {
    it("writes with If-Match only at that version, and answers 412 otherwise", async () => {
      const path = url("finance", "cas");
      await put(path, "v1");
      const stale = await put(path, "lost", { "if-match": '"2"' });
      expect(stale.status).toBe(412);
      expect(stale.body).toMatchObject({
        code: "precondition_failed",
        detail: "Key 'cas' is at version 1; expected 2",
      });
      const weak = await put(path, "lost", { "if-match": 'W/"1"' });
      expect(weak.status).toBe(412);
      const ok = await put(path, "v2", { "if-match": '"1"' });
      expect(ok.status).toBe(200);
      expect(ok.body).toMatchObject({ version: 2, value: "v2" });
      expect((await put(path, "v3", { "if-match": "*" })).body.version).toBe(3);
      expect((await put(url("finance", "cas-absent"), 1, { "if-match": "*" })).status).toBe(412);
      expect((await put(url("finance", "cas-absent"), 1, { "if-match": '"1"' })).status).toBe(412);
      expect((await get(url("finance", "cas-absent"))).status).toBe(404);
      expect((await get(path)).body).toMatchObject({ version: 3, value: "v3" });
    });

    it("creates only with If-None-Match: *, and answers 412 when the key exists", async () => {
      const path = url("finance", "create-once");
      const first = await put(path, "first", { "if-none-match": "*" });
      expect(first.status).toBe(201);
      const second = await put(path, "second", { "if-none-match": "*" });
      expect(second.status).toBe(412);
      expect((await get(path)).body).toMatchObject({ version: 1, value: "first" });
    });

    it("lets exactly one of racing If-Match writes win", async () => {
      const path = url("finance", "race");
      await put(path, 0);
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) => put(path, i + 1, { "if-match": '"1"' })),
      );
      expect(results.map((r) => r.status).sort()).toEqual([200, 412, 412, 412, 412, 412]);
      const winner = results.find((r) => r.status === 200)!;
      expect((await get(path)).body).toMatchObject({ version: 2, value: winner.body.value });
    });

    it("keeps every one of parallel unconditional writes, versions 1 to n", async () => {
      const path = url("finance", "parallel");
      const results = await Promise.all(Array.from({ length: 6 }, (_, i) => put(path, i)));
      expect(results.map((r) => r.body.version).sort()).toEqual([1, 2, 3, 4, 5, 6]);
      expect(results.filter((r) => r.status === 201)).toHaveLength(1);
      expect((await get(path)).body.version).toBe(6);
    });

    it("deletes with If-Match only that version", async () => {
      const path = url("finance", "del-cas");
      await put(path, 1);
      const stale = await t.request("DELETE", path, { key: org.key, headers: { "if-match": '"5"' } });
      expect(stale.status).toBe(412);
      expect((await get(path)).status).toBe(200);
      const ok = await t.request("DELETE", path, { key: org.key, headers: { "if-match": '"1"' } });
      expect(ok.status).toBe(204);
      const absent = await t.request("DELETE", path, { key: org.key, headers: { "if-match": "*" } });
      expect(absent.status).toBe(412);
    });

    it.each([
      [{ "if-match": "3" }, "If-Match"],
      [{ "if-match": '"1", "2"' }, "If-Match"],
      [{ "if-none-match": '"1"' }, "If-None-Match"],
      [{ "if-match": '"1"', "if-none-match": "*" }, "If-None-Match"],
    ])("refuses the conditions %j with a 400 naming %s", async (headers, param) => {
      const path = url("finance", "bad-conditions");
      const response = await put(path, 1, headers);
      expect(response.status).toBe(400);
      expect(response.body.errors[0].param).toBe(param);
      expect((await get(path)).status).toBe(404);
    });
  });

  describe("bad input leaves the t.store unchanged", () => {
    let victim: TestOrg;
    beforeAll(async () => {
      victim = await t.newOrg();
      await put(url("finance", "k"), { original: true }, {}, victim.key);
    });

    const expectUnchanged = async () => {
      expect(await rows(victim.id)).toEqual([
        { engine: "finance", key: "k", value: { original: true }, version: 1 },
      ]);
    };

    it.each([
      [
        "malformed JSON",
        { raw: '{"value": ', headers: { "content-type": "application/json" } },
        400,
        "invalid_request",
      ],
      [
        "a body that is not JSON",
        { raw: "value=1", headers: { "content-type": "text/plain" } },
        415,
        "unsupported_media_type",
      ],
      ["no body", {}, 422, "validation_failed"],
      ["a body without value", { body: { val: 1 } }, 422, "validation_failed"],
      [
        "a JSON null body",
        { raw: "null", headers: { "content-type": "application/json" } },
        422,
        "validation_failed",
      ],
      [
        "a bare JSON value",
        { raw: "42", headers: { "content-type": "application/json" } },
        422,
        "validation_failed",
      ],
      ["a NUL in a string", { body: { value: { s: "a\u0000b" } } }, 422, "validation_failed"],
      [
        "a value over 64 KiB",
        { body: { value: "x".repeat(MAX_STATE_VALUE_BYTES) } },
        422,
        "validation_failed",
      ],
    ])("refuses %s", async (_, options, status, code) => {
      const response = await t.request("PUT", url("finance", "k"), { key: victim.key, ...options });
      expect(response.status, response.text).toBe(status);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
      expect(response.body.code).toBe(code);
      await expectUnchanged();
    });

    it("names value and says the limit when the value is too large", async () => {
      const response = await put(
        url("finance", "k"),
        { blob: "x".repeat(MAX_STATE_VALUE_BYTES) },
        {},
        victim.key,
      );
      expect(response.body.errors[0]).toMatchObject({ param: "value" });
      expect(response.body.detail).toMatch(/at most 65536/);
      await expectUnchanged();
    });

    it("answers 413 for a body over the server's limit", async () => {
      const response = await withTestApp(t.store, { env: { TESSERA_MAX_BODY_BYTES: "1000" } }, (small) =>
        small.request("PUT", url("finance", "k"), { key: victim.key, body: { value: "x".repeat(2000) } }),
      );
      expect(response.status).toBe(413);
      await expectUnchanged();
    });

    it.each([
      ["a key of 513 characters", `/v1/engines/finance/state/${"k".repeat(513)}`],
      ["a control character", "/v1/engines/finance/state/a%0Ab"],
      ["NUL", "/v1/engines/finance/state/a%00b"],
      ["malformed percent-encoding", "/v1/engines/finance/state/a%E0%A4"],
      ["a lone %", "/v1/engines/finance/state/100%"],
    ])("refuses a key with %s with a 400 naming key, on every method", async (_, path) => {
      for (const method of ["GET", "PUT", "DELETE"]) {
        const response = await t.request(method, path, {
          key: victim.key,
          body: method === "PUT" ? { value: 1 } : undefined,
        });
        expect(response.status, `${method}: ${response.text}`).toBe(400);
        expect(response.body.errors[0].param).toBe("key");
      }
      await expectUnchanged();
    });

    it("answers 404 for an unknown engine, on every route", async () => {
      for (const [method, path] of [
        ["GET", "/v1/engines/hr/state"],
        ["GET", "/v1/engines/hr/state/k"],
        ["PUT", "/v1/engines/hr/state/k"],
        ["DELETE", "/v1/engines/hr/state/k"],
        ["GET", "/v1/engines/functions/state/k"],
      ] as const) {
        const response = await t.request(method, path, {
          key: victim.key,
          body: method === "PUT" ? { value: 1 } : undefined,
        });
        expect(response.status, `${method} ${path}`).toBe(404);
        expect(response.body.code).toBe("not_found");
      }
      await expectUnchanged();
    });

    it("answers 405 with Allow to a method the state routes do not take", async () => {
      const response = await t.request("POST", "/v1/engines/finance/state/a/b", {
        key: victim.key,
        body: { value: 1 },
      });
      expect(response.status).toBe(405);
      expect(response.headers.get("allow")).toBe("DELETE, GET, HEAD, PUT");
      await expectUnchanged();
    });
  });

  describe("scopes", () => {
    it.each(ENGINES)("needs <engine>:read to read and <engine>:write to write (%s)", async (engine) => {
      const owner = await t.newOrg();
      await put(url(engine, "k"), 1, {}, owner.key);
      const reader = await owner.addKey({ kind: "engine", engines: [engine], access: "read" });
      const writer = await owner.addKey({ kind: "engine", engines: [engine], access: "write" });
      const other = ENGINES.find((e) => e !== engine)!;
      const stranger = await owner.addKey({ kind: "engine", engines: [other], access: "write" });

      expect((await get(url(engine, "k"), reader)).status).toBe(200);
      expect((await get(`/v1/engines/${engine}/state`, reader)).status).toBe(200);
      for (const [method, key] of [
        ["PUT", reader],
        ["DELETE", reader],
        ["GET", stranger],
        ["PUT", stranger],
        ["DELETE", stranger],
      ] as const) {
        const response = await t.request(method, url(engine, "k"), {
          key,
          body: method === "PUT" ? { value: 2 } : undefined,
        });
        expect(response.status, `${method} with ${key === reader ? "read" : "another engine's"} key`).toBe(
          403,
        );
        const access = method === "GET" ? "read" : "write";
        expect(response.headers.get("www-authenticate")).toContain(`scope="${engine}:${access}"`);
      }
      const listed = await get(`/v1/engines/${engine}/state`, stranger);
      expect(listed.status).toBe(403);
      expect((await get(url(engine, "k"), owner.key)).body).toMatchObject({ version: 1, value: 1 });

      expect((await put(url(engine, "k"), 2, {}, writer)).status).toBe(200);
      expect((await t.request("DELETE", url(engine, "k"), { key: writer })).status).toBe(204);
    });

    it("lets a read-only key read every engine and write none", async () => {
      const owner = await t.newOrg();
      const readOnly = await owner.addKey({ kind: "read_only" });
      expect((await get("/v1/engines/talent/state", readOnly)).status).toBe(200);
      expect((await put(url("talent", "k"), 1, {}, readOnly)).status).toBe(403);
    });
  });

  it("is documented in /v1/openapi.json", async () => {
    const doc = (await t.request("GET", "/v1/openapi.json")).body;
    expect(Object.keys(doc.paths["/v1/engines/{engine}/state/{key}"])).toEqual(["get", "put", "delete"]);
    expect(
      doc.paths["/v1/engines/{engine}/state"].get.parameters.map((p: { name: string }) => p.name),
    ).toEqual(expect.arrayContaining(["engine", "prefix", "cursor", "limit"]));
    expect(doc.paths["/v1/engines/{engine}/state/{key}"].put.responses).toHaveProperty("412");
    expect(doc.components.schemas).toHaveProperty("EngineStateEntry");
  });

  it("records no event for a write", async () => {
    const quiet = await t.newOrg();
    await put(url("finance", "k"), 1, {}, quiet.key);
    await t.request("DELETE", url("finance", "k"), { key: quiet.key });
    const events = await t.store.query("SELECT type FROM events WHERE org_id = $1", [quiet.id]);
    expect(events.map((e) => e.type)).not.toContainEqual(expect.stringMatching(/state/));
    expect(events.filter((e) => !String(e.type).startsWith("api_key."))).toEqual([]);
  });
});
