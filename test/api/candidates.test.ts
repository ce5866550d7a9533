import { beforeAll, describe, expect, it } from "vitest";
import { useTestApp, type TestOrg, type TestResponse } from "../helpers/app.ts";
import { countRows } from "../helpers/resource-cases.ts";
import { storeKinds } from "../helpers/stores.ts";

/**
 * The candidates' own rules (the CRUD contract is in resources.contract.test.ts):
 * the hiring pipeline and its 409s, the events a status change records, one
 * candidate per email in an organization, filters, and deletion with skills.
 */

type Body = Record<string, unknown>;
interface EventBody {
  type: string;
  data: { object: { id: string; status?: string }; previous_attributes?: Body };
}

describe.each(storeKinds())("candidates on $name", (kind) => {
  let org: TestOrg;
  let serial = 0;

  const t = useTestApp(kind);

  beforeAll(async () => {
    t.clock.set("2025-03-15T10:00:00Z");
    org = await t.newOrg();
  });

  const create = (body: Body = {}, key = org.key) =>
    t.request("POST", "/v1/candidates", {
      key,
      body: {
        name: "Grace Hopper",
        email: `grace${++serial}@example.com`,
        position: "Compiler engineer",
        ...body,
      },
    });
  const patch = (id: string, body: Body) =>
    t.request("PATCH", `/v1/candidates/${id}`, { key: org.key, body });
  const list = (query: string, key = org.key) => t.request("GET", `/v1/candidates?${query}`, { key });
  const ids = (response: TestResponse) => (response.body.data as Array<{ id: string }>).map((c) => c.id);
  const eventsOf = async (id: string): Promise<EventBody[]> => {
    const response = await t.request("GET", "/v1/events?type=candidate.*&per_page=100", { key: org.key });
    return (response.body.data as EventBody[]).filter((e) => e.data.object.id === id).reverse();
  };
  /** Creates a candidate and walks it to `status` along the pipeline. */
  const candidateAt = async (status: string, body: Body = {}) => {
    const created = await create(body);
    const path = ["screening", "interview", "offer", "hired"];
    const steps = status === "applied" ? [] : path.slice(0, path.indexOf(status) + 1);
    for (const step of steps) expect((await patch(created.body.id, { status: step })).status).toBe(200);
    return created.body.id as string;
  };
  const expectRefusedTransition = (response: TestResponse, from: string, to: string) => {
    expect(response.status, response.text).toBe(409);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    expect(response.body.code).toBe("invalid_state_transition");
    expect(response.body.detail).toBe(`Candidate is ${from}; it cannot become ${to}`);
    expect(response.body.errors).toEqual([
      { param: "status", code: "invalid_transition", message: `${from} → ${to} is not allowed` },
    ]);
  };

  describe("the pipeline", () => {
    it("creates a candidate as applied, applied_at its creation time, with no hire or rejection", async () => {
      t.clock.set("2025-03-15T10:00:00Z");
      const created = await create({ phone: "+1 555 0100", source: "referral" });
      expect(created.status, created.text).toBe(201);
      expect(created.body).toMatchObject({
        object: "candidate",
        name: "Grace Hopper",
        position: "Compiler engineer",
        phone: "+1 555 0100",
        source: "referral",
        status: "applied",
        applied_at: "2025-03-15T10:00:00Z",
        created_at: "2025-03-15T10:00:00Z",
        hired_at: null,
        rejected_at: null,
      });
      expect(created.body.id).toMatch(/^cand_/);
    });

    it("walks applied → screening → interview → offer → hired and stamps hired_at at the hire", async () => {
      t.clock.set("2025-03-15T10:00:00Z");
      const created = await create();
      let current: TestResponse = created;
      for (const [hour, status] of ["screening", "interview", "offer", "hired"].entries()) {
        t.clock.set(`2025-03-1${6 + hour}T09:00:00Z`);
        current = await patch(created.body.id, { status });
        expect(current.status, current.text).toBe(200);
        expect(current.body.status).toBe(status);
      }
      expect(current.body).toMatchObject({
        hired_at: "2025-03-19T09:00:00Z",
        rejected_at: null,
        applied_at: "2025-03-15T10:00:00Z",
      });
    });

    it.each([
      ["applied", "interview"],
      ["applied", "offer"],
      ["applied", "hired"],
      ["screening", "offer"],
      ["screening", "hired"],
      ["interview", "hired"],
      ["interview", "screening"],
      ["offer", "applied"],
    ])("refuses %s → %s with 409 naming both statuses", async (from, to) => {
      const id = await candidateAt(from);
      expectRefusedTransition(await patch(id, { status: to }), from, to);
      expect((await t.request("GET", `/v1/candidates/${id}`, { key: org.key })).body.status).toBe(from);
    });

    it.each(["applied", "screening", "interview", "offer"])(
      "rejects a candidate from %s and stamps rejected_at",
      async (from) => {
        const id = await candidateAt(from);
        t.clock.set("2025-04-01T12:00:00Z");
        const rejected = await patch(id, { status: "rejected" });
        expect(rejected.status, rejected.text).toBe(200);
        expect(rejected.body).toMatchObject({
          status: "rejected",
          rejected_at: "2025-04-01T12:00:00Z",
          hired_at: null,
        });
      },
    );

    it.each([
      ["hired", "screening"],
      ["hired", "rejected"],
      ["hired", "offer"],
      ["rejected", "applied"],
      ["rejected", "screening"],
      ["rejected", "hired"],
    ])("refuses %s → %s with 409 naming both statuses: the status is final", async (final, to) => {
      const id = final === "hired" ? await candidateAt("hired") : await candidateAt("applied");
      if (final === "rejected") await patch(id, { status: "rejected" });
      expectRefusedTransition(await patch(id, { status: to }), final, to);
    });

    it("lets only metadata change once a candidate is hired, naming each locked field", async () => {
      const id = await candidateAt("hired");
      const locked = await patch(id, { name: "Grace B. Hopper", source: "agency", metadata: { a: "1" } });
      expect(locked.status).toBe(409);
      expect(locked.body.code).toBe("invalid_state_transition");
      expect(locked.body.detail).toBe("Candidate is hired; only metadata can change");
      expect(locked.body.errors).toEqual([
        { param: "name", code: "candidate_final", message: "cannot change a hired candidate" },
        { param: "source", code: "candidate_final", message: "cannot change a hired candidate" },
      ]);
      const noted = await patch(id, { metadata: { start_date: "2025-05-01" }, status: "hired" });
      expect(noted.status, noted.text).toBe(200);
      expect(noted.body).toMatchObject({
        name: "Grace Hopper",
        status: "hired",
        metadata: { start_date: "2025-05-01" },
      });
    });

    it("accepts the current status as a no-op that records no event", async () => {
      const id = await candidateAt("screening");
      const before = await eventsOf(id);
      const same = await patch(id, { status: "screening" });
      expect(same.status, same.text).toBe(200);
      expect(same.body.status).toBe("screening");
      expect(await eventsOf(id)).toEqual(before);
    });
  });

  describe("events", () => {
    it("records candidate.updated with previous_attributes and candidate.status_changed on each step", async () => {
      t.clock.set("2025-03-20T08:00:00Z");
      const id = await candidateAt("screening");
      const events = await eventsOf(id);
      expect(events.map((e) => e.type)).toEqual([
        "candidate.created",
        "candidate.updated",
        "candidate.status_changed",
      ]);
      expect(events[1]!.data.previous_attributes).toEqual({ status: "applied" });
      expect(events[2]!.data.object).toMatchObject({ id, status: "screening" });
      // A subscriber to status_changed alone still sees the status the candidate left.
      expect(events[2]!.data.previous_attributes).toEqual({ status: "applied" });
    });

    it("records candidate.hired once, with hired_at in previous_attributes of the update", async () => {
      const id = await candidateAt("offer");
      t.clock.set("2025-03-21T16:30:00Z");
      await patch(id, { status: "hired" });
      const events = (await eventsOf(id)).slice(-3);
      expect(events.map((e) => e.type)).toEqual([
        "candidate.updated",
        "candidate.status_changed",
        "candidate.hired",
      ]);
      expect(events[0]!.data.previous_attributes).toEqual({ status: "offer", hired_at: null });
      expect(events[2]!.data.object).toMatchObject({ id, status: "hired", hired_at: "2025-03-21T16:30:00Z" });
      await patch(id, { metadata: { team: "compilers" } });
      const hired = (await eventsOf(id)).filter((e) => e.type === "candidate.hired");
      expect(hired).toHaveLength(1);
    });

    it("records candidate.rejected with the status it was rejected from", async () => {
      const id = await candidateAt("interview");
      await patch(id, { status: "rejected" });
      const events = (await eventsOf(id)).slice(-3);
      expect(events.map((e) => e.type)).toEqual([
        "candidate.updated",
        "candidate.status_changed",
        "candidate.rejected",
      ]);
      expect(events[0]!.data.previous_attributes).toEqual({ status: "interview", rejected_at: null });
    });

    it("records no status event for a change of other fields, and none for a refused transition", async () => {
      const id = await candidateAt("applied");
      await patch(id, { position: "Staff engineer" });
      expect(await patch(id, { status: "hired" })).toMatchObject({ status: 409 });
      const events = await eventsOf(id);
      expect(events.map((e) => e.type)).toEqual(["candidate.created", "candidate.updated"]);
      expect(events[1]!.data.previous_attributes).toEqual({ position: "Compiler engineer" });
    });

    it("lists the candidate domain events in the event type catalog", async () => {
      const catalog = await t.request("GET", "/v1/event_types", { key: org.key });
      const types = (catalog.body.data as Array<{ type: string }>).map((entry) => entry.type);
      expect(types).toEqual(
        expect.arrayContaining([
          "candidate.created",
          "candidate.status_changed",
          "candidate.hired",
          "candidate.rejected",
        ]),
      );
    });
  });

  describe("one candidate per email", () => {
    it("refuses a second candidate with the same email in another case with 409 conflict", async () => {
      await create({ email: "Linus@Example.com" });
      const before = await countRows(t.store, "candidates", org.id);
      const duplicate = await create({ email: "linus@example.COM" });
      expect(duplicate.status, duplicate.text).toBe(409);
      expect(duplicate.headers.get("content-type")).toBe("application/problem+json");
      expect(duplicate.body.code).toBe("conflict");
      expect(duplicate.text).not.toMatch(/violates|candidates_org_email|duplicate key/);
      expect(await countRows(t.store, "candidates", org.id)).toBe(before);
    });

    it("refuses to change an email to another candidate's with 409 conflict", async () => {
      await create({ email: "taken@example.com" });
      const other = await create();
      const changed = await patch(other.body.id, { email: "TAKEN@example.com" });
      expect(changed.status, changed.text).toBe(409);
      expect(changed.body.code).toBe("conflict");
      const got = await t.request("GET", `/v1/candidates/${other.body.id}`, { key: org.key });
      expect(got.body.email).toBe(other.body.email);
    });

    it("lets another organization have a candidate with the same email", async () => {
      await create({ email: "shared@example.com" });
      const elsewhere = await t.newOrg();
      const created = await create({ email: "shared@example.com" }, elsewhere.key);
      expect(created.status, created.text).toBe(201);
    });
  });

  describe("lists", () => {
    let listOrg: TestOrg;
    const made: Record<string, string> = {};

    beforeAll(async () => {
      listOrg = await t.newOrg();
      const add = async (label: string, body: Body, steps: string[] = []) => {
        const created = await create(body, listOrg.key);
        expect(created.status, created.text).toBe(201);
        for (const status of steps) {
          await t.request("PATCH", `/v1/candidates/${created.body.id}`, {
            key: listOrg.key,
            body: { status },
          });
        }
        made[label] = created.body.id;
      };
      await add("ada", {
        name: "Ada",
        email: "Ada@Example.com",
        position: "Backend engineer",
        source: "referral",
      });
      await add(
        "brian",
        { name: "Brian", email: "brian@example.com", position: "Designer", source: "job board" },
        ["screening"],
      );
      await add("cleo", { name: "Cleo", email: "cleo@example.com", position: "Backend engineer" }, [
        "screening",
        "interview",
        "offer",
        "hired",
      ]);
      await add(
        "dmitri",
        { name: "Dmitri", email: "dmitri@kernel.example", position: "SRE", source: "referral" },
        ["rejected"],
      );
    });

    const found = async (query: string) => {
      const response = await list(query, listOrg.key);
      expect(response.status, response.text).toBe(200);
      return new Set(ids(response));
    };
    const labels = (...names: string[]) => new Set(names.map((name) => made[name]));

    it("filters by one status or a comma list of statuses", async () => {
      expect(await found("status=applied")).toEqual(labels("ada"));
      expect(await found("status=hired,rejected")).toEqual(labels("cleo", "dmitri"));
      expect(await found("status=screening,interview,offer")).toEqual(labels("brian"));
    });

    it("refuses an unknown status with 400 naming status", async () => {
      const bad = await list("status=hired,ghosted", listOrg.key);
      expect(bad.status).toBe(400);
      expect(bad.body.errors).toEqual([expect.objectContaining({ param: "status" })]);
    });

    it("filters by position and by source, exactly", async () => {
      expect(await found("position=Backend%20engineer")).toEqual(labels("ada", "cleo"));
      expect(await found("position=backend%20engineer")).toEqual(labels());
      expect(await found("source=referral")).toEqual(labels("ada", "dmitri"));
      expect(await found("source=job%20board&status=screening")).toEqual(labels("brian"));
    });

    it("filters by email case-insensitively", async () => {
      expect(await found("email=ada@example.com")).toEqual(labels("ada"));
      expect(await found("email=BRIAN@EXAMPLE.COM")).toEqual(labels("brian"));
      expect(await found("email=nobody@example.com")).toEqual(labels());
    });

    it("searches name, email and position with q", async () => {
      expect(await found("q=cleo")).toEqual(labels("cleo"));
      expect(await found("q=kernel")).toEqual(labels("dmitri"));
      expect(await found("q=DESIGN")).toEqual(labels("brian"));
    });

    it("sorts by email and by name, ascending and descending", async () => {
      const byEmail = ids(await list("sort=email", listOrg.key));
      expect(byEmail).toEqual([made.ada, made.brian, made.cleo, made.dmitri]);
      expect(ids(await list("sort=-name", listOrg.key))).toEqual([
        made.dmitri,
        made.cleo,
        made.brian,
        made.ada,
      ]);
    });
  });

  describe("deleting", () => {
    it("refuses to delete a candidate that has skills with 409, and deletes it once they are gone", async () => {
      const candidate = await create();
      const skill = await t.request("POST", "/v1/skills", {
        key: org.key,
        body: { candidate_id: candidate.body.id, name: "COBOL" },
      });
      expect(skill.status, skill.text).toBe(201);
      const refused = await t.request("DELETE", `/v1/candidates/${candidate.body.id}`, { key: org.key });
      expect(refused.status).toBe(409);
      expect(refused.body.code).toBe("conflict");
      expect(refused.body.detail).toContain("has skills");
      expect((await t.request("GET", `/v1/candidates/${candidate.body.id}`, { key: org.key })).status).toBe(
        200,
      );
      await t.request("DELETE", `/v1/skills/${skill.body.id}`, { key: org.key });
      const deleted = await t.request("DELETE", `/v1/candidates/${candidate.body.id}`, { key: org.key });
      expect(deleted.status, deleted.text).toBe(204);
    });
  });

  describe("scopes", () => {
    it("lets a talent:read key list candidates and answers 403 to its writes and to other engines' keys", async () => {
      const reader = await org.addKey({ kind: "engine", engines: ["talent"], access: "read" });
      const finance = await org.addKey({ kind: "engine", engines: ["finance"], access: "write" });
      expect((await list("", reader)).status).toBe(200);
      const write = await create({}, reader);
      expect(write.status).toBe(403);
      expect(write.body.code).toBe("insufficient_scope");
      expect((await list("", finance)).status).toBe(403);
      const writer = await org.addKey({ kind: "engine", engines: ["talent"], access: "write" });
      expect((await create({}, writer)).status).toBe(201);
    });
  });
});
