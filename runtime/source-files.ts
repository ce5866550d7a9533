import { posix } from "node:path";
import { z } from "zod";
import { AppError } from "../core/index.ts";

/**
 * The files of an uploaded function: a folder as `{ "path": "source" }`, with an
 * optional `deno.json` (its `main`, `imports`, `scopes` and `compilerOptions` are read)
 * and any `node_modules/` the CLI vendored for `npm:`, `jsr:` and `https:` imports.
 */

/** The most files a function may have (a folder or a zip is refused past it before it is read). */
export const MAX_FUNCTION_FILES = 2000;

const PATH = /^(?!\/)(?!.*(?:^|\/)\.\.?(?:\/|$))[A-Za-z0-9@._+\-/ ]{1,512}$/;

export const FunctionFilesSchema = z
  .record(
    z.string().regex(PATH, "must be a relative path inside the function, without . or .. segments"),
    z.string(),
  )
  .refine((files) => Object.keys(files).length > 0, "must contain at least one file")
  .refine((files) => Object.keys(files).length <= MAX_FUNCTION_FILES, `at most ${MAX_FUNCTION_FILES} files`);
export type FunctionFiles = z.infer<typeof FunctionFilesSchema>;

export const DenoConfigSchema = z
  .object({
    main: z.string().optional(),
    imports: z.record(z.string(), z.string()).optional(),
    scopes: z.record(z.string(), z.record(z.string(), z.string())).optional(),
    compilerOptions: z
      .object({
        jsx: z.enum(["react", "react-jsx", "react-jsxdev", "precompile"]).optional(),
        jsxFactory: z.string().optional(),
        jsxFragmentFactory: z.string().optional(),
        jsxImportSource: z.string().optional(),
      })
      .partial()
      .passthrough()
      .optional(),
  })
  .passthrough();
export type DenoConfig = z.infer<typeof DenoConfigSchema>;

const CONFIG_FILES = ["deno.json", "deno.jsonc"];
const ENTRY_CANDIDATES = ["index.ts", "index.tsx", "index.js", "index.jsx", "index.mjs", "main.ts", "mod.ts"];

/** Reads `deno.json` (or `.jsonc`), refusing one that is not valid: a 422 naming the file. */
export function readDenoConfig(files: FunctionFiles): DenoConfig {
  const name = CONFIG_FILES.find((candidate) => candidate in files);
  if (!name) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(stripJsonComments(files[name]!));
  } catch (error) {
    throw invalidFile(name, `is not valid JSON: ${(error as Error).message}`);
  }
  const config = DenoConfigSchema.safeParse(parsed);
  if (!config.success) throw invalidFile(name, config.error.issues[0]?.message ?? "is not a deno.json");
  return config.data;
}

/** The entry module: the one asked for, else deno.json's `main`, else `index.ts` and friends. */
export function findEntrypoint(files: FunctionFiles, config: DenoConfig, requested?: string): string {
  const wanted = requested ?? config.main;
  if (wanted !== undefined) {
    const path = posix.normalize(wanted.replace(/^\.\//, ""));
    if (!(path in files)) {
      throw new AppError("validation_failed", `The entrypoint '${wanted}' is not among the files`, {
        errors: [{ param: "entrypoint", code: "not_found", message: `no file '${wanted}'` }],
      });
    }
    return path;
  }
  const found = ENTRY_CANDIDATES.find((candidate) => candidate in files);
  if (!found) {
    throw new AppError("validation_failed", "No entrypoint: add index.ts, or name one in deno.json's main", {
      errors: [{ param: "entrypoint", code: "missing", message: `none of ${ENTRY_CANDIDATES.join(", ")}` }],
    });
  }
  return found;
}

export function invalidFile(path: string, message: string): AppError {
  return new AppError("validation_failed", `${path} ${message}`, {
    errors: [{ param: `files.${path}`, code: "invalid", message }],
  });
}

/** JSONC as deno.jsonc allows it: line and block comments, outside strings. */
export function stripJsonComments(text: string): string {
  return text.replace(
    /("(?:\\.|[^"\\])*")|\/\/[^\n]*|\/\*[\s\S]*?\*\//g,
    (match, string: string | undefined) => string ?? "",
  );
}
