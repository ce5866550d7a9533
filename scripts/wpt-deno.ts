/**
 * Runs the Web Platform Tests' URL and URLPattern vectors under Deno (the npm package
 * `deno`, a devDependency) and judges them with the checks `test/sandbox/wpt.test.ts` uses:
 * the "Deno" column of the conformance table in sandbox/README.md. Offline; one Deno
 * process per file.
 *
 *   node --import tsx scripts/wpt-deno.ts            # counts per file
 *   node --import tsx scripts/wpt-deno.ts --failures # and every failing vector
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DENO_BIN, denoEnv, denoMissing } from "../test/helpers/deno.ts";
import { OBSERVER, runWptFile, wptFiles } from "../test/sandbox/wpt.ts";

const missing = denoMissing();
if (missing) throw new Error(missing);
const dir = mkdtempSync(join(tmpdir(), "tessera-wpt-deno-"));
const version = spawnSync(DENO_BIN, ["--version"], { encoding: "utf8" }).stdout.split("\n")[0];
console.log(version);

/** One Deno process observes a whole file: the cases in, the outcomes written to a file. */
function observeInDeno(kind: string, cases: unknown[]): Promise<unknown[]> {
  const input = join(dir, "input.json");
  const output = join(dir, "output.json");
  const program = join(dir, "observe.js");
  writeFileSync(input, JSON.stringify({ kind, cases }));
  writeFileSync(
    program,
    `${OBSERVER}
const { kind, cases } = JSON.parse(Deno.readTextFileSync(${JSON.stringify(input)}));
Deno.writeTextFileSync(${JSON.stringify(output)}, JSON.stringify(observe(kind, cases)));`,
  );
  const run = spawnSync(DENO_BIN, ["run", `--allow-read=${dir}`, `--allow-write=${dir}`, program], {
    env: denoEnv(join(dir, "deno-dir")),
    encoding: "utf8",
  });
  if (run.status !== 0) throw new Error(`deno failed: ${run.stderr}`);
  return Promise.resolve(JSON.parse(readFileSync(output, "utf8")) as unknown[]);
}

try {
  for (const file of wptFiles()) {
    const result = await runWptFile(file, observeInDeno, file.vectors.length);
    console.log(`${result.file}: ${result.passed}/${result.vectors}`);
    if (process.argv.includes("--failures"))
      for (const line of result.failures) console.log(`  fails: ${line}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
