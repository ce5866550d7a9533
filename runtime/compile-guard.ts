import { readdir, readFile } from "node:fs/promises";
import * as esbuild from "esbuild-wasm";
import { AppError } from "../core/index.ts";

/**
 * esbuild-wasm compiles in one child process (`node …/esbuild-wasm/bin/esbuild --service`) shared by
 * every deploy on the node. Its parser recurses, and the wasm's stack is small: 7,000 `[`, or
 * 100,000 of `else if`, `a ? :`, `!`, arrow functions, JSX tags, overflow it. The child then throws a
 * RangeError and, on Linux, hangs for ever in its exit (a thread of libuv's pool is blocked reading the
 * stdin we hold open), so the build is never answered, and esbuild keeps handing every later build to
 * the dead child. Where the child does exit, esbuild rejects its builds with "The service was stopped"
 * and every later one with "The service is no longer running", until `esbuild.stop()`.
 *
 * So each build runs under a guard: esbuild's own rejection, a watchdog that sees the child's CPU time
 * stand still while a build is pending (Linux, `/proc`), and a wall-time limit as the backstop all end
 * the service's life at once: its child is stopped (the next build starts a fresh one: esbuild-wasm
 * starts its service lazily on `build`, and `stop()` clears its state; `initialize` is never needed in
 * Node) and every build pending on it is settled. A build alone on a service that stalled or timed
 * out caused it: a 422 ("nests too deeply"). Builds that were not alone, or whose service exited (a
 * kill from outside looks the same), were maybe innocent: each runs once more, alone, and only one
 * that brings the service down again gets the 422. A service found dead before the build was sent
 * is restarted and the build sent again, no questions asked.
 */

/** Longest a build may take, ms, before its service is stopped: the backstop where `/proc` is not. */
export const COMPILE_WALL_TIME_MS = 120_000;
/** How often the watchdog reads the compiler's CPU time while a build is pending, ms. */
const WATCH_INTERVAL_MS = 250;
/**
 * Readings in a row without CPU progress that mean the compiler is dead. Counted in readings, not
 * time: while our own event loop is blocked the compiler waits on us (plugins) and no reading is taken.
 */
const STALLED_READINGS = 6;
/** esbuild's rejections: the child ended under the build, or before it was sent. */
const SERVICE_STOPPED = /service was stopped/;
const SERVICE_GONE = /service is no longer running/;
/** Restarts a build may ask for because the service was found dead before it was sent. */
const MAX_STALE_RETRIES = 2;

export interface GuardOptions {
  /** Longest a build may take, ms (`COMPILE_WALL_TIME_MS` unless given). */
  wallTimeMs?: number;
}

/**
 * Why a life of the compiler ended under a build: `stalled` (its CPU time stood still: how the wasm's
 * stack overflow shows on Linux), `exited` (while the build was pending: a crash, or a kill from
 * outside), `timeout`, or `stale` (it was dead before the build was sent).
 */
type Ending = "stalled" | "exited" | "timeout" | "stale";

/** The service died under a build; `alone`: no other build was pending on it. */
class CompilerStopped extends Error {
  constructor(
    readonly ending: Ending,
    readonly alone: boolean,
  ) {
    super(`The compiler service ${ending === "timeout" ? "timed out" : "stopped"}`);
  }
}

interface Pending {
  fail(error: Error): void;
}

/** One life of esbuild's service: from the first build after a (re)start to its stop. */
interface Life {
  pending: Set<Pending>;
  watchdog?: NodeJS.Timeout;
  over: boolean;
}

let life: Life | undefined;

/**
 * `esbuild.build` under the guard: the same result or BuildFailure, or a 422 when this build is the
 * one that brings the compiler down (or takes longer than the wall-time limit).
 */
export async function guardedBuild(
  options: esbuild.BuildOptions,
  guard: GuardOptions = {},
): Promise<esbuild.BuildResult> {
  let turn: Turn = "shared";
  for (let stale = 0; ;) {
    try {
      return await withTurn(turn, () => attempt(options, guard));
    } catch (error) {
      if (!(error instanceof CompilerStopped)) throw error;
      // The service had died before this build reached it: not this build's doing.
      if (error.ending === "stale" && ++stale <= MAX_STALE_RETRIES) continue;
      // Alone on a service that stalled or ran out of time: this build did it. An exit may have come
      // from outside (the OOM killer, an operator): one more try, alone, tells.
      if (turn === "alone" || (error.alone && error.ending !== "exited")) throw refusal(error.ending, guard);
      turn = "alone";
    }
  }
}

/** Stops the compiler (disposal); builds pending on it are refused as `disposed`. */
export async function stopGuardedCompiler(): Promise<void> {
  if (life) end(life, () => new AppError("disposed", "The compiler was stopped"));
  await esbuild.stop();
}

