import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { generatePythonClient, type OpenApiDocument as PythonDocument } from "./clients-python.ts";
import {
  generateTypeScriptClient,
  type OpenApiDocument as TypeScriptDocument,
} from "./clients-typescript.ts";

/**
 * `npm run clients`: both client libraries' generated files (clients/typescript/src/generated,
 * clients/python/src/tessera/_generated) written from openapi/openapi.json; `-- --check` (run by
 * `npm run check`) writes nothing and fails when a committed file differs from what the document
 * generates, the same drift guard as `npm run openapi -- --check`. Each generator also runs alone
 * (scripts/clients-typescript.ts, scripts/clients-python.ts).
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

async function main(check: boolean): Promise<number> {
  const document: unknown = JSON.parse(await readFile(join(ROOT, "openapi", "openapi.json"), "utf8"));
  const files = new Map([
    ...(await generateTypeScriptClient(document as TypeScriptDocument)),
    ...generatePythonClient(document as PythonDocument),
  ]);
  const stale: string[] = [];
  for (const [path, content] of files) {
    const target = join(ROOT, path);
    if (check) {
      if ((await readFile(target, "utf8").catch(() => undefined)) !== content) stale.push(path);
      continue;
    }
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, content);
  }
  if (!check) console.log(`wrote ${files.size} files of the client libraries`);
  if (stale.length === 0) return 0;
  console.error(`${stale.join(", ")} ${stale.length === 1 ? "is" : "are"} stale: run npm run clients`);
  return 1;
}

process.exitCode = await main(process.argv.includes("--check"));
