import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { uploadedFiles } from "../../dashboard/functions/upload.ts";
import { collectUpload } from "../../cli/functions.ts";
import { useTestApp, type TestOrg } from "../helpers/app.ts";
import { storeKinds } from "../helpers/stores.ts";

/**
 * A function reads the files it was deployed with, as Deno functions do (Supabase's "static
 * files"): by `import.meta.url`, absolute and relative path, with Deno's errors; nothing of the
 * host, of another deployment or of another organization. Real isolates, the real API.
 */

const READER = `
import { libInfo } from "./lib/util.ts";

// Read at the top level: the files are the isolate's, not a request's.
const boot = Deno.readTextFileSync(new URL("./data/x.json", import.meta.url));

async function attempt(read) {
  try {
    return { ok: await read() };
  } catch (error) {
    return { name: error.name, message: error.message, code: error.code ?? null,
      notFound: error instanceof Deno.errors.NotFound };
  }
}

export default {
  async fetch(req) {
    const url = new URL(req.url);
    const route = url.pathname.split("/invoke")[1];
    const p = url.searchParams.get("p");
    switch (route) {
      case "/url": return Response.json(JSON.parse(await Deno.readTextFile(new URL("./data/x.json", import.meta.url))));
      case "/absolute": return new Response(await Deno.readTextFile("/data/x.json"));
      case "/relative": return new Response(await Deno.readTextFile("data/x.json") + Deno.readTextFileSync("./data/x.json"));
      case "/boot": return new Response(boot);
      case "/lib": return Response.json(await libInfo());
      case "/meta": return Response.json({ url: import.meta.url, main: import.meta.main, filename: import.meta.filename,
        dirname: import.meta.dirname, resolved: import.meta.resolve("./data/x.json") });
      case "/image": return new Response(await Deno.readFile(new URL("./static/pixel.png", import.meta.url)),
        { headers: { "content-type": "image/png" } });
      case "/sync-bytes": return Response.json({ length: Deno.readFileSync("/static/pixel.png").length });
      case "/stat": {
        const file = await Deno.stat(new URL("./data/x.json", import.meta.url));
        const dir = Deno.statSync("data");
        const link = await Deno.lstat("/data/x.json");
        return Response.json({ file, dir: { isFile: dir.isFile, isDirectory: dir.isDirectory }, lstat: link.isSymlink });
      }
      case "/readdir": {
        const root = [];
        for await (const entry of Deno.readDir("/")) root.push(entry);
        const data = [...Deno.readDirSync(new URL("./data/", import.meta.url))].map((e) => e.name);
        return Response.json({ root, data });
      }
      case "/realpath": return new Response(await Deno.realPath("./data/../data/x.json"));
      case "/read": return Response.json(await attempt(() => Deno.readTextFile(p)));
      case "/readdir-of": return Response.json(await attempt(async () => { for await (const _ of Deno.readDir(p)) {} return "listed"; }));
      case "/stat-of": return Response.json(await attempt(() => Deno.stat(p)));
      case "/write": return Response.json(await attempt(() => Deno.writeTextFile("/data/x.json", "{}")));
      case "/http-url": return Response.json(await attempt(() => Deno.readFile(new URL("https://example.com/x"))));
    }
    return new Response("no route", { status: 404 });
  },
};`;

const LIB = `
/** In another folder: its import.meta.url is its own. */
export async function libInfo() {
  return { url: import.meta.url, main: import.meta.main,
    data: JSON.parse(await Deno.readTextFile(new URL("../data/x.json", import.meta.url))) };
}`;

/** A 1×1 PNG: bytes that are not UTF-8 (0x89, 0xff…). */
const PIXEL = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==",
  "base64",
);

