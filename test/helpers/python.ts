import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Python for the tests that need it (the Python client's suite, test/clients/python.test.ts, and the
 * docs test's Python blocks, test/docs/follow.ts): which python3, whether it is there, and a fresh
 * virtual environment with packages installed.
 *
 * Packages come from the local indexes of this machine (/opt/pypi…) when they exist, from
 * PIP_INDEX_URL (and PIP_EXTRA_INDEX_URL) when set, else from pip's default index.
 */
export const PYTHON = process.env.TESSERA_TEST_PYTHON ?? "python3";
const LOCAL_INDEXES = ["file:///opt/pypi/simple", "file:///opt/pypi-more/simple"];

export interface Run {
  code: number | null;
  output: string;
}

/** Runs a command to its end; stdout and stderr together in `output`. */
export function run(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.once("error", (error) => resolve({ code: -1, output: `${output}${String(error)}` }));
    child.once("close", (code) => resolve({ code, output }));
  });
}

/** `python3 --version`, or null when there is no python3. */
export async function python3Version(): Promise<string | null> {
  const { code, output } = await run(PYTHON, ["--version"]);
  return code === 0 ? output.trim() : null;
}

/** pip's index flags: PIP_INDEX_URL when set (pip reads it), else this machine's local indexes if present. */
export function indexArgs(): string[] {
  if (process.env.PIP_INDEX_URL) return [];
  const local = LOCAL_INDEXES.filter((url) => existsSync(fileURLToPath(url)));
  if (local.length === 0) return [];
  return ["--index-url", local[0]!, ...local.slice(1).flatMap((url) => ["--extra-index-url", url])];
}

/** Runs one step of making a venv; throws with its output when it fails. */
export type Step = (name: string, command: string, args: string[]) => Promise<Run>;

export const runStep: Step = async (name, command, args) => {
  const result = await run(command, args);
  if (result.code !== 0) throw new Error(`${name} failed (exit ${result.code}):\n${result.output}`);
  return result;
};

export interface Venv {
  /** The venv's own python. */
  python: string;
  /** `python -m pip …` without its questions: the arguments after `python`. */
  pip: string[];
  /** `pip install -q` of `packages` (names or files) from the indexes above. */
  install(name: string, packages: string[]): Promise<Run>;
}

/** A new venv at `path`, made by python3, each command run through `step` (timings, errors). */
export async function createVenv(path: string, step: Step = runStep): Promise<Venv> {
  await step("venv", PYTHON, ["-m", "venv", path]);
  const python = join(path, "bin", "python");
  const pip = ["-m", "pip", "--disable-pip-version-check", "--no-input"];
  return {
    python,
    pip,
    install: (name, packages) => step(name, python, [...pip, "install", "-q", ...indexArgs(), ...packages]),
  };
}
