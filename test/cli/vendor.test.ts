import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectUpload } from "../../cli/functions.ts";
import { compileFunction, MODULE_GLOBAL, stopCompiler } from "../../runtime/index.ts";
import { startFakeRemote, type FakeRemote } from "./fake-remote.ts";

const LIMITS = { maxBundleBytes: 1024 * 1024 };

function writeTree(dir: string, files: Record<string, string>): void {
  for (const [path, body] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), body);
  }
}

function evaluate(code: string): Record<string, unknown> {
  const sandbox: Record<string, unknown> = {};
  runInNewContext(code, sandbox);
  return sandbox[MODULE_GLOBAL] as Record<string, unknown>;
}

const greetV = (version: string) => ({
  exports: { ".": "./mod.ts" },
  files: {
    "mod.ts": `export const greet = (name: string) => "${version} " + name; export const latest = "${version}";`,
  },
});

describe("collectUpload vendoring https: and jsr: imports", () => {
  let remote: FakeRemote;
  const root = mkdtempSync(join(tmpdir(), "tessera-vendor-"));
  let counter = 0;

  /** A function folder of its own, with `tiny-pkg` installed next to it. */
  const project = (files: Record<string, string>): string => {
    const dir = join(root, `fn-${++counter}`);
    writeTree(dir, files);
    return dir;
  };

  beforeAll(async () => {
    writeTree(root, {
      "node_modules/tiny-pkg/package.json": JSON.stringify({
        name: "tiny-pkg",
        version: "1.0.0",
        type: "module",
        exports: "./index.js",
      }),
      "node_modules/tiny-pkg/index.js": `export default "!";`,
    });
    remote = await startFakeRemote(
      (base) => ({
        "/std/mod.ts": {
          body: `/** Example, never fetched: import { nope } from "https://nowhere.invalid/x.ts"; */
import { twice } from "./util.ts";
import { abs } from "${base}/lib/abs.js";
import { moved } from "/old/thing.ts";
export const std: string = twice(abs) + moved;`,
        },
        "/std/util.ts": { body: `export const twice = (s: string): string => s + s;` },
        "/lib/abs.js": { body: `export const abs = "a";`, type: "application/javascript; charset=utf-8" },
        "/old/thing.ts": { redirect: "/new/thing.ts" },
        "/new/thing.ts": {
          body: `import { sib } from "./sibling.ts"; export const moved: string = "m" + sib;`,
        },
        "/new/sibling.ts": { body: `export const sib = "s";` },
        "/esm/noext": { body: `const n: number = 42; export default n;` },
        "/data.json": { body: `{ "k": "v" }`, type: "application/json" },
        "/page.html": { body: "<html></html>", type: "text/html" },
        "/jsr/@acme/fmt/0.1.0/mod.ts": { body: `export const pad = (s: string) => "tampered " + s;` },
      }),
      {
        "@acme/greet": {
          latest: "2.0.0",
          versions: {
            "1.0.0": greetV("1.0.0"),
            "1.1.0": {
              exports: { ".": "./mod.ts", "./shout": "./shout.ts" },
              files: {
                "mod.ts": `import { fmt } from "./internal/fmt.ts";
import { pad } from "jsr:@acme/fmt@^0.1";
import tiny from "npm:tiny-pkg@^1";
export const greet = (name: string): string => fmt(pad(name)) + tiny;`,
                "internal/fmt.ts": `export const fmt = (s: string) => "hello " + s;`,
                "shout.ts": `export const shout = (s: string) => s.toUpperCase();`,
              },
            },
            "1.2.0": { ...greetV("1.2.0"), yanked: true },
            "2.0.0": greetV("2.0.0"),
          },
        },
        "@acme/fmt": {
          versions: {
            "0.1.0": {
              exports: { ".": "./mod.ts" },
              files: { "mod.ts": `export const pad = (s: string) => "(" + s + ")";` },
            },
            "0.1.5": {
              exports: { ".": "./mod.ts" },
              files: { "mod.ts": `export const pad = (s: string) => "[" + s + "]";` },
            },
            "0.2.0": {
              exports: { ".": "./mod.ts" },
              files: { "mod.ts": `export const pad = (s: string) => "{" + s + "}";` },
            },
          },
        },
      },
    );
  });
  afterAll(async () => {
    await remote?.close();
    await stopCompiler();
    rmSync(root, { recursive: true, force: true });
  });

  it("vendors https modules (relative, absolute, redirected), jsr packages and npm, and the upload compiles and runs", async () => {
    const base = remote.url;
    const dir = project({
      "deno.json": JSON.stringify({
        imports: { greet: "jsr:@acme/greet@^1", "std/": `${base}/std/`, local: "./local.ts" },
        scopes: { "./sub/": { local: "./sub/other.ts" } },
      }),
      "index.ts": `import { greet } from "greet";
import { shout } from "greet/shout";
import { std } from "std/mod.ts";
import n from "${base}/esm/noext";
import data from "${base}/data.json" with { type: "json" };
import { latest } from "jsr:@acme/greet";
import { local } from "local";
export default { greet: greet("Ada"), shout: shout("hi"), std, n, data, latest, local };`,
      "local.ts": `export const local = "L";`,
    });
    const files = await collectUpload(dir, { jsrUrl: remote.jsrUrl });
    const host = `vendor/127.0.0.1_${new URL(base).port}`;

    expect(
      Object.keys(files)
        .filter((path) => path.startsWith("vendor/"))
        .sort(),
    ).toEqual(
      [
        `${host}/data.json`,
        `${host}/esm/noext.ts`,
        `${host}/jsr/@acme/fmt/0.1.5/mod.ts`,
        `${host}/jsr/@acme/greet/1.1.0/internal/fmt.ts`,
        `${host}/jsr/@acme/greet/1.1.0/mod.ts`,
        `${host}/jsr/@acme/greet/1.1.0/shout.ts`,
        `${host}/jsr/@acme/greet/2.0.0/mod.ts`,
        `${host}/lib/abs.js`,
        `${host}/new/sibling.ts`,
        `${host}/new/thing.ts`,
        `${host}/std/mod.ts`,
        `${host}/std/util.ts`,
      ].sort(),
    );
    expect(files["node_modules/tiny-pkg/index.js"]).toBe(`export default "!";`);
    expect(remote.requests.some((path) => path.includes("1.2.0") || path.includes("0.2.0/"))).toBe(false);

    const config = JSON.parse(files["deno.json"] as string) as {
      imports: Record<string, string>;
      scopes: Record<string, Record<string, string>>;
    };
    expect(config.imports).toMatchObject({
      greet: "jsr:@acme/greet@^1",
      "std/": `${base}/std/`,
      local: "./local.ts",
      "jsr:@acme/greet@^1": `${remote.jsrUrl}/@acme/greet/1.1.0/mod.ts`,
      "jsr:@acme/greet@^1/shout": `${remote.jsrUrl}/@acme/greet/1.1.0/shout.ts`,
      [`${base}/old/thing.ts`]: `${base}/new/thing.ts`,
      [`${base}/new/thing.ts`]: `./${host}/new/thing.ts`,
      [`${base}/esm/noext`]: `./${host}/esm/noext.ts`,
    });
    expect(config.scopes).toEqual({ "./sub/": { local: "./sub/other.ts" } });

    const compiled = await compileFunction(files, undefined, LIMITS);
    expect(evaluate(compiled.code).default).toEqual({
      greet: "hello [Ada]!",
      shout: "HI",
      std: "aams",
      n: 42,
      data: { k: "v" },
      latest: "2.0.0",
      local: "L",
    });
  });

  it("uploads a folder without remote imports unchanged, deno.json included", async () => {
    const denoJson = `{ "imports": { "tiny": "npm:tiny-pkg@1" } }`;
    const files = await collectUpload(
      project({ "deno.json": denoJson, "index.ts": `import t from "tiny"; export default t;` }),
    );
    expect(Object.keys(files).sort()).toEqual([
      "deno.json",
      "index.ts",
      "node_modules/tiny-pkg/index.js",
      "node_modules/tiny-pkg/package.json",
    ]);
    expect(files["deno.json"]).toBe(denoJson);
  });

  it("vendors jsr: and https: values of the import map even before a file imports them", async () => {
    const files = await collectUpload(
      project({
        "deno.json": JSON.stringify({ imports: { old: "jsr:@acme/greet@~1.0" } }),
        "index.ts": "export default 1;",
      }),
      { jsrUrl: remote.jsrUrl },
    );
    expect(files[`vendor/127.0.0.1_${new URL(remote.url).port}/jsr/@acme/greet/1.0.0/mod.ts`]).toContain(
      "1.0.0",
    );
  });

  it.each([
    [
      "a module that is not there",
      (base: string) => `import "${base}/missing.ts";`,
      /could not fetch .*\/missing\.ts .*404/,
    ],
    [
      "plain http from another host",
      () => `import "http://example.com/x.ts";`,
      /only https: URLs are vendored/,
    ],
    [
      "a content type that is not code",
      (base: string) => `import "${base}/page.html";`,
      /cannot vendor content-type 'text\/html'/,
    ],
    [
      "a jsr range nothing satisfies",
      () => `import "jsr:@acme/greet@^3";`,
      /no version of @acme\/greet matches '\^3'/,
    ],
    [
      "a jsr subpath the package does not export",
      () => `import "jsr:@acme/greet@1.1.0/nope";`,
      /has no export '\.\/nope'/,
    ],
  ])("refuses %s, naming it", async (_, source, message) => {
    const dir = project({ "index.ts": source(remote.url) });
    await expect(collectUpload(dir, { jsrUrl: remote.jsrUrl })).rejects.toThrow(message);
  });

  it("refuses a jsr file that differs from the checksum in its version's manifest", async () => {
    const dir = project({ "index.ts": `import "jsr:@acme/fmt@0.1.0";` });
    await expect(collectUpload(dir, { jsrUrl: remote.jsrUrl })).rejects.toThrow(
      /@acme\/fmt\/0\.1\.0\/mod\.ts does not match its jsr checksum \(sha256-[0-9a-f]{64}\)/,
    );
  });

  it("caps the number and the bytes of vendored modules", async () => {
    const dir = project({ "index.ts": `import "${remote.url}/std/mod.ts";` });
    await expect(collectUpload(dir, { maxVendorModules: 3 })).rejects.toThrow(/more than 3 remote modules/);
    await expect(collectUpload(dir, { maxVendorBytes: 100 })).rejects.toThrow(/exceed 100 bytes/);
  });
});
