import { posix } from "node:path";
import { z } from "zod";
import { AppError } from "../core/index.ts";

/**
 * The files of an uploaded function: a folder as `{ "path": "source" }`, with an
 * optional `deno.json` (its `main`, `imports`, `scopes` and `compilerOptions` are read)
 * and any `node_modules/` the CLI vendored for `npm:`, `jsr:` and `https:` imports.
 * A file that is not UTF-8 text (an image, a `.wasm`) comes as `{ "encoding": "base64",
 * "content": "…" }`: JSON has no bytes, and a string would have turned them into U+FFFD.
 */

/**
 * What a deploy never takes from a developer's folder, by file or folder name: version control,
 * editor and OS files, and `.env*` files (a function's secrets are set with
 * `PUT /v1/functions/{ref}/secrets`; a `.env` deployed with the code would be readable by
 * `Deno.readFile`). The CLI also leaves out `node_modules/`, which it vendors itself.
 */
const LEFT_OUT = new Set([".git", ".DS_Store", ".vscode", ".idea"]);
export function isLeftOutOfDeploy(name: string): boolean {
  return LEFT_OUT.has(name) || name.startsWith(".env");
}

/** The most files a function may have (a folder or a zip is refused past it before it is read). */
export const MAX_FUNCTION_FILES = 2000;

const PATH = /^(?!\/)(?!.*(?:^|\/)\.\.?(?:\/|$))[A-Za-z0-9@._+\-/ ]{1,512}$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export const BinaryFileSchema = z
  .object({
    encoding: z.literal("base64"),
    content: z.string().regex(BASE64, "must be base64 (RFC 4648 §4, with padding)"),
  })
  .strict()
  .meta({
    id: "BinaryFile",
    description:
      "A file that is not UTF-8 text (an image, a .wasm), as base64; a function reads it with Deno.readFile",
  });
export type BinaryFile = z.infer<typeof BinaryFileSchema>;

export const FunctionFilesSchema = z
  .record(
    z.string().regex(PATH, "must be a relative path inside the function, without . or .. segments"),
    z.union([z.string(), BinaryFileSchema]),
  )
  .refine((files) => Object.keys(files).length > 0, "must contain at least one file")
  .refine((files) => Object.keys(files).length <= MAX_FUNCTION_FILES, `at most ${MAX_FUNCTION_FILES} files`)
  .meta({
    description:
      'The function\'s folder, path → content: text as a string, other files as {encoding: "base64", content}. ' +
      "All but node_modules/ are kept with the deployment, for Deno.readFile and friends.",
  });
/** The upload as the API takes it: text files as strings, binary ones as base64. */
export type UploadedFiles = z.infer<typeof FunctionFilesSchema>;
/** The text files of an upload, path → source: what is compiled and resolved. */
export type FunctionFiles = Record<string, string>;

/** The upload's text files (binary ones are data, never modules). */
export function sourceFiles(upload: UploadedFiles): FunctionFiles {
  const sources: FunctionFiles = {};
  for (const [path, content] of Object.entries(upload))
    if (typeof content === "string") sources[path] = content;
  return sources;
}

/**
 * The files kept with a deployment for the function to read (`Deno.readFile`), as bytes, by
 * path: every uploaded file, code included (Deno reads its own sources too), except the
 * `node_modules/` the CLI vendored, which are bundled and rarely read, and can be large.
 */
export function keptFiles(upload: UploadedFiles): Array<{ path: string; content: Uint8Array }> {
  return Object.entries(upload)
    .filter(([path]) => !path.startsWith("node_modules/"))
    .map(([path, content]) => ({
      path,
      content:
        typeof content === "string" ? Buffer.from(content, "utf8") : Buffer.from(content.content, "base64"),
    }))
    .sort((a, b) => (a.path < b.path ? -1 : 1));
}

/** A file's size in bytes, as it was uploaded (text as UTF-8, base64 decoded). */
export function uploadedBytes(content: UploadedFiles[string]): number {
  return typeof content === "string"
    ? Buffer.byteLength(content)
    : Buffer.byteLength(content.content, "base64");
}

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
