import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { FakeClock } from "../../core/index.ts";
import { createSandbox, type Sandbox } from "../../sandbox/index.ts";
import {
  failure,
  fixture,
  hostFor,
  json,
  key,
  loaderOf,
  recordingIO,
  request,
  SANDBOX_OPTIONS,
} from "./helpers.ts";

/**
 * The Sandbox owns every isolate it boots, its spare isolates, its watchdog and its
 * caches: disposing it frees them all, and two sandboxes in one process share none.
 */
const ECHO = fixture("echo");
const sandboxes: Sandbox[] = [];
function sandbox(options: Partial<Parameters<typeof createSandbox>[0]> = {}): Sandbox {
  const made = createSandbox({ ...SANDBOX_OPTIONS, ...options });
  sandboxes.push(made);
  return made;
}
afterEach(async () => {
  for (const made of sandboxes.splice(0)) await made.dispose();
});

/** Invokes `source` in a standalone host until the sandbox's watchdog has taken its isolate over. */
async function untilWatched(box: Sandbox, host: Awaited<ReturnType<typeof hostFor>>): Promise<void> {
  for (let i = 0; i < 300; i++) {
    const before = (await box.stats()).entries.armed;
    await (
      await host.invoke(request(), recordingIO())
    ).finished;
    if ((await box.stats()).entries.armed > before) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error("the watchdog never covered the isolate");
}

const turn = () => new Promise((resolve) => setTimeout(resolve, 20));

describe("a sandbox", () => {
  it("disposes its pooled and standalone isolates, its spare isolates and its watchdog", async () => {
    const box = sandbox();
    expect((await box.invoke(key("fn_echo"), loaderOf(ECHO), request(), recordingIO())).status).toBe(200);
    const standalone = await hostFor(ECHO, undefined, undefined, box);
    await untilWatched(box, standalone);
    await turn(); // spares are made a turn after a cold start
    const before = await box.stats();
    expect(before.isolates).toBe(1);
    expect(before.spareIsolates).toBeGreaterThan(0);

    await box.dispose();
    expect(standalone.healthy).toBe(false);
    const after = await box.stats();
    expect(after).toMatchObject({ isolates: 0, heapUsedBytes: 0, spareIsolates: 0 });
    await turn();
    expect((await box.stats()).spareIsolates).toBe(0); // and makes no more
    await box.dispose(); // again: nothing left to do
  });

  it("refuses work once disposed, with a typed error", async () => {
    const box = sandbox();
    await box.dispose();
    expect((await failure(box.invoke(key("fn_echo"), loaderOf(ECHO), request(), recordingIO()))).code).toBe(
      "disposed",
    );
    expect((await failure(hostFor(ECHO, undefined, undefined, box))).code).toBe("disposed");
  });

  it("refuses a standalone host that finished booting after it was disposed", async () => {
    const box = sandbox();
    // Disposed while the boot is under way (begun, not finished): waiting a turn or more
    // first would race the boot, which a ready blank isolate can finish within one.
    const booting = hostFor(ECHO, undefined, undefined, box);
    await box.dispose();
    expect((await failure(booting)).code).toBe("disposed");
  });

  it("lets the process exit at once when disposed: its watchdog's loop does not linger", () => {
    const script = fileURLToPath(new URL("../fixtures/sandbox-dispose.ts", import.meta.url));
    const child = spawnSync(process.execPath, ["--no-node-snapshot", "--import", "tsx", script], {
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(child.stderr).toBe("");
    const [covered, exited] = child.stdout.trim().split("\n");
    expect(covered).toBe("covered");
    // Left alone, the watchdog's loop returns a second after the last entry (watchdog.ts, IDLE_MS).
    const ms = Number(/^exited (\d+) ms/.exec(exited ?? "")?.[1]);
    expect(ms).toBeLessThan(800);
    expect(child.status).toBe(0);
  });

  it("retires an isolate idle past idleTimeoutMs on its clock, stepped rather than slept", async () => {
    const clock = new FakeClock();
    const box = sandbox({ idleTimeoutMs: 60_000, clock });
    await box.invoke(key("fn_echo"), loaderOf(ECHO), request(), recordingIO());
    await box.sweep(); // sees the use: idle from now on
    clock.advance(60_000);
    await box.sweep();
    expect((await box.stats()).isolates).toBe(1);
    clock.advance(1);
    await box.sweep();
    expect((await box.stats()).isolates).toBe(0);
    // Retired, not broken: the next request boots it again.
    expect(
      await json(await box.invoke(key("fn_echo"), loaderOf(ECHO), request(), recordingIO())),
    ).toMatchObject({ served: 1 });
  });
});

describe("two sandboxes in one process", () => {
  it("share no spare isolates, watchdog or isolates: disposing one leaves the other serving", async () => {
    const a = sandbox();
    const b = sandbox();
    const host = await hostFor(ECHO, undefined, undefined, a);
    await untilWatched(a, host);
    await turn();
    expect((await a.stats()).spareIsolates).toBeGreaterThan(0);
    expect(await b.stats()).toMatchObject({
      isolates: 0,
      spareIsolates: 0,
      entries: { armed: 0, fallbacks: 0, stopped: 0 },
    });

    await b.invoke(key("fn_echo"), loaderOf(ECHO), request(), recordingIO());
    await a.dispose();
    expect(host.healthy).toBe(false);
    const again = await b.invoke(key("fn_echo"), loaderOf(ECHO), request(), recordingIO());
    expect(await json(again)).toMatchObject({ served: 2 });
    expect((await b.stats()).isolates).toBe(1);
  });
});

describe("the guest platform's bundle", () => {
  it("is ASCII, so V8 keeps its source as a one-byte string in every isolate (half the bytes)", async () => {
    const { buildGuestPlatform } = await import("../../sandbox/index.ts");
    const platform = await buildGuestPlatform();
    const outside = [...platform.code].filter((char) => char.charCodeAt(0) > 0x7f);
    expect(outside).toEqual([]);
    expect(platform.code.length).toBeGreaterThan(100_000);
  });
});
