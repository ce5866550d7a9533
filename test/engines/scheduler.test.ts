import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeClock, silentLogger } from "../../core/index.ts";
import { createScheduler, type ScheduledJob } from "../../engines/index.ts";
import type { Store } from "../../store/index.ts";
import { storeKinds } from "../helpers/stores.ts";

describe.each(storeKinds())("scheduler on $name", (kind) => {
  let store: Store;
  beforeAll(async () => {
    store = await kind.open();
  });
  afterAll(() => store.dispose());

  it("runs a tick on exactly one node, however many schedulers share the store", async () => {
    const runs: string[] = [];
    const name = `job-${Math.random().toString(36).slice(2)}`;
    const job = (node: string): ScheduledJob => ({
      name,
      schedule: "0 0 1 1 *",
      run: async () => void runs.push(node),
    });
    const clock = new FakeClock("2025-06-01T10:00:30Z");
    const a = createScheduler({ store, clock, log: silentLogger, jobs: [job("a")] });
    const b = createScheduler({ store, clock, log: silentLogger, jobs: [job("b")] });
    const results = await Promise.all([a.tick(name), b.tick(name), a.tick(name)]);
    expect(results.filter((r) => r === "ran")).toHaveLength(1);
    expect(runs).toHaveLength(1);

    clock.advance(60_000);
    expect(await b.tick(name)).toBe("ran");
    expect(runs).toHaveLength(2);
    await Promise.all([a.dispose(), b.dispose()]);
  });

  it("disposes what each job keeps between ticks when it is disposed, after the tick in flight", async () => {
    const events: string[] = [];
    const name = `keeps-${Math.random().toString(36).slice(2)}`;
    let finish: () => void = () => undefined;
    let started: () => void = () => undefined;
    const running = new Promise<void>((resolve) => (started = resolve));
    const scheduler = createScheduler({
      store,
      clock: new FakeClock("2025-06-01T10:00:00Z"),
      log: silentLogger,
      jobs: [
        {
          name,
          schedule: "0 0 1 1 *",
          run: () => {
            started();
            return new Promise<void>((resolve) => (finish = () => (events.push("ran"), resolve())));
          },
          dispose: () => void events.push("disposed"),
        },
      ],
    });
    const ticking = scheduler.tick(name);
    await running;
    const disposing = scheduler.dispose();
    finish();
    await Promise.all([ticking, disposing]);
    expect(events).toEqual(["ran", "disposed"]);
  });

  it("records a failing job and keeps the scheduler alive", async () => {
    const name = `fail-${Math.random().toString(36).slice(2)}`;
    const scheduler = createScheduler({
      store,
      clock: new FakeClock("2025-06-01T10:00:00Z"),
      log: silentLogger,
      jobs: [{ name, schedule: "0 0 1 1 *", run: () => Promise.reject(new Error("boom")) }],
    });
    expect(await scheduler.tick(name)).toBe("ran");
    const rows = await store.query<{ error: string }>("SELECT error FROM scheduled_runs WHERE job = $1", [
      name,
    ]);
    expect(rows[0]?.error).toBe("boom");
    await scheduler.dispose();
  });

  it("tells a job the minute of its latest earlier tick that finished without an error", async () => {
    const name = `prev-${Math.random().toString(36).slice(2)}`;
    const seen: Array<string | null> = [];
    let fail = false;
    const scheduler = createScheduler({
      store,
      clock: new FakeClock("2025-06-01T10:00:00Z"),
      log: silentLogger,
      jobs: [
        {
          name,
          schedule: "0 0 1 1 *",
          async run({ previousTick }) {
            seen.push((await previousTick!())?.toISOString() ?? null);
            if (fail) throw new Error("boom");
          },
        },
      ],
    });
    await scheduler.tick(name, new Date("2025-06-01T10:00:20Z"));
    await scheduler.tick(name, new Date("2025-06-01T10:01:00Z"));
    fail = true;
    await scheduler.tick(name, new Date("2025-06-01T10:02:00Z"));
    fail = false;
    // Minutes no node ran (10:03–10:06), then a tick: the failed 10:02 does not count as done.
    await scheduler.tick(name, new Date("2025-06-01T10:07:00Z"));
    // A tick run late for an earlier minute sees only the ticks before it.
    await scheduler.tick(name, new Date("2025-06-01T10:05:00Z"));
    expect(seen).toEqual([
      null,
      "2025-06-01T10:00:00.000Z",
      "2025-06-01T10:01:00.000Z",
      "2025-06-01T10:01:00.000Z",
      "2025-06-01T10:01:00.000Z",
    ]);
    await scheduler.dispose();
  });
});
