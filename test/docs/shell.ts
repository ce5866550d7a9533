import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * One bash process that runs a page's shell blocks one after another, as a reader typing
 * them into one terminal would: variables and `export`s carry from block to block. Each
 * block's output goes to files of its own; a line on the session's stdout says it ended.
 * Background blocks get a process group of their own (`set -m`), ended with the session.
 */
export interface ShellSession {
  run(code: string, timeoutMs: number): Promise<BlockResult>;
  /** Starts `code` in the background and resolves with its output once it shows `until`. */
  background(
    code: string,
    until: string,
    timeoutMs: number,
    settled?: (output: string) => boolean,
  ): Promise<string>;
  /** SIGTERM to every background group, then the session; resolves when all are gone. */
  dispose(): Promise<void>;
}

export interface BlockResult {
  status: number;
  stdout: string;
  stderr: string;
}

const DONE = "__DOCTEST_DONE__:";
/** How long a background block's output may keep arriving after the line it was waited for. */
const SETTLE_MS = 15_000;

export function openShell(options: { cwd: string; env: NodeJS.ProcessEnv }): ShellSession {
  const dir = mkdtempSync(join(tmpdir(), "tessera-doctest-"));
  const bash = spawn("bash", ["--noprofile", "--norc"], { cwd: options.cwd, env: options.env });
  const groups: number[] = [];
  let lines = "";
  let waiting: ((line: string) => void) | undefined;
  bash.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    lines += chunk;
    let at: number;
    while ((at = lines.indexOf("\n")) >= 0) {
      const line = lines.slice(0, at);
      lines = lines.slice(at + 1);
      if (line.startsWith(DONE)) waiting?.(line);
    }
  });
  bash.stderr.resume();
  bash.stdin.write("set -m\n");
  let count = 0;

  const send = (script: string, timeoutMs: number) =>
    new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no end after ${timeoutMs} ms`)), timeoutMs);
      waiting = (line) => {
        clearTimeout(timer);
        waiting = undefined;
        resolve(line.slice(DONE.length));
      };
      bash.stdin.write(script);
    });

  return {
    async run(code, timeoutMs) {
      const n = ++count;
      const out = join(dir, `${n}.out`);
      const err = join(dir, `${n}.err`);
      const status = await send(
        `{\n${code}\n} >'${out}' 2>'${err}' </dev/null\necho "${DONE}$?"\n`,
        timeoutMs,
      );
      return { status: Number(status), stdout: readFileSync(out, "utf8"), stderr: readFileSync(err, "utf8") };
    },

    async background(code, until, timeoutMs, settled) {
      const log = join(dir, `${++count}.log`);
      const pid = await send(`{\n${code}\n} >'${log}' 2>&1 </dev/null &\necho "${DONE}$!"\n`, 5_000);
      groups.push(Number(pid));
      const deadline = Date.now() + timeoutMs;
      let seen: number | undefined;
      for (;;) {
        // The job opens its log a moment after it starts.
        const output = existsSync(log) ? readFileSync(log, "utf8") : "";
        if (output.includes(until)) {
          // What it prints next (a server's log lines come a turn of its event loop later, later still on a
          // loaded machine) is read for up to SETTLE_MS more, until `settled` says the output is whole.
          seen ??= Date.now();
          if (!settled || settled(output) || Date.now() - seen > SETTLE_MS) return output;
        }
        if (Date.now() > deadline) throw new Error(`'${until}' not seen in ${timeoutMs} ms:\n${output}`);
        // A job that ended without printing it never will (a server that failed to start): said at once.
        if (!running(Number(pid))) {
          const last = existsSync(log) ? readFileSync(log, "utf8") : "";
          if (!last.includes(until)) throw new Error(`the job ended without printing '${until}':\n${last}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },

    async dispose() {
      for (const group of groups) signal(group, "SIGTERM");
      await Promise.all(groups.map((group) => gone(group, 15_000)));
      await close(bash);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function signal(group: number, name: NodeJS.Signals): void {
  try {
    process.kill(-group, name);
  } catch {
    // Already gone.
  }
}

/** Whether the process group still has a process (bash reaps a background job as it ends). */
function running(group: number): boolean {
  try {
    process.kill(-group, 0);
    return true;
  } catch {
    return false;
  }
}

async function gone(group: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!running(group)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  signal(group, "SIGKILL");
}

function close(bash: ChildProcessWithoutNullStreams): Promise<void> {
  return new Promise((resolve) => {
    if (bash.exitCode !== null) return resolve();
    bash.once("exit", () => resolve());
    bash.stdin.end("exit\n");
  });
}
