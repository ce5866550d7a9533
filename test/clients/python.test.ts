import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatePythonClient, type OpenApiDocument } from "../../scripts/clients-python.ts";
import { createVenv, PYTHON, python3Version, run } from "../helpers/python.ts";

/**
 * The Python client library (clients/python/), tested as a user gets it: its wheel built offline,
 * installed into a fresh virtual environment with its test tools, and its pytest suite run there
 * against a real `tessera serve` (the suite starts its own, clients/python/tests/conftest.py).
 *
 * Without python3 the suite is skipped on a developer machine, and fails in CI (`CI` set).
 * Packages come from the local indexes of this machine (/opt/pypi…) when they exist, from
 * PIP_INDEX_URL (and PIP_EXTRA_INDEX_URL) when set, else from pip's default index (test/helpers/python.ts).
 */
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const PROJECT = join(ROOT, "clients", "python");
/** Installed next to the wheel: its own test tools (pytest), and hatchling to build it. */
const TOOLS = ["pytest", "pytest-asyncio", "mypy", "ruff"];

const version = await python3Version();
const missing = version === null;
if (missing && process.env.CI) {
  throw new Error(
    `${PYTHON} is missing: the Python client's tests cannot run (CI needs python3 with venv and pip)`,
  );
}
if (missing) console.warn(`skipping the Python client's tests: ${PYTHON} was not found`);

describe("the Python client's generated files", () => {
  it("match what the OpenAPI document generates (scripts/clients-python.ts --check)", async () => {
    const document = JSON.parse(
      await readFile(join(ROOT, "openapi", "openapi.json"), "utf8"),
    ) as OpenApiDocument;
    for (const [path, text] of generatePythonClient(document)) {
      const committed = await readFile(join(ROOT, path), "utf8").catch(() => "(missing)");
      expect(committed, `${path} is stale: run node --import tsx scripts/clients-python.ts`).toBe(text);
    }
  });
});

describe.skipIf(missing)(`the Python client (${version ?? "no python3"})`, () => {
  let dir: string;
  let venvPython: string;
  const timings: string[] = [];

  async function step(name: string, command: string, args: string[], options?: Parameters<typeof run>[2]) {
    const started = Date.now();
    const result = await run(command, args, { cwd: ROOT, ...options });
    timings.push(`${name} ${((Date.now() - started) / 1000).toFixed(1)} s`);
    if (result.code !== 0) throw new Error(`${name} failed (exit ${result.code}):\n${result.output}`);
    return result;
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "tessera-python-"));
    const venv = await createVenv(join(dir, "venv"), step);
    venvPython = venv.python;
    await venv.install("pip install hatchling", ["hatchling"]);
    // Offline: the build backend is the one just installed, nothing is fetched for the build.
    await step("build the wheel", venv.python, [
      ...venv.pip,
      "wheel",
      "-q",
      "--no-build-isolation",
      "--no-deps",
      "--wheel-dir",
      join(dir, "dist"),
      PROJECT,
    ]);
    const wheels = (await readdir(join(dir, "dist"))).filter((name) => name.endsWith(".whl"));
    expect(wheels).toHaveLength(1);
    await venv.install("pip install the wheel and the test tools", [join(dir, "dist", wheels[0]!), ...TOOLS]);
  }, 240_000);

  afterAll(async () => {
    console.log(`Python client: ${timings.join(", ")}`);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("passes its pytest suite against the installed wheel and a real server", async () => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PATH: `${join(dir, "venv", "bin")}:${process.env.PATH ?? ""}`,
      // The tests start the server with this node, from this checkout, and check they import the wheel.
      TESSERA_NODE: process.execPath,
      TESSERA_REPO: ROOT,
      TESSERA_EXPECT_INSTALLED: "1",
      PYTHONDONTWRITEBYTECODE: "1",
    };
    delete env.PYTHONPATH;
    delete env.TESSERA_API_KEY;
    delete env.TESSERA_BASE_URL;
    const started = Date.now();
    const result = await run(venvPython, ["-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], {
      cwd: PROJECT,
      env,
    });
    timings.push(`pytest ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const passed = Number(/(\d+) passed/.exec(result.output)?.[1] ?? 0);
    if (result.code !== 0 || passed === 0) {
      throw new Error(`pytest failed (exit ${result.code}, ${passed} passed):\n${result.output}`);
    }
    expect(result.output).not.toMatch(/\d+ (failed|error)/);
  }, 300_000);
});
