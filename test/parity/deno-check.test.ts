/**
 * The repository as a Deno workspace for function authors (root deno.json): `deno check` passes on
 * the SDK (sdk/, `tessera/types` and `tessera/testing`) and every example, offline, and it does
 * fail on a function that misuses `ctx`, so a passing check means something. The SDK's own deno
 * tests (the fake ctx) pass too. Skipped only when Deno cannot run here.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { denoEnv, denoMissing, runDeno } from "../helpers/deno.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const missing = denoMissing();

describe.skipIf(missing !== null)("deno check over the workspace", { timeout: 60_000 }, () => {
  const scratch = mkdtempSync(join(tmpdir(), "tessera-deno-check-"));
  const env = denoEnv(join(scratch, "deno-dir"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("passes on the SDK and every example, offline", async () => {
    const checked = await runDeno(["check", "--quiet", "sdk", "examples/functions"], { cwd: ROOT, env });
    expect(checked.output).toBe("");
    expect(checked.code).toBe(0);
  });

  it("runs the SDK's deno tests", async () => {
    const tested = await runDeno(["test", "sdk"], { cwd: ROOT, env });
    expect(tested.output).toMatch(/ok \| \d+ passed \| 0 failed/);
    expect(tested.code).toBe(0);
  });

  it("fails on a function that misuses ctx, naming the line", async () => {
    const dir = join(scratch, "misuse");
    mkdirSync(dir);
    writeFileSync(
      join(dir, "deno.json"),
      JSON.stringify({ imports: { "tessera/types": join(ROOT, "sdk/types.ts") } }),
    );
    writeFileSync(
      join(dir, "index.ts"),
      `import type { Context } from "tessera/types";
export default async function (_req: Request, ctx: Context): Promise<Response> {
  const page = await ctx.engines.finance.list("prefix:");
  return Response.json({ keys: page.entries.map((entry) => entry.key), who: ctx.user?.key_id });
}
`,
    );
    const checked = await runDeno(["check", "index.ts"], { cwd: dir, env });
    expect(checked.code).not.toBe(0);
    // list takes { prefix, cursor, limit }, not a string; key_id exists on API key callers only.
    expect(checked.output).toMatch(/TS2559[\s\S]*index\.ts:3:/);
    expect(checked.output).toMatch(/TS2339[\s\S]*key_id[\s\S]*index\.ts:4:/);
  });
});
