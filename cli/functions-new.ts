import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { FUNCTION_NAME } from "../runtime/index.ts";

/**
 * The function author's SDK (`tessera/types`, `tessera/testing`): `sdk/` of this checkout, the
 * source of the `@tessera/sdk` package. A scaffold never points into it: it imports the package.
 */
export const SDK_DIR = fileURLToPath(new URL("../sdk/", import.meta.url));

/** The package a scaffold's deno.json imports `tessera/types` and `tessera/testing` from. */
export const SDK_PACKAGE = "@tessera/sdk";

/** What a scaffold's deno.json maps: package names, resolved from the project's node_modules. */
export const SDK_IMPORTS = {
  "tessera/types": `npm:${SDK_PACKAGE}/types`,
  "tessera/testing": `npm:${SDK_PACKAGE}/testing`,
} as const;

export class ScaffoldError extends Error {
  constructor(
    message: string,
    /** 2: bad usage (a name the API refuses); 1: refused (the folder is taken). */
    readonly exitCode: 1 | 2,
  ) {
    super(message);
  }
}

export interface ScaffoldOptions {
  name: string;
  /** The folder the function's folder is made in. */
  parent: string;
  /**
   * The `@tessera/sdk` package folder this CLI goes with (default: this checkout's `sdk/`): its
   * version is the one the install hint names, and a checkout's is offered to `npm pack`.
   */
  sdkDir?: string;
}

export interface Scaffolded {
  folder: string;
  files: Array<{ path: string; what: string }>;
  /** Where `@tessera/sdk` was found for the folder (`…/node_modules/@tessera/sdk`), or null. */
  sdk: string | null;
  /** When it was not found: how to install it, one line per way. */
  install: string[];
}

/**
 * `tessera functions new NAME`: a folder with a typed handler, its deno test with a fake ctx, and
 * a deno.json mapping `tessera/types` and `tessera/testing` to the `@tessera/sdk` package in the
 * project's node_modules (never a path into a checkout: the folder can move, be shared and
 * committed), as `supabase functions new` makes one, with the `tessera` section `functions deploy`
 * reads (name, private, no triggers yet). It installs nothing: when the SDK is not installed where
 * the folder finds it, `install` says how. Refuses a folder that exists and is not empty.
 *
 * @example
 *   const made = scaffoldFunction({ name: "hello", parent: process.cwd() });
 *   // made.folder: …/hello; made.files: index.ts, index.test.ts, deno.json
 */
export function scaffoldFunction(options: ScaffoldOptions): Scaffolded {
  const { name } = options;
  if (!FUNCTION_NAME.test(name)) {
    throw new ScaffoldError(
      `'${name}' is not a function name: lowercase letters, digits, '-' and '_', at most 63, not starting with fn_`,
      2,
    );
  }
  const folder = join(options.parent, name);
  if (existsSync(folder)) {
    if (!statSync(folder).isDirectory()) throw new ScaffoldError(`${folder} exists and is not a folder`, 1);
    if (readdirSync(folder).length > 0)
      throw new ScaffoldError(`${folder} exists and is not empty: pick another name or --dir`, 1);
  }
  mkdirSync(folder, { recursive: true });
  const sdk = findInstalledSdk(folder);
  const install = sdk ? [] : installHints(folder, options.sdkDir ?? SDK_DIR);
  const files = [
    { path: "index.ts", what: "the handler: export default { fetch(req, env, ctx) }", text: handler(name) },
    { path: "index.test.ts", what: "its deno test, with a fake ctx (tessera/testing)", text: test(name) },
    {
      path: "deno.json",
      what: `imports: tessera/types and tessera/testing from npm:${SDK_PACKAGE}${
        sdk ? "" : ` (not installed here: ${install.join(", or from this checkout: ")})`
      }; "tessera": what deploy sends`,
      text: `${JSON.stringify(
        {
          // Deno reads npm packages from the project's node_modules (npm installs them), never the network.
          nodeModulesDir: "manual",
          imports: SDK_IMPORTS,
          // What `functions deploy` reads (cli/functions-project.ts): events like "contact.created",
          // schedules like "0 8 * * mon-fri" or { "schedule": …, "timezone": "Europe/Berlin" }.
          tessera: { name, public: false, events: [], cron: [] },
        },
        null,
        2,
      )}\n`,
    },
  ];
  for (const file of files) writeFileSync(join(folder, file.path), file.text, { flag: "wx" });
  return { folder, files: files.map(({ path, what }) => ({ path, what })), sdk, install };
}

