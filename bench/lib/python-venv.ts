/**
 * A throwaway Python virtual environment for a benchmark, made the way the tests make theirs
 * (test/helpers/python.ts: `TESSERA_TEST_PYTHON` or python3, packages from this machine's local
 * indexes /opt/pypi… when they exist, PIP_INDEX_URL when set, else pip's default index), in a
 * temporary directory removed by `dispose`.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createVenv, PYTHON, python3Version } from "../../test/helpers/python.ts";

export interface PythonVenv {
  /** The venv's own interpreter. */
  python: string;
  /** `Python 3.11.7`, as `python3 --version` prints it. */
  version: string;
  /** Removes the venv. */
  dispose: () => Promise<void>;
}

/** Why there is no venv: python3 is missing, or venv or pip failed. */
export interface NoVenv {
  missing: string;
}

/** A venv with `packages` installed, or why there is none. */
export async function createPythonVenv(
  packages: string[],
  log: (line: string) => void,
): Promise<PythonVenv | NoVenv> {
  const version = await python3Version();
  if (version === null) return { missing: `${PYTHON} was not found` };
  const dir = await mkdtemp(join(tmpdir(), "tessera-bench-venv-"));
  const dispose = () => rm(dir, { recursive: true, force: true });
  const started = performance.now();
  try {
    const venv = await createVenv(join(dir, "venv"));
    await venv.install(`pip install ${packages.join(" ")}`, packages);
    log(
      `  ${version} venv with ${packages.join(", ")} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    return { python: venv.python, version, dispose };
  } catch (error) {
    await dispose();
    return { missing: error instanceof Error ? error.message : String(error) };
  }
}
