import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileFunction, stopCompiler } from "../../runtime/index.ts";
import { collectUpload } from "../../cli/functions.ts";
import { SDK_IMPORTS } from "../../cli/functions-new.ts";
import { packSdk } from "../../scripts/build-sdk.ts";
import { denoEnv, denoMissing, runDeno } from "../helpers/deno.ts";
import { runCli } from "../helpers/process.ts";

const CHECKOUT = fileURLToPath(new URL("../../", import.meta.url));

/**
 * `tessera functions new`: a folder that type-checks, tests and deploys as it comes, importing
 * `@tessera/sdk` by name from the project's node_modules: here a project outside the checkout
 * with the SDK installed from the tarball `npm pack` makes of sdk/.
 */
describe("tessera functions new", { timeout: 120_000 }, () => {
  const root = mkdtempSync(join(tmpdir(), "tessera-new-"));
  const project = join(root, "project");
  const functions = join(project, "functions");
  const denoDir = join(root, ".deno");
  const missing = denoMissing();
  beforeAll(() => {
    mkdirSync(functions, { recursive: true });
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "project", private: true }));
    const tarball = packSdk(root);
    execFileSync("npm", ["install", "-D", tarball, "--offline", "--no-audit", "--no-fund"], {
      cwd: project,
      stdio: "pipe",
    });
  });
  afterAll(async () => {
    await stopCompiler();
    rmSync(root, { recursive: true, force: true });
  });

  it("scaffolds NAME under --dir, prints the files and the next commands", async () => {
    const made = await runCli(["functions", "new", "hello", "--dir", functions], {});
    expect(made.stderr).toBe("");
    expect(made.code).toBe(0);
    expect(made.stdout).toMatch(/^created .*hello\/\n/);
    expect(made.stdout).toContain("index.test.ts");
    expect(made.stdout).not.toContain("not installed");
    expect(made.stdout).toMatch(/tessera functions serve \S*hello/);
    expect(made.stdout).toMatch(/tessera functions deploy \S*hello/);
    expect(readdirSync(join(functions, "hello")).sort()).toEqual(["deno.json", "index.test.ts", "index.ts"]);
  });

  it("imports the SDK by package name, never by a path into the checkout", () => {
    const text = readFileSync(join(functions, "hello", "deno.json"), "utf8");
    const config = JSON.parse(text) as { imports: Record<string, string>; nodeModulesDir: string };
    expect(config.imports).toEqual({
      "tessera/types": "npm:@tessera/sdk/types",
      "tessera/testing": "npm:@tessera/sdk/testing",
    });
    expect(config.imports).toEqual(SDK_IMPORTS);
    expect(config.nodeModulesDir).toBe("manual");
    expect(text).not.toContain(CHECKOUT.replace(/\/$/, ""));
    expect(text).not.toMatch(/file:|\.\.\/|sdk\/types\.ts/);
  });

  it("says how to install the SDK when the folder finds none", async () => {
    const bare = join(root, "bare");
    mkdirSync(bare);
    const made = await runCli(["functions", "new", "lonely", "--dir", bare], {});
    expect(made.code).toBe(0);
    expect(made.stdout).toContain("not installed here");
    expect(made.stdout).toContain("npm i -D @tessera/cli@");
    expect(made.stdout).toMatch(/npm pack \S+sdk && npm i -D \.\/tessera-sdk-[\d.]+\.tgz/);
    const config = JSON.parse(readFileSync(join(bare, "lonely", "deno.json"), "utf8")) as {
      imports: Record<string, string>;
    };
    expect(config.imports).toEqual(SDK_IMPORTS);
  });

  it.skipIf(missing !== null)("passes deno test and deno check offline, with the packed SDK", async () => {
    const cwd = join(functions, "hello");
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

  it.skipIf(missing !== null)(
    "types ctx.platform.fetch by the OpenAPI document, and deno check refuses a misuse",
    async () => {
      const cwd = join(functions, "hello");
      writeFileSync(
        join(cwd, "typed.ts"),
        `import type { Api, Context } from "tessera/types";

export async function names(ctx: Context, id: string): Promise<string[]> {
  const list = await (await ctx.platform.fetch("/v1/contacts?limit=5")).json();
  const one = await (await ctx.platform.fetch(\`/v1/contacts/\${id}\`)).json();
  const made = await (await ctx.platform.fetch("/v1/contacts", { method: "POST", body: "{}" })).json();
  const overdue: Api.Invoice[] = (await (await ctx.platform.fetch("/v1/invoices?status=overdue")).json()).data;
  const untyped = await (await ctx.platform.fetch(new URL("/v1/me", "https://x.invalid"))).json();
  return [list.data[0]!.name, String(list.meta.total), one.name, made.id, overdue[0]!.number, untyped.anything];
}
`,
      );
      writeFileSync(
        join(cwd, "misuse.ts"),
        `import type { Context } from "tessera/types";

export async function misspelt(ctx: Context): Promise<string> {
  const list = await (await ctx.platform.fetch("/v1/contacts")).json();
  return list.data[0]!.nmae;
}
`,
      );
      try {
        const typed = await runDeno(["check", "--quiet", "typed.ts"], { cwd, env: denoEnv(denoDir) });
        expect(typed.output).toBe("");
        expect(typed.code).toBe(0);
        const misuse = await runDeno(["check", "--quiet", "misuse.ts"], { cwd, env: denoEnv(denoDir) });
        expect(misuse.output).toMatch(/Property 'nmae' does not exist on type 'Contact'/);
        expect(misuse.code).not.toBe(0);
      } finally {
        rmSync(join(cwd, "typed.ts"));
        rmSync(join(cwd, "misuse.ts"));
      }
    },
  );

  it("compiles as a deploy compiles it: the SDK is types only and stays out of the bundle", async () => {
    const files = await collectUpload(join(functions, "hello"));
    const own = Object.keys(files).filter((path) => !path.startsWith("node_modules/"));
    expect(own.sort()).toEqual(["deno.json", "index.test.ts", "index.ts"]);
    const compiled = await compileFunction(files, undefined, { maxBundleBytes: 1_000_000 });
    expect(compiled.entrypoint).toBe("index.ts");
    expect(compiled.code).not.toContain("createTestContext");
    expect(compiled.code).not.toContain("@tessera/sdk");
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
