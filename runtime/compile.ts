import { posix } from "node:path";
import * as esbuild from "esbuild-wasm";
import { AppError, type FieldError } from "../core/index.ts";
import { createResolver } from "./resolve.ts";
import { findEntrypoint, readDenoConfig, type DenoConfig, type FunctionFiles } from "./source-files.ts";

/** The global the bundle assigns its module namespace to (`default` export and all). */
export const MODULE_GLOBAL = "__tessera_module";

export interface CompileOptions {
  /** Largest bundle accepted, bytes. */
  maxBundleBytes: number;
}

export interface CompiledFunction {
  /** One script: evaluating it runs the function's top level and sets `globalThis.__tessera_module`. */
  code: string;
  entrypoint: string;
  bytes: number;
  warnings: string[];
}

const LOADERS: Record<string, esbuild.Loader> = {
  ".ts": "ts",
  ".mts": "ts",
  ".tsx": "tsx",
  ".js": "js",
  ".mjs": "js",
  ".jsx": "jsx",
  ".json": "json",
};

/**
 * Bundles an uploaded function with esbuild-wasm at deploy time: TypeScript, JSX,
 * many files, the deno.json import map and vendored node_modules, into one script
 * for the isolate. Anything wrong in the code is a 422 whose errors name
 * `file:line:column`, so the developer can jump to it.
 *
 * @example
 *   const compiled = await compileFunction({ "index.ts": "export default { fetch: () => new Response('hi') }" },
 *     undefined, { maxBundleBytes: 10 * 1024 * 1024 });
 */
export async function compileFunction(
  files: FunctionFiles,
  requestedEntrypoint: string | undefined,
  options: CompileOptions,
): Promise<CompiledFunction> {
  const config = readDenoConfig(files);
  const entrypoint = findEntrypoint(files, config, requestedEntrypoint);
  const resolve = createResolver(files, config);
  let result: esbuild.BuildResult;
  try {
    result = await esbuild.build({
      entryPoints: [entrypoint],
      bundle: true,
      write: false,
      format: "iife",
      globalName: MODULE_GLOBAL,
      platform: "neutral",
      target: "es2022",
      charset: "utf8",
      logLevel: "silent",
      sourcemap: false,
      ...jsxOptions(config),
      plugins: [
        {
          name: "tessera-function-files",
          setup(build) {
            build.onResolve({ filter: /.*/ }, (args) => {
              if (args.kind === "entry-point") return { path: args.path, namespace: "fn" };
              const resolution = resolve(args.path, args.importer);
              if ("error" in resolution) return { errors: [{ text: resolution.error }] };
              return { path: resolution.path, namespace: "fn" };
            });
            build.onLoad({ filter: /.*/, namespace: "fn" }, (args) => ({
              contents: files[args.path] ?? "",
              loader: LOADERS[posix.extname(args.path)] ?? "js",
            }));
          },
        },
      ],
    });
  } catch (error) {
    throw compileError(error);
  }
  const code = result.outputFiles?.[0]?.text ?? "";
  const bytes = Buffer.byteLength(code);
  if (bytes > options.maxBundleBytes) {
    throw new AppError(
      "validation_failed",
      `The bundle is ${bytes} bytes; the limit is ${options.maxBundleBytes}`,
      {
        errors: [
          { param: "files", code: "bundle_too_large", message: `at most ${options.maxBundleBytes} bytes` },
        ],
      },
    );
  }
  return { code, entrypoint, bytes, warnings: result.warnings.map(formatMessage) };
}

/** Stops esbuild's service (its wasm worker); the next compile starts it again. */
export function stopCompiler(): Promise<void> {
  return esbuild.stop();
}

function jsxOptions(config: DenoConfig): esbuild.BuildOptions {
  const options = config.compilerOptions ?? {};
  if (options.jsx === "react-jsx" || options.jsx === "react-jsxdev" || options.jsx === "precompile") {
    return { jsx: "automatic", jsxImportSource: options.jsxImportSource ?? "react" };
  }
  return {
    jsx: "transform",
    jsxFactory: options.jsxFactory ?? "React.createElement",
    jsxFragment: options.jsxFragmentFactory ?? "React.Fragment",
  };
}

function compileError(error: unknown): AppError {
  const failure = error as Partial<esbuild.BuildFailure>;
  const messages = failure.errors ?? [];
  if (messages.length === 0) {
    return new AppError("validation_failed", `The function does not compile: ${(error as Error).message}`);
  }
  const errors: FieldError[] = messages.slice(0, 50).map((message) => ({
    param: message.location ? `files.${message.location.file.replace(/^fn:/, "")}` : "files",
    code: "compile_error",
    message: formatMessage(message),
  }));
  return new AppError("validation_failed", `The function does not compile: ${errors[0]!.message}`, {
    errors,
  });
}

/** `path:line:column: text`, as editors and Deno print it. */
function formatMessage(message: esbuild.Message): string {
  const at = message.location;
  if (!at) return message.text;
  return `${at.file.replace(/^fn:/, "")}:${at.line}:${at.column + 1}: ${message.text}`;
}
