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
});
