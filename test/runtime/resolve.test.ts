import { describe, expect, it } from "vitest";
import { createResolver, lookupImportMap, type DenoConfig } from "../../runtime/index.ts";

const STD = "https://deno.land/std@0.224.0";

/** An upload as the CLI vendors it: files under vendor/ and the generated import map. */
const files = {
  "index.ts": "",
  "local.ts": "",
  [`vendor/deno.land/std@0.224.0/x.ts`]: "",
  [`vendor/deno.land/std@0.224.0/y.ts`]: "",
  [`vendor/deno.land/std@0.224.0/sub/z.ts`]: "",
  "vendor/esm.sh/pkg.ts": "",
  "vendor/esm.sh/dep.js": "",
  "vendor/jsr.io/@std/path/1.0.8/mod.ts": "",
  "vendor/jsr.io/@std/path/1.0.8/join.ts": "",
  "vendor/old.example/v1.ts": "",
};
const config: DenoConfig = {
  imports: {
    "@std/path": "jsr:@std/path@^1",
    std: `${STD}/x.ts`,
    "jsr:@std/path@^1": "https://jsr.io/@std/path/1.0.8/mod.ts",
    "jsr:@std/path@^1/join": "https://jsr.io/@std/path/1.0.8/join.ts",
    "https://jsr.io/@std/path/1.0.8/mod.ts": "./vendor/jsr.io/@std/path/1.0.8/mod.ts",
    "https://jsr.io/@std/path/1.0.8/join.ts": "./vendor/jsr.io/@std/path/1.0.8/join.ts",
    "https://deno.land/std/x.ts": `${STD}/x.ts`,
    [`${STD}/x.ts`]: "./vendor/deno.land/std@0.224.0/x.ts",
    [`${STD}/y.ts`]: "./vendor/deno.land/std@0.224.0/y.ts",
    [`${STD}/sub/z.ts`]: "./vendor/deno.land/std@0.224.0/sub/z.ts",
    "https://esm.sh/pkg": "./vendor/esm.sh/pkg.ts",
    "https://esm.sh/dep": "./vendor/esm.sh/dep.js",
    "https://old.example/v1.ts": "./vendor/old.example/v1.ts",
  },
  scopes: {
    [`${STD}/sub/`]: { "https://old.example/v2.ts": "https://old.example/v1.ts" },
    "./nested/": { std: "./local.ts" },
  },
};

describe("createResolver on a vendored upload", () => {
  const resolve = createResolver({ ...files, "nested/a.ts": "" }, config);

  it.each([
    ["a URL mapped to its vendored file", `${STD}/y.ts`, "index.ts", "vendor/deno.land/std@0.224.0/y.ts"],
    [
      "a redirect to its final URL, then its file",
      "https://deno.land/std/x.ts",
      "index.ts",
      "vendor/deno.land/std@0.224.0/x.ts",
    ],
    ["a bare name mapped to a URL", "std", "index.ts", "vendor/deno.land/std@0.224.0/x.ts"],
    ["a bare name mapped to jsr:", "@std/path", "index.ts", "vendor/jsr.io/@std/path/1.0.8/mod.ts"],
    [
      "a subpath of a name mapped to jsr:",
      "@std/path/join",
      "index.ts",
      "vendor/jsr.io/@std/path/1.0.8/join.ts",
    ],
    [
      "a relative import in a vendored file",
      "./y.ts",
      "vendor/deno.land/std@0.224.0/x.ts",
      "vendor/deno.land/std@0.224.0/y.ts",
    ],
    [
      "a parent import in a vendored file",
      "../x.ts",
      "vendor/deno.land/std@0.224.0/sub/z.ts",
      "vendor/deno.land/std@0.224.0/x.ts",
    ],
    [
      "an extensionless URL vendored with its extension",
      "./dep",
      "vendor/esm.sh/pkg.ts",
      "vendor/esm.sh/dep.js",
    ],
    ["a root-relative import in a vendored file", "/pkg", "vendor/esm.sh/dep.js", "vendor/esm.sh/pkg.ts"],
    [
      "an absolute URL in a vendored file",
      "https://esm.sh/pkg",
      "vendor/deno.land/std@0.224.0/x.ts",
      "vendor/esm.sh/pkg.ts",
    ],
    [
      "a URL scope matching a vendored importer",
      "https://old.example/v2.ts",
      "vendor/deno.land/std@0.224.0/sub/z.ts",
      "vendor/old.example/v1.ts",
    ],
    ["a path scope matching a local importer", "std", "nested/a.ts", "local.ts"],
  ])("resolves %s", (_, specifier, importer, path) => {
    expect(resolve(specifier, importer)).toEqual({ path });
  });

  it("keeps refusing what was not vendored, saying to deploy with the CLI", () => {
    for (const specifier of [
      "jsr:@std/fs@1",
      "https://deno.land/std@0.224.0/nope.ts",
      "https://old.example/v2.ts",
    ]) {
      const resolution = resolve(specifier, "index.ts");
      expect(resolution).toMatchObject({
        error: expect.stringMatching(/not vendored: deploy with `tessera functions deploy`/),
      });
    }
    expect(resolve("./nope.ts", "vendor/esm.sh/pkg.ts")).toMatchObject({
      error: expect.stringMatching(/not vendored/),
    });
  });
});

describe("lookupImportMap", () => {
  it("prefers the most specific scope, then imports; a jsr:/npm: mapping covers its subpaths", () => {
    const map = {
      imports: { hono: "npm:hono@4", "lib/": "./lib/", "./x.ts": "./y.ts" },
      scopes: { "./a/": { hono: "./a-hono.ts" }, "./a/b/": { hono: "./ab-hono.ts" } },
    };
    expect(lookupImportMap(map, "hono", ["a/b/c.ts"])).toBe("./ab-hono.ts");
    expect(lookupImportMap(map, "hono", ["a/c.ts"])).toBe("./a-hono.ts");
    expect(lookupImportMap(map, "hono/jsx", ["c.ts"])).toBe("npm:hono@4/jsx");
    expect(lookupImportMap(map, "lib/m.ts", ["c.ts"])).toBe("./lib/m.ts");
    expect(lookupImportMap(map, "honor", ["c.ts"])).toBeUndefined();
  });
});

describe("a vendored package's exports", () => {
  it("resolves the conditions it understands, and falls back to index past 64 levels of nesting", () => {
    const nested = (depth: number) => `${'{"deno":'.repeat(depth)}"./deno.js"${"}".repeat(depth)}`;
    const resolveWith = (exports: string) =>
      createResolver(
        {
          "index.ts": "",
          "node_modules/pkg/package.json": `{"exports":${exports}}`,
          "node_modules/pkg/deno.js": "",
          "node_modules/pkg/index.js": "",
        },
        {},
      )("pkg", "index.ts");
    expect(resolveWith(nested(3))).toEqual({ path: "node_modules/pkg/deno.js" });
    expect(resolveWith(nested(100_000))).toEqual({ path: "node_modules/pkg/index.js" });
  });
});