describe.each(storeKinds())("function files on $name", (kind) => {
  let org: TestOrg;
  let other: TestOrg;

  const t = useTestApp(kind, {
    env: { TESSERA_FUNCTION_MAX_FILES_BYTES: "20000", TESSERA_FUNCTION_CPU_TIME_MS: "1000" },
  });

  const deploy = async (key: string, name: string, files: Record<string, unknown>) => {
    const response = await t.request("POST", "/v1/functions", { key, body: { name, files } });
    expect(response.status, response.text).toBe(201);
  };
  const get = (name: string, path: string, key = org.key) =>
    t.request("GET", `/v1/functions/${name}/invoke${path}`, { key });

  beforeAll(async () => {
    t.clock.set("2025-03-15T10:00:00Z");
    org = await t.newOrg();
    other = await t.newOrg();
    await deploy(org.key, "reader", {
      "index.ts": READER,
      "lib/util.ts": LIB,
      "data/x.json": JSON.stringify({ greeting: "hello", from: "org" }),
      "data/notes/a.txt": "a",
      "static/pixel.png": { encoding: "base64", content: PIXEL.toString("base64") },
      // Vendored by the CLI: bundled (when imported), not kept.
      "node_modules/unused/index.js": "export default 1;",
    });
    // Another function of the same organization, and one of another organization by the same name.
    await deploy(org.key, "neighbour", {
      "index.ts": READER,
      "lib/util.ts": LIB,
      "data/x.json": "{}",
      "secret/only-here.txt": "neighbour's",
    });
    await deploy(other.key, "reader", {
      "index.ts": READER,
      "lib/util.ts": LIB,
      "data/x.json": JSON.stringify({ greeting: "hello", from: "other" }),
      "secret/other-org.txt": "other's",
    });
  });

  it("reads a file by import.meta.url, by absolute path and by path relative to Deno.cwd()", async () => {
    expect((await get("reader", "/url")).body).toEqual({ greeting: "hello", from: "org" });
    const json = JSON.stringify({ greeting: "hello", from: "org" });
    expect((await get("reader", "/absolute")).text).toBe(json);
    expect((await get("reader", "/relative")).text).toBe(json + json);
    expect((await get("reader", "/boot")).text).toBe(json);
    expect((await get("reader", "/realpath")).text).toBe("/data/x.json");
  });

  it("gives every module its own import.meta, under file:///", async () => {
    expect((await get("reader", "/meta")).body).toEqual({
      url: "file:///index.ts",
      main: true,
      filename: "/index.ts",
      dirname: "/",
      resolved: "file:///data/x.json",
    });
    expect((await get("reader", "/lib")).body).toEqual({
      url: "file:///lib/util.ts",
      main: false,
      data: { greeting: "hello", from: "org" },
    });
  });

  it("keeps a base64 file byte for byte (Deno.readFile, readFileSync)", async () => {
    const response = await t.fetch("/v1/functions/reader/invoke/image", {
      headers: { authorization: `Bearer ${org.key}` },
    });
    expect(response.status).toBe(200);
    expect(Buffer.from(await response.arrayBuffer()).equals(PIXEL)).toBe(true);
    expect((await get("reader", "/sync-bytes")).body).toEqual({ length: PIXEL.length });
  });

  it("stats files and folders, with the deploy time as mtime", async () => {
    const { body } = await get("reader", "/stat");
    expect(body.file).toMatchObject({
      isFile: true,
      isDirectory: false,
      isSymlink: false,
      size: Buffer.byteLength(JSON.stringify({ greeting: "hello", from: "org" })),
      mtime: "2025-03-15T10:00:00.000Z",
      atime: null,
    });
    expect(body.dir).toEqual({ isFile: false, isDirectory: true });
    expect(body.lstat).toBe(false);
  });

  it("lists folders with Deno.readDir and readDirSync; node_modules/ is not kept", async () => {
    const { body } = await get("reader", "/readdir");
    expect(body.root).toEqual([
      { name: "data", isFile: false, isDirectory: true, isSymlink: false },
      { name: "index.ts", isFile: true, isDirectory: false, isSymlink: false },
      { name: "lib", isFile: false, isDirectory: true, isSymlink: false },
      { name: "static", isFile: false, isDirectory: true, isSymlink: false },
    ]);
    expect(body.data).toEqual(["notes", "x.json"]);
    expect((await get("reader", "/read?p=/node_modules/unused/index.js")).body).toMatchObject({
      name: "NotFound",
    });
    expect((await get("reader", "/read?p=index.ts")).body.ok).toContain("libInfo");
  });

  it("answers a missing file with Deno.errors.NotFound and Deno's message", async () => {
    expect((await get("reader", "/read?p=/data/missing.json")).body).toEqual({
      name: "NotFound",
      message: "No such file or directory (os error 2): readfile '/data/missing.json'",
      code: "ENOENT",
      notFound: true,
    });
    expect((await get("reader", "/stat-of?p=data/nope")).body).toMatchObject({
      name: "NotFound",
      message: "No such file or directory (os error 2): stat 'data/nope'",
    });
    expect((await get("reader", "/readdir-of?p=/nowhere")).body).toMatchObject({
      name: "NotFound",
      message: "No such file or directory (os error 2): readdir '/nowhere'",
    });
    expect((await get("reader", "/readdir-of?p=/data/x.json")).body).toMatchObject({
      name: "NotADirectory",
      message: "Not a directory (os error 20): readdir '/data/x.json'",
    });
    expect((await get("reader", "/read?p=/data")).body).toMatchObject({
      name: "IsADirectory",
      message: "Is a directory (os error 21): readfile '/data'",
    });
    expect((await get("reader", "/http-url")).body).toMatchObject({
      name: "TypeError",
      message: "Must be a file URL",
    });
  });

  it("reaches nothing of the host's file system", async () => {
    for (const path of ["../../etc/passwd", "/etc/passwd", "/../../../etc/hostname", "/proc/self/environ"]) {
      const { body } = await get("reader", `/read?p=${encodeURIComponent(path)}`);
      expect(body, path).toEqual({
        name: "NotFound",
        message: `No such file or directory (os error 2): readfile '${path}'`,
        code: "ENOENT",
        notFound: true,
      });
    }
  });

  it("sees only its own deployment's files, never another function's or organization's", async () => {
    expect((await get("reader", "/read?p=/secret/only-here.txt")).body).toMatchObject({ name: "NotFound" });
    expect((await get("reader", "/read?p=/secret/other-org.txt")).body).toMatchObject({ name: "NotFound" });
    expect((await get("reader", "/url", other.key)).body).toEqual({ greeting: "hello", from: "other" });
    expect((await get("neighbour", "/read?p=secret/only-here.txt")).body).toEqual({ ok: "neighbour's" });
  });

  it("serves a new version's files after a redeploy", async () => {
    await deploy(org.key, "versioned", { "index.ts": READER, "lib/util.ts": LIB, "data/x.json": '"v1"' });
    expect((await get("versioned", "/absolute")).text).toBe('"v1"');
    await deploy(org.key, "versioned", { "index.ts": READER, "lib/util.ts": LIB, "data/x.json": '"v2"' });
    expect((await get("versioned", "/absolute")).text).toBe('"v2"');
  });

  it("refuses writes with Deno.errors.NotCapable: the files are read-only", async () => {
    const { body } = await get("reader", "/write");
    expect(body.name).toBe("NotCapable");
    expect(body.message).toMatch(/^Requires write access to "\/data\/x.json": .*read-only/);
  });

  it("refuses a deploy whose kept files are over the operator's limit with a 422 at files", async () => {
    const response = await t.request("POST", "/v1/functions", {
      key: org.key,
      body: { name: "too-big", files: { "index.ts": READER, "data/big.txt": "x".repeat(20_001) } },
    });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual([
      { param: "files", code: "files_too_large", message: "at most 20000 bytes in all" },
    ]);
    // Vendored packages are not kept, so they do not count.
    await deploy(org.key, "big-vendor", {
      "index.ts": `export default { fetch: () => new Response("ok") };`,
      "node_modules/big/index.js": `export const x = "${"y".repeat(30_000)}";`,
    });
  });

  it("refuses a binary file that is not base64 with a 422 naming it", async () => {
    const response = await t.request("POST", "/v1/functions", {
      key: org.key,
      body: {
        name: "bad-base64",
        files: { "index.ts": READER, "a.bin": { encoding: "base64", content: "%%" } },
      },
    });
    expect(response.status).toBe(422);
    expect(JSON.stringify(response.body.errors)).toContain("a.bin");
  });

  it("reports compile errors at the column written, in a module that uses import.meta", async () => {
    const response = await t.request("POST", "/v1/functions", {
      key: org.key,
      body: { name: "broken", files: { "index.ts": "const u = import.meta.url; let = ;" } },
    });
    expect(response.status).toBe(422);
    expect(response.body.errors[0].message).toMatch(/^index\.ts:1:34: /);
  });
});

describe("the deploy readers", () => {
  const upload = {
    "index.ts": `export default { fetch: () => new Response("ok") };`,
    "data/x.json": '{"ünïcode":"✓"}',
    "static/pixel.png": { encoding: "base64", content: PIXEL.toString("base64") },
  };

  it("tessera functions deploy sends a file that is not UTF-8 as base64, text as it is", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tessera-files-"));
    try {
      mkdirSync(join(dir, "data"));
      mkdirSync(join(dir, "static"));
      writeFileSync(join(dir, "index.ts"), upload["index.ts"]);
      writeFileSync(join(dir, "data/x.json"), upload["data/x.json"]);
      writeFileSync(join(dir, "static/pixel.png"), PIXEL);
      expect(await collectUpload(dir)).toEqual(upload);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the dashboard's folder upload does the same", async () => {
    const form = new FormData();
    form.append("folder", new File([upload["index.ts"]], "fn/index.ts"));
    form.append("folder", new File([upload["data/x.json"]], "fn/data/x.json"));
    form.append("folder", new File([PIXEL], "fn/static/pixel.png"));
    expect(await uploadedFiles(form, 1_000_000)).toEqual(upload);
  });
});
