import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { isAbsolute, join, relative, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { FUNCTION_NAME } from "../runtime/index.ts";

/** The function author's SDK (`tessera/types`, `tessera/testing`): `sdk/` of this package. */
export const SDK_DIR = fileURLToPath(new URL("../sdk/", import.meta.url));

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
  /** Where `tessera/types` and `tessera/testing` are (default: this package's `sdk/`). */
  sdkDir?: string;
}

export interface Scaffolded {
  folder: string;
  files: Array<{ path: string; what: string }>;
}

/**
 * `tessera functions new NAME`: a folder with a typed handler, its deno test with a fake ctx, and
 * a deno.json mapping `tessera/types` and `tessera/testing` to the SDK, as `supabase functions
 * new` makes one, with the `tessera` section `functions deploy` reads (name, private, no
 * triggers yet). Refuses a folder that exists and is not empty.
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
  const sdk = importTarget(folder, options.sdkDir ?? SDK_DIR);
  const files = [
    { path: "index.ts", what: "the handler: export default { fetch(req, env, ctx) }", text: handler(name) },
    { path: "index.test.ts", what: "its deno test, with a fake ctx (tessera/testing)", text: test(name) },
    {
      path: "deno.json",
      what: `imports: tessera/types and tessera/testing from ${sdk}; "tessera": what deploy sends`,
      text: `${JSON.stringify(
        {
          imports: { "tessera/types": `${sdk}types.ts`, "tessera/testing": `${sdk}testing.ts` },
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
  return { folder, files: files.map(({ path, what }) => ({ path, what })) };
}

/** The SDK folder as an import map target of `folder`'s deno.json: relative when it can be (`../../sdk/`). */
function importTarget(folder: string, sdkDir: string): string {
  const path = relative(folder, sdkDir);
  if (isAbsolute(path)) return pathToFileURL(sdkDir).href.replace(/\/?$/, "/");
  const posixPath = path.split(sep).join("/");
  return `${posixPath.startsWith("..") ? posixPath : `./${posixPath}`}/`;
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
