import { afterAll, describe, expect, it } from "vitest";
import { isAppError } from "../../core/index.ts";
import { compileFunction, stopCompiler } from "../../runtime/index.ts";
import { createHash, createHmac } from "node:crypto";
import {
  createFunctionFileSet,
  moduleAsScript,
  TOP_LEVEL_HOOK,
  type GuestProgram,
} from "../../sandbox/index.ts";
import { LIMITS, json, recordingIO, request, testSandbox, text } from "./helpers.ts";

/**
 * Functions run with ES modules' semantics (runtime/compile.ts → sandbox/program.ts): strict, with
 * top-level await over what needs no request (its own modules, its files, WebAssembly), as Deno and
 * Workers run them; a top level that awaits I/O or never settles fails to start with a message
 * that says so. One that awaits runs as a module; one that does not, as the same code in a strict
 * script (V8's code cache serves scripts only); a script from before (a stored older version) runs.
 */
const TEXT = new TextEncoder();

async function boot(files: Record<string, string>, entry = "index.ts", cachedData?: Uint8Array) {
  const compiled = await compileFunction(files, entry, { maxBundleBytes: 1 << 22 });
  const program: GuestProgram = {
    code: compiled.code,
    filename: "fn@v1.js",
    ...(cachedData ? { cachedData } : {}),
  };
  const fileSet = createFunctionFileSet(
    Object.entries(files).map(([path, content]) => ({ path, content: TEXT.encode(content) })),
    new Date(0),
  );
  return { program, host: await testSandbox().createHost({ program, limits: LIMITS, files: fileSet }) };
}

async function bootFailure(files: Record<string, string>): Promise<string> {
  try {
    const { host } = await boot(files);
    await host.dispose();
  } catch (error) {
    if (isAppError(error)) return `${error.code}: ${error.message}`;
    throw error;
  }
  throw new Error("expected the function to fail to start");
}

afterAll(() => stopCompiler());

