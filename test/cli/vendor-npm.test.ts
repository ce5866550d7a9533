import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { runInNewContext } from "node:vm";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectUpload } from "../../cli/functions.ts";
import { cachedPackage } from "../../cli/npm-registry.ts";
import { satisfiesNpm } from "../../cli/npm-semver.ts";
import { compileFunction, MODULE_GLOBAL, stopCompiler } from "../../runtime/index.ts";
import { runCli, startServerProcess, type ServerProcess } from "../helpers/process.ts";
import { startFakeNpmRegistry, tar, type FakeNpmRegistry, type FakeNpmVersion } from "./fake-npm-registry.ts";

function writeTree(dir: string, files: Record<string, string>): void {
  for (const [path, body] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), body);
  }
}

/** A zod-like package whose answer names its major: what a function's response shows. */
const zodlike = (version: string, dependencies?: Record<string, string>): FakeNpmVersion => ({
  files: {
    "index.js": dependencies
      ? `import { wrap } from "helperlike"; export const version = "${version}"; export const parse = (s) => wrap("v${version.split(".")[0]}:" + s);`
      : `export const version = "${version}"; export const parse = (s) => "v${version.split(".")[0]}:" + s;`,
    "index.d.ts": "export declare const version: string;",
  },
  ...(dependencies ? { dependencies } : {}),
});
const helperlike = (version: string): FakeNpmVersion => ({
  files: { "index.js": `export const wrap = (s) => "[" + s + "]@${version}";` },
});

const INDEX = `import { parse, version } from "npm:zodlike@3";
export default { fetch: () => new Response(parse("ok") + " " + version) };`;

