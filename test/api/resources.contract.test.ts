import { beforeAll, describe, expect, it } from "vitest";
import { useTestApp, type TestOrg } from "../helpers/app.ts";
import {
  prepareRefs,
  RESOURCE_CASES,
  RFC3339_UTC,
  type Body,
  type Refs,
  type ResourceCase,
} from "../helpers/resource-cases.ts";
import { storeKinds } from "../helpers/stores.ts";

/**
 * The HTTP contract every resource keeps (ARCHITECTURE.md, "HTTP conventions"), run
 * over each entry of RESOURCE_CASES on each store kind. A new resource gets all
 * of it by adding one entry to test/helpers/resource-cases.ts.
 */

const START = "2025-03-15T10:00:00Z";
const WORDS = ["Aardvark", "Badger", "Cheetah", "Dingo", "Emu", "Ferret"];

interface Fixture {
  id: string;
  rank: number;
  filterValue: string;
  created_at: string;
}

describe.each(storeKinds())("resource contract on $name", (kind) => {
  const t = useTestApp(kind);

  describe.each(RESOURCE_CASES)("$resource", (rc: ResourceCase) => {
    const base = `/v1/${rc.resource}`;
    const idShape = new RegExp(`^${rc.prefix}_[0-9A-Za-z]+$`);
    // One organization holds a fixed set for the list tests; another takes the writes.
    let listOrg: TestOrg;
    let org: TestOrg;
    let listRefs: Refs;
    let refs: Refs;
    const fixtures: Fixture[] = [];

    const get = (path: string, key = listOrg.key) => t.request("GET", path, { key });
    const ids = (response: { body: { data: Array<{ id: string }> } }) => response.body.data.map((o) => o.id);
    const idsWhere = (keep: (f: Fixture) => boolean) => fixtures.filter(keep).map((f) => f.id);

    beforeAll(async () => {
      t.clock.set(START);
      listOrg = await t.newOrg();
      org = await t.newOrg();
      listRefs = await prepareRefs(rc, t, listOrg.key);
      refs = await prepareRefs(rc, t, org.key);
      // Six objects a minute apart; sort ranks tie in pairs (0,0,1,1,2,2) so the id tie-break matters.
      for (const [n, word] of WORDS.entries()) {
        const rank = Math.floor(n / 2);
        const [filterValue, filterBody] = rc.filter.values[n % rc.filter.values.length]!;
        const body: Body = { ...rc.create(n, word, listRefs), ...rc.sort.body(rank), ...filterBody };
        const created = await t.request("POST", base, { key: listOrg.key, body });
        expect(created.status, created.text).toBe(201);
        fixtures.push({ id: created.body.id, rank, filterValue, created_at: created.body.created_at });
        t.clock.advance(60_000);
      }
    });

    describe("create, get, update, delete", () => {
      it("creates with 201, a Location, a prefixed id, the object name, timestamps and metadata", async () => {
        t.clock.set("2025-03-16T08:30:00Z");
        const body: Record<string, unknown> = {
          ...rc.create(100, "Created", refs),
          metadata: { order: "A-17" },
        };
        const created = await t.request("POST", base, { key: org.key, body });
        expect(created.status, created.text).toBe(201);
        expect(created.body.id).toMatch(idShape);
        expect(created.headers.get("location")).toBe(`${base}/${created.body.id}`);
        expect(created.headers.get("content-type")).toMatch(/^application\/json/);
        expect(created.body).toMatchObject({
          object: rc.object,
          created_at: "2025-03-16T08:30:00Z",
          updated_at: "2025-03-16T08:30:00Z",
          metadata: { order: "A-17" },
        });
        expect(created.body[rc.search]).toBe(body[rc.search]);
      });

      it("gives every object empty metadata when none is sent", async () => {
        const created = await t.request("POST", base, { key: org.key, body: rc.create(101, "Bare", refs) });
        expect(created.body.metadata).toEqual({});
      });

      it("gets the object as it was created", async () => {
        const created = await t.request("POST", base, { key: org.key, body: rc.create(102, "Gotten", refs) });
        const got = await get(`${base}/${created.body.id}`, org.key);
        expect(got.status).toBe(200);
        expect(got.body).toEqual(created.body);
        expect(got.body.created_at).toMatch(RFC3339_UTC);
        expect(got.body.updated_at).toMatch(RFC3339_UTC);
      });

      it('patches fields, moves updated_at only, and merges metadata ("" removes a key)', async () => {
        t.clock.set("2025-03-16T09:00:00Z");
        const created = await t.request("POST", base, {
          key: org.key,
          body: { ...rc.create(103, "Patched", refs), metadata: { keep: "1", drop: "2", change: "3" } },
        });
        t.clock.set("2025-03-16T09:05:00Z");
        const patched = await t.request("PATCH", `${base}/${created.body.id}`, {
          key: org.key,
          body: { ...rc.patch.body, metadata: { drop: "", change: "33", add: "4" } },
        });
        expect(patched.status, patched.text).toBe(200);
        expect(patched.body).toMatchObject({
          ...rc.patch.expect,
          id: created.body.id,
          object: rc.object,
          created_at: "2025-03-16T09:00:00Z",
          updated_at: "2025-03-16T09:05:00Z",
        });
        expect(patched.body.metadata).toEqual({ keep: "1", change: "33", add: "4" });
        expect((await get(`${base}/${created.body.id}`, org.key)).body).toEqual(patched.body);
      });

      it("leaves metadata alone when a patch does not mention it", async () => {
        const created = await t.request("POST", base, {
          key: org.key,
          body: { ...rc.create(104, "Kept", refs), metadata: { keep: "yes" } },
        });
        const patched = await t.request("PATCH", `${base}/${created.body.id}`, {
          key: org.key,
          body: rc.patch.body,
        });
        expect(patched.body.metadata).toEqual({ keep: "yes" });
      });

      it("deletes with 204, then answers 404 to get, patch and delete", async () => {
        const created = await t.request("POST", base, {
          key: org.key,
          body: rc.create(105, "Deleted", refs),
        });
        const deleted = await t.request("DELETE", `${base}/${created.body.id}`, { key: org.key });
        expect(deleted.status, deleted.text).toBe(204);
        expect(deleted.text).toBe("");
        for (const method of ["GET", "PATCH", "DELETE"]) {
          const again = await t.request(method, `${base}/${created.body.id}`, {
            key: org.key,
            body: method === "PATCH" ? rc.patch.body : undefined,
          });
          expect(again.status, `${method} after delete`).toBe(404);
          expect(again.body.code).toBe("not_found");
        }
      });
    });

    describe("list", () => {
      it("returns the list envelope, newest first by default, with meta.total", async () => {
        const list = await get(base);
        expect(list.status).toBe(200);
        expect(Object.keys(list.body).sort()).toEqual(["data", "meta"]);
        expect(list.body.meta).toEqual({ total: fixtures.length, page: 1, per_page: 25 });
        expect(ids(list)).toEqual(fixtures.map((f) => f.id).reverse());
        for (const item of list.body.data) expect(item.object).toBe(rc.object);
      });

      it("pages with per_page and page, with the total of every page", async () => {
        const all = ids(await get(`${base}?sort=${rc.sort.field}&per_page=100`));
        const page2 = await get(`${base}?sort=${rc.sort.field}&per_page=2&page=2`);
        expect(page2.body.meta).toEqual({ total: fixtures.length, page: 2, per_page: 2 });
        expect(ids(page2)).toEqual(all.slice(2, 4));
        const beyond = await get(`${base}?per_page=2&page=4`);
        expect(beyond.status).toBe(200);
        expect(beyond.body.data).toEqual([]);
        expect(beyond.body.meta.total).toBe(fixtures.length);
      });

      it(`sorts ascending and descending by its sort field, ties broken by id`, async () => {
        const asc = ids(await get(`${base}?sort=${rc.sort.field}`));
        const desc = ids(await get(`${base}?sort=-${rc.sort.field}`));
        const rankOf = new Map(fixtures.map((f) => [f.id, f.rank]));
        const ranks = asc.map((id) => rankOf.get(id)!);
        expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
        expect(new Set(asc)).toEqual(new Set(fixtures.map((f) => f.id)));
        // With `id` as the tie-breaker in both directions, descending is exactly ascending reversed.
        expect(desc).toEqual([...asc].reverse());
      });

      it("keeps the order of ties stable from page to page", async () => {
        const whole = ids(await get(`${base}?sort=${rc.sort.field}`));
        const oneByOne: string[] = [];
        for (let page = 1; page <= fixtures.length; page++) {
          oneByOne.push(...ids(await get(`${base}?sort=${rc.sort.field}&per_page=1&page=${page}`)));
        }
        expect(oneByOne).toEqual(whole);
      });

      it("refuses a sort field that is not whitelisted with 400 naming sort", async () => {
        const bad = await get(`${base}?sort=org_id`);
        expect(bad.status).toBe(400);
        expect(bad.body.errors.map((e: { param: string }) => e.param)).toEqual(["sort"]);
      });

      it("finds objects with q, case-insensitively, and treats % as itself", async () => {
        const found = await get(`${base}?q=cheet`);
        expect(ids(found)).toEqual([fixtures[2]!.id]);
        expect(found.body.meta.total).toBe(1);
        expect((await get(`${base}?q=CHEETAH`)).body.meta.total).toBe(1);
        expect((await get(`${base}?q=%25`)).body.meta.total).toBe(0);
        expect((await get(`${base}?q=_`)).body.meta.total).toBe(0);
      });

      it("filters by created_after and created_before (exclusive), as timestamps or dates", async () => {
        const at = fixtures[2]!.created_at;
        const after = await get(`${base}?created_after=${at}`);
        expect(new Set(ids(after))).toEqual(new Set(idsWhere((f) => f.created_at > at)));
        expect(after.body.meta.total).toBe(3);
        const before = await get(`${base}?created_before=${at}`);
        expect(new Set(ids(before))).toEqual(new Set(idsWhere((f) => f.created_at < at)));
        const between = await get(
          `${base}?created_after=${fixtures[0]!.created_at}&created_before=${fixtures[3]!.created_at}`,
        );
        expect(new Set(ids(between))).toEqual(new Set([fixtures[1]!.id, fixtures[2]!.id]));
        expect((await get(`${base}?created_after=2025-03-16`)).body.meta.total).toBe(0);
        expect((await get(`${base}?created_before=2025-03-16`)).body.meta.total).toBe(fixtures.length);
      });

      it("refuses a malformed created_after with 400 naming it", async () => {
        const bad = await get(`${base}?created_after=yesterday`);
        expect(bad.status).toBe(400);
        expect(bad.body.code).toBe("invalid_request");
        expect(bad.body.errors[0].param).toBe("created_after");
      });

      it(`filters by ${rc.filter.param}, one value at a time`, async () => {
        for (const [value] of rc.filter.values) {
          const filtered = await get(`${base}?${rc.filter.param}=${value}&per_page=100`);
          expect(filtered.status, filtered.text).toBe(200);
          const expected = idsWhere((f) => f.filterValue === value);
          expect(new Set(ids(filtered))).toEqual(new Set(expected));
          expect(filtered.body.meta.total).toBe(expected.length);
        }
      });

      if (rc.filter.list) {
        it(`filters by a comma list of ${rc.filter.param} values, paged in sort order`, async () => {
          const wanted = rc.filter.values.slice(0, 2).map(([value]) => value);
          const query = `${rc.filter.param}=${wanted.join(",")}&sort=${rc.sort.field}`;
          const all = await get(`${base}?${query}&per_page=100`);
          const expected = idsWhere((f) => wanted.includes(f.filterValue));
          expect(new Set(ids(all))).toEqual(new Set(expected));
          expect(all.body.meta.total).toBe(expected.length);
          const page2 = await get(`${base}?${query}&per_page=2&page=2`);
          expect(ids(page2)).toEqual(ids(all).slice(2, 4));
          expect(page2.body.meta.total).toBe(expected.length);
        });
      } else {
        it(`refuses a comma list for the boolean ${rc.filter.param} with 400`, async () => {
          const values = rc.filter.values.map(([value]) => value).join(",");
          const bad = await get(`${base}?${rc.filter.param}=${values}`);
          expect(bad.status).toBe(400);
          expect(bad.body.errors[0].param).toBe(rc.filter.param);
        });
      }

      it(`refuses an unknown ${rc.filter.param} value with 400 naming the param`, async () => {
        const first = rc.filter.values[0]![0];
        for (const value of [rc.filter.invalid, `${first},${rc.filter.invalid}`]) {
          const bad = await get(`${base}?${rc.filter.param}=${value}`);
          expect(bad.status, value).toBe(400);
          expect(bad.headers.get("content-type")).toBe("application/problem+json");
          expect(bad.body.code).toBe("invalid_request");
          expect(bad.body.errors).toEqual([expect.objectContaining({ param: rc.filter.param })]);
          expect(bad.body.detail).toContain(rc.filter.param);
        }
      });

      it("refuses an unknown query parameter with 400 naming it", async () => {
        const bad = await get(`${base}?colour=red`);
        expect(bad.status).toBe(400);
        expect(bad.body.errors[0].param).toBe("colour");
      });
    });
  });
});
