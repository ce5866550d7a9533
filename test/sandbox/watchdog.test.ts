import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import ivm, { type IsolatedVM } from "../../sandbox/isolated-vm/index.ts";
import { afterEach, describe, expect, it } from "vitest";
import { createWatchdog, type Watchdog } from "../../sandbox/watchdog.ts";
import { failure, hostFor, LIMITS, recordingIO, request, testSandbox } from "./helpers.ts";

/** isolated-vm's own timeout, far past the watchdog's deadlines: a broken watchdog fails a test instead of hanging it. */
const SAFETY_NET_MS = 10_000;
const isolates: IsolatedVM.Isolate[] = [];
const dogs: Watchdog[] = [];

afterEach(() => {
  for (const dog of dogs.splice(0)) dog.stop();
  for (const isolate of isolates.splice(0)) if (!isolate.isDisposed) isolate.dispose();
});

function setup(): { dog: Watchdog; isolate: IsolatedVM.Isolate; run: (code: string) => unknown; id: number } {
  const dog = createWatchdog();
  dogs.push(dog);
  const isolate = new ivm.Isolate({ memoryLimit: 16 });
  isolates.push(isolate);
  const context = isolate.createContextSync();
  const id = dog.register(isolate);
  return { dog, isolate, id, run: (code) => context.evalSync(code, { timeout: SAFETY_NET_MS }) };
}

/** Arms until the loop has taken the isolate over (it starts on the first entry, off the Node thread). */
async function armWhenCovered(dog: Watchdog, id: number, wallMs: number): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (dog.arm(id, wallMs)) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error("the watchdog never covered the isolate");
}

describe("the watchdog", () => {
  it("stops a synchronous entry that loops past its deadline, and says so", async () => {
    const { dog, isolate, id, run } = setup();
    await armWhenCovered(dog, id, 50);
    expect(() => run("for (;;) {}")).toThrow(/disposed/);
    expect(dog.disarm()).toBe(true);
    expect(isolate.isDisposed).toBe(true);
  });

  it("stops a loop in a microtask continuation: the checkpoint runs inside the entry", async () => {
    const { dog, isolate, id, run } = setup();
    await armWhenCovered(dog, id, 50);
    expect(() => run("(async () => { await null; for (;;) {} })(); 'returned'")).toThrow(/disposed/);
    expect(dog.disarm()).toBe(true);
    expect(isolate.isDisposed).toBe(true);
  });

  it("leaves an entry that returns in time alone, entry after entry", async () => {
    const { dog, isolate, id, run } = setup();
    await armWhenCovered(dog, id, 5_000);
    expect(run("1 + 1")).toBe(2);
    expect(dog.disarm()).toBe(false);
    for (let i = 0; i < 1_000; i++) {
      const watched = dog.arm(id, 5_000);
      expect(run(`${i} * 2`)).toBe(i * 2);
      expect(dog.disarm()).toBe(false);
      expect(watched).toBe(true);
    }
    expect(isolate.isDisposed).toBe(false);
  });

  it("covers an isolate registered while the loop runs once it is handed over, and stops only the entry's isolate", async () => {
    const first = setup();
    await armWhenCovered(first.dog, first.id, 5_000);
    first.dog.disarm();
    const second = new ivm.Isolate({ memoryLimit: 16 });
    isolates.push(second);
    const context = second.createContextSync();
    const secondId = first.dog.register(second);
    await armWhenCovered(first.dog, secondId, 50);
    expect(() => context.evalSync("for (;;) {}", { timeout: SAFETY_NET_MS })).toThrow(/disposed/);
    expect(first.dog.disarm()).toBe(true);
    expect(second.isDisposed).toBe(true);
    expect(first.isolate.isDisposed).toBe(false);
    expect(first.run("'still here'")).toBe("still here");
  });

  it("does not cover a forgotten isolate, and starts again after stop", async () => {
    const { dog, id } = setup();
    await armWhenCovered(dog, id, 5_000);
    dog.disarm();
    dog.stop();
    await armWhenCovered(dog, id, 5_000);
    dog.disarm();
    dog.forget(id);
    expect(dog.arm(id, 5_000)).toBe(false);
  });

  it("is what stops a function's runaway entry in the isolate host", async () => {
    // The sandbox's watchdog counts the entries of the isolates it boots.
    const sandbox = testSandbox();
    const entries = async () => (await sandbox.stats()).entries;
    const host = await hostFor(
      'export default (req) => { if (req.url.endsWith("/loop")) for (;;) {} return new Response("ok"); };',
      { ...LIMITS, cpuTimeLimitMs: 50 },
    );
    // Until the loop holds the new isolate, entries fall back to isolated-vm's timeout.
    for (let i = 0; ; i++) {
      const before = (await entries()).armed;
      const response = await host.invoke(request(), recordingIO());
      expect(response.status).toBe(200);
      if ((await entries()).armed > before) break;
      if (i > 200) throw new Error("the watchdog never covered the host's isolate");
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const stopped = (await entries()).stopped;
    const { code } = await failure(host.invoke(request("https://fn.example/loop"), recordingIO()));
    expect(code).toBe("function_cpu_limit");
    expect((await entries()).stopped).toBe(stopped + 1);
    expect(host.healthy).toBe(false);
  });

  it("lets an idle process exit: the loop returns on its own once entries stop", () => {
    const script = fileURLToPath(new URL("../fixtures/watchdog-idle.ts", import.meta.url));
    const child = spawnSync(process.execPath, ["--no-node-snapshot", "--import", "tsx", script], {
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(child.stderr).toBe("");
    expect(child.stdout.trim().split("\n")).toEqual(["covered", "stopped"]);
    expect(child.status).toBe(0);
  });
});
