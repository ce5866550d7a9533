import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { collectUpload } from "../../cli/functions.ts";
import { createLogger, silentLogger } from "../../core/index.ts";
import {
  createFunctionRunWorker,
  createCronMatcher,
  EVENT_RUN_ATTEMPTS,
  functionJobs,
  queueCronRuns,
  type FunctionRunWorker,
} from "../../runtime/index.ts";
import { useTestApp, type TestOrg } from "../helpers/app.ts";
import { storeKinds } from "../helpers/stores.ts";
import { countingStore } from "../helpers/counting-store.ts";

const EXAMPLES = fileURLToPath(new URL("../../examples/functions/", import.meta.url));

/**
 * Triggers beyond HTTP: event subscriptions and cron schedules queue runs in the store;
 * the run worker runs each as a POST to the function, acting as the key that deployed it.
 */

/** Records what each run saw in engine state, under the run id; answers with `?status`'s code. */
const RECORDER = `
export default {
  async fetch(req, env, ctx) {
    const body = await req.json();
    const me = await ctx.platform.fetch("/v1/me");
    await ctx.engines.sync.set(req.headers.get("tessera-run-id"), {
      method: req.method,
      url: req.url,
      trigger: req.headers.get("tessera-trigger"),
      event_id: req.headers.get("tessera-event-id"),
      attempt: req.headers.get("tessera-attempt"),
      body,
      user: ctx.user && { key_id: ctx.user.key_id, organization_id: ctx.user.organization_id },
      me: me.status,
    });
    console.log("ran", req.headers.get("tessera-trigger"));
    return new Response(null, { status: Number(env.ANSWER ?? 200) });
  },
};`;

