import { afterAll, beforeAll } from "vitest";
import { openTestApps } from "./helpers/app.ts";

/**
 * Every test file ends with nothing of its own left open: no app (its isolates, isolate
 * pool, caches and their timers: `TestApp.dispose`), no listening server, no socket. A leak
 * shows here, in the file that made it, instead of as a slow or hanging run later.
 *
 * Timers are not counted one by one: vitest's own come and go between the two readings, so
 * a count of them would be noise. The timers of our parts belong to an app, checked above.
 */
const WATCHED = new Set(["TCPServerWrap", "TCPSocketWrap", "PipeServerWrap"]);
let before: Map<string, number>;

beforeAll(() => {
  before = count();
});

afterAll(async () => {
  const apps = openTestApps.size;
  openTestApps.clear();
  if (apps > 0) throw new Error(`${apps} test app(s) left open: dispose them (useTestApp does)`);
  // Closed servers and sockets leave the list within a few turns of the event loop.
  let left: string[] = [];
  for (let wait = 0; wait < 40; wait++) {
    left = grown(before, count());
    if (left.length === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`left open at the end of the file: ${left.join(", ")}`);
});

function count(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const type of process.getActiveResourcesInfo()) {
    if (WATCHED.has(type)) counts.set(type, (counts.get(type) ?? 0) + 1);
  }
  return counts;
}

function grown(from: Map<string, number>, to: Map<string, number>): string[] {
  return [...to]
    .filter(([type, n]) => n > (from.get(type) ?? 0))
    .map(([type, n]) => `${type} ×${n - (from.get(type) ?? 0)}`);
}
