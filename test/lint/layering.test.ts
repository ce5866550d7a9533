import { fileURLToPath, pathToFileURL } from "node:url";
import { ESLint, type Linter } from "eslint";
import tseslint from "typescript-eslint";
import { beforeAll, describe, expect, it } from "vitest";

// The layering rule of eslint.config.js, run as `npm run check` runs it, on code that is never written
// to disk: each case names the file it pretends to be, and the rule resolves the import from there.
const root = fileURLToPath(new URL("../../", import.meta.url));

let eslint: ESLint;
beforeAll(async () => {
  // Loaded by URL: the config is plain JavaScript, outside the TypeScript project.
  const config = (await import(pathToFileURL(`${root}eslint.config.js`).href)) as { layering: Linter.Config };
  eslint = new ESLint({
    cwd: root,
    overrideConfigFile: true,
    overrideConfig: [{ files: ["**/*.ts"], languageOptions: { parser: tseslint.parser } }, config.layering],
  });
});

async function lint(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.map((m) => `${m.ruleId}: ${m.message}`);
}

describe("the one-way import rule", () => {
  it.each([
    ["store/queue.ts", 'import { createApi } from "../api/index.ts";'],
    ["sync/builtin/handlers/people.ts", 'import { createApi } from "../../../api/index.ts";'],
    ["engines/finance/invoices.ts", 'import { createSyncService } from "../../sync/index.ts";'],
    ["api/app.ts", 'import { createBrowserFace } from "../dashboard/index.ts";'],
    ["api/routes/functions.ts", 'import type { DashboardDeps } from "../../dashboard/env.ts";'],
    ["store/queue.ts", 'import type { X } from "../webhooks/a/b/c/d.ts";'],
    ["core/log.ts", 'export { createStore } from "../store/index.ts";'],
    ["runtime/invoke.ts", 'const m = await import("../webhooks/index.ts");'],
    ["webhooks/worker.ts", 'type Api = import("../api/index.ts").Api;'],
    ["cli/index.ts", 'import { x } from "../bin/tessera.js";'],
  ])("refuses %s importing a floor above it: %s", async (file, code) => {
    const messages = await lint(file, code);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(/^tessera\/layering: Imports go one way \(core → store → .*must not import/);
  });

  it.each([
    ["api/app.ts", 'import { createServices } from "../services.ts";'],
    ["api/routes/functions.ts", 'import type { Services } from "../../services.ts";'],
    ["api/server.ts", 'import { start } from "../main.ts";'],
  ])("refuses %s reaching up to the composition root: %s", async (file, code) => {
    const messages = await lint(file, code);
    expect(messages).toEqual([expect.stringMatching(/api\/ must not import (services|main)\.ts/)]);
  });

  it.each([
    ["api/routes/functions.ts", 'import { x } from "../../runtime/index.ts";'],
    ["sync/builtin/handlers/people.ts", 'import { x } from "../../../core/index.ts";'],
    ["sync/builtin/handlers/people.ts", 'import { x } from "../../tools/types.ts";'],
    ["sync/service.ts", 'import { x } from "../engines/index.ts";'],
    ["dashboard/oauth/index.ts", 'import type { AppEnv } from "../../api/env.ts";'],
    ["dashboard/index.ts", 'import { x } from "../sync/index.ts";'],
    ["services.ts", 'import { createBrowserFace } from "./dashboard/index.ts";'],
    ["webhooks/send.ts", 'import { x } from "../runtime/index.ts";'],
    ["services.ts", 'import { x } from "./api/index.ts";'],
    ["main.ts", 'import { x } from "./services.ts";'],
    ["cli/index.ts", 'import { x } from "../main.ts";'],
    ["sandbox/protocol.ts", 'import { x } from "./guest/subtle-methods.ts";'],
    [
      "test/api/app.test.ts",
      'import { x } from "../../main.ts";\nimport { y } from "../../bench/lib/rounds.ts";',
    ],
    ["scripts/openapi.ts", 'import { x } from "../test/helpers/deno.ts";'],
    ["store/queue.ts", 'import { readFile } from "node:fs/promises";\nimport postgres from "postgres";'],
  ])("lets %s import downward: %s", async (file, code) => {
    expect(await lint(file, code)).toEqual([]);
  });

  it.each([
    ["core/log.ts", 'import { x } from "../test/helpers/app.ts";', /test\/ is tooling/],
    ["api/app.ts", 'import { x } from "../bench/lib/rounds.ts";', /bench\/ is tooling/],
    ["runtime/invoke.ts", 'import { x } from "../sdk/types.ts";', /sdk\/ is the function authors' package/],
    ["sdk/testing.ts", 'import { x } from "../core/index.ts";', /sdk\/ is a package of its own/],
    ["sandbox/guest/fetch.ts", 'import { x } from "../protocol.ts";', /runs inside the isolate/],
    ["sandbox/guest/fetch.ts", 'import { x } from "../../core/index.ts";', /runs inside the isolate/],
    ["sandbox/guest/fetch.ts", 'import { Buffer } from "node:buffer";', /Node does not exist/],
    ["sandbox/guest/fetch.ts", 'import { x } from "fs";', /Node does not exist/],
  ])("refuses %s: %s", async (file, code, why) => {
    const messages = await lint(file, code);
    expect(messages).toEqual([expect.stringMatching(why)]);
  });

  it("lets the guest import itself and npm packages", async () => {
    const code = 'import { x } from "./events.ts";\nimport { URL } from "whatwg-url";';
    expect(await lint("sandbox/guest/fetch.ts", code)).toEqual([]);
  });

  it("is on, as an error, for every file of the project config", async () => {
    const project = new ESLint({ cwd: root });
    for (const file of [
      "api/app.ts",
      "dashboard/index.ts",
      "sync/builtin/handlers/people.ts",
      "sandbox/guest/index.ts",
    ]) {
      const config = (await project.calculateConfigForFile(file)) as Linter.Config;
      expect(config.rules?.["tessera/layering"]).toEqual([2]);
    }
  });
});
