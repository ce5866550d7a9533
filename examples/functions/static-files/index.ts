/**
 * static-files: a function reads the files it was deployed with, as Deno functions do
 * (Supabase calls them static files). `tessera functions deploy` uploads the folder, a
 * file that is not UTF-8 (the PNG) as base64, and the function finds them where Deno
 * would: by `import.meta.url`, or by a path relative to `Deno.cwd()` (the function's
 * folder under Tessera; under plain Deno, run it from its folder). Files are read-only.
 * Handler style: `export default { fetch }`, which plain Deno serves through
 * `_shared/dev-host.ts` (it needs `--allow-read`).
 *
 *   GET …/products | …/products/p2 | …/pixel.png | …/pixel.json | …/files | …/notes | …/missing
 */
interface Product {
  id: string;
  name: string;
  price: number;
  tags: string[];
}

const INVOKE_PREFIX = /^\/v1\/functions\/[^/]+\/invoke(?=\/|$)/;
/** This module's folder as a path: `/` under Tessera, the folder on disk under Deno. */
const HERE = new URL(".", import.meta.url).pathname;

// Read once, at the top level: later requests use what this isolate already holds.
const products = JSON.parse(
  Deno.readTextFileSync(new URL("./data/products.json", import.meta.url)),
) as Product[];

export default {
  async fetch(req: Request): Promise<Response> {
    const path = new URL(req.url).pathname.replace(INVOKE_PREFIX, "");
    const [, route, id] = path.split("/");
    switch (route) {
      case "products":
        if (!id) return Response.json({ count: products.length, data: products });
        return product(id);
      case "pixel.png":
        return new Response(await Deno.readFile(new URL("./static/pixel.png", import.meta.url)), {
          headers: { "content-type": "image/png", "cache-control": "public, max-age=3600" },
        });
      case "pixel.json":
        return Response.json(await digest(new URL("./static/pixel.png", import.meta.url)));
      case "files":
        return Response.json(await listing());
      case "notes":
        // Relative to Deno.cwd(), as Deno resolves it.
        return new Response(await Deno.readTextFile("data/notes.txt"), {
          headers: { "content-type": "text/plain; charset=utf-8" },
        });
      case "missing":
        return missing();
    }
    return Response.json({ error: "not found" }, { status: 404 });
  },
};

function product(id: string): Response {
  const found = products.find((item) => item.id === id);
  return found ? Response.json(found) : Response.json({ error: `no product ${id}` }, { status: 404 });
}

/** A binary file's size and SHA-256: it came through the deploy byte for byte. */
async function digest(file: URL) {
  const bytes = await Deno.readFile(file);
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return { bytes: bytes.length, sha256: [...hash].map((b) => b.toString(16).padStart(2, "0")).join("") };
}

/** `data/` and `static/` with each file's size, sorted (directory order is the file system's). */
async function listing() {
  const folders: Record<string, Array<{ name: string; size: number }>> = {};
  for (const folder of ["data", "static"]) {
    const entries = [];
    for await (const entry of Deno.readDir(new URL(`./${folder}/`, import.meta.url))) {
      if (!entry.isFile) continue;
      const info = await Deno.stat(new URL(`./${folder}/${entry.name}`, import.meta.url));
      entries.push({ name: entry.name, size: info.size });
    }
    folders[folder] = entries.sort((a, b) => a.name.localeCompare(b.name));
  }
  return folders;
}

/** A file that is not there: `Deno.errors.NotFound`, with Deno's message (the folder made `/`). */
async function missing(): Promise<Response> {
  try {
    await Deno.readTextFile(new URL("./data/missing.json", import.meta.url));
    return Response.json({ error: "it was there" }, { status: 500 });
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    return Response.json({ error: error.name, message: error.message.replace(HERE, "/") }, { status: 404 });
  }
}
