/**
 * Writes the OpenAPI document the server serves at `/v1/openapi.json` to `openapi/openapi.json`,
 * the file client libraries are generated from. `--check` writes nothing and exits 1 when the
 * committed file differs (`npm run check` runs it).
 *
 *   npm run openapi            # regenerate after changing a route or a schema
 *   npm run openapi -- --check
 */
import { readFile, mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createPgliteStore } from "../store/index.ts";
// The app as the tests build it: the document depends on the routes, not on the store's content.
import { createTestApp } from "../test/helpers/app.ts";

const FILE = join(dirname(fileURLToPath(import.meta.url)), "..", "openapi", "openapi.json");

/** The document as `GET /v1/openapi.json` answers it, pretty-printed in the order generated. */
export async function generateOpenApi(): Promise<string> {
  const store = await createPgliteStore();
  const t = createTestApp(store);
  try {
    const response = await t.app.request("/v1/openapi.json");
    if (response.status !== 200) throw new Error(`GET /v1/openapi.json answered ${response.status}`);
    return `${JSON.stringify(await response.json(), null, 2)}\n`;
  } finally {
    await t.dispose();
    await store.dispose();
  }
}

async function main(check: boolean): Promise<number> {
  const generated = await generateOpenApi();
  if (!check) {
    await mkdir(dirname(FILE), { recursive: true });
    await writeFile(FILE, generated);
    console.log("wrote openapi/openapi.json");
    return 0;
  }
  const committed = await readFile(FILE, "utf8").catch(() => undefined);
  if (committed === generated) return 0;
  console.error("openapi/openapi.json is stale: run npm run openapi");
  return 1;
}

process.exitCode = await main(process.argv.includes("--check"));
