import type { Context } from "hono";
import { AppError } from "../../core/index.ts";
import {
  isLeftOutOfDeploy,
  MAX_FUNCTION_FILES,
  type FunctionFiles,
  type UploadedFiles,
} from "../../runtime/index.ts";
import { readBody } from "../../api/middleware/json-body.ts";
import { unzip, ZipRefused, type ZipEntry } from "./zip.ts";

/**
 * A deploy form's files, the same `{ path: source }` that `POST /v1/functions` takes: from the
 * editor (one `index.ts`), a folder (each file sent with its path relative to the folder picked, as
 * browsers send `webkitdirectory` uploads) or a zip unpacked here. The body is read once under the
 * API's upload limit (`TESSERA_FUNCTION_MAX_UPLOAD_BYTES`), and a zip may unpack to no more than it.
 */

/** Why a form's files were refused; the message goes next to the field that chose them. */
export class SourceRefused extends Error {}

/**
 * Reads the posted form under `maxBytes` (a 413 AppError past it, checked on the stream) and hands
 * it to Hono's body cache, so `parts.posted` checks the CSRF token of this same form. The dashboard's
 * form guard (guard.ts) has read it already, under the same limit: then it is taken from the cache.
 */
export async function readDeployForm(c: Context, maxBytes: number): Promise<FormData> {
  if (c.req.bodyCache.formData) return c.req.formData();
  const bytes = await readBody(c, maxBytes);
  let form: FormData;
  try {
    form = await new Response(bytes, {
      headers: { "content-type": c.req.header("content-type") ?? "" },
    }).formData();
  } catch {
    throw new AppError("invalid_request", "The form could not be read: reload the page and send it again");
  }
  // Hono awaits what it finds there: the form itself will do.
  c.req.bodyCache.formData = form;
  return form;
}

/** The editor's code as the function's `index.ts`. */
export function editorFiles(form: FormData): FunctionFiles {
  const code = form.get("code");
  return { "index.ts": typeof code === "string" ? code : "" };
}

/** The uploaded folder's or zip's files; one of the two, not both. */
export async function uploadedFiles(form: FormData, maxBytes: number): Promise<UploadedFiles> {
  const folder = chosen(form, "folder");
  const zips = chosen(form, "zip");
  if (folder.length > 0 && zips.length > 0) throw new SourceRefused("Choose a folder or a zip, not both");
  if (zips.length > 1) throw new SourceRefused("Choose one zip");
  const zip = zips[0];
  if (zip) return asUpload(fromZip(Buffer.from(await zip.arrayBuffer()), maxBytes));
  if (folder.length === 0) throw new SourceRefused("Choose a folder or a zip to upload");
  if (folder.length > MAX_FUNCTION_FILES) {
    throw new SourceRefused(`The folder holds more than ${MAX_FUNCTION_FILES} files`);
  }
  const entries = await Promise.all(
    folder.map(async (file) => ({ path: file.name, bytes: Buffer.from(await file.arrayBuffer()) })),
  );
  return asUpload(withoutSharedFolder(entries));
}

function fromZip(zip: Buffer, maxBytes: number): ZipEntry[] {
  try {
    return withoutSharedFolder(unzip(zip, { maxEntries: MAX_FUNCTION_FILES, maxTotalBytes: maxBytes }));
  } catch (error) {
    if (error instanceof ZipRefused) throw new SourceRefused(error.message);
    throw error;
  }
}

/** The files sent in a file field; a field left empty still sends one nameless, empty part. */
function chosen(form: FormData, field: string): Upload[] {
  return form
    .getAll(field)
    .filter((value): value is Upload => typeof value !== "string" && (value.name !== "" || value.size > 0));
}

type Upload = Exclude<ReturnType<FormData["get"]>, string | null>;

/**
 * `hello/index.ts`, `hello/lib/a.ts` → `index.ts`, `lib/a.ts`: a picked folder's files arrive
 * under its name, and a zipped folder usually holds the folder itself; the function is what is in it.
 */
function withoutSharedFolder(entries: ZipEntry[]): ZipEntry[] {
  const folder = entries[0]?.path.split("/")[0];
  if (!folder || !entries.every((entry) => entry.path.startsWith(`${folder}/`))) return entries;
  return entries.map((entry) => ({ path: entry.path.slice(folder.length + 1), bytes: entry.bytes }));
}

/**
 * As `POST /v1/functions` takes them: UTF-8 text as a string, anything else (an image, a
 * `.wasm`) as base64, kept byte for byte for the function's `Deno.readFile`.
 */
function asUpload(entries: ZipEntry[]): UploadedFiles {
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  return Object.fromEntries(
    entries
      // As the CLI leaves them out (`.git/`, `.env*`, editor files): never kept for `Deno.readFile`.
      .filter((entry) => !entry.path.split("/").some(isLeftOutOfDeploy))
      .map((entry): [string, UploadedFiles[string]] => {
        try {
          return [entry.path, decoder.decode(entry.bytes)];
        } catch {
          return [entry.path, { encoding: "base64", content: Buffer.from(entry.bytes).toString("base64") }];
        }
      }),
  );
}
