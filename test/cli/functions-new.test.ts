import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { compileFunction, stopCompiler } from "../../runtime/index.ts";
import { collectUpload } from "../../cli/functions.ts";
import { denoEnv, denoMissing, runDeno } from "../helpers/deno.ts";
import { runCli } from "../helpers/process.ts";

/** `tessera functions new`: a folder that type-checks, tests and deploys as it comes. */
describe("tessera functions new", { timeout: 90_000 }, () => {
  const root = mkdtempSync(join(tmpdir(), "tessera-new-"));
  const denoDir = join(root, ".deno");
  const missing = denoMissing();
  afterAll(async () => {
    await stopCompiler();
    rmSync(root, { recursive: true, force: true });
  });

  it("scaffolds NAME under --dir, prints the files and the next commands", async () => {
    const made = await runCli(["functions", "new", "hello", "--dir", root], {});
    expect(made.stderr).toBe("");
    expect(made.code).toBe(0);
    expect(made.stdout).toMatch(/^created .*hello\/\n/);
    expect(made.stdout).toContain("index.test.ts");
    expect(made.stdout).toMatch(/tessera functions serve \S*hello/);
    expect(made.stdout).toMatch(/tessera functions deploy \S*hello/);
    expect(readdirSync(join(root, "hello")).sort()).toEqual(["deno.json", "index.test.ts", "index.ts"]);
  });

  it.skipIf(missing !== null)("passes deno test and deno check offline, with the fake ctx", async () => {
    const cwd = join(root, "hello");
    const tested = await runDeno(["test"], { cwd, env: denoEnv(denoDir) });
    expect(tested.output).toContain("1 passed");
    expect(tested.code).toBe(0);
    const checked = await runDeno(["check", "--quiet", "index.ts", "index.test.ts"], {
      cwd,
      env: denoEnv(denoDir),
    });
    expect(checked.output).toBe("");
    expect(checked.code).toBe(0);
  });

  it("compiles as a deploy compiles it: the SDK is types only and stays out of the bundle", async () => {
    const files = await collectUpload(join(root, "hello"));
    expect(Object.keys(files).sort()).toEqual(["deno.json", "index.test.ts", "index.ts"]);
    const compiled = await compileFunction(files, undefined, { maxBundleBytes: 1_000_000 });
    expect(compiled.entrypoint).toBe("index.ts");
    expect(compiled.code).not.toContain("createTestContext");
  });

  it("refuses a folder that exists and is not empty (1) and a name the API refuses (2)", async () => {
    const taken = join(root, "taken");
    mkdirSync(taken);
    writeFileSync(join(taken, "notes.txt"), "mine");
    const refused = await runCli(["functions", "new", "taken", "--dir", root], {});
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/exists and is not empty/);
    expect(readdirSync(taken)).toEqual(["notes.txt"]);

    const bad = await runCli(["functions", "new", "Not A Name", "--dir", root], {});
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/is not a function name/);
    expect(existsSync(join(root, "Not A Name"))).toBe(false);
  });
});
