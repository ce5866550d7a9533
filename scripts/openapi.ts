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
import { loadConfig, randomBase62, silentLogger } from "../core/index.ts";
import { createServices } from "../services.ts";
import { createPgliteStore } from "../store/index.ts";

const FILE = join(dirname(fileURLToPath(import.meta.url)), "..", "openapi", "openapi.json");

/** The document as `GET /v1/openapi.json` answers it, pretty-printed in the order generated. */
export async function generateOpenApi(): Promise<string> {
  // The app as the server builds it, on an empty in-memory store: the document depends on the
  // routes and their schemas, not on the store's content or the settings.
  const store = await createPgliteStore();
  const config = loadConfig({ TESSERA_DATA_DIR: "/nonexistent" });
  const services = await createServices({ config, log: silentLogger, store, secret: randomBase62(48) });
  try {
    const response = await services.api().app.request("/v1/openapi.json");
    if (response.status !== 200) throw new Error(`GET /v1/openapi.json answered ${response.status}`);
    return `${JSON.stringify(await response.json(), null, 2)}\n`;
  } finally {
    await services.dispose();
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
