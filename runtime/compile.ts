import { posix } from "node:path";
import type * as esbuild from "esbuild-wasm";
import { AppError, isAppError, type FieldError } from "../core/index.ts";
import { moduleAsScript } from "../sandbox/index.ts";
import { MAX_SOURCE_NESTING, nestingPastLimit, type DeepNesting } from "./compile-depth.ts";
import { polyfillScript, polyfillsFor } from "./polyfills.ts";
import { guardedBuild, stopGuardedCompiler } from "./compile-guard.ts";
import { createResolver } from "./resolve.ts";
import {
  findEntrypoint,
  readDenoConfig,
  sourceFiles,
  type DenoConfig,
  type UploadedFiles,
} from "./source-files.ts";

/** The global the isolate puts the module's namespace under (`default` export and all). */
export { MODULE_GLOBAL } from "../sandbox/index.ts";

export interface CompileOptions {
  /** Largest bundle accepted, bytes. */
  maxBundleBytes: number;
  /** Longest a build may take, ms, before the compiler is stopped (`COMPILE_WALL_TIME_MS` unless given). */
  wallTimeMs?: number;
}

export interface CompiledFunction {
  /**
   * Every module of the function bundled into one program, a script that behaves as the ES module
   * would (sandbox/program.ts): strict, its top level may await, its exports `__tessera_module`.
   */
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
 * many files, the deno.json import map and vendored node_modules, into one program
 * for the isolate, with ES modules' semantics (strict; its top level may `await`, as in Deno). Anything wrong in the code is a 422 whose errors name
 * `file:line:column`, so the developer can jump to it.
 *
 * @example
 *   const compiled = await compileFunction({ "index.ts": "export default { fetch: () => new Response('hi') }" },
 *     undefined, { maxBundleBytes: 10 * 1024 * 1024 });
 */
export async function compileFunction(
  upload: UploadedFiles,
  requestedEntrypoint: string | undefined,
  options: CompileOptions,
): Promise<CompiledFunction> {
  const files = sourceFiles(upload);
  const prefixes: MetaPrefixes = new Map();
  const config = readDenoConfig(files);
  const entrypoint = findEntrypoint(files, config, requestedEntrypoint);
  const resolve = createResolver(files, config);
  let result: esbuild.BuildResult;
  let topLevelAwait = false;
  const build = (charset: esbuild.Charset) =>
    guardedBuild(
      {
        entryPoints: [entrypoint],
        bundle: true,
        write: false,
        format: "esm",
        platform: "neutral",
        target: "es2022",
        // Refused first, so a bundle that does not await at its top is known to be one (moduleAsScript).
        supported: topLevelAwait ? {} : { "top-level-await": false },
        charset,
        logLevel: "silent",
        sourcemap: false,
        ...jsxOptions(config),
        // Each module's `import.meta` is the const `moduleSource` declares in it (see there).
        define: { "import.meta": IMPORT_META },
        plugins: [
          {
            name: "tessera-function-files",
            setup(build) {
              build.onResolve({ filter: /.*/ }, (args) => {
                // esbuild may hand an entry point over as "./main.ts": the file set's keys have no "./".
                if (args.kind === "entry-point") return { path: posix.normalize(args.path), namespace: "fn" };
                const resolution = resolve(args.path, args.importer);
                if ("error" in resolution) return { errors: [{ text: resolution.error }] };
                return { path: resolution.path, namespace: "fn" };
              });
              build.onLoad({ filter: /.*/, namespace: "fn" }, (args) => {
                const loader = LOADERS[posix.extname(args.path)] ?? "js";
                const source = files[args.path];
                // Never compiled as empty: a module the resolver named is one of the files.
                if (source === undefined)
                  return { errors: [{ text: `no file '${args.path}' in the upload` }] };
                const contents = moduleSource(
                  args.path,
                  source,
                  loader,
                  entrypoint,
                  prefixes,
                  config.imports,
                );
                const deep = nestingPastLimit(contents);
                if (deep) return { errors: [tooDeep(args.path, deep)] };
                return { contents, loader };
              });
            },
          },
        ],
      },
      { wallTimeMs: options.wallTimeMs },
    );
  try {
    result = await build("utf8").catch((error: unknown) => {
      if (!awaitsAtTopLevel(error)) throw error;
      topLevelAwait = true;
      return build("utf8");
    });
  } catch (error) {
    // The guard's refusals (compile-guard.ts) are already what the developer is told.
    throw isAppError(error) ? error : compileError(error, prefixes);
  }
  const own = await leanerSource(result.outputFiles?.[0]?.text ?? "", options, build);
  const code = moduleAsScript(await withPolyfills(own), topLevelAwait);
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
  return {
    code,
    entrypoint,
    bytes,
    warnings: result.warnings.map((warning) => formatMessage(warning, prefixes)),
  };
}

/**
 * The bundle as every isolate of the function will hold it. V8 keeps a script's source for as long as
 * the isolate lives (lazy functions are compiled from it), one byte a character when every character
 * is Latin-1 and two bytes for all of them when one is not: a single "—" or "’" in a message doubles
 * the whole source in every isolate. Such a bundle is built again with non-ASCII characters escaped
 * (the same strings at run time), kept when all of them could be, when that is smaller than two bytes
 * a character (not for code that is mostly CJK text, say) and within the size limit. The platform's
 * own bundle is ASCII for the same reason (sandbox/web-platform.ts).
 */
async function leanerSource(
  code: string,
  options: CompileOptions,
  build: (charset: esbuild.Charset) => Promise<esbuild.BuildResult>,
): Promise<string> {
  if (!BEYOND_LATIN1.test(code)) return code;
  // The same build succeeded a moment ago; should the second one fail anyway, the UTF-8 bundle is correct.
  const escaped = (await build("ascii").catch(() => undefined))?.outputFiles?.[0]?.text ?? "";
  if (!escaped) return code;
  // esbuild leaves what it cannot escape without changing it: regular expression literals, raw templates.
  if (BEYOND_LATIN1.test(escaped)) return code;
  const smaller = escaped.length < 2 * code.length;
  return smaller && Buffer.byteLength(escaped) <= options.maxBundleBytes ? escaped : code;
}

const BEYOND_LATIN1 = /[\u0100-\uffff]/;

/**
 * The function's code after the built-ins it names that its V8 may lack (polyfills.ts), or as it
 * is when it names none. A `"use strict"` directive stays first, so that it still is one.
 */
async function withPolyfills(code: string): Promise<string> {
  const modules = polyfillsFor(code);
  if (modules.length === 0) return code;
  const script = await polyfillScript(modules);
  const directive = /^\s*(["'])use strict\1;?\n?/.exec(code)?.[0] ?? "";
  return `${directive}${script}\n${code.slice(directive.length)}`;
}

/** esbuild's refusal of `await` at a module's top level, when `supported` says it is not. */
function awaitsAtTopLevel(error: unknown): boolean {
  // The guard's refusals are AppErrors, whose `errors` are field errors: not esbuild's messages.
  if (isAppError(error)) return false;
  const messages = (error as Partial<esbuild.BuildFailure>).errors ?? [];
  // Some: the build that allows it then reports the source's other errors, without this one.
  return messages.some(
    (message) => typeof message.text === "string" && message.text.startsWith(TOP_LEVEL_AWAIT),
  );
}

const TOP_LEVEL_AWAIT = "Top-level await is not available in the configured target environment";

/**
 * Stops esbuild's service (its wasm child process); the next compile starts it again. A source that
 * brings the service down is refused with a 422 and the service restarted (compile-guard.ts).
 */
export function stopCompiler(): Promise<void> {
  return stopGuardedCompiler();
}

/** The pre-check's refusal, as esbuild reports an error in a file (so it reads `file:line:column`). */
function tooDeep(path: string, at: DeepNesting): esbuild.PartialMessage {
  return {
    text: `brackets nest more than ${MAX_SOURCE_NESTING} deep here; the compiler takes at most ${MAX_SOURCE_NESTING}`,
    location: { file: `fn:${path}`, line: at.line, column: at.column, length: 1, lineText: at.lineText },
  };
}

/** The identifier `import.meta` becomes; each module that uses it declares its own. */
const IMPORT_META = "__tessera_import_meta";
const USES_IMPORT_META = /\bimport\s*\.\s*meta\b/;

/**
 * A module's source with its `import.meta` declared in front of it, on its first line (a
 * shebang's line kept first), so line numbers stay as written. The bundle is one module
 * where the function had many, each with its own `import.meta`, so `define` maps it to an identifier, and each
 * module that reads it declares that identifier at its top: esbuild's scope hoisting
 * renames the declarations apart (`__tessera_import_meta2`) and binds each module's
 * references to its own (test/runtime/compile.test.ts has two modules in two folders).
 * As in Deno: `url` is the module's `file:` URL under the function's root `/` (where
 * `Deno.readFile` finds the deployed files), `main` is true for the entrypoint only,
 * `filename`/`dirname` are its path, `resolve` resolves a specifier as an import of that
 * module would be: through deno.json's import map (`importMapResolver`), else against the
 * module's URL. Modules that never mention `import.meta` are left as they are.
 */
function moduleSource(
  path: string,
  source: string,
  loader: esbuild.Loader,
  entrypoint: string,
  prefixes: MetaPrefixes,
  imports: Readonly<Record<string, string>> = {},
): string {
  if (loader === "json" || !USES_IMPORT_META.test(source)) return source;
  const url = new URL(path, "file:///").href;
  const meta =
    `const ${IMPORT_META} = { url: ${JSON.stringify(url)}, main: ${path === entrypoint}, ` +
    `filename: ${JSON.stringify(`/${path}`)}, dirname: ${JSON.stringify(posix.dirname(`/${path}`))}, ` +
    `resolve: (specifier) => (${importMapResolver(imports)})(specifier, ${JSON.stringify(url)}) };`;
  const shebang = /^#![^\n]*\n/.exec(source)?.[0] ?? "";
  prefixes.set(path, { line: shebang ? 2 : 1, length: meta.length });
  return shebang + meta + source.slice(shebang.length);
}

/**
 * `import.meta.resolve` as Deno's (the HTML import maps algorithm, top-level `imports` only), as
 * the source of a function `(specifier, base) => url` that runs in the isolate: a specifier that is
 * a URL or a path (`./`, `../`, `/`) is made absolute against the module first; then the longest
 * key of the map that equals it, or is a prefix of it ending in `/`, replaces that part by its
 * target (a path target is against deno.json, at the root); what the map does not name is the URL
 * itself, and a bare name it does not name is a TypeError, as in Deno.
 */
export function importMapResolver(imports: Readonly<Record<string, string>>): string {
  const entries = Object.entries(imports).sort(([a], [b]) => b.length - a.length);
  // One line: it goes on the module's first line, which must stay its first (see moduleSource).
  return `(specifier, base) => {
    const map = ${JSON.stringify(entries)};
    const text = String(specifier);
    const isPath = (t) => t.startsWith("/") || t.startsWith("./") || t.startsWith("../");
    const asUrl = isPath(text) ? new URL(text, base).href
      : /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(text) ? new URL(text).href : null;
    const key = asUrl ?? text;
    for (const [from, to] of map) {
      if (from !== key && !(from.endsWith("/") && key.startsWith(from))) continue;
      const target = isPath(to) ? new URL(to, "file:///deno.json").href : to;
      return from === key ? target : target + key.slice(from.length);
    }
    if (asUrl !== null) return asUrl;
    throw new TypeError('Relative import path "' + text + '" not prefixed with / or ./ or ../ and not in import map from "' + base + '"');
  }`.replace(/\s*\n\s*/g, " ");
}

/** Per file, the line where `moduleSource` put `import.meta` and its length: messages point past it. */
type MetaPrefixes = Map<string, { line: number; length: number }>;

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

function compileError(error: unknown, prefixes: MetaPrefixes): AppError {
  const failure = error as Partial<esbuild.BuildFailure>;
  const messages = failure.errors ?? [];
  if (messages.length === 0) {
    return new AppError("validation_failed", `The function does not compile: ${(error as Error).message}`);
  }
  const errors: FieldError[] = messages.slice(0, 50).map((message) => ({
    param: message.location ? `files.${message.location.file.replace(/^fn:/, "")}` : "files",
    code: "compile_error",
    message: formatMessage(message, prefixes),
  }));
  return new AppError("validation_failed", `The function does not compile: ${errors[0]!.message}`, {
    errors,
  });
}

/** `path:line:column: text`, as editors and Deno print it. */
function formatMessage(message: esbuild.Message, prefixes: MetaPrefixes): string {
  const at = message.location;
  if (!at) return message.text;
  const file = at.file.replace(/^fn:/, "");
  const prefix = prefixes.get(file);
  const column =
    prefix?.line === at.line && at.column >= prefix.length ? at.column - prefix.length : at.column;
  return `${file}:${at.line}:${column + 1}: ${message.text}`;
}
