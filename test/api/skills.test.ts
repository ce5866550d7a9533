import { beforeAll, describe, expect, it } from "vitest";
import { useTestApp, type TestOrg, type TestResponse } from "../helpers/app.ts";
import { countRows } from "../helpers/resource-cases.ts";
import { storeKinds } from "../helpers/stores.ts";

/**
 * The skills' own rules (the CRUD contract is in resources.contract.test.ts):
 * `claimed → verified` and never back, the events a verification records, the
 * reference to a candidate of the same organization, one skill name per
 * candidate, and the filters.
 */

type Body = Record<string, unknown>;
interface EventBody {
  type: string;
  data: { object: { id: string }; previous_attributes?: Body };
}

describe.each(storeKinds())("skills on $name", (kind) => {
  let org: TestOrg;
  let candidateId: string;
  let serial = 0;

  const newCandidate = async (key = org.key) => {
    const created = await t.request("POST", "/v1/candidates", {
      key,
      body: { name: "Katherine Johnson", email: `kj${++serial}@example.com`, position: "Analyst" },
    });
    expect(created.status, created.text).toBe(201);
    return created.body.id as string;
  };

  const t = useTestApp(kind);

  beforeAll(async () => {
    t.clock.set("2025-03-15T10:00:00Z");
    org = await t.newOrg();
    candidateId = await newCandidate();
  });

  const create = (body: Body = {}, key = org.key) =>
    t.request("POST", "/v1/skills", {
      key,
      body: { candidate_id: candidateId, name: `Orbital mechanics ${++serial}`, ...body },
    });
  const patch = (id: string, body: Body) => t.request("PATCH", `/v1/skills/${id}`, { key: org.key, body });
  const ids = (response: TestResponse) => (response.body.data as Array<{ id: string }>).map((s) => s.id);
  const eventsOf = async (id: string): Promise<EventBody[]> => {
    const response = await t.request("GET", "/v1/events?type=skill.*&per_page=100", { key: org.key });
    return (response.body.data as EventBody[]).filter((e) => e.data.object.id === id).reverse();
  };

  describe("verification", () => {
    it("creates a claimed, intermediate skill of the candidate by default", async () => {
      const created = await create({ name: "FORTRAN" });
      expect(created.status, created.text).toBe(201);
      expect(created.body).toMatchObject({
        object: "skill",
        candidate_id: candidateId,
        name: "FORTRAN",
        level: "intermediate",
        status: "claimed",
        verified_at: null,
        verified_by: null,
      });
      expect(created.body.id).toMatch(/^skl_/);
      expect((await eventsOf(created.body.id)).map((e) => e.type)).toEqual(["skill.created"]);
    });

    it("creates a skill already verified, stamped now, and records skill.verified", async () => {
      t.clock.set("2025-03-15T11:00:00Z");
      const created = await create({ level: "expert", status: "verified", verified_by: "Dorothy Vaughan" });
      expect(created.status, created.text).toBe(201);
      expect(created.body).toMatchObject({
        level: "expert",
        status: "verified",
        verified_at: "2025-03-15T11:00:00Z",
        verified_by: "Dorothy Vaughan",
      });
      expect((await eventsOf(created.body.id)).map((e) => e.type)).toEqual([
        "skill.created",
        "skill.verified",
      ]);
    });

    it("verifies a claimed skill by PATCH: verified_at is the time of verification, with skill.verified", async () => {
      t.clock.set("2025-03-15T10:00:00Z");
      const created = await create();
      t.clock.set("2025-03-18T14:30:00Z");
      const verified = await patch(created.body.id, { status: "verified", verified_by: "Mary Jackson" });
      expect(verified.status, verified.text).toBe(200);
      expect(verified.body).toMatchObject({
        status: "verified",
        verified_at: "2025-03-18T14:30:00Z",
        verified_by: "Mary Jackson",
      });
      const events = await eventsOf(created.body.id);
      expect(events.map((e) => e.type)).toEqual(["skill.created", "skill.updated", "skill.verified"]);
      expect(events[1]!.data.previous_attributes).toEqual({
        status: "claimed",
        verified_at: null,
        verified_by: null,
      });
      expect(events[2]!.data.object).toMatchObject({ id: created.body.id, status: "verified" });
    });

    it("refuses verified → claimed with 409 naming both statuses, and records nothing", async () => {
      const created = await create({ status: "verified" });
      const before = await eventsOf(created.body.id);
      const back = await patch(created.body.id, { status: "claimed" });
      expect(back.status, back.text).toBe(409);
      expect(back.headers.get("content-type")).toBe("application/problem+json");
      expect(back.body.code).toBe("invalid_state_transition");
      expect(back.body.detail).toBe("Skill is verified; it cannot become claimed");
      expect(back.body.errors).toEqual([
        { param: "status", code: "invalid_transition", message: "verified → claimed is not allowed" },
      ]);
      expect(await eventsOf(created.body.id)).toEqual(before);
      const got = await t.request("GET", `/v1/skills/${created.body.id}`, { key: org.key });
      expect(got.body.status).toBe("verified");
    });

    it("keeps the first verification when a verified skill is sent verified again", async () => {
      t.clock.set("2025-03-15T10:00:00Z");
      const created = await create({ status: "verified" });
      t.clock.set("2025-03-20T10:00:00Z");
      const again = await patch(created.body.id, { status: "verified", verified_by: "Christine Darden" });
      expect(again.status, again.text).toBe(200);
      expect(again.body).toMatchObject({
        verified_at: "2025-03-15T10:00:00Z",
        verified_by: "Christine Darden",
      });
      const types = (await eventsOf(created.body.id)).map((e) => e.type);
      expect(types.filter((type) => type === "skill.verified")).toHaveLength(1);
    });

    it("refuses verified_by on a claimed skill with 422, and accepts it with status verified", async () => {
      const created = await create();
      const alone = await patch(created.body.id, { verified_by: "Someone" });
      expect(alone.status).toBe(422);
      expect(alone.body.errors).toEqual([
        expect.objectContaining({ param: "verified_by", code: "requires_verified" }),
      ]);
      const claimedCreate = await create({ status: "claimed", verified_by: "Someone" });
      expect(claimedCreate.status).toBe(422);
      const together = await patch(created.body.id, { status: "verified", verified_by: "Someone" });
      expect(together.status, together.text).toBe(200);
      const cleared = await patch(created.body.id, { verified_by: null });
      expect(cleared.body).toMatchObject({ status: "verified", verified_by: null });
    });

    it("changes name and level of a skill and reports them in previous_attributes", async () => {
      const created = await create({ name: "Pascal", level: "beginner" });
      await patch(created.body.id, { name: "Object Pascal", level: "advanced" });
      const events = await eventsOf(created.body.id);
      expect(events.map((e) => e.type)).toEqual(["skill.created", "skill.updated"]);
      expect(events[1]!.data.previous_attributes).toEqual({ name: "Pascal", level: "beginner" });
    });

    it("lists skill.verified in the event type catalog", async () => {
      const catalog = await t.request("GET", "/v1/event_types", { key: org.key });
      const types = (catalog.body.data as Array<{ type: string }>).map((entry) => entry.type);
      expect(types).toEqual(expect.arrayContaining(["skill.created", "skill.verified"]));
    });
  });

  describe("the candidate reference", () => {
    it("refuses a candidate of another organization with 422 invalid_reference", async () => {
      const other = await t.newOrg();
      const theirs = await newCandidate(other.key);
      const before = await countRows(t.store, "skills", org.id);
      const response = await create({ candidate_id: theirs });
      expect(response.status, response.text).toBe(422);
      expect(response.body.errors).toEqual([
        { param: "candidate_id", code: "invalid_reference", message: `No such object: '${theirs}'` },
      ]);
      expect(await countRows(t.store, "skills", org.id)).toBe(before);
    });

    it("refuses a candidate that does not exist, or was deleted, with 422 invalid_reference", async () => {
      const gone = await newCandidate();
      await t.request("DELETE", `/v1/candidates/${gone}`, { key: org.key });
      for (const id of [gone, "cand_000000000000000000000000"]) {
        const response = await create({ candidate_id: id });
        expect(response.status, id).toBe(422);
        expect(response.body.errors[0]).toMatchObject({ param: "candidate_id", code: "invalid_reference" });
      }
    });

    it("refuses to move a skill to another candidate by PATCH", async () => {
      const created = await create();
      const moved = await patch(created.body.id, { candidate_id: await newCandidate() });
      expect(moved.status).toBe(422);
      expect(moved.body.errors[0].param).toBe("candidate_id");
      const got = await t.request("GET", `/v1/skills/${created.body.id}`, { key: org.key });
      expect(got.body.candidate_id).toBe(candidateId);
    });
  });

  describe("one skill name per candidate", () => {
    it("refuses the same name for the same candidate, in any case, with 409 conflict", async () => {
      await create({ name: "Celestial Navigation" });
      const before = await countRows(t.store, "skills", org.id);
      const duplicate = await create({ name: "celestial NAVIGATION" });
      expect(duplicate.status, duplicate.text).toBe(409);
      expect(duplicate.body.code).toBe("conflict");
      expect(duplicate.text).not.toMatch(/violates|skills_org_candidate_name|duplicate key/);
      expect(await countRows(t.store, "skills", org.id)).toBe(before);
    });

    it("lets another candidate claim the same name", async () => {
      await create({ name: "Slide rule" });
      const other = await create({ name: "Slide rule", candidate_id: await newCandidate() });
      expect(other.status, other.text).toBe(201);
    });

    it("refuses to rename a skill to another of the candidate's skills with 409 conflict", async () => {
      await create({ name: "Geometry" });
      const algebra = await create({ name: "Algebra" });
      const renamed = await patch(algebra.body.id, { name: "GEOMETRY" });
      expect(renamed.status, renamed.text).toBe(409);
      expect(renamed.body.code).toBe("conflict");
    });
  });

  describe("lists", () => {
    let listOrg: TestOrg;
    const made: Record<string, string> = {};

    beforeAll(async () => {
      listOrg = await t.newOrg();
      const first = await newCandidate(listOrg.key);
      const second = await newCandidate(listOrg.key);
      const add = async (label: string, at: string, body: Body) => {
        t.clock.set(at);
        const created = await t.request("POST", "/v1/skills", { key: listOrg.key, body });
        expect(created.status, created.text).toBe(201);
        made[label] = created.body.id;
      };
      await add("go", "2025-03-01T09:00:00Z", { candidate_id: first, name: "Go", level: "advanced" });
      await add("sql", "2025-03-02T09:00:00Z", {
        candidate_id: first,
        name: "PostgreSQL",
        level: "expert",
        status: "verified",
      });
      await add("rust", "2025-03-03T09:00:00Z", { candidate_id: second, name: "Rust", level: "beginner" });
      await add("go2", "2025-03-04T09:00:00Z", {
        candidate_id: second,
        name: "go",
        status: "verified",
        verified_by: "Tech lead",
      });
      t.clock.set("2025-03-05T12:00:00Z");
      await t.request("PATCH", `/v1/skills/${made.rust}`, { key: listOrg.key, body: { status: "verified" } });
      made.first = first;
      made.second = second;
    });

    const list = (query: string) => t.request("GET", `/v1/skills?${query}`, { key: listOrg.key });
    const found = async (query: string) => {
      const response = await list(query);
      expect(response.status, response.text).toBe(200);
      return new Set(ids(response));
    };
    const labels = (...names: string[]) => new Set(names.map((name) => made[name]));

    it("filters by candidate_id, status and a comma list of levels", async () => {
      expect(await found(`candidate_id=${made.first}`)).toEqual(labels("go", "sql"));
      expect(await found("status=claimed")).toEqual(labels("go"));
      expect(await found("status=verified")).toEqual(labels("sql", "rust", "go2"));
      expect(await found("level=beginner,expert")).toEqual(labels("sql", "rust"));
      expect(await found(`level=intermediate&candidate_id=${made.second}`)).toEqual(labels("go2"));
    });

    it("refuses an unknown level or status with 400 naming the param", async () => {
      for (const [param, value] of [
        ["level", "guru"],
        ["status", "pending"],
      ]) {
        const bad = await list(`${param}=${value}`);
        expect(bad.status).toBe(400);
        expect(bad.body.errors).toEqual([expect.objectContaining({ param })]);
      }
    });

    it("filters by name case-insensitively, and searches names with q", async () => {
      expect(await found("name=GO")).toEqual(labels("go", "go2"));
      expect(await found("name=postgresql")).toEqual(labels("sql"));
      expect(await found("name=Postgres")).toEqual(labels());
      expect(await found("q=gres")).toEqual(labels("sql"));
    });

    it("filters by verified_after and verified_before (exclusive), as timestamps or dates", async () => {
      expect(await found("verified_after=2025-03-03")).toEqual(labels("go2", "rust"));
      expect(await found("verified_after=2025-03-04T09:00:00Z")).toEqual(labels("rust"));
      expect(await found("verified_before=2025-03-04T09:00:00Z")).toEqual(labels("sql"));
      expect(await found("verified_after=2025-03-01&verified_before=2025-03-05")).toEqual(
        labels("sql", "go2"),
      );
      expect(await found("verified_after=2025-03-04T10:00:00%2B02:00")).toEqual(labels("go2", "rust"));
    });

    it("refuses a malformed verified_after or verified_before with 400 naming it", async () => {
      for (const query of [
        "verified_after=yesterday",
        "verified_before=2025-02-30",
        "verified_after=0000-01-01",
      ]) {
        const bad = await list(query);
        expect(bad.status, query).toBe(400);
        expect(bad.body.code).toBe("invalid_request");
        expect(bad.body.errors).toEqual([expect.objectContaining({ param: query.split("=")[0] })]);
      }
    });

    it("sorts by verified_at and by name", async () => {
      expect(ids(await list("sort=verified_at&status=verified"))).toEqual([made.sql, made.go2, made.rust]);
      expect(ids(await list("sort=-verified_at&status=verified"))).toEqual([made.rust, made.go2, made.sql]);
      // Within one candidate: how "Go" and "go" compare depends on the database's collation.
      expect(ids(await list(`sort=name&candidate_id=${made.first}`))).toEqual([made.go, made.sql]);
      expect(ids(await list(`sort=-name&candidate_id=${made.first}`))).toEqual([made.sql, made.go]);
    });
  });
});
