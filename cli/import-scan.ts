import * as esbuild from "esbuild-wasm";
import type { DenoConfig } from "../runtime/index.ts";

/**
 * The specifiers a module imports, found by esbuild's parser (the one that compiles it on
 * the server): static, dynamic and re-exports, the JSX runtime, but not type-only imports
 * nor the `import … from` lines inside JSDoc examples, which a text scan would chase.
 * A module esbuild cannot parse falls back to a text scan; the server reports its error.
 */

const LOADERS: Record<string, esbuild.Loader> = {
  ts: "ts",
  mts: "ts",
  cts: "ts",
  tsx: "tsx",
  js: "js",
  mjs: "js",
  cjs: "js",
  jsx: "jsx",
};

/** Whether a path names a module whose imports matter (JSON and anything else have none). */
export function isScannable(path: string): boolean {
  return loaderOf(path) !== undefined;
}

export async function scanImports(source: string, path: string, config: DenoConfig = {}): Promise<string[]> {
  const loader = loaderOf(path);
  if (!loader) return [];
  const found = new Set<string>();
  try {
    await esbuild.build({
      stdin: { contents: source, loader, sourcefile: path },
      bundle: true,
      write: false,
      format: "esm",
      platform: "neutral",
      logLevel: "silent",
      ...jsxOptions(config),
      plugins: [
        {
          name: "tessera-import-scan",
          setup(build) {
            build.onResolve({ filter: /.*/ }, (args) => {
              found.add(args.path);
              return { path: args.path, external: true };
            });
          },
        },
      ],
    });
  } catch {
    return textScan(source);
  }
  return [...found];
}

function loaderOf(path: string): esbuild.Loader | undefined {
  return LOADERS[/\.([a-z]+)$/i.exec(path)?.[1]?.toLowerCase() ?? ""];
}

/** Automatic JSX imports `<jsxImportSource>/jsx-runtime`, which must be vendored like any import. */
function jsxOptions(config: DenoConfig): esbuild.BuildOptions {
  const options = config.compilerOptions ?? {};
  if (options.jsx === "react-jsx" || options.jsx === "react-jsxdev" || options.jsx === "precompile") {
    return { jsx: "automatic", jsxImportSource: options.jsxImportSource ?? "react" };
  }
  return {};
}

function textScan(source: string): string[] {
  const found: string[] = [];
  const pattern = /(?:\bfrom\s*|\bimport\s*\(?\s*|\bexport\s*\*\s*from\s*)["']([^"'\n]+)["']/g;
  for (const match of source.matchAll(pattern)) found.push(match[1]!);
  return found;
}