describe("npm: imports vendored at the versions their specifiers ask for", () => {
  const root = mkdtempSync(join(tmpdir(), "tessera-vendor-npm-"));
  const cache = join(root, "cache");
  let registry: FakeNpmRegistry;
  let counter = 0;
  const env = () => ({ TESSERA_NPM_REGISTRY: registry.url, TESSERA_NPM_CACHE: cache });
  const project = (files: Record<string, string>): string => {
    const dir = join(root, `fn-${++counter}`);
    writeTree(dir, files);
    return dir;
  };
  const lockOf = (dir: string) =>
    JSON.parse(readFileSync(join(dir, "tessera.lock"), "utf8")) as {
      npm: { specifiers: Record<string, string>; packages: Record<string, { integrity: string }> };
    };
  const run = async (files: Awaited<ReturnType<typeof collectUpload>>) => {
    const { code } = await compileFunction(files, undefined, { maxBundleBytes: 1024 * 1024 });
    const sandbox: Record<string, unknown> = { Response };
    runInNewContext(code, sandbox);
    const handler = (sandbox[MODULE_GLOBAL] as { default: { fetch(): Response } }).default;
    return handler.fetch().text();
  };

  /** A port nothing listens on: a registry that cannot be reached. */
  let deadRegistry = "";

  beforeAll(async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    deadRegistry = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/`;
    await new Promise((resolve) => closed.close(resolve));
    registry = await startFakeNpmRegistry({
      zodlike: {
        "3.22.0": zodlike("3.22.0"),
        "3.23.1": zodlike("3.23.1", { helperlike: "^1.0.0" }),
        "4.0.0": zodlike("4.0.0"),
        "4.1.0-beta.1": zodlike("4.1.0-beta.1"),
      },
      helperlike: {
        "1.0.0": helperlike("1.0.0"),
        "1.1.0": helperlike("1.1.0"),
        "2.0.0": helperlike("2.0.0"),
      },
    });
  });
  afterAll(async () => {
    await registry?.close();
    await stopCompiler();
    rmSync(root, { recursive: true, force: true });
  });

  it("vendors the newest 3.x for npm:zodlike@3, with its dependencies, and records them in tessera.lock", async () => {
    const dir = project({ "index.ts": INDEX });
    const files = await collectUpload(dir, { env: env() });

    expect(JSON.parse(files["node_modules/zodlike/package.json"] as string)).toMatchObject({
      version: "3.23.1",
    });
    expect(files["node_modules/helperlike/index.js"]).toContain("1.1.0");
    expect(files["node_modules/zodlike/index.d.ts"]).toBeUndefined();
    expect(files["tessera.lock"]).toBeUndefined();
    expect(await run(files)).toBe("[v3:ok]@1.1.0 3.23.1");

    const lock = lockOf(dir);
    expect(lock.npm.specifiers).toEqual({ "zodlike@3": "3.23.1", "helperlike@^1.0.0": "1.1.0" });
    expect(lock.npm.packages["zodlike@3.23.1"]).toMatchObject({
      resolved: `${registry.url}/zodlike/-/zodlike-3.23.1.tgz`,
      integrity: expect.stringMatching(/^sha512-/),
      dependencies: { helperlike: "^1.0.0" },
    });
    // Unpacked once into the cache, where later deploys find it.
    expect(readdirSync(join(cache, "zodlike"))).toEqual(["3.23.1"]);
  });

  it("keeps the locked version after a newer 3.x is published, without asking the registry; --update-lock moves to it", async () => {
    const dir = project({ "index.ts": INDEX });
    await collectUpload(dir, { env: env() });
    registry.publish("zodlike", "3.24.0", zodlike("3.24.0", { helperlike: "^1.0.0" }));
    const before = registry.requests.length;

    const again = await collectUpload(dir, { env: env() });
    expect(await run(again)).toBe("[v3:ok]@1.1.0 3.23.1");
    expect(registry.requests.slice(before)).toEqual([]);

    // The cache and the lock are all a locked deploy needs: no registry at all.
    const offline = await collectUpload(dir, {
      env: { ...env(), TESSERA_NPM_REGISTRY: deadRegistry },
    });
    expect(await run(offline)).toBe("[v3:ok]@1.1.0 3.23.1");

    const updated = await collectUpload(dir, { env: env(), updateLock: true });
    expect(await run(updated)).toBe("[v3:ok]@1.1.0 3.24.0");
    expect(lockOf(dir).npm.specifiers).toEqual({ "zodlike@3": "3.24.0", "helperlike@^1.0.0": "1.1.0" });
    expect(Object.keys(lockOf(dir).npm.packages).sort()).toEqual(["helperlike@1.1.0", "zodlike@3.24.0"]);
  });

  it("refuses an installed copy whose version the specifier does not allow, naming both", async () => {
    const dir = project({
      "index.ts": INDEX,
      "node_modules/zodlike/package.json": JSON.stringify({
        name: "zodlike",
        version: "4.0.0",
        main: "index.js",
      }),
      "node_modules/zodlike/index.js": `export const version = "4.0.0"; export const parse = (s) => "v4:" + s;`,
    });
    await expect(collectUpload(dir, { env: env() })).rejects.toThrow(
      /^npm:zodlike@3 is imported but node_modules has zodlike 4\.0\.0: install zodlike@3 or change the import$/,
    );
    expect(existsSync(join(dir, "tessera.lock"))).toBe(false);
  });

  it("uses an installed copy that the range allows, and leaves the lock alone", async () => {
    const before = registry.requests.length;
    const dir = project({
      "index.ts": INDEX,
      "node_modules/zodlike/package.json": JSON.stringify({
        name: "zodlike",
        version: "3.22.0",
        main: "index.js",
      }),
      "node_modules/zodlike/index.js": `export const version = "3.22.0"; export const parse = (s) => "local:" + s;`,
    });
    expect(await run(await collectUpload(dir, { env: env() }))).toBe("local:ok 3.22.0");
    expect(registry.requests.slice(before)).toEqual([]);
    expect(existsSync(join(dir, "tessera.lock"))).toBe(false);
  });

  it("takes the range of a bare import from deno.json's imports", async () => {
    const dir = project({
      "deno.json": JSON.stringify({ imports: { zodlike: "npm:zodlike@~3.22" } }),
      "index.ts": `import { parse, version } from "zodlike";
export default { fetch: () => new Response(parse("ok") + " " + version) };`,
    });
    expect(await run(await collectUpload(dir, { env: env() }))).toBe("v3:ok 3.22.0");
    expect(lockOf(dir).npm.specifiers).toEqual({ "zodlike@~3.22": "3.22.0" });
  });

  it("takes the latest dist-tag without a range, never a prerelease", async () => {
    const dir = project({ "index.ts": INDEX.replace("npm:zodlike@3", "npm:zodlike") });
    expect(await run(await collectUpload(dir, { env: env() }))).toBe("v4:ok 4.0.0");
  });

  it("refuses a tarball that does not match its integrity, and caches nothing of it", async () => {
    registry.publish("tampered", "1.0.0", { files: { "index.js": "export default 1;" }, tampered: true });
    const dir = project({ "index.ts": `import t from "npm:tampered@1"; export default t;` });
    await expect(collectUpload(dir, { env: env() })).rejects.toThrow(
      /^tampered@1\.0\.0: the tarball from http:\/\/127\.0\.0\.1:\d+\/tampered\/-\/tampered-1\.0\.0\.tgz does not match its integrity sha512-\S+; refused$/,
    );
    expect(existsSync(join(cache, "tampered"))).toBe(false);
  });

  it.each([
    [
      "a range no version satisfies",
      `import "npm:zodlike@^5";`,
      /^no version of zodlike matches '\^5' \(for npm:zodlike@\^5; http:\S+ has latest 4\.0\.0\)$/,
    ],
    [
      "a package the registry lacks",
      `import "npm:nothing-here@1";`,
      /^npm package 'nothing-here' is not in the registry http:\S+$/,
    ],
    [
      "a bare import with no version that is not installed",
      `import "unversioned";`,
      /^'unversioned' is imported without a version and is not installed: map it in deno\.json \("unversioned": "npm:unversioned@<range>"\) or run npm install unversioned$/,
    ],
  ])("refuses %s in one line", async (_, source, message) => {
    const dir = project({ "index.ts": source });
    await expect(collectUpload(dir, { env: env() })).rejects.toThrow(message);
  });

  it("names the registry it could not reach", async () => {
    const dir = project({ "index.ts": INDEX });
    await expect(
      collectUpload(dir, { env: { ...env(), TESSERA_NPM_REGISTRY: deadRegistry } }),
    ).rejects.toThrow(
      new RegExp(`^could not reach the npm registry ${deadRegistry} for zodlike: ECONNREFUSED$`),
    );
  });

  it("refuses a tarball whose paths leave the package", async () => {
    const bytes = gzipSync(tar({ "/package/../../escape.js": "x" }));
    const integrity = `sha512-${createHash("sha512").update(bytes).digest("base64")}`;
    const fetchTarball = (async () => new Response(bytes)) as unknown as typeof fetch;
    await expect(
      cachedPackage(
        { name: "evil", version: "1.0.0", resolved: "https://example.test/evil.tgz", integrity },
        cache,
        fetchTarball,
      ),
    ).rejects.toThrow(/^evil@1\.0\.0: its tarball holds a path that leaves the package/);
    expect(existsSync(join(root, "escape.js"))).toBe(false);
  });
});

describe("npm version ranges, as node-semver reads them", () => {
  it.each([
    ["3.23.1", "3", true],
    ["4.0.0", "3", false],
    ["3.22.5", "~3.22", true],
    ["3.23.0", "~3.22", false],
    ["1.9.0", "^1.2.3", true],
    ["0.3.0", "^0.2.3", false],
    ["0.0.4", "^0.0.3", false],
    ["1.2.3", ">=1.2.3 <2", true],
    ["2.0.0", ">=1.2.3 <2", false],
    ["2.5.0", "^1 || ^2", true],
    ["1.5.0", "1.2 - 1.4", false],
    ["1.4.9", "1.2 - 1.4", true],
    ["1.3.0", "1.x", true],
    ["1.3.0", ">1.2", true],
    ["1.2.9", ">1.2", false],
    ["1.2.0", "<1.2", false],
    ["9.9.9", "*", true],
    ["4.1.0-beta.1", ">=4", false],
    ["4.1.0-beta.2", ">=4.1.0-beta.1", true],
    ["4.2.0-beta.1", ">=4.1.0-beta.1", false],
    ["1.2.3", ">= 1.2.3", true],
  ])("%s satisfies '%s': %s", (version, range, expected) => {
    expect(satisfiesNpm(version, range)).toBe(expected);
  });
});

/** The author's path: `tessera functions deploy` as a process, against a server process. */
describe("tessera functions deploy with npm: imports", { timeout: 120_000 }, () => {
  const root = mkdtempSync(join(tmpdir(), "tessera-deploy-npm-"));
  let server: ServerProcess;
  let registry: FakeNpmRegistry;
  let env: Record<string, string>;
  const cli = (...args: string[]) => runCli(["functions", ...args], env);

  beforeAll(async () => {
    registry = await startFakeNpmRegistry({
      zodlike: { "3.22.0": zodlike("3.22.0"), "3.23.1": zodlike("3.23.1"), "4.0.0": zodlike("4.0.0") },
    });
    server = await startServerProcess({ TESSERA_DATA_DIR: join(root, "data") });
    env = {
      TESSERA_DATA_DIR: join(root, "data"),
      TESSERA_API_KEY: /sk_live_[0-9A-Za-z]+/.exec(server.output())?.[0] ?? "",
      TESSERA_NPM_REGISTRY: registry.url,
      TESSERA_NPM_CACHE: join(root, "cache"),
    };
  }, 60_000);
  afterAll(async () => {
    await server?.stop("SIGKILL");
    await registry?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("deploys the 3.x the import names, and the deployed function answers as 3.x does", async () => {
    const dir = join(root, "parse");
    writeTree(dir, { "index.ts": INDEX });
    const deployed = await cli("deploy", dir);
    expect(deployed.stderr).toBe("");
    expect(deployed.code).toBe(0);
    expect(existsSync(join(dir, "tessera.lock"))).toBe(true);
    expect(await cli("invoke", "parse")).toMatchObject({ code: 0, stdout: "v3:ok 3.23.1\n" });

    registry.publish("zodlike", "3.24.0", zodlike("3.24.0"));
    expect((await cli("deploy", dir, "--update-lock")).code).toBe(0);
    expect(await cli("invoke", "parse")).toMatchObject({ code: 0, stdout: "v3:ok 3.24.0\n" });
  });

  it("refuses, in one line and exit 1, an installed zodlike 4 under npm:zodlike@3", async () => {
    const dir = join(root, "mismatch");
    writeTree(dir, {
      "index.ts": INDEX,
      "node_modules/zodlike/package.json": JSON.stringify({ name: "zodlike", version: "4.0.0" }),
      "node_modules/zodlike/index.js": `export const version = "4.0.0";`,
    });
    const refused = await cli("deploy", dir);
    expect(refused).toMatchObject({
      code: 1,
      stdout: "",
      stderr:
        "error: npm:zodlike@3 is imported but node_modules has zodlike 4.0.0: install zodlike@3 or change the import\n",
    });
  });
});
