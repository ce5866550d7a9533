import { runInNewContext } from "node:vm";
import { afterAll, describe, expect, it } from "vitest";
import { AppError } from "../../core/index.ts";
import { compileFunction, FunctionFilesSchema, MODULE_GLOBAL, stopCompiler } from "../../runtime/index.ts";

const LIMITS = { maxBundleBytes: 1024 * 1024 };

/** Evaluates a bundle in a fresh context and returns its module namespace. */
function evaluate(code: string, globals: Record<string, unknown> = {}): Record<string, unknown> {
  const sandbox: Record<string, unknown> = { ...globals };
  runInNewContext(code, sandbox);
  return sandbox[MODULE_GLOBAL] as Record<string, unknown>;
}

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error("expected the compile to be refused");
}

describe("compileFunction", () => {
  afterAll(() => stopCompiler());

  it("bundles TypeScript over many files into one script exposing the module's exports", async () => {
    const compiled = await compileFunction(
      {
        "index.ts": `import { greet } from "./lib/greet.ts"; import data from "./data.json";
                     export default { answer: greet(data.name) satisfies string };`,
        "lib/greet.ts": `import { punctuate } from "../util"; export const greet = (name: string) => punctuate("hi " + name);`,
        "util.ts": `export function punctuate(text: string): string { return text + "!"; }`,
        "data.json": `{ "name": "Ada" }`,
      },
      undefined,
      LIMITS,
    );
    expect(compiled.entrypoint).toBe("index.ts");
    expect(evaluate(compiled.code).default).toEqual({ answer: "hi Ada!" });
  });

  it("follows deno.json: main, exact and prefix import map entries, and scopes", async () => {
    const compiled = await compileFunction(
      {
        "deno.json": JSON.stringify({
          main: "./src/main.ts",
          imports: { "@/": "./src/", config: "./src/config.ts", "npm:tiny@1": "./vendor/tiny.ts" },
          scopes: { "./src/legacy/": { config: "./src/legacy-config.ts" } },
        }),
        "src/main.ts": `import { value } from "config"; import { legacy } from "@/legacy/old.ts"; import tiny from "npm:tiny@1";
                        export default [value, legacy, tiny];`,
        "src/config.ts": `export const value = "new";`,
        "src/legacy/old.ts": `import { value } from "config"; export const legacy = value;`,
        "src/legacy-config.ts": `export const value = "old";`,
        "vendor/tiny.ts": `export default "tiny";`,
      },
      undefined,
      LIMITS,
    );
    expect(compiled.entrypoint).toBe("src/main.ts");
    expect(evaluate(compiled.code).default).toEqual(["new", "old", "tiny"]);
  });

  it("resolves bare and npm: specifiers from vendored node_modules by package.json exports", async () => {
    const compiled = await compileFunction(
      {
        "index.js": `import { up } from "shout"; import { down } from "npm:@acme/whisper@2.1.0"; export default up("a") + down("B");`,
        "node_modules/shout/package.json": JSON.stringify({ exports: { ".": { import: "./esm/index.js" } } }),
        "node_modules/shout/esm/index.js": `export const up = (s) => s.toUpperCase();`,
        "node_modules/@acme/whisper/package.json": JSON.stringify({ module: "lib.mjs" }),
        "node_modules/@acme/whisper/lib.mjs": `export const down = (s) => s.toLowerCase();`,
      },
      undefined,
      LIMITS,
    );
    expect(evaluate(compiled.code).default).toBe("Ab");
  });

  it("compiles JSX with the runtime deno.json names (jsxImportSource)", async () => {
    const compiled = await compileFunction(
      {
        "deno.json": JSON.stringify({
          compilerOptions: { jsx: "react-jsx", jsxImportSource: "mini" },
          imports: { "mini/jsx-runtime": "./jsx.ts" },
        }),
        "index.tsx": `export default <p class="x">hello</p>;`,
        "jsx.ts": `export const jsx = (tag: string, props: Record<string, unknown>) => ({ tag, props }); export const jsxs = jsx;`,
      },
      undefined,
      LIMITS,
    );
    expect(evaluate(compiled.code).default).toEqual({ tag: "p", props: { class: "x", children: "hello" } });
  });

  it("refuses a syntax error with 422 naming file:line:column", async () => {
    const error = await refusal(
      compileFunction({ "index.ts": "export default 1;", "b.ts": "ok" }, "index.ts", LIMITS).then(() =>
        compileFunction(
          { "index.ts": `import "./b.ts";\n`, "b.ts": `const a = 1;\nconst b = ;\n` },
          undefined,
          LIMITS,
        ),
      ),
    );
    expect(error.code).toBe("validation_failed");
    expect(error.errors[0]).toMatchObject({ param: "files.b.ts", code: "compile_error" });
    expect(error.errors[0]!.message).toMatch(/^b\.ts:2:11: /);
  });

  it("compiles a top level that awaits into an async function, and reports another file's error without the await", async () => {
    const compiled = await compileFunction(
      { "index.ts": "const n = await Promise.resolve(1);\nexport default () => n;" },
      undefined,
      LIMITS,
    );
    expect(compiled.code).toMatch(
      /^var __tessera_module = __tessera_top_level\(\(async function \(\) \{\n"use strict";/,
    );
    expect(compiled.code).toMatch(/^var n = await Promise\.resolve\(1\);$/m);
    const error = await refusal(
      compileFunction(
        { "index.ts": 'import "./b.ts";\nawait 0;\nexport default 1;', "b.ts": "const b = ;\n" },
        undefined,
        LIMITS,
      ),
    );
    expect(error.errors.map((field) => field.message)).toEqual([expect.stringMatching(/^b\.ts:1:11: /)]);
  });

  it.each([
    [
      "a missing module",
      `import x from "./nope.ts"; export default x;`,
      /index\.ts:1:\d+: Module not found: '\.\/nope\.ts'/,
    ],
    ["a Node built-in", `import fs from "node:fs"; export default fs;`, /Node built-ins do not exist/],
    [
      "an npm: import that was not vendored",
      `import x from "npm:left-pad@1"; export default x;`,
      /not vendored/,
    ],
    [
      "a jsr: import that was not vendored",
      `import x from "jsr:@std/path"; export default x;`,
      /not vendored/,
    ],
    [
      "an https: import that was not vendored",
      `import x from "https://deno.land/x/y/mod.ts"; export default x;`,
      /not vendored/,
    ],
  ])("refuses %s with 422 at the importing line", async (_, source, message) => {
    const error = await refusal(compileFunction({ "index.ts": source }, undefined, LIMITS));
    expect(error.code).toBe("validation_failed");
    expect(error.errors[0]!.message).toMatch(message);
  });

  it("gives each module its own import.meta (file:///<path>), across folders, as Deno does", async () => {
    const compiled = await compileFunction(
      {
        "index.ts": `import { meta as lib } from "./lib/a.ts"; import { meta as deep } from "./lib/deep/b.ts";
                     const meta = { url: import.meta.url, main: import.meta.main, dirname: import.meta.dirname };
                     export default { meta, lib, deep };`,
        "lib/a.ts": `export const meta = { url: import.meta.url, main: import.meta.main, filename: import.meta.filename };`,
        "lib/deep/b.ts": `#!/usr/bin/env -S deno run\nexport const meta = { url: import.meta.url, dirname: import.meta.dirname };`,
      },
      undefined,
      LIMITS,
    );
    expect(evaluate(compiled.code).default).toEqual({
      meta: { url: "file:///index.ts", main: true, dirname: "/" },
      lib: { url: "file:///lib/a.ts", main: false, filename: "/lib/a.ts" },
      deep: { url: "file:///lib/deep/b.ts", dirname: "/lib/deep" },
    });
    // What is put in front of a module's first line does not move the columns errors name.
    for (const [source, at] of [
      ["const u = import.meta.url; let = ;", "index.ts:1:34"],
      ["#!/usr/bin/env -S deno run\nconst u = import.meta.url; let = ;", "index.ts:2:34"],
    ] as const) {
      const error = await refusal(compileFunction({ "index.ts": source }, undefined, LIMITS));
      expect(error.errors[0]!.message).toMatch(new RegExp(`^${at}: `));
    }
  });

  it("compiles an entrypoint named main.ts, which esbuild hands over as ./main.ts (it compiled to nothing)", async () => {
    for (const entry of ["main.ts", "mod.ts", "src/main.ts"]) {
      const compiled = await compileFunction(
        { [entry]: `export default { entry: "${entry}" };` },
        entry,
        LIMITS,
      );
      expect(evaluate(compiled.code).default, entry).toEqual({ entry });
    }
  });

  it("resolves import.meta.resolve through deno.json's import map, as Deno 2.9 does", async () => {
    const files = {
      "deno.json": JSON.stringify({ imports: RESOLVE_MAP }),
      "main.ts": `import { resolved } from "@lib/where.ts";
                  ${RESOLVE_HELPERS}
                  export default { here: resolved(CASES_HERE, (c) => import.meta.resolve(c)), there: resolved(CASES) };`,
      "lib/where.ts": `export const resolved = (cases: string[], resolve = (c: string) => import.meta.resolve(c)) =>
                         cases.map((c) => { try { return resolve(c); } catch (e) { return (e as Error).name; } });`,
    };
    const compiled = await compileFunction(files, "main.ts", LIMITS);
    // Deno 2.9.6 on the same project in /tmp/imr, its root written here as file:/// (2026-11-28).
    expect(evaluate(compiled.code, { URL }).default).toEqual({
      here: [
        "file:///a.ts",
        "file:///abs.ts",
        "file:///lib/format.ts",
        "file:///lib/format.ts",
        "npm:zod@3",
        "https://deno.land/std@0.224.0/path/mod.ts",
        "https://example.com/a.js",
        "npm:zod@3",
        "TypeError",
        "file:///lib/new.js",
        "file:///b.ts",
      ],
      there: [
        "file:///lib/a.ts",
        "file:///x.ts",
        "file:///abs.ts",
        "file:///lib/format.ts",
        "file:///lib/format.ts",
        "npm:zod@3",
        "https://deno.land/std@0.224.0/path/mod.ts",
        "https://example.com/a.js",
        "npm:zod@3",
        "TypeError",
        "file:///lib/new.js",
        "file:///lib/b.ts",
      ],
    });
  });
  it("escapes a bundle with a character beyond Latin-1 to ASCII, the same strings at run time", async () => {
    // One such character would make V8 hold the whole source at two bytes a character in every isolate.
    const compiled = await compileFunction(
      {
        "index.ts": [
          'export const text = "Café — 東京 🚀";',
          "export const template = `’${1}—`;",
          'export const key = { ünï: 1, "—": 2 };',
          "export const ünïcode = true;",
        ].join("\n"),
      },
      undefined,
      LIMITS,
    );
    expect(compiled.code).toMatch(/^[\x00-\x7f]*$/);
    expect(evaluate(compiled.code)).toMatchObject({
      text: "Café — 東京 🚀",
      template: "’1—",
      key: { ünï: 1, "—": 2 },
      ünïcode: true,
    });
  });

  it("keeps UTF-8 for Latin-1, for mostly CJK text, and where esbuild cannot escape (a regex, a raw template)", async () => {
    const latin1 = await compileFunction(
      { "index.ts": 'export const text = "Café, naïve, ½";' },
      undefined,
      LIMITS,
    );
    expect(latin1.code).toContain("Café, naïve, ½");
    // Escaped, each of these characters would take six bytes where two-byte storage takes two.
    const prose = "東京の天気は晴れです。".repeat(200);
    const cjk = await compileFunction({ "index.ts": `export const text = "${prose}";` }, undefined, LIMITS);
    expect(cjk.code).toContain(prose);
    expect(evaluate(cjk.code).text).toBe(prose);
    const unescapable = await compileFunction(
      { "index.ts": 'export const dash = /—+/u.test("a——b"); export const raw = String.raw`—\\n`;' },
      undefined,
      LIMITS,
    );
    expect(unescapable.code).toContain("/—+/u");
    expect(evaluate(unescapable.code)).toMatchObject({ dash: true, raw: "—\\n" });
  });

  it("refuses a bundle over the size limit, a missing entrypoint and a broken deno.json", async () => {
    const big = await refusal(
      compileFunction({ "index.ts": `export default "${"x".repeat(2000)}";` }, undefined, {
        maxBundleBytes: 1000,
      }),
    );
    expect(big.errors[0]).toMatchObject({ param: "files", code: "bundle_too_large" });
    const noEntry = await refusal(compileFunction({ "lib.ts": "export {}" }, undefined, LIMITS));
    expect(noEntry.errors[0]).toMatchObject({ param: "entrypoint" });
    const wrongEntry = await refusal(compileFunction({ "index.ts": "" }, "main.ts", LIMITS));
    expect(wrongEntry.errors[0]).toMatchObject({ param: "entrypoint", code: "not_found" });
    const badConfig = await refusal(
      compileFunction({ "deno.json": "{ nope", "index.ts": "" }, undefined, LIMITS),
    );
    expect(badConfig.errors[0]).toMatchObject({ param: "files.deno.json" });
  });

  it("reads deno.jsonc with comments", async () => {
    const compiled = await compileFunction(
      {
        "deno.jsonc": `{ // where to start\n "main": "app.ts" /* and nothing else */ }`,
        "app.ts": "export default 7;",
      },
      undefined,
      LIMITS,
    );
    expect(evaluate(compiled.code).default).toBe(7);
  });

  it.each(["../etc/passwd", "/abs.ts", "a/../../b.ts", "./x.ts"])("refuses the file path %s", (path) => {
    expect(FunctionFilesSchema.safeParse({ [path]: "" }).success).toBe(false);
  });
});

/** The import map and specifiers of the import.meta.resolve test (one project, as Deno ran it). */
const RESOLVE_MAP = {
  "@lib/": "./lib/",
  fmt: "./lib/format.ts",
  zod: "npm:zod@3",
  "std/": "https://deno.land/std@0.224.0/",
  "https://cdn.example/old.js": "./lib/new.js",
};
const CASES = [
  "./a.ts",
  "../x.ts",
  "/abs.ts",
  "@lib/format.ts",
  "fmt",
  "zod",
  "std/path/mod.ts",
  "https://example.com/a.js",
  "npm:zod@3",
  "not-mapped",
  "https://cdn.example/old.js",
  "./lib/../b.ts",
];
/** From the root, "../x.ts" leaves the project in Deno (file:///tmp/x.ts): left out there. */
const RESOLVE_HELPERS = `const CASES = ${JSON.stringify(CASES)};
const CASES_HERE = CASES.filter((c) => c !== "../x.ts");`;
