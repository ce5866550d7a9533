import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/** The files of the `swagger-ui-dist` package the page loads, and the type each is served as. */
export const SWAGGER_UI_FILES = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "index.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "favicon-32x32.png": "image/png",
  "favicon-16x16.png": "image/png",
} as const;

export type SwaggerUiFile = keyof typeof SWAGGER_UI_FILES;

/** The installed `swagger-ui-dist`: its version (which names its URLs) and the files above, in memory. */
export interface SwaggerUiAssets {
  version: string;
  files: Readonly<Record<SwaggerUiFile, Uint8Array<ArrayBuffer>>>;
}

export function isSwaggerUiFile(name: string): name is SwaggerUiFile {
  return Object.hasOwn(SWAGGER_UI_FILES, name);
}

/**
 * Reads the installed package once, on the first call: the bundle is 1.5 MB, read by nobody
 * until someone opens `/docs`. A failed read is not remembered, so the next request tries again.
 *
 * @example
 *   const assets = swaggerUiAssets();
 *   const { version, files } = await assets(); // "5.35.0", swagger-ui.css → bytes, …
 */
export function swaggerUiAssets(): () => Promise<SwaggerUiAssets> {
  let loading: Promise<SwaggerUiAssets> | undefined;
  return () => {
    loading ??= readSwaggerUi().catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
}

async function readSwaggerUi(): Promise<SwaggerUiAssets> {
  // The package has no "exports" map, so its package.json resolves like any file of it.
  const manifest = createRequire(import.meta.url).resolve("swagger-ui-dist/package.json");
  const dir = dirname(manifest);
  const { version } = JSON.parse(await readFile(manifest, "utf8")) as { version: string };
  const names = Object.keys(SWAGGER_UI_FILES) as SwaggerUiFile[];
  const read = await Promise.all(
    names.map(async (name) => [name, new Uint8Array(await readFile(join(dir, name)))]),
  );
  return { version, files: Object.fromEntries(read) as SwaggerUiAssets["files"] };
}
