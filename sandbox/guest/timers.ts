import { currentRequest, hostSync, requests } from "./bridge.ts";

/**
 * setTimeout and friends: the host owns the clock (a Node timer per guest timer),
 * the guest keeps the callbacks. A timer belongs to the request that set it and dies
 * with it; firing it is an entry of that request, so its CPU counts there.
 */
interface Timer {
  slot: number;
  callback: (...args: unknown[]) => void;
  args: unknown[];
  repeatMs: number | undefined;
}

const timers = new Map<number, Timer>();
let nextTimerId = 1;

function schedule(callback: unknown, delay: unknown, args: unknown[], repeat: boolean): number {
  const request = currentRequest("Setting a timer");
  if (typeof callback !== "function") {
    throw new TypeError("setTimeout and setInterval take a function (strings are not evaluated)");
  }
  const ms = Math.max(0, Math.min(2_147_483_647, Number(delay) || 0));
  const id = nextTimerId++;
  const repeatMs = repeat ? Math.max(1, ms) : undefined;
  // The host first: past its limit per request it throws, and then nothing is kept here.
  hostSync("timer.set", request.slot, id, repeatMs ?? ms, repeat);
  timers.set(id, { slot: request.slot, callback: callback as Timer["callback"], args, repeatMs });
  return id;
}

export function setTimeout(callback: unknown, delay?: unknown, ...args: unknown[]): number {
  return schedule(callback, delay, args, false);
}

export function setInterval(callback: unknown, delay?: unknown, ...args: unknown[]): number {
  return schedule(callback, delay, args, true);
}

export function clearTimeout(id?: unknown): void {
  const timer = timers.get(Number(id));
  if (!timer) return;
  timers.delete(Number(id));
  hostSync("timer.clear", timer.slot, Number(id));
}

export const clearInterval = clearTimeout;

/** Entry: the host's timer for `id` fired. */
export function fireTimer(id: number): void {
  const timer = timers.get(id);
  if (!timer) return;
  if (timer.repeatMs === undefined) timers.delete(id);
  timer.callback(...timer.args);
}

/** Forgets the timers of a request that ended (the host already cleared its own). */
export function dropTimers(slot: number): void {
  for (const [id, timer] of timers) if (timer.slot === slot) timers.delete(id);
}

export function queueMicrotask(callback: unknown): void {
  if (typeof callback !== "function") throw new TypeError("queueMicrotask takes a function");
  void Promise.resolve().then(callback as () => void);
}

export { requests };