describe("functions as ES modules", () => {
  it("awaits at the top level: its own modules, a dynamic import, a file and WebAssembly", async () => {
    const { program, host } = await boot({
      "index.ts": [
        'import { settings } from "./config.ts";',
        'const { greet } = await import("./greet.ts");',
        'const data = JSON.parse(await Deno.readTextFile("./data.json"));',
        // The smallest module: `(module)`, the magic number and version 1.
        "const wasm = await WebAssembly.compile(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]));",
        "export default {",
        "  fetch: () => Response.json({ settings, hello: greet(data.name), wasm: wasm instanceof WebAssembly.Module }),",
        "};",
      ].join("\n"),
      "config.ts": 'export const settings = await Promise.resolve({ region: "eu", retries: 3 });',
      "greet.ts": "export const greet = (name: string) => `hello ${name}`;",
      "data.json": '{ "name": "Ada" }',
    });
    try {
      expect(program.code.startsWith(`var __tessera_module = ${TOP_LEVEL_HOOK}((async function`)).toBe(true);
      expect(await json(await host.invoke(request(), recordingIO()))).toEqual({
        settings: { region: "eu", retries: 3 },
        hello: "hello Ada",
        wasm: true,
      });
    } finally {
      await host.dispose();
    }
  });

  it("awaits crypto.subtle at the top level (a key imported once), and still refuses timers there", async () => {
    const { host } = await boot({
      "index.ts": [
        'const raw = new TextEncoder().encode("top-level secret");',
        'const key = await crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);',
        'const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", raw));',
        "let timer = 'set';",
        "try { setTimeout(() => {}, 1); } catch (error) { timer = (error as Error).message; }",
        "const hex = (bytes: Uint8Array) => [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');",
        "export default {",
        "  async fetch() {",
        '    const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode("hello")));',
        "    return Response.json({ mac: hex(mac), digest: hex(digest), timer });",
        "  },",
        "};",
      ].join("\n"),
    });
    try {
      expect(await json(await host.invoke(request(), recordingIO()))).toEqual({
        mac: createHmac("sha256", "top-level secret").update("hello").digest("hex"),
        digest: createHash("sha256").update("top-level secret").digest("hex"),
        timer: expect.stringMatching(/only possible while handling a request/),
      });
    } finally {
      await host.dispose();
    }
  });

  it("settles a crypto call the top level started and did not await, for the handler to await", async () => {
    const { host } = await boot({
      "index.ts": [
        'const digest = crypto.subtle.digest("SHA-256", new TextEncoder().encode("abc"));',
        "let spin = 0;",
        "for (let i = 0; i < 1e6; i++) spin += i;",
        "export default async () => new Response(String(new Uint8Array(await digest)[0]) + ' ' + (spin > 0));",
      ].join("\n"),
    });
    try {
      const first = createHash("sha256").update("abc").digest()[0];
      expect(await text(await host.invoke(request(), recordingIO()))).toBe(`${first} true`);
    } finally {
      await host.dispose();
    }
  });

  it("gives what the top level logged to the first request's log, once", async () => {
    const { host } = await boot({
      "index.ts": [
        'console.log("starting", { region: "eu" });',
        "const n = await Promise.resolve(2);",
        'console.warn("started with", n);',
        'export default () => { console.log("handling"); return new Response("ok"); };',
      ].join("\n"),
    });
    try {
      const first = recordingIO();
      await text(await host.invoke(request(), first));
      expect(first.logs).toEqual([
        { level: "log", message: 'starting { region: "eu" }' },
        { level: "warn", message: "started with 2" },
        { level: "log", message: "handling" },
      ]);
      const second = recordingIO();
      await text(await host.invoke(request(), second));
      expect(second.logs).toEqual([{ level: "log", message: "handling" }]);
    } finally {
      await host.dispose();
    }
  });

  it("is strict, has no top-level this, and knows which module is main", async () => {
    const { host } = await boot({
      "index.ts": [
        'import { isMain } from "./lib.ts";',
        "const self = this;",
        "let undeclared = 'no error';",
        // esbuild does not type-check: an assignment to an undeclared name throws only in strict code.
        "try { missing = 1; } catch (error) { undeclared = (error as Error).name; }",
        "export default () => Response.json({ self: String(self), undeclared, main: import.meta.main, libMain: isMain });",
      ].join("\n"),
      "lib.ts": "export const isMain = import.meta.main;",
    });
    try {
      expect(await json(await host.invoke(request(), recordingIO()))).toEqual({
        self: "undefined",
        undeclared: "ReferenceError",
        main: true,
        libMain: false,
      });
    } finally {
      await host.dispose();
    }
  });

  it("fails to start when the top level rejects, awaits I/O, or awaits what never settles, and says which", async () => {
    expect(
      await bootFailure({
        "index.ts": 'await Promise.reject(new Error("no config")); export default () => 1;',
      }),
    ).toBe("function_failed: The function failed to start: no config");
    expect(
      await bootFailure({
        "index.ts": 'const r = await fetch("https://example.com"); export default () => r;',
      }),
    ).toMatch(/^function_failed: .*fetch\(\) is only possible while handling a request/);
    expect(await bootFailure({ "index.ts": "await new Promise(() => {}); export default () => 1;" })).toMatch(
      /^function_failed: .*top level awaits a promise that never settled while it started/,
    );
    // Exports made before the await do not count: the module is not done.
    expect(
      await bootFailure({
        "index.ts": "export default { fetch: () => new Response('early') }; await new Promise(() => {});",
      }),
    ).toMatch(/never settled/);
  });

  it("stops a top level that awaits in a loop or allocates without end; the next function starts", async () => {
    expect(await bootFailure({ "index.ts": "for (;;) await null;\nexport default () => 1;" })).toMatch(
      /^function_failed: The function failed to start: Script execution timed out/,
    );
    expect(
      await bootFailure({
        "index.ts":
          "const kept = [];\nfor (;;) { kept.push(new Array(1e6).fill(1)); await null; }\nexport default () => 1;",
      }),
    ).toMatch(/^function_failed: The function failed to start: .*memory limit/);
    // After an awaited crypto call the top level goes on in the boot's own entry, with its own bound.
    expect(
      await bootFailure({
        "index.ts":
          'await crypto.subtle.digest("SHA-256", new Uint8Array(1));\nfor (;;) {}\nexport default () => 1;',
      }),
    ).toMatch(/^function_failed: The function failed to start: .*CPU time/);
    const { host } = await boot({ "index.ts": "export default () => new Response('fine');" });
    try {
      expect(await text(await host.invoke(request(), recordingIO()))).toBe("fine");
    } finally {
      await host.dispose();
    }
  });

  it("boots from the code cache it produced, with the same answers, awaiting at the top or not", async () => {
    for (const files of [
      { "index.ts": "const n = 41; export default () => new Response(String(n + 1));" },
      {
        "index.ts": "const n = await Promise.resolve(41); export default () => new Response(String(n + 1));",
      },
    ]) {
      await bootsFromItsCache(files);
    }
  });

  it("turns esbuild's module into the script that behaves as it would: strict, async when it awaits", () => {
    const bundle = 'var x = 1;\nvar y2 = 2;\nexport {\n  x as default,\n  y2 as "\\xE9-y",\n  \\u00FCn\n};\n';
    const body =
      '"use strict";\nvar x = 1;\nvar y2 = 2;\nreturn { default: x, "\\xE9-y": y2, \\u00FCn: \\u00FCn };\n}';
    expect(moduleAsScript(bundle, false)).toBe(`var __tessera_module = (function () {\n${body})();\n`);
    expect(moduleAsScript(bundle, true)).toBe(
      `var __tessera_module = ${TOP_LEVEL_HOOK}((async function () {\n${body})());\n`,
    );
    expect(moduleAsScript("console.log(1);\n", false)).toBe(
      'var __tessera_module = (function () {\n"use strict";\nconsole.log(1);\n\nreturn {};\n})();\n',
    );
  });
});

/** Boots `files` once to make a code cache, then again from it. */
async function bootsFromItsCache(files: Record<string, string>): Promise<void> {
  const first = await boot(files);
  const cache = first.host.producedCachedData;
  await first.host.dispose();
  expect(cache?.byteLength).toBeGreaterThan(0);
  const second = await boot(files, "index.ts", cache);
  try {
    expect(second.program.code.includes(TOP_LEVEL_HOOK)).toBe(files["index.ts"]!.includes("await"));
    expect(second.host.producedCachedData).toBeUndefined();
    expect(await text(await second.host.invoke(request(), recordingIO()))).toBe("42");
  } finally {
    await second.host.dispose();
  }
}

describe("programs from before", () => {
  it("still runs a script compiled before modules (a stored older version)", async () => {
    const code = `globalThis.__tessera_module = { default: { fetch: () => new Response("from a script") } };`;
    const host = await testSandbox().createHost({ program: { code, filename: "old.js" }, limits: LIMITS });
    try {
      expect(await text(await host.invoke(request(), recordingIO()))).toBe("from a script");
    } finally {
      await host.dispose();
    }
  });
});