function attempt(options: esbuild.BuildOptions, guard: GuardOptions): Promise<esbuild.BuildResult> {
  const current = (life ??= { pending: new Set(), over: false });
  return new Promise((resolve, reject) => {
    const deadline = setTimeout(
      () => end(current, (alone) => new CompilerStopped("timeout", alone)),
      guard.wallTimeMs ?? COMPILE_WALL_TIME_MS,
    );
    deadline.unref();
    const pending: Pending = {
      fail: (error) => {
        clearTimeout(deadline);
        reject(error);
      },
    };
    current.pending.add(pending);
    watch(current);
    esbuild
      .build(options)
      .then(resolve, (error: unknown) => {
        const message = messageOf(error);
        const ending = SERVICE_STOPPED.test(message)
          ? "exited"
          : SERVICE_GONE.test(message)
            ? "stale"
            : undefined;
        if (!ending) return reject(error instanceof Error ? error : new Error(message));
        end(current, (alone) => new CompilerStopped(ending, alone));
      })
      .finally(() => {
        clearTimeout(deadline);
        current.pending.delete(pending);
        if (current.pending.size === 0) unwatch(current);
      });
  });
}

/**
 * Ends a life: its child is stopped, each build pending on it fails with `reason(alone)`, and the
 * next build starts a new life. esbuild's own promises for those builds may never settle (their
 * child is gone): ours are settled here.
 */
function end(ended: Life, reason: (alone: boolean) => Error): void {
  if (ended.over) return;
  ended.over = true;
  if (life === ended) life = undefined;
  unwatch(ended);
  const alone = ended.pending.size === 1;
  for (const pending of ended.pending) pending.fail(reason(alone));
  ended.pending.clear();
  void esbuild.stop();
}

function watch(watched: Life): void {
  if (watched.watchdog) return;
  let last: number | undefined;
  let still = 0;
  let reading = false;
  watched.watchdog = setInterval(() => {
    if (reading) return;
    reading = true;
    void compilerCpuTicks()
      .then((ticks) => {
        if (watched.over || ticks === undefined) return;
        still = ticks === last ? still + 1 : 0;
        last = ticks;
        if (still >= STALLED_READINGS) end(watched, (alone) => new CompilerStopped("stalled", alone));
      })
      .finally(() => (reading = false));
  }, WATCH_INTERVAL_MS);
  watched.watchdog.unref();
}

function unwatch(watched: Life): void {
  clearInterval(watched.watchdog);
  watched.watchdog = undefined;
}

/**
 * CPU time (clock ticks) of this process's live esbuild-wasm children, from `/proc`; undefined where
 * there is no `/proc` or no such child. A child that crashed in the wasm stops using CPU at once,
 * while one that parses a large file keeps using it (and answers nothing meanwhile, so silence alone
 * would not tell the two apart).
 */
async function compilerCpuTicks(): Promise<number | undefined> {
  try {
    const tasks = await readdir(`/proc/${process.pid}/task`);
    const children = await Promise.all(
      tasks.map((task) => readFile(`/proc/${process.pid}/task/${task}/children`, "utf8").catch(() => "")),
    );
    let total: number | undefined;
    for (const pid of children.join(" ").split(/\s+/).filter(Boolean)) {
      const cmdline = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
      if (!cmdline.includes("esbuild-wasm") || !cmdline.includes("--service")) continue;
      const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
      // Fields after the command's closing parenthesis: state is the 3rd field, utime and stime the 14th and 15th.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (fields.length < 13 || fields[0] === "Z") continue;
      total = (total ?? 0) + Number(fields[11]) + Number(fields[12]);
    }
    return total;
  } catch {
    return undefined;
  }
}

function refusal(ending: Ending, guard: GuardOptions): AppError {
  if (ending === "timeout") {
    const seconds = Math.round((guard.wallTimeMs ?? COMPILE_WALL_TIME_MS) / 1000);
    return new AppError("validation_failed", `The function took longer than ${seconds} s to compile`, {
      errors: [{ param: "files", code: "compile_timeout", message: `compiles in at most ${seconds} s` }],
    });
  }
  return new AppError(
    "validation_failed",
    "The source nests too deeply for the compiler: it stopped while compiling this function. Look for " +
      "deep nesting or long chains (brackets, `else if`, `?:`, `!`, arrow functions, JSX) and split them up",
    {
      errors: [
        { param: "files", code: "too_deep", message: "nests too deeply for the compiler (it stopped on it)" },
      ],
    },
  );
}

function messageOf(error: unknown): string {
  return typeof error === "string" ? error : error instanceof Error ? error.message : "";
}

/**
 * Turns on the compiler: any number of `shared` builds at once, or one build `alone` (a suspect's
 * second try, so that a death under it is its own). A waiting `alone` goes before new shared ones.
 */
type Turn = "shared" | "alone";
let sharedRunning = 0;
let aloneRunning = false;
let aloneWaiting = 0;
let turned: { promise: Promise<void>; wake: () => void } = waker();

async function withTurn<T>(turn: Turn, task: () => Promise<T>): Promise<T> {
  if (turn === "alone") aloneWaiting++;
  while (aloneRunning || (turn === "alone" ? sharedRunning > 0 : aloneWaiting > 0)) await turned.promise;
  if (turn === "alone") {
    aloneWaiting--;
    aloneRunning = true;
  } else sharedRunning++;
  try {
    return await task();
  } finally {
    if (turn === "alone") aloneRunning = false;
    else sharedRunning--;
    const { wake } = turned;
    turned = waker();
    wake();
  }
}

function waker(): { promise: Promise<void>; wake: () => void } {
  let wake = () => {};
  const promise = new Promise<void>((resolve) => (wake = resolve));
  return { promise, wake };
}
