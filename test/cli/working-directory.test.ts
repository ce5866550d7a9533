import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/process.ts";

/**
 * The CLI runs Tessera's TypeScript through tsx, which reads a tsconfig.json to resolve and
 * compile. A developer runs `tessera` from their own project, whose tsconfig is theirs: it must
 * not reach Tessera's sources.
 */
describe("tessera run from another project's folder", () => {
  const project = mkdtempSync(join(tmpdir(), "tessera-cwd-"));
  afterAll(() => rmSync(project, { recursive: true, force: true }));

  it("compiles Tessera with its own tsconfig, not the working directory's", async () => {
    // A project whose `paths` would send Tessera's own `import { z } from "zod"` to a file of its own.
    writeFileSync(
      join(project, "tsconfig.json"),
      JSON.stringify({ compilerOptions: { paths: { zod: ["./zod.ts"], hono: ["./zod.ts"] } } }),
    );
    writeFileSync(join(project, "zod.ts"), 'throw new Error("the project\'s tsconfig reached Tessera");\n');

    const result = await runCli(["--help"], {}, project);
    expect(result.stderr).not.toMatch(/reached Tessera|SyntaxError/);
    expect(result.stdout).toMatch(/^usage: tessera <command>/);
    expect(result.code).toBe(0);
  });
});
