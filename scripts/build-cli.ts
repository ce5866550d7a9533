/**
 * Builds the standalone `@tessera/cli` package (packages/cli/): `cli/developer.ts`, the developer's
 * commands, bundled with zod and the rest into `packages/cli/dist/tessera.mjs`. esbuild-wasm stays
 * external (the package's runtime dependency: deploys scan imports with it). The build fails when
 * the bundle would carry any part of the server (isolates, stores, Hono, Redis, OIDC, OpenTelemetry).
 *
 *   node --import tsx scripts/build-cli.ts      (npm run build:cli; `npm pack` in packages/cli runs it)
 */
import { chmodSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild-wasm";

const ROOT = resolve(fileURLToPath(new URL("..", import.meta.url)));
const PACKAGE = join(ROOT, "packages/cli");
const OUTFILE = join(PACKAGE, "dist/tessera.mjs");

/** Packages of the server that must never reach the bundle: one is a sign a server module leaked in. */
const SERVER_ONLY = [
  "isolated-vm",
  "@tessera/isolated-vm-node",
  "@electric-sql/pglite",
  "hono",
  "@hono/",
  "postgres",
  "ioredis",
  "oidc-provider",
  "@opentelemetry/",
];

/** Tessera's own server-side folders: isolated-vm, for one, is loaded through createRequire in sandbox/. */
const SERVER_ONLY_SOURCES = ["sandbox/", "api/", "main.ts"];

/**
 * Modules of cli/ replaced in the bundle, by importer: `functions serve` (isolates) is answered by
 * `runDeveloperCli` before `functionsCommand` runs, so its modules become a stub; `functions new`
 * gets the SDK of the installed `@tessera/sdk` package instead of a checkout's `sdk/`.
 */
const REPLACED: Record<string, Record<string, string>> = {
  "cli/functions-command.ts": {
    "./functions-serve.ts": "packages/cli/src/server-only.ts",
    "./functions-remote.ts": "packages/cli/src/server-only.ts",
    "./functions-new.ts": "packages/cli/src/functions-new.ts",
    "../runtime/index.ts": "packages/cli/src/runtime.ts",
  },
};

const tessera: esbuild.Plugin = {
  name: "tessera-cli",
  setup(build) {
    build.onResolve({ filter: /^\.\.?\// }, (args) => {
      const importer = relative(ROOT, args.importer).split(sep).join("/");
      const replacement = REPLACED[importer]?.[args.path];
      const path = replacement ? join(ROOT, replacement) : resolve(args.resolveDir, args.path);
      // Tessera's modules do no work on import (STYLE.md, principle 4): what the CLI does not use is dropped.
      if (!path.includes(`${sep}node_modules${sep}`)) return { path, sideEffects: false };
      return undefined;
    });
  },
};

/** The bundle's input packages (node_modules/<name>) that are server-only, from esbuild's metafile. */
export function serverPackagesIn(metafile: esbuild.Metafile): string[] {
  const found = new Set<string>();
  // What the output holds (inputs with bytes in it) and what it imports at run time (externals).
  const paths = Object.values(metafile.outputs).flatMap((output) => [
    ...Object.entries(output.inputs)
      .filter(([, input]) => input.bytesInOutput > 0)
      .map(([path]) => path),
    ...output.imports.map((entry) => entry.path),
  ]);
  for (const path of paths) {
    const at = path.lastIndexOf("node_modules/");
    if (at === -1) {
      for (const source of SERVER_ONLY_SOURCES) if (path.startsWith(source)) found.add(source);
      continue;
    }
    const name = path.slice(at + "node_modules/".length);
    for (const banned of SERVER_ONLY) {
      if (name === banned || name.startsWith(banned.endsWith("/") ? banned : `${banned}/`)) found.add(banned);
      if (banned.endsWith("-node") && name.startsWith(banned)) found.add(banned);
    }
  }
  return [...found];
}

/** The bundled modules that import one of `names`: where a server module came in. */
function importersOf(metafile: esbuild.Metafile, names: string[]): string[] {
  const importers = new Set<string>();
  for (const [path, input] of Object.entries(metafile.inputs)) {
    if (input.imports.some((entry) => names.some((name) => entry.path.includes(name)))) importers.add(path);
  }
  return [...importers];
}

/** packages/cli/package.json's version and its @tessera/sdk must be the root's version: one release. */
function checkVersions(): void {
  const read = (path: string) =>
    JSON.parse(readFileSync(path, "utf8")) as { version: string; dependencies?: Record<string, string> };
  const { version } = read(join(ROOT, "package.json"));
  const cli = read(join(PACKAGE, "package.json"));
  const sdk = cli.dependencies?.["@tessera/sdk"];
  if (cli.version !== version || sdk !== version) {
    throw new Error(
      `packages/cli/package.json: version ${cli.version} and @tessera/sdk ${sdk} must both be ${version}, the root package's version`,
    );
  }
}

export async function buildCli(): Promise<{ outfile: string; bytes: number }> {
  checkVersions();
  mkdirSync(dirname(OUTFILE), { recursive: true });
  try {
    const result = await esbuild.build({
      entryPoints: [join(PACKAGE, "src/main.ts")],
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20.19",
      outfile: OUTFILE,
      external: ["esbuild-wasm"],
      plugins: [tessera],
      metafile: true,
      logLevel: "silent",
      banner: {
        // A bundled CommonJS module may call require(); ESM has none of its own.
        js: `#!/usr/bin/env node\nimport { createRequire as __createRequire } from "node:module";\nconst require = __createRequire(import.meta.url);`,
      },
    });
    const leaked = serverPackagesIn(result.metafile);
    if (leaked.length > 0) {
      const via = importersOf(result.metafile, leaked);
      throw new Error(
        `the CLI bundle would carry server packages: ${leaked.join(", ")} (imported by ${via.join(", ")})`,
      );
    }
  } finally {
    await esbuild.stop();
  }
  chmodSync(OUTFILE, 0o755);
  const bytes = readFileSync(OUTFILE).length;
  return { outfile: OUTFILE, bytes };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const { outfile, bytes } = await buildCli();
    console.log(`built ${relative(ROOT, outfile)} (${Math.round(bytes / 1024)} KB)`);
  } catch (error) {
    console.error(`error: ${(error as Error).message}`);
    process.exitCode = 1;
  }
}
