import { execFile } from "node:child_process";
import { createHmac } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VERSION } from "../../../clients/typescript/src/version.ts";
import { json, startScriptedServer, type ScriptedServer } from "./scripted-server.ts";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const PACKAGE = join(ROOT, "clients", "typescript");
const TSC = join(ROOT, "node_modules", ".bin", "tsc");

/**
 * The package as a user gets it: `npm pack` (its prepack builds dist/ with the repository's
 * TypeScript), installed offline into an empty folder, used from plain Node ESM and type-checked
 * by `tsc --strict` against its `.d.ts`. The pack runs on a copy under the checkout's tmp/ (ignored
 * by git, Prettier and ESLint), so no dist/ ever appears in clients/typescript.
 */
describe("the packed @tessera/client", () => {
  let work: string;
  let app: string;
  let server: ScriptedServer;

  beforeAll(async () => {
    mkdirSync(join(ROOT, "tmp"), { recursive: true });
    work = mkdtempSync(join(ROOT, "tmp", "client-ts-pack-"));
    const copy = join(work, "package");
    for (const name of ["package.json", "tsconfig.json", "README.md", "src"]) {
      cpSync(join(PACKAGE, name), join(copy, name), { recursive: true });
    }
    await run("npm", ["pack", "--pack-destination", work, "--silent"], { cwd: copy });
    app = join(work, "app");
    mkdirSync(app);
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
    const tarball = readdirSync(work).find((name) => name.endsWith(".tgz"))!;
    await run("npm", ["install", "--offline", "--no-audit", "--no-fund", "--silent", join(work, tarball)], {
      cwd: app,
    });
    server = await startScriptedServer([json(200, { object: "me", organization: { name: "default" } })]);
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("holds the built ESM and its types, no runtime dependency, and nothing of Node in the library", () => {
    const installed = join(app, "node_modules", "@tessera", "client");
    const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8")) as Record<
      string,
      unknown
    >;
    expect(manifest).toMatchObject({ name: "@tessera/client", version: VERSION, type: "module" });
    expect(manifest.dependencies).toBeUndefined();
    const files = readdirSync(join(installed, "dist"), { recursive: true }).map(String);
    expect(files).toEqual(
      expect.arrayContaining(["index.js", "index.d.ts", join("generated", "types.d.ts")]),
    );
    for (const file of files.filter((name) => name.endsWith(".js"))) {
      const source = readFileSync(join(installed, "dist", file), "utf8");
      expect(source, file).not.toMatch(/from "node:|require\(|\.ts"/);
    }
    expect(JSON.parse(readFileSync(join(PACKAGE, "package.json"), "utf8")).version).toBe(VERSION);
  });

  it("runs from plain Node ESM: calls a server, verifies a webhook", async () => {
    const secret = `whsec_${Buffer.alloc(32, 9).toString("base64")}`;
    const timestamp = Math.floor(Date.now() / 1000);
    const body = JSON.stringify({
      id: "evt_1",
      object: "event",
      type: "contact.created",
      data: { object: {} },
    });
    const signature = `v1,${createHmac("sha256", Buffer.alloc(32, 9)).update(`evt_1.${timestamp}.${body}`).digest("base64")}`;
    writeFileSync(
      join(app, "main.mjs"),
      `import Tessera, { WebhookVerificationError } from "@tessera/client";
const client = new Tessera();
const me = await client.me.retrieve();
const headers = { "webhook-id": "evt_1", "webhook-timestamp": "${timestamp}", "webhook-signature": "${signature}" };
const event = await Tessera.webhooks.verify(${JSON.stringify(body)}, headers, "${secret}");
const forged = await client.webhooks.verify("{}", headers, "${secret}").catch((error) => error instanceof WebhookVerificationError);
console.log(JSON.stringify({ me: me.object, event: event.type, forged }));
`,
    );
    const env = { ...process.env, TESSERA_API_KEY: "sk_live_packaged", TESSERA_BASE_URL: server.url };
    const { stdout } = await run(process.execPath, ["main.mjs"], { cwd: app, env });
    expect(JSON.parse(stdout)).toEqual({ me: "me", event: "contact.created", forged: true });
    expect(server.requests[0]!.headers.authorization).toBe("Bearer sk_live_packaged");
  });

  it("type-checks a user's script under tsc --strict, and refuses a wrong field name", async () => {
    writeFileSync(join(app, "ok.ts"), USER_SCRIPT);
    writeFileSync(join(app, "bad.ts"), MISTAKES);
    const strict = {
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      target: "ES2022",
      module: "NodeNext",
      moduleResolution: "NodeNext",
    };
    // A browser or Deno project (the DOM's types) and a Node one (@types/node, no DOM).
    const configs = {
      "tsconfig.dom.json": {
        compilerOptions: {
          ...strict,
          lib: ["ES2022", "DOM", "DOM.Iterable", "DOM.AsyncIterable"],
          types: [],
        },
        files: ["ok.ts", "bad.ts"],
      },
      "tsconfig.node.json": {
        compilerOptions: {
          ...strict,
          lib: ["ES2022"],
          types: ["node"],
          typeRoots: [join(ROOT, "node_modules", "@types")],
        },
        files: ["ok.ts"],
      },
    };
    for (const [name, config] of Object.entries(configs))
      writeFileSync(join(app, name), JSON.stringify(config));
    const check = (config: string) =>
      run(TSC, ["-p", config], { cwd: app }).then(
        () => "",
        (error: { stdout: string }) => error.stdout,
      );
    const [dom, node] = await Promise.all([check("tsconfig.dom.json"), check("tsconfig.node.json")]);
    expect(node).toBe("");
    const errors = dom.split("\n").filter((line) => /error TS/.test(line));
    expect(errors.filter((line) => line.startsWith("ok.ts"))).toEqual([]);
    expect(errors.map((line) => /^bad\.ts\((\d+),/.exec(line)?.[1])).toEqual(["6", "8", "10"]);
    expect(errors[0]).toContain("'amout' does not exist");
    expect(errors[1]).toContain("'amout' does not exist");
    expect(errors[2]).toContain('"late"');
  });
});

/** What a user writes: every kind of method, the types it gets back, errors, streams, webhooks. */
const USER_SCRIPT = `import Tessera, { NotFoundError, RateLimitError, type Event, type Invoice, type Page, type PageMeta } from "@tessera/client";

const client = new Tessera({ apiKey: "sk_live_x", maxRetries: 3, timeout: 20_000 });

export async function main(): Promise<number> {
  const invoice: Invoice = await client.invoices.create({ client: "Acme", currency: "EUR", due_date: "2030-01-01", amount: 5 });
  const remaining: number = invoice.amount_remaining;
  const page: Page<Invoice, PageMeta> = await client.invoices.list({ status: ["open", "overdue"], per_page: 10, sort: "-amount" });
  const total: number = page.meta.total;
  for await (const overdue of client.invoices.list({ status: "overdue" })) console.log(overdue.number, overdue.days_overdue);
  const { data, response } = await client.me.retrieve().withResponse();
  console.log(data.organization.plan, response.headers.get("x-ratelimit-remaining"));
  const reply: string = (await client.sync.chat({ message: "Which invoices are overdue?" })).reply;
  const stream = await client.sync.chat({ message: "Which invoices are overdue?", stream: true });
  for await (const event of stream) if (event.type === "delta") console.log(event.text);
  const action = await client.sync.actions.approve("act_1", { idempotencyKey: "approve-1" });
  console.log(action.status, reply);
  const fn: Response = await client.functions.invoke("hello", { method: "POST", body: { hi: 1 } });
  const events = await client.events.stream({ type: "invoice.*" });
  for await (const event of events) console.log(event.type, event.data.object);
  const entry = await client.engines.setState("finance", "cursor", { value: { page: 3 }, ifNoneMatch: "*" });
  const rotated: string = (await client.webhookEndpoints.rotateSecret("we_1")).secret;
  const verified: Event = await Tessera.webhooks.verify("{}", { "webhook-id": "x" }, rotated);
  try {
    await client.contacts.retrieve("con_1");
  } catch (error) {
    if (error instanceof NotFoundError) console.log(error.status, error.code, error.requestId);
    if (error instanceof RateLimitError) console.log(error.resetAt?.toISOString());
  }
  return remaining + total + entry.version + fn.status + verified.type.length;
}
`;

/** The same, wrong: line 6 sends a field that does not exist, line 8 reads one, line 10 filters by an unknown status. */
const MISTAKES = `import { Tessera } from "@tessera/client";

const client = new Tessera({ apiKey: "sk_live_x" });

export async function mistakes(): Promise<void> {
  await client.invoices.create({ client: "Acme", currency: "EUR", due_date: "2030-01-01", amout: 5 });
  const invoice = await client.invoices.retrieve("inv_1");
  console.log(invoice.amout);
  await client.invoices.list({
    status: "late",
  });
}
`;
