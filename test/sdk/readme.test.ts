/**
 * sdk/README.md's examples type-check as written: each `ts` block, with `tessera/types` and
 * `tessera/testing` mapped to the SDK, goes through the real `deno check` (a block that imports
 * `./index.ts` gets the block before it as that file). And the package is the checkout's version.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { denoEnv, denoMissing, runDeno } from "../helpers/deno.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const readJson = (path: string) =>
  JSON.parse(readFileSync(join(ROOT, path), "utf8")) as Record<string, unknown>;

function tsBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
}

describe("@tessera/sdk", () => {
  it("is a package of the checkout's version, shipping dist/ by its two entry points", () => {
    const pkg = readJson("sdk/package.json") as {
      name: string;
      version: string;
      type: string;
      exports: Record<string, unknown>;
      files: string[];
    };
    expect(pkg.name).toBe("@tessera/sdk");
    expect(pkg.version).toBe(readJson("package.json").version);
    expect(readJson("sdk/deno.json").version).toBe(pkg.version);
    expect(pkg.type).toBe("module");
    expect(Object.keys(pkg.exports).sort()).toEqual(["./package.json", "./testing", "./types"]);
    expect(pkg.files).toEqual(["dist/", "README.md"]);
  });
});

describe.skipIf(denoMissing() !== null)("sdk/README.md's examples", { timeout: 90_000 }, () => {
  const scratch = mkdtempSync(join(tmpdir(), "tessera-sdk-readme-"));
  const env = denoEnv(join(scratch, "deno-dir"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("pass deno check as written", async () => {
    const blocks = tsBlocks(readFileSync(join(ROOT, "sdk/README.md"), "utf8"));
    expect(blocks.length).toBeGreaterThanOrEqual(3);
    const files: string[] = [];
    blocks.forEach((block, index) => {
      const dir = join(scratch, `block-${index}`);
      mkdirSync(dir);
      writeFileSync(
        join(dir, "deno.json"),
        JSON.stringify({
          imports: {
            "tessera/types": join(ROOT, "sdk/types.ts"),
            "tessera/testing": join(ROOT, "sdk/testing.ts"),
          },
        }),
      );
      if (block.includes('from "./index.ts"')) writeFileSync(join(dir, "index.ts"), blocks[index - 1]!);
      writeFileSync(join(dir, "example.ts"), block);
      files.push(join(dir, "example.ts"));
    });
    for (const file of files) {
      const checked = await runDeno(["check", "--quiet", file], { cwd: join(file, ".."), env });
      expect(checked.output, file).toBe("");
      expect(checked.code).toBe(0);
    }
  });
});
