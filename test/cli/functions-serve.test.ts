import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, startServerProcess, type ServerProcess } from "../helpers/process.ts";

/**
 * `tessera functions serve DIR`: the real CLI process runs a folder in the isolate sandbox on a
 * local port, with `ctx` reaching a real server process's data (by default a sandbox organization
 * the CLI makes on that server; `--remote` the key's own), and reloads on save.
 */
/** Counts its calls in finance engine state and says whether `ctx` and `/v1/me` agree on the organization. */
const COUNTER = `import type { Context } from "tessera/types";
export default async function (req: Request, ctx: Context): Promise<Response> {
  const visits = ((await ctx.engines.finance.get<number>("greeter:visits")) ?? 0) + 1;
  await ctx.engines.finance.set("greeter:visits", visits);
  const me = await (await ctx.platform.fetch("/v1/me")).json();
  console.log("hello from v1");
  return Response.json({ v: 1, path: new URL(req.url).pathname, visits, org: me.organization.id === ctx.organization_id, caller: ctx.user?.type });
}
`;

describe("tessera functions serve", { timeout: 120_000 }, () => {
  const root = mkdtempSync(join(tmpdir(), "tessera-serve-"));
  const fn = join(root, "greeter");
  let server: ServerProcess;
  let serve: ChildProcess;
  let printed = "";
  let url = "";
  let key = "";

  const stateOf = async (secret: string) => {
    const answer = await fetch(`${server.url}/v1/engines/finance/state/greeter%3Avisits`, {
      headers: { authorization: `Bearer ${secret}` },
    });
    return answer.status === 404 ? undefined : ((await answer.json()) as { value: unknown }).value;
  };
  const orgIdOf = async (secret: string) => {
    const me = await fetch(`${server.url}/v1/me`, { headers: { authorization: `Bearer ${secret}` } });
    return ((await me.json()) as { organization: { id: string } }).organization.id;
  };
  const sandboxKeys = () =>
    (JSON.parse(readFileSync(join(root, "data", "sandbox.json"), "utf8")) as { keys: Record<string, string> })
      .keys;
  const write = (source: string) => writeFileSync(join(fn, "index.ts"), source);
  const waitFor = async (what: RegExp, from = 0): Promise<RegExpExecArray> => {
    for (let waited = 0; waited < 60_000; waited += 50) {
      const match = what.exec(printed.slice(from));
      if (match) return match;
      if (serve.exitCode !== null) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`functions serve never printed ${what}:\n${printed}`);
  };
  /** Another `functions serve` process on the same server and data dir, for one test. */
  const startServe = async (args: string[]) => {
    const child = spawn(
      process.execPath,
      ["--no-node-snapshot", BIN, "functions", "serve", ...args, "--port", "0", "--url", server.url],
      {
        env: {
          ...process.env,
          LOG_LEVEL: "warn",
          TESSERA_API_KEY: key,
          TESSERA_DATA_DIR: join(root, "data"),
        },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise((resolve) => child.once("exit", resolve));
    let listening: RegExpExecArray | null = null;
    for (let waited = 0; waited < 60_000 && !listening && child.exitCode === null; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      listening = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
    }
    if (!listening) throw new Error(`functions serve ${args.join(" ")} never listened:\n${output}`);
    return {
      url: listening[1]!,
      printed: () => output,
      async stop() {
        if (child.exitCode === null) child.kill("SIGTERM");
        await exited;
      },
    };
  };
  /** Asks until the answer passes `until` (a save takes a moment to recompile). */
  const askUntil = async (path: string, until: (body: string) => boolean): Promise<Response> => {
    for (let tries = 0; ; tries++) {
      const response = await fetch(`${url}${path}`);
      const body = await response.clone().text();
      if (until(body) || tries > 200) return response;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  beforeAll(async () => {
    mkdirSync(join(root, "data"));
    mkdirSync(fn);
    write(COUNTER);
    writeFileSync(join(fn, "deno.json"), "{}\n");
    server = await startServerProcess({ TESSERA_DATA_DIR: join(root, "data") });
    key = /sk_live_[0-9A-Za-z]+/.exec(server.output())?.[0] ?? "";
    serve = spawn(
      process.execPath,
      ["--no-node-snapshot", BIN, "functions", "serve", fn, "--port", "0", "--url", server.url],
      {
        env: {
          ...process.env,
          LOG_LEVEL: "warn",
          TESSERA_API_KEY: key,
          TESSERA_DATA_DIR: join(root, "data"),
        },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    serve.stdout!.on("data", (chunk: Buffer) => (printed += chunk.toString()));
    serve.stderr!.on("data", (chunk: Buffer) => (printed += chunk.toString()));
    url = (await waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
  }, 90_000);

  afterAll(async () => {
    if (serve && serve.exitCode === null) {
      const exited = new Promise((resolve) => serve.once("exit", resolve));
      serve.kill("SIGTERM");
      await exited;
    }
    await server?.stop("SIGKILL");
    rmSync(root, { recursive: true, force: true });
  });

  it("answers with ctx from the server: engine state, platform.fetch, the caller; prints the request and its console lines", async () => {
    const response = await fetch(`${url}/hello?x=1`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ v: 1, path: "/hello", visits: 1, org: true, caller: "api_key" });
    await waitFor(/log\s+req_\w+ hello from v1/);
    await waitFor(/GET \/hello\?x=1 200 \d+ ms/);
  });

  it("by default serves a sandbox organization it made, seeded, with a key kept 0600 in the data dir: the key's own organization is not touched", async () => {
    const keyOrg = await orgIdOf(key);
    const [sandboxOrg, secret] = Object.entries(sandboxKeys())[0]!;
    expect(sandboxOrg).not.toBe(keyOrg);
    expect(statSync(join(root, "data", "sandbox.json")).mode & 0o777).toBe(0o600);
    expect(printed).toContain(
      `serving against the sandbox organization "sandbox" (${sandboxOrg}; demo data; nothing reaches ${keyOrg})`,
    );
    // The server's REST API sees what the function wrote, in the sandbox and only there.
    expect(await stateOf(secret)).toBe(1);
    expect(await stateOf(key)).toBeUndefined();
    // Seeded with demo data.
    const invoices = await fetch(`${server.url}/v1/invoices?per_page=1`, {
      headers: { authorization: `Bearer ${secret}` },
    });
    expect(((await invoices.json()) as { meta: { total: number } }).meta.total).toBeGreaterThan(0);
  });

  it("--remote serves the key's organization and says its writes are live; a second default serve reuses the sandbox and its key", async () => {
    const other = join(root, "counter");
    mkdirSync(other);
    writeFileSync(join(other, "index.ts"), COUNTER);
    writeFileSync(join(other, "deno.json"), "{}\n");
    const live = await startServe([other, "--remote"]);
    try {
      expect(live.printed()).toMatch(
        new RegExp(
          `serving against organization ${await orgIdOf(key)} "default" at ${server.url} \\(LIVE data: writes are real\\)`,
        ),
      );
      expect(await (await fetch(live.url)).json()).toMatchObject({ visits: 1, org: true });
      expect(await stateOf(key)).toBe(1);
    } finally {
      await live.stop();
    }
    const before = sandboxKeys();
    const again = await startServe([other]);
    try {
      expect(await (await fetch(again.url)).json()).toMatchObject({ visits: 2 });
      expect(sandboxKeys()).toEqual(before);
      expect(await stateOf(Object.values(before)[0]!)).toBe(2);
      expect(await stateOf(key)).toBe(1);
    } finally {
      await again.stop();
    }
  });

  it("--org NAME serves another local organization, made and seeded on first use", async () => {
    const scratch = await startServe([join(root, "counter"), "--org", "scratch"]);
    try {
      const [, org] =
        /serving against the sandbox organization "scratch" \((org_\w+); demo data; nothing reaches org_\w+\)/.exec(
          scratch.printed(),
        )!;
      expect(await (await fetch(scratch.url)).json()).toMatchObject({ visits: 1 });
      expect(await stateOf(sandboxKeys()[org!]!)).toBe(1);
    } finally {
      await scratch.stop();
    }
  });

  it("without --remote, refuses in one line (exit 2) when the server is not the one on this data dir", async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), "tessera-serve-elsewhere-"));
    try {
      const child = spawn(
        process.execPath,
        ["--no-node-snapshot", BIN, "functions", "serve", fn, "--url", server.url],
        {
          env: { ...process.env, LOG_LEVEL: "warn", TESSERA_API_KEY: key, TESSERA_DATA_DIR: elsewhere },
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise((resolve) => child.once("exit", resolve));
      expect(code).toBe(2);
      expect(stderr.trim().split("\n")).toEqual([
        `error: the sandbox organization needs a local Tessera on this data dir (run \`tessera serve\` here); pass --remote to use the key's organization's live data at ${server.url}, or --key of a sandbox organization with --remote`,
      ]);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it("reloads on save: the next request gets the new code, and reads the folder's files as a deploy would", async () => {
    const from = printed.length;
    mkdirSync(join(fn, "static"));
    writeFileSync(join(fn, "static", "greeting.txt"), "hej");
    // Deno.env from the folder's .env, the local stand-in for the function's secrets.
    writeFileSync(join(fn, ".env"), "# local\nPUNCTUATION='!'\n");
    write(`export default async function (): Promise<Response> {
  console.log("hello from v2");
  const greeting = await Deno.readTextFile(new URL("./static/greeting.txt", import.meta.url));
  return Response.json({ v: 2, greeting: greeting + (Deno.env.get("PUNCTUATION") ?? "?") });
}
`);
    const response = await askUntil("/", (body) => body.includes('"v":2') && body.includes("!"));
    expect(await response.json()).toEqual({ v: 2, greeting: "hej!" });
    await waitFor(/reloaded \(index\.ts\) index\.ts \(v\d+/, from);
    await waitFor(/hello from v2/, from);
  });

  it("answers 500 naming file:line:column while the folder does not compile, then serves the fixed save", async () => {
    const from = printed.length;
    write(`export default function (): Response {
  return new Response("broken" +);
}
`);
    const broken = await askUntil("/", (body) => body.includes("does not compile"));
    expect(broken.status).toBe(500);
    expect(broken.headers.get("content-type")).toBe("application/problem+json");
    const problem = (await broken.json()) as { detail: string; errors: Array<{ message: string }> };
    expect(problem.detail).toMatch(/does not compile: index\.ts:2:\d+: /);
    await waitFor(/does not compile[^\n]*\n\s+\S*index\.ts:2:\d+: /, from);

    write(`export default () => new Response("fixed");\n`);
    const fixed = await askUntil("/", (body) => body === "fixed");
    expect(fixed.status).toBe(200);
    expect(await fixed.text()).toBe("fixed");
  });

  it("keeps reloading whatever the save style: a temp file renamed over the original, again, and in place", async () => {
    // What many editors do (an "atomic save"): write beside the file, then rename over it.
    const atomic = (file: string, source: string) => {
      const temp = join(fn, `.${file.replaceAll("/", "_")}.tmp-${Date.now()}`);
      writeFileSync(temp, source);
      renameSync(temp, join(fn, file));
    };
    for (const n of [1, 2, 3]) {
      atomic("index.ts", `export default () => new Response("atomic ${n}");\n`);
      const answer = await askUntil("/", (body) => body === `atomic ${n}`);
      expect(await answer.text()).toBe(`atomic ${n}`);
    }
    // A folder made after the start is watched too, and a rename inside it is seen.
    mkdirSync(join(fn, "lib"));
    atomic("lib/word.ts", `export const word = "from lib";\n`);
    atomic("index.ts", `import { word } from "./lib/word.ts";\nexport default () => new Response(word);\n`);
    expect(await (await askUntil("/", (body) => body === "from lib")).text()).toBe("from lib");
    atomic("lib/word.ts", `export const word = "renamed in lib";\n`);
    expect(await (await askUntil("/", (body) => body === "renamed in lib")).text()).toBe("renamed in lib");
    write(`export default () => new Response("in place");\n`);
    expect(await (await askUntil("/", (body) => body === "in place")).text()).toBe("in place");
  });
});
