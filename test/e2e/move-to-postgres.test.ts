import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createBackupSeal, verifyBackup } from "../../store/index.ts";
import { signatureHeader } from "../../webhooks/index.ts";
import { runCli, startServerProcess, type ServerProcess } from "../helpers/process.ts";
import { emptyDatabase } from "../helpers/stores.ts";

const url = process.env.TEST_DATABASE_URL;
const EXAMPLES = new URL("../../examples/functions/", import.meta.url).pathname;
const PASSWORD = "a long enough passphrase";

/**
 * The move README's "Moving to PostgreSQL" describes, end to end as an operator does it: a Tessera
 * on the embedded store with demo data, functions with a secret and static files, a webhook
 * endpoint, a dashboard user and an OAuth app; `tessera backup` while it takes writes;
 * `DATABASE_URL=… tessera restore`; a server started on PostgreSQL; and then every /v1 list, the
 * function's secret, a webhook's signature and a dashboard sign-in are what they were.
 */
describe.runIf(url)("moving from the embedded store to PostgreSQL", { timeout: 300_000 }, () => {
  const root = mkdtempSync(join(tmpdir(), "tessera-move-"));
  const open = { TESSERA_ALLOW_PRIVATE_TARGETS: "1", TESSERA_ALLOW_HTTP_TARGETS: "1" };
  const servers: ServerProcess[] = [];
  let database: { url: string; drop(): Promise<void> } | undefined;
  const received: Array<{ headers: IncomingMessage["headers"]; body: string }> = [];
  const receiver = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      received.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });

  afterAll(async () => {
    for (const server of servers) await server.stop("SIGKILL");
    receiver.close();
    await database?.drop();
    rmSync(root, { recursive: true, force: true });
  });

  it("backs up under load, restores into PostgreSQL, and serves everything as it was", async () => {
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const dataDir = join(root, "data");
    const embedded = await startServerProcess({ TESSERA_DATA_DIR: dataDir, ...open });
    servers.push(embedded);
    const key = /sk_live_[0-9A-Za-z]+/.exec(embedded.output())?.[0] ?? "";
    const setupPath = /\/setup\/\S+/.exec(embedded.output())?.[0] ?? "";
    const cli = (args: string[], env: Record<string, string> = {}) =>
      runCli(args, { TESSERA_DATA_DIR: dataDir, TESSERA_URL: embedded.url, TESSERA_API_KEY: key, ...env });
    const call = async (base: string, method: string, path: string, body?: unknown) => {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, json: (await res.json()) as Record<string, unknown> };
    };

    // What an organization holds after a while on the embedded store.
    expect((await cli(["seed", "--demo"])).code).toBe(0);
    const fn = join(root, "greeter");
    mkdirSync(fn);
    writeFileSync(
      join(fn, "index.ts"),
      'Deno.serve(() => Response.json({ greeting: Deno.env.get("GREETING") ?? null }));\n',
    );
    for (const args of [
      ["functions", "deploy", fn, "--name", "greeter"],
      ["functions", "secrets", "set", "greeter", "GREETING=hello from the embedded store"],
      ["functions", "deploy", join(EXAMPLES, "static-files"), "--name", "files"],
    ]) {
      const run = await cli(args);
      expect(run.code, run.stderr).toBe(0);
    }
    const endpoint = await call(embedded.url, "POST", "/v1/webhook_endpoints", {
      url: hook,
      event_types: ["contact.created"],
    });
    expect(endpoint.status).toBe(201);
    const secretPath = `/v1/webhook_endpoints/${endpoint.json.id as string}/secret`;
    const whsec = (await call(embedded.url, "GET", secretPath)).json;
    const app = await call(embedded.url, "POST", "/v1/oauth_apps", {
      name: "Ledger sync",
      redirect_uris: ["https://ledger.example.com/callback"],
      scopes: ["finance:read"],
    });
    expect(app.status, JSON.stringify(app.json)).toBe(201);
    expect((await call(embedded.url, "POST", "/v1/intelligence/snapshots")).status).toBe(201);
    const owner = await dashboardForm(embedded.url, setupPath, {
      email: "olive@example.com",
      name: "Olive Owner",
      password: PASSWORD,
    });
    expect(owner.status).toBe(303);

    // The backup, while an integration keeps creating contacts.
    let writing = true;
    const written: string[] = [];
    const writer = (async () => {
      while (writing) {
        const res = await call(embedded.url, "POST", "/v1/contacts", { name: `Load ${written.length}` });
        expect(res.status).toBe(201);
        written.push(res.json.id as string);
      }
    })();
    while (written.length < 5) await new Promise((resolve) => setTimeout(resolve, 20));
    const archive = join(root, "move.ndjson.gz");
    const backup = await cli(["backup", "--out", archive]);
    expect(backup.code, backup.stderr).toBe(0);
    while (written.length < 10) await new Promise((resolve) => setTimeout(resolve, 20));
    writing = false;
    await writer;
    const secret = readFileSync(join(dataDir, "secret"), "utf8").trim();
    const manifest = await verifyBackup(archive, createBackupSeal(secret));
    const before = await everyList(embedded.url, key);
    await embedded.stop();
    received.length = 0;

    // The move: restore into an empty PostgreSQL database under the same secret, start there.
    database = await emptyDatabase(url!, "test_move");
    const onPostgres = { DATABASE_URL: database.url, TESSERA_SECRET: secret };
    const restore = await runCli(["restore", archive], {
      TESSERA_DATA_DIR: join(root, "unused"),
      ...onPostgres,
    });
    expect(restore.code, restore.stderr).toBe(0);
    expect(restore.stdout).toMatch(/^restored \d+ rows of \d+ tables \(schema \d+, pglite, /);
    const moved = await startServerProcess({
      TESSERA_DATA_DIR: join(root, "unused"),
      ...onPostgres,
      ...open,
    });
    servers.push(moved);
    expect(moved.output()).not.toContain("created organization");
    const after = await everyList(moved.url, key);

    // Every list is what it was. Contacts and events kept coming after the snapshot: those in the
    // archive are there as they were, the rest are exactly the writes that followed it.
    expect(Object.keys(after).sort()).toEqual(Object.keys(before).sort());
    for (const [path, items] of Object.entries(before)) {
      if (path === "/v1/contacts" || path === "/v1/events") continue;
      expect(after[path], path).toEqual(items);
    }
    const snapshot = manifest.tables.find((table) => table.name === "contacts")!.rows;
    expect(after["/v1/contacts"]).toHaveLength(snapshot);
    const beforeById = new Map(before["/v1/contacts"]!.map((item) => [item.id, item]));
    for (const contact of after["/v1/contacts"]!) expect(contact).toEqual(beforeById.get(contact.id));
    const lost = before["/v1/contacts"]!.filter(
      (item) => !after["/v1/contacts"]!.some((c) => c.id === item.id),
    );
    expect(lost.every((item) => written.includes(item.id as string))).toBe(true);
    const eventsById = new Map(before["/v1/events"]!.map((item) => [item.id, item]));
    for (const event of after["/v1/events"]!) expect(event).toEqual(eventsById.get(event.id));

    // The function's sealed secret opens under the same TESSERA_SECRET; its static files are there.
    const greeting = await fetch(`${moved.url}/v1/functions/greeter/invoke`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(await greeting.json()).toEqual({ greeting: "hello from the embedded store" });
    // A binary file: stored as bytea, carried as hex, the same bytes after the move.
    const pixel = await fetch(`${moved.url}/v1/functions/files/invoke/pixel.png`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(pixel.status).toBe(200);
    expect(Buffer.from(await pixel.arrayBuffer())).toEqual(
      readFileSync(join(EXAMPLES, "static-files/static/pixel.png")),
    );

    // The webhook secret is the same, and a new event is delivered signed with it.
    expect((await call(moved.url, "GET", secretPath)).json).toEqual(whsec);
    const contact = await call(moved.url, "POST", "/v1/contacts", { name: "After the move" });
    expect(contact.status).toBe(201);
    const deadline = Date.now() + 60_000;
    while (!received.some((r) => r.body.includes(contact.json.id as string)) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const delivery = received.find((r) => r.body.includes(contact.json.id as string));
    expect(delivery).toBeDefined();
    const expected = signatureHeader({
      secrets: [whsec.secret as string],
      id: delivery!.headers["webhook-id"] as string,
      timestamp: Number(delivery!.headers["webhook-timestamp"]),
      body: delivery!.body,
    });
    expect(delivery!.headers["webhook-signature"]).toBe(expected);

    // The dashboard's owner signs in with the password set on the embedded store.
    const signIn = await dashboardForm(moved.url, "/sign-in", {
      email: "olive@example.com",
      password: PASSWORD,
    });
    expect(signIn.status).toBe(303);
    expect(signIn.headers.get("set-cookie")).toMatch(/tessera_session=/);
  });
});

/** Every item of every list the API has (GET /v1/… without a path parameter), all pages; other GETs whole. */
async function everyList(base: string, key: string): Promise<Record<string, Array<Record<string, unknown>>>> {
  const document = (await (await fetch(`${base}/v1/openapi.json`)).json()) as {
    paths: Record<string, { get?: unknown }>;
  };
  const lists: Record<string, Array<Record<string, unknown>>> = {};
  for (const [path, operations] of Object.entries(document.paths)) {
    if (!operations.get || path.includes("{") || path.endsWith("/stream")) continue;
    const items: Array<Record<string, unknown>> = [];
    for (let page = 1; ; page += 1) {
      const res = await fetch(`${base}${path}?per_page=100&page=${page}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      const body = (await res.json()) as { data?: Array<Record<string, unknown>>; meta?: { total: number } };
      // Not a list (`/v1/me`, the latest snapshot, a 404 when there is none): kept whole.
      if (!Array.isArray(body.data) || !body.meta) {
        const { request_id: _, ...same } = body as Record<string, unknown>;
        lists[path] = [{ status: res.status, body: same }];
        break;
      }
      items.push(...body.data);
      if (items.length >= body.meta.total || body.data.length === 0) {
        lists[path] = items;
        break;
      }
    }
  }
  return lists;
}

/** Posts a dashboard form as a browser does: the sign-in page's pre-session cookie and token first. */
async function dashboardForm(base: string, path: string, fields: Record<string, string>): Promise<Response> {
  const page = await fetch(`${base}/sign-in`);
  const cookie = page.headers
    .getSetCookie()
    .map((line) => line.split(";")[0]!)
    .find((pair) => pair.startsWith("tessera_csrf="));
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1];
  return fetch(`${base}${path}`, {
    method: "POST",
    redirect: "manual",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      cookie: cookie ?? "",
      origin: base,
    },
    body: new URLSearchParams({ _csrf: csrf ?? "", ...fields }).toString(),
  });
}