/**
 * `node_modules/@tessera/sdk` as Deno (`"nodeModulesDir": "manual"`) and Node find it from `folder`:
 * in the folder or a parent, up to the nearest one with a package.json.
 */
export function findInstalledSdk(folder: string): string | null {
  for (let dir = resolve(folder); ; dir = dirname(dir)) {
    const sdk = join(dir, "node_modules", ...SDK_PACKAGE.split("/"));
    if (existsSync(join(sdk, "package.json"))) return sdk;
    if (existsSync(join(dir, "package.json")) || dirname(dir) === dir) return null;
  }
}

/**
 * How to install the SDK where `folder` finds it: `@tessera/cli` depends on it; from a checkout,
 * its `sdk/` packed (`npm pack` builds dist/ and leaves a tarball to install).
 */
function installHints(folder: string, sdkDir: string): string[] {
  const where = nearestPackageDir(folder);
  const cd = where ? `cd ${where} && ` : `cd ${folder} && npm init -y && `;
  const version = sdkVersion(sdkDir);
  const hints = [`${cd}npm i -D @tessera/cli${version ? `@${version}` : ""}`];
  if (version && existsSync(join(sdkDir, "types.ts"))) {
    const tarball = `${SDK_PACKAGE.replace("@", "").replace("/", "-")}-${version}.tgz`;
    hints.push(`${cd}npm pack ${sdkDir.replace(/\/$/, "")} && npm i -D ./${tarball}`);
  }
  return hints;
}

function nearestPackageDir(folder: string): string | null {
  for (let dir = resolve(folder); ; dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json"))) return dir;
    if (dirname(dir) === dir) return null;
  }
}

function sdkVersion(sdkDir: string): string | undefined {
  try {
    const pkg = JSON.parse(readFileSync(join(sdkDir, "package.json"), "utf8")) as { version?: unknown };
    return typeof pkg.version === "string" ? pkg.version : undefined;
  } catch {
    return undefined;
  }
}

const handler = (name: string) => `/**
 * ${name}: a Tessera edge function. \`ctx\` is the caller (\`ctx.user\`), the organization's data
 * (\`ctx.platform.fetch\`, \`ctx.snapshot\`) and engine state (\`ctx.engines\`); secrets are \`env\`.
 *
 *   tessera functions serve .     runs it on http://127.0.0.1:8000 against your server, reloading on save
 *   deno test                     runs index.test.ts, with a fake ctx
 *   tessera functions deploy .    deploys it as a new version
 */
import type { Context, Env } from "tessera/types";

const CALLS = "${name}:calls";

export default {
  async fetch(req: Request, _env: Env, ctx: Context): Promise<Response> {
    const name = new URL(req.url).searchParams.get("name") ?? "world";
    const calls = ((await ctx.engines.finance.get<number>(CALLS)) ?? 0) + 1;
    await ctx.engines.finance.set(CALLS, calls);
    console.log(\`greeted \${name} (call \${calls})\`);
    return Response.json({ message: \`Hello, \${name}!\`, calls, caller: ctx.user?.type ?? "anonymous" });
  },
};
`;

const test = (name: string) => `import { createTestContext } from "tessera/testing";
import fn from "./index.ts";

Deno.test("greets by name and counts calls in finance state", async () => {
  const ctx = createTestContext({ engines: { finance: { "${name}:calls": 41 } } });
  const res = await fn.fetch(new Request("http://localhost/?name=Ada"), {}, ctx);
  const body = await res.json();
  if (res.status !== 200 || body.message !== "Hello, Ada!" || body.calls !== 42 || body.caller !== "api_key") {
    throw new Error(\`unexpected answer: \${res.status} \${JSON.stringify(body)}\`);
  }
  if ((await ctx.engines.finance.get("${name}:calls")) !== 42) throw new Error("the count was not saved");
});
`;