describe.each(storeKinds())("function triggers on $name", (kind) => {
  let org: TestOrg;
  let worker: FunctionRunWorker;
  const ORIGIN = "http://tessera.test:8080";

  const t = useTestApp(kind);
  const cron = createCronMatcher();

  beforeAll(async () => {
    // Only this suite makes runs; one a killed earlier run left in a shared database would be claimed here.
    await t.store.query("DELETE FROM function_runs");
    worker = createFunctionRunWorker({
      store: t.store,
      clock: t.clock,
      log: silentLogger,
      invoker: t.invoker,
      config: t.config.functions,
      origin: ORIGIN,
      random: () => 0.5,
    });
  });
  // Each test has an organization of its own; its functions go (with their runs) after it.
  beforeEach(async () => {
    t.clock.set("2026-01-15T10:00:00Z");
    org = await t.newOrg();
  });
  afterEach(async () => {
    await t.store.query("DELETE FROM functions WHERE org_id = $1", [org.id]);
  });
  afterAll(async () => {
    await cron.dispose();
    await worker.dispose();
  });

  const deploy = (name: string, body: Record<string, unknown>, key = org.key) =>
    t.request("POST", "/v1/functions", {
      key,
      // A cold first run on a loaded machine can pass the 50 ms default; CPU limits have their own tests.
      body: { name, files: { "index.ts": RECORDER }, limits: { cpu_time_ms: 1_000 }, ...body },
    });
  const runsOf = async (name: string, query = "", key = org.key) =>
    (await t.request("GET", `/v1/functions/${name}/runs${query}`, { key })).body.data as Array<
      Record<string, unknown>
    >;
  const seen = async (runId: string, key = org.key) =>
    (await t.request("GET", `/v1/engines/sync/state/${runId}`, { key })).body?.value;
  const newContact = (key = org.key) =>
    t.request("POST", "/v1/contacts", { key, body: { name: `Ada ${Math.random()}` } });
  const eventsOf = (orgId: string, type: string) =>
    t.store.query<{ data: { object: Record<string, unknown> } }>(
      "SELECT data FROM events WHERE org_id = $1 AND type = $2 ORDER BY seq",
      [orgId, type],
    );

  it("checks triggers at deploy: unknown event kinds, bad schedules and time zones are 422 naming each", async () => {
    const bad = await deploy("bad-triggers", {
      triggers: [
        { type: "event", events: ["contact.created", "contact.exploded"] },
        { type: "cron", schedule: "0 25 * * *" },
        { type: "cron", schedule: "*/10 * * * * *" },
        { type: "cron", schedule: "0 9 * * *", timezone: "Mars/Olympus" },
      ],
    });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.map((e: { param: string; code: string }) => [e.param, e.code])).toEqual([
      ["triggers[0].events[1]", "unknown_event_type"],
      ["triggers[1].schedule", "invalid_schedule"],
      ["triggers[2].schedule", "invalid_schedule"],
      ["triggers[3].timezone", "invalid_timezone"],
    ]);
    const shape = await deploy("bad-triggers", { triggers: [{ type: "webhook", url: "x" }] });
    expect(shape.status).toBe(422);
    const none = await t.request("GET", "/v1/functions/bad-triggers", { key: org.key });
    expect(none.status).toBe(404);
  });

  it("lets only a key that can read events deploy event triggers (403 otherwise)", async () => {
    const narrow = await org.addKey({ kind: "full_access", name: "functions only" });
    // No key kind is this narrow today; the rule holds for whatever scopes a key has.
    await t.store.query("UPDATE api_keys SET scopes = '{functions:write}' WHERE org_id = $1 AND name = $2", [
      org.id,
      "functions only",
    ]);
    const refused = await deploy("nosy", { triggers: [{ type: "event", events: ["candidate.*"] }] }, narrow);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: "insufficient_scope" });
    expect(refused.headers.get("www-authenticate")).toContain('scope="webhooks:read"');
    const cron = await deploy("nosy", { triggers: [{ type: "cron", schedule: "0 * * * *" }] }, narrow);
    expect(cron.status).toBe(201);
    // New code under event triggers a wider key set up would receive the events just the same.
    expect((await deploy("watched", { triggers: [{ type: "event", events: ["contact.*"] }] })).status).toBe(
      201,
    );
    const redeploy = await deploy("watched", {}, narrow);
    expect(redeploy.status).toBe(403);
    expect((await t.request("GET", "/v1/functions/watched", { key: org.key })).body.version).toBe(1);
  });

  it("keeps a deployment's triggers on redeploy unless given, and [] removes them", async () => {
    const triggers = [
      { type: "event", events: ["invoice.*"] },
      { type: "cron", schedule: "0 8 * * mon-fri", timezone: "Europe/Berlin" },
    ];
    const first = await deploy("keeper", { triggers });
    expect(first.status).toBe(201);
    expect(first.body.triggers).toEqual(triggers);
    const second = await deploy("keeper", {});
    expect(second.body).toMatchObject({ version: 2, triggers });
    const deployment = await t.request("GET", "/v1/functions/keeper/deployments/2", { key: org.key });
    expect(deployment.body.triggers).toEqual(triggers);
    const third = await deploy("keeper", { triggers: [] });
    expect(third.body.triggers).toEqual([]);
    const columns = await t.store.query("SELECT event_types, crons FROM functions WHERE id = $1", [
      first.body.id,
    ]);
    expect(columns[0]).toEqual({ event_types: null, crons: null });
  });

  it("runs a subscribed function once per event, as a POST acting as the deploying key", async () => {
    const fn = await deploy("on-contact", { triggers: [{ type: "event", events: ["contact.created"] }] });
    expect(fn.status).toBe(201);
    const contact = await newContact();
    const [queued] = await runsOf("on-contact");
    expect(queued).toMatchObject({
      object: "function_run",
      function_id: fn.body.id,
      trigger: "event",
      event_type: "contact.created",
      status: "pending",
      attempts: 0,
      max_attempts: EVENT_RUN_ATTEMPTS,
    });
    expect(await worker.runOnce()).toBe(1);
    const [run] = await runsOf("on-contact");
    expect(run).toMatchObject({
      id: queued!.id,
      status: "succeeded",
      attempts: 1,
      version: 1,
      last_status_code: 200,
    });
    expect(run!.request_id).toMatch(/^req_/);
    const saw = await seen(run!.id as string);
    expect(saw).toMatchObject({
      method: "POST",
      url: `${ORIGIN}/v1/functions/on-contact/invoke`,
      trigger: "event",
      event_id: run!.event_id,
      attempt: "1",
      body: {
        object: "event",
        id: run!.event_id,
        type: "contact.created",
        data: { object: { id: contact.body.id } },
      },
      user: { key_id: org.keyId, organization_id: org.id },
      me: 200,
    });
    // The run's lines are saved once it is over, a moment after the run is recorded.
    const logs = `/v1/functions/on-contact/logs?request_id=${String(run!.request_id)}`;
    await expect
      .poll(
        async () =>
          (await t.request("GET", logs, { key: org.key })).body.data.map(
            (line: { message: string }) => line.message,
          ),
        { timeout: 10_000 },
      )
      .toEqual(["ran event"]);
    // Nothing more is due.
    expect(await worker.runOnce()).toBe(0);
  });

  it("queues nothing for another organization's events, nor for a kind not subscribed", async () => {
    await deploy("tenant-a", { triggers: [{ type: "event", events: ["contact.created"] }] });
    const other = await t.newOrg();
    await newContact(other.key);
    await t.request("POST", "/v1/invoices", {
      key: org.key,
      body: { client: "Acme", amount: "10.00", currency: "EUR", due_date: "2026-02-01" },
    });
    expect(await runsOf("tenant-a")).toEqual([]);
    // The other organization cannot see this organization's function or its runs.
    expect((await t.request("GET", "/v1/functions/tenant-a/runs", { key: other.key })).status).toBe(404);
  });

  it("retries a faulting event run with backoff, then fails it for good with function.run_failed", async () => {
    await deploy("always-throws", {
      files: { "index.ts": `export default () => { throw new Error("boom"); }` },
      triggers: [{ type: "event", events: ["contact.*"] }],
    });
    await newContact();
    const delays: number[] = [];
    for (let attempt = 1; attempt <= 5; attempt++) {
      expect(await worker.runOnce()).toBe(1);
      const [run] = await runsOf("always-throws");
      expect(run).toMatchObject({ attempts: attempt, last_status_code: null });
      expect(run!.last_error).toMatch(/^function_failed/);
      if (attempt < 5) {
        expect(run!.status).toBe("pending");
        const due = new Date(run!.next_attempt_at as string).getTime();
        delays.push(due - t.clock.nowMs());
        expect(await worker.runOnce()).toBe(0);
        t.clock.set(new Date(due));
      } else {
        expect(run).toMatchObject({ status: "failed", next_attempt_at: null });
      }
    }
    expect(delays).toEqual([10_000, 60_000, 600_000, 3_600_000]);
    const [failed] = await eventsOf(org.id, "function.run_failed");
    expect(failed!.data.object).toMatchObject({ object: "function_run", status: "failed", attempts: 5 });

    const [run] = await runsOf("always-throws");
    const retried = await t.request("POST", `/v1/functions/always-throws/runs/${String(run!.id)}/retry`, {
      key: org.key,
    });
    expect(retried.body).toMatchObject({ status: "pending", attempts: 0 });
    const again = await t.request("POST", `/v1/functions/always-throws/runs/${String(run!.id)}/retry`, {
      key: org.key,
    });
    expect(again.status).toBe(409);
    expect(await worker.runOnce()).toBe(1);
    expect((await runsOf("always-throws"))[0]).toMatchObject({ status: "pending", attempts: 1 });
    await t.request("DELETE", "/v1/functions/always-throws", { key: org.key });
  });

  it("fails a run at once when the function answers 4xx, and retries 5xx", async () => {
    await deploy("answers", { triggers: [{ type: "event", events: ["contact.updated"] }] });
    await t.request("PUT", "/v1/functions/answers/secrets", { key: org.key, body: { ANSWER: "400" } });
    const contact = await newContact();
    await t.request("PATCH", `/v1/contacts/${contact.body.id}`, { key: org.key, body: { name: "Grace" } });
    await worker.runOnce();
    expect((await runsOf("answers"))[0]).toMatchObject({
      status: "failed",
      attempts: 1,
      last_status_code: 400,
      last_error: "the function answered 400",
    });
    await t.request("PUT", "/v1/functions/answers/secrets", { key: org.key, body: { ANSWER: "503" } });
    t.clock.set("2026-01-15T10:00:01Z");
    await t.request("PATCH", `/v1/contacts/${contact.body.id}`, { key: org.key, body: { name: "Hopper" } });
    await worker.runOnce();
    expect((await runsOf("answers"))[0]).toMatchObject({
      status: "pending",
      attempts: 1,
      last_status_code: 503,
    });
  });

  it("fails an event run at once when its event was purged meanwhile", async () => {
    await deploy("late", { triggers: [{ type: "event", events: ["contact.created"] }] });
    await newContact();
    const [queued] = await runsOf("late");
    await t.store.query("DELETE FROM events WHERE id = $1", [queued!.event_id]);
    await worker.runOnce();
    expect((await runsOf("late"))[0]).toMatchObject({
      status: "failed",
      attempts: 1,
      last_error: "the event (purged by its retention) is gone",
    });
  });

  it("serves the subscriptions of the deployment it serves: rollback brings them back", async () => {
    await deploy("switcher", { triggers: [{ type: "event", events: ["contact.created"] }] });
    await deploy("switcher", { triggers: [] });
    await newContact();
    expect(await runsOf("switcher")).toEqual([]);
    await t.request("POST", "/v1/functions/switcher/rollback", { key: org.key, body: {} });
    await newContact();
    expect(await runsOf("switcher")).toHaveLength(1);
    await t.request("DELETE", "/v1/functions/switcher", { key: org.key });
    expect(
      await t.store.query(
        "SELECT 1 FROM function_runs WHERE function_id IN (SELECT id FROM functions WHERE name = 'switcher')",
      ),
    ).toEqual([]);
  });

  it("queues one run per due cron schedule and minute, in the schedule's time zone", async () => {
    const fn = await deploy("nightly", {
      triggers: [
        { type: "cron", schedule: "*/15 * * * *" },
        { type: "cron", schedule: "0 9 * * *", timezone: "Europe/Berlin" },
      ],
    });
    const [job] = functionJobs(t.config).filter((j) => j.name === "function-crons");
    expect(job!.schedule).toBe("* * * * *");
    const mine = async () =>
      (
        await t.store.query<{ schedule: string; scheduled_for: Date }>(
          "SELECT schedule, scheduled_for FROM function_runs WHERE function_id = $1 ORDER BY scheduled_for, schedule",
          [fn.body.id],
        )
      ).map((row) => `${row.schedule}@${row.scheduled_for.toISOString()}`);
    await job!.run({ store: t.store, now: new Date("2026-01-15T08:00:20Z"), log: silentLogger });
    await job!.run({ store: t.store, now: new Date("2026-01-15T08:01:00Z"), log: silentLogger });
    // The same minute again (a second node, a repeat): no second run.
    expect(await queueCronRuns(t.store, cron, new Date("2026-01-15T08:00:40Z"))).toBe(0);
    expect(await mine()).toEqual([
      "*/15 * * * *@2026-01-15T08:00:00.000Z",
      "0 9 * * *@2026-01-15T08:00:00.000Z",
    ]);

    t.clock.set("2026-01-15T08:00:30Z");
    expect(await worker.runOnce()).toBe(2);
    const runs = await runsOf("nightly", "?trigger=cron");
    expect(runs.map((run) => run.status)).toEqual(["succeeded", "succeeded"]);
    expect(runs[0]).toMatchObject({ max_attempts: 1, scheduled_for: "2026-01-15T08:00:00Z" });
    const saw = await seen(runs[0]!.id as string);
    expect(saw).toMatchObject({
      trigger: "cron",
      event_id: null,
      body: { object: "cron_tick", scheduled_time: "2026-01-15T08:00:00Z" },
    });
    await t.request("DELETE", "/v1/functions/nightly", { key: org.key });
  });

  it("after minutes no node ran, runs each schedule's latest missed instant once, within the window", async () => {
    // Deployed Thursday 2026-01-15 10:00 UTC; the scheduler's last tick was 10:05 that day.
    const fn = await deploy("catch-up", {
      triggers: [
        { type: "cron", schedule: "0 9 * * *" }, // daily: missed Friday and Saturday, run once, for Saturday
        { type: "cron", schedule: "*/15 * * * *" }, // due now: the tick's own run, no catch-up
        { type: "cron", schedule: "0 10 * * fri" }, // missed Friday 10:00, inside the window
        { type: "cron", schedule: "0 8 16 1 *" }, // missed Friday 08:00, before the 24 h window
      ],
    });
    t.clock.set("2026-01-17T08:30:00Z");
    // Deployed after the instants it would have missed (08:00 each day): nothing to catch up.
    const late = await deploy("late-deploy", { triggers: [{ type: "cron", schedule: "0 8 * * *" }] });
    const runsOfFn = async (id: string) =>
      (
        await t.store.query<{ schedule: string; scheduled_for: Date }>(
          "SELECT schedule, scheduled_for FROM function_runs WHERE function_id = $1 ORDER BY scheduled_for, schedule",
          [id],
        )
      ).map((row) => `${row.schedule}@${row.scheduled_for.toISOString()}`);
    const [job] = functionJobs(t.config).filter((j) => j.name === "function-crons");
    const logged: Array<Record<string, unknown>> = [];
    const log = createLogger({ level: "info", write: (line) => logged.push(JSON.parse(line)) });
    const tick = (now: string, since: string | null) =>
      job!.run({
        store: t.store,
        now: new Date(now),
        log,
        previousTick: () => Promise.resolve(since === null ? null : new Date(since)),
      });

    // No earlier tick known (a first start): only what is due now.
    await tick("2026-01-17T09:30:10Z", null);
    expect(await runsOfFn(fn.body.id)).toEqual(["*/15 * * * *@2026-01-17T09:30:00.000Z"]);
    await tick("2026-01-17T09:30:10Z", "2026-01-15T10:05:00Z");
    // The same tick again (a repeat, a second node): nothing more.
    await tick("2026-01-17T09:30:40Z", "2026-01-15T10:05:00Z");
    expect(await runsOfFn(fn.body.id)).toEqual([
      "0 10 * * fri@2026-01-16T10:00:00.000Z",
      "0 9 * * *@2026-01-17T09:00:00.000Z",
      "*/15 * * * *@2026-01-17T09:30:00.000Z",
    ]);
    expect(await runsOfFn(late.body.id)).toEqual([]);
    // The operator is told, once per tick that follows a gap.
    expect(logged).toMatchObject([
      {
        level: "info",
        msg: "the scheduler missed minutes: running cron schedules that fell due meanwhile",
        since: "2026-01-15T10:05:00.000Z",
        missed_minutes: 2844,
      },
      { missed_minutes: 2844 },
    ]);

    // The worker runs a caught-up run as the tick it stands for.
    t.clock.set("2026-01-17T09:31:00Z");
    expect(await worker.runOnce()).toBe(3);
    const [daily] = (await runsOf("catch-up", "?trigger=cron")).filter((run) => run.schedule === "0 9 * * *");
    expect(daily).toMatchObject({ status: "succeeded", scheduled_for: "2026-01-17T09:00:00Z" });
    expect(await seen(daily!.id as string)).toMatchObject({
      body: { object: "cron_tick", scheduled_time: "2026-01-17T09:00:00Z" },
    });

    // With the window at 0 hours, nothing missed is run.
    const none = functionJobs({
      functions: { ...t.config.functions, cronCatchUpHours: 0 },
    }).find((j) => j.name === "function-crons")!;
    await none.run({
      store: t.store,
      now: new Date("2026-01-18T09:01:00Z"),
      log: silentLogger,
      previousTick: () => Promise.resolve(new Date("2026-01-17T09:31:00Z")),
    });
    expect(await runsOfFn(fn.body.id)).toHaveLength(3);
    for (const name of ["catch-up", "late-deploy"]) {
      await t.request("DELETE", `/v1/functions/${name}`, { key: org.key });
    }
  });

  it("runs the overdue-reminder example, unchanged, on a weekday-morning cron schedule", async () => {
    const files = await collectUpload(join(EXAMPLES, "overdue-reminder"));
    const deployed = await deploy("overdue-reminder", {
      files,
      triggers: [{ type: "cron", schedule: "0 8 * * mon-fri", timezone: "Europe/Berlin" }],
    });
    expect(deployed.status, deployed.text).toBe(201);
    for (const [number, dueDate] of [
      ["INV-7001", "2026-01-02"],
      ["INV-7002", "2026-01-09"],
    ]) {
      const created = await t.request("POST", "/v1/invoices", {
        key: org.key,
        body: {
          number,
          client: "Acme Corp",
          amount: 100,
          currency: "EUR",
          status: "open",
          due_date: dueDate,
        },
      });
      expect(created.status, created.text).toBe(201);
    }
    // Thursday 2026-01-15, 07:00 UTC is 08:00 in Berlin: due. Saturday the 17th is not.
    expect(await queueCronRuns(t.store, cron, new Date("2026-01-17T07:00:00Z"))).toBe(0);
    expect(await queueCronRuns(t.store, cron, new Date("2026-01-15T07:00:00Z"))).toBe(1);
    t.clock.set("2026-01-15T07:00:01Z");
    expect(await worker.runOnce()).toBe(1);
    const [run] = await runsOf("overdue-reminder");
    expect(run, String(run!.last_error)).toMatchObject({ status: "succeeded", last_status_code: 200 });
    for (const number of ["INV-7001", "INV-7002"]) {
      const state = await t.request("GET", `/v1/engines/finance/state/overdue-reminder:${number}`, {
        key: org.key,
      });
      expect(state.body?.value).toMatchObject({ client: "Acme Corp" });
    }
  });

  it("runs as nobody once the deploying key is revoked: ctx.user is null, platform.fetch is 401", async () => {
    const deployer = await org.addKey({ kind: "full_access", name: "ci" });
    await deploy("orphan", { triggers: [{ type: "event", events: ["contact.created"] }] }, deployer);
    const keys = await t.request("GET", "/v1/api_keys?per_page=100", { key: org.key });
    const ci = keys.body.data.find((key: { name: string }) => key.name === "ci");
    expect((await t.request("POST", `/v1/api_keys/${ci.id}/revoke`, { key: org.key })).status).toBe(200);
    await newContact();
    await worker.runOnce();
    const [run] = await runsOf("orphan");
    expect(run!.status).toBe("succeeded");
    expect(await seen(run!.id as string)).toMatchObject({ user: null, me: 401 });
  });

  it("does not run a function for the failure of its own run", async () => {
    await deploy("self-loop", {
      files: { "index.ts": `export default () => new Response("no", { status: 500 })` },
      triggers: [
        { type: "cron", schedule: "* * * * *" },
        { type: "event", events: ["function.run_failed"] },
      ],
    });
    t.clock.set("2026-01-15T12:00:05Z");
    await queueCronRuns(t.store, cron, t.clock.now());
    expect(await worker.runOnce()).toBeGreaterThanOrEqual(1);
    const runs = await runsOf("self-loop");
    expect(runs.map((run) => [run.trigger, run.status])).toEqual([["cron", "failed"]]);
    await t.request("DELETE", "/v1/functions/self-loop", { key: org.key });
  });

  it("takes back a run whose worker died once its lease passes, and fails it with no attempt left", async () => {
    await deploy("lease", { triggers: [{ type: "cron", schedule: "* * * * *" }] });
    t.clock.set("2026-01-15T13:00:00Z");
    await queueCronRuns(t.store, cron, t.clock.now());
    // A worker claimed it and died: attempts counted, lease held.
    await t.store.query(
      `UPDATE function_runs SET status = 'running', attempts = 1, locked_by = 'dead', locked_until = $1::timestamptz
       WHERE function_id = (SELECT id FROM functions WHERE org_id = $2 AND name = 'lease')`,
      ["2026-01-15T13:05:00Z", org.id],
    );
    expect(await worker.runOnce()).toBe(0);
    expect((await runsOf("lease"))[0]!.status).toBe("running");
    t.clock.set("2026-01-15T13:05:01Z");
    await worker.runOnce();
    expect((await runsOf("lease"))[0]).toMatchObject({
      status: "failed",
      last_error: "the worker running it stopped before it finished",
    });
    await t.request("DELETE", "/v1/functions/lease", { key: org.key });
  });

  it("waits while a slow run is in flight instead of asking the t.store again and again", async () => {
    await deploy("slow", {
      files: {
        "index.ts": `export default async () => { await new Promise((r) => setTimeout(r, 1500)); return new Response("done"); }`,
      },
      triggers: [{ type: "event", events: ["contact.created"] }],
    });
    const counted = countingStore(t.store);
    const looping = createFunctionRunWorker({
      store: counted.store,
      clock: t.clock,
      log: silentLogger,
      invoker: t.invoker,
      config: t.config.functions,
      origin: ORIGIN,
      pollMs: 500,
    });
    looping.start();
    try {
      await newContact();
      for (let i = 0; i < 100; i++) {
        const [run] = await runsOf("slow");
        if (run?.status === "succeeded") break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect((await runsOf("slow"))[0]!.status).toBe("succeeded");
    } finally {
      await looping.dispose();
    }
    // About 1.5 s of a run in flight at a 500 ms poll: a handful of cycles, not a busy loop.
    expect(counted.calls()).toBeLessThan(40);
  });

  it("starts a cron run now on request: the only schedule or the one named; 422 without one, 403/404 for others", async () => {
    await deploy("hourly", { triggers: [{ type: "cron", schedule: "0 * * * *" }] });
    t.clock.set("2026-01-15T10:20:05Z");
    const start = (name: string, body: Record<string, unknown> = {}, key = org.key) =>
      t.request("POST", `/v1/functions/${name}/runs`, { key, body });
    const started = await start("hourly");
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({
      object: "function_run",
      trigger: "cron",
      schedule: "0 * * * *",
      scheduled_for: "2026-01-15T10:20:05Z",
      status: "pending",
      max_attempts: 1,
    });
    // The same instant twice is one run.
    expect((await start("hourly")).status).toBe(409);
    expect(await worker.runOnce()).toBe(1);
    const run = await t.request("GET", `/v1/functions/hourly/runs/${String(started.body.id)}`, {
      key: org.key,
    });
    expect(run.body.status).toBe("succeeded");
    expect(await seen(started.body.id as string)).toMatchObject({
      trigger: "cron",
      body: { object: "cron_tick", schedule: "0 * * * *", scheduled_time: "2026-01-15T10:20:05Z" },
    });

    await deploy("twice", {
      triggers: [
        { type: "cron", schedule: "0 8 * * *" },
        { type: "cron", schedule: "0 20 * * *" },
      ],
    });
    const codeOf = async (
      answer: Promise<{ status: number; body: { errors?: Array<{ code: string }> } }>,
    ) => {
      const { status, body } = await answer;
      return [status, body.errors?.[0]?.code];
    };
    expect(await codeOf(start("twice"))).toEqual([422, "required"]);
    expect(await codeOf(start("twice", { schedule: "0 9 * * *" }))).toEqual([422, "unknown_schedule"]);
    expect(await codeOf(start("twice", { every: "minute" }))).toEqual([422, "unrecognized_keys"]);
    expect((await start("twice", { schedule: "0 20 * * *" })).body.schedule).toBe("0 20 * * *");
    await deploy("plain", {});
    expect(await codeOf(start("plain"))).toEqual([422, "no_cron_trigger"]);

    const reader = await org.addKey({ kind: "read_only", name: "reader" });
    expect((await start("hourly", {}, reader)).status).toBe(403);
    const other = await t.newOrg();
    expect((await start("hourly", {}, other.key)).status).toBe(404);
    expect((await runsOf("hourly")).length).toBe(1);
  });

  it("answers 404 for a run id of another function or a malformed one", async () => {
    await deploy("lookup", {});
    expect((await t.request("GET", "/v1/functions/lookup/runs/frun_nope", { key: org.key })).status).toBe(
      404,
    );
    const id = `frun_${"0".repeat(32)}`;
    const missing = await t.request("GET", `/v1/functions/lookup/runs/${id}`, { key: org.key });
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe("not_found");
  });
});

describe("createCronMatcher", () => {
  it("reads schedules as node-cron does, in the given time zone", async () => {
    const matcher = createCronMatcher();
    const cronMatches = matcher.matches.bind(matcher);
    const at = (iso: string) => new Date(iso);
    expect(cronMatches("*/5 9-17 * * mon-fri", "Europe/Berlin", at("2026-11-25T08:05:00Z"))).toBe(true);
    expect(cronMatches("*/5 9-17 * * mon-fri", "Europe/Berlin", at("2026-11-25T08:06:00Z"))).toBe(false);
    expect(cronMatches("*/5 9-17 * * mon-fri", "Europe/Berlin", at("2026-11-25T07:05:00Z"))).toBe(false);
    expect(cronMatches("*/5 9-17 * * mon-fri", "UTC", at("2026-11-28T09:05:00Z"))).toBe(false);
    expect(cronMatches("0 0 1 * *", "UTC", at("2026-12-01T00:00:00Z"))).toBe(true);
    await matcher.dispose();
  });
});
