import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  NotFoundError,
  PermissionDeniedError,
  Tessera,
  UnprocessableEntityError,
  WebhookVerificationError,
  type Event,
  type Fetch,
  type OAuthTokens,
  type SyncStreamEvent,
} from "../../../clients/typescript/src/index.ts";
import { startServerProcess, type ServerProcess } from "../../helpers/process.ts";
import { startCuttableProxy } from "../../helpers/proxy.ts";

/**
 * The client against one real `tessera serve` on the embedded store, with data made through it:
 * every engine's resources, paging, each error class from a real answer, SYNC, a function,
 * webhooks the server signs, the event stream, OAuth tokens.
 */
describe("the TypeScript client against a real server", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "tessera-client-ts-"));
  // Webhook deliveries go to a receiver on this machine.
  const env = {
    TESSERA_DATA_DIR: dataDir,
    TESSERA_ALLOW_HTTP_TARGETS: "1",
    TESSERA_ALLOW_PRIVATE_TARGETS: "1",
  };
  let server: ServerProcess;
  let key: string;
  let client: Tessera;
  const cleanups: Array<() => Promise<void> | void> = [];

  /** A client whose fetch records each request's method, path and headers. */
  const recording = (options: ConstructorParameters<typeof Tessera>[0] = {}) => {
    const sent: Array<{ method: string; url: URL; headers: Headers }> = [];
    const fetch: Fetch = (url, init) => {
      sent.push({ method: init.method!, url: new URL(url), headers: new Headers(init.headers) });
      return globalThis.fetch(url, init);
    };
    return { client: new Tessera({ apiKey: key, baseURL: server.url, fetch, ...options }), sent };
  };

  beforeAll(async () => {
    server = await startServerProcess(env);
    key = /sk_live_[0-9A-Za-z]+/.exec(server.output())![0];
    client = new Tessera({ apiKey: key, baseURL: server.url });
    // Data of our own, made through the client (quicker than `seed --demo`, a process of its own).
    await Promise.all([
      ...Array.from({ length: 12 }, (_, index) =>
        client.contacts.create({
          name: `Contact ${String(index + 1).padStart(2, "0")}`,
          lifecycle_stage: "lead",
        }),
      ),
      ...["Acme Logistics", "Kestrel Robotics", "Solstice Travel"].map((name, index) =>
        client.invoices.create({
          client: name,
          currency: "EUR",
          due_date: `2025-0${index + 1}-15`,
          amount: 1000 * (index + 1),
        }),
      ),
    ]);
  }, 60_000);

  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    await server?.stop("SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("says whose key it is", async () => {
    const me = await client.me.retrieve();
    expect(me.organization.name).toBe("default");
    expect(me.credential).toMatchObject({ type: "api_key", kind: "full_access", scopes: ["*"] });
  });

  it("creates, reads, changes, lists and deletes finance's invoices, products and payments", async () => {
    const product = await client.products.create({
      name: "Widget",
      price: 12.5,
      currency: "EUR",
      sku: "W-CLIENT-1",
    });
    expect(product).toMatchObject({ object: "product", price: 12.5, active: true });
    expect(await client.products.update(product.id, { active: false })).toMatchObject({ active: false });
    expect((await client.products.list({ sku: "W-CLIENT-1" })).data.map((p) => p.id)).toEqual([product.id]);
    const spare = await client.products.create({ name: "Spare", price: "1.00", currency: "EUR" });
    await client.products.delete(spare.id);
    await expect(client.products.retrieve(spare.id)).rejects.toBeInstanceOf(NotFoundError);

    const invoice = await client.invoices.create({
      client: "Analytical Engines Ltd",
      currency: "EUR",
      due_date: "2030-12-31",
      line_items: [{ product_id: product.id, quantity: 2, unit_price: "12.50" }],
    });
    expect(invoice).toMatchObject({ object: "invoice", amount: 25, status: "open" });
    expect((await client.invoices.retrieve(invoice.id)).number).toBe(invoice.number);
    expect(await client.invoices.update(invoice.id, { description: "Two widgets" })).toMatchObject({
      description: "Two widgets",
    });

    const payment = await client.payments.create({ invoice_id: invoice.id, amount: 10, method: "card" });
    expect(payment).toMatchObject({ object: "payment", amount: 10, currency: "EUR" });
    expect(await client.invoices.retrieve(invoice.id)).toMatchObject({
      status: "open",
      amount_remaining: 15,
    });
    expect(await client.payments.update(payment.id, { reference: "card 4242" })).toMatchObject({
      reference: "card 4242",
    });
    expect((await client.payments.list({ invoice_id: invoice.id })).data).toHaveLength(1);
    await client.payments.delete(payment.id);
    await expect(client.payments.retrieve(payment.id)).rejects.toBeInstanceOf(NotFoundError);
    await client.payments.create({ invoice_id: invoice.id, amount: "25.00", method: "bank_transfer" });
    expect(await client.invoices.retrieve(invoice.id)).toMatchObject({ status: "paid", amount_remaining: 0 });

    const draft = await client.invoices.create({
      client: "Draft Co",
      currency: "EUR",
      due_date: "2030-12-31",
      amount: 5,
      status: "draft",
    });
    await client.invoices.delete(draft.id);
    await expect(client.invoices.retrieve(draft.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it("creates, reads, changes, lists and deletes growth's contacts, deals and communications", async () => {
    const contact = await client.contacts.create({
      name: "Grace Hopper",
      email: "grace@client.example",
      tags: ["navy"],
    });
    expect(await client.contacts.update(contact.id, { lifecycle_stage: "customer" })).toMatchObject({
      lifecycle_stage: "customer",
    });
    expect((await client.contacts.list({ email: "GRACE@client.example" })).data.map((c) => c.id)).toEqual([
      contact.id,
    ]);

    const deal = await client.deals.create({
      title: "COBOL licences",
      value: 12000,
      currency: "USD",
      contact_id: contact.id,
    });
    expect(await client.deals.update(deal.id, { stage: "proposal" })).toMatchObject({ stage: "proposal" });
    expect((await client.deals.list({ contact_id: contact.id, stage: ["proposal", "won"] })).meta.total).toBe(
      1,
    );

    const call = await client.communications.create({
      contact_id: contact.id,
      deal_id: deal.id,
      channel: "call",
      direction: "outbound",
      subject: "Kick-off",
    });
    expect(await client.communications.update(call.id, { body: "Went well" })).toMatchObject({
      body: "Went well",
    });
    expect((await client.communications.list({ deal_id: deal.id })).data.map((c) => c.id)).toEqual([call.id]);

    await client.communications.delete(call.id);
    await client.deals.delete(deal.id);
    await client.contacts.delete(contact.id);
    await expect(client.contacts.retrieve(contact.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it("creates, reads, changes, lists and deletes talent's candidates and skills", async () => {
    const candidate = await client.candidates.create({
      name: "Ada Lovelace",
      email: "ada@client.example",
      position: "Analyst",
    });
    expect(await client.candidates.update(candidate.id, { status: "screening" })).toMatchObject({
      status: "screening",
    });
    const skill = await client.skills.create({
      name: "Mathematics",
      candidate_id: candidate.id,
      level: "expert",
    });
    expect(
      await client.skills.update(skill.id, { status: "verified", verified_by: "Babbage" }),
    ).toMatchObject({ status: "verified" });
    expect(
      (await client.skills.list({ candidate_id: candidate.id, status: "verified" })).data.map((s) => s.id),
    ).toEqual([skill.id]);
    expect((await client.skills.retrieve(skill.id)).verified_at).not.toBeNull();
    await client.skills.delete(skill.id);
    await client.candidates.delete(candidate.id);
    await expect(client.candidates.retrieve(candidate.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it("iterates a list through every page, per_page at a time, fetching each page only when it is reached", async () => {
    const { client: counted, sent } = recording();
    const first = await counted.contacts.list({ per_page: 5, sort: "name" });
    expect(first.meta).toMatchObject({ page: 1, per_page: 5 });
    expect(first.hasNextPage()).toBe(true);
    const total = first.meta.total;
    expect(total).toBeGreaterThan(10);

    sent.length = 0;
    const names: string[] = [];
    for await (const contact of counted.contacts.list({ per_page: 5, sort: "name" }))
      names.push(contact.name);
    expect(names).toHaveLength(total);
    expect([...names].sort((a, b) => a.localeCompare(b, "en", { sensitivity: "base" }))).toEqual(names);
    expect(sent.map((request) => request.url.searchParams.get("page") ?? "1")).toEqual(
      Array.from({ length: Math.ceil(total / 5) }, (_, index) => String(index + 1)),
    );
    expect(sent.every((request) => request.url.searchParams.get("per_page") === "5")).toBe(true);

    sent.length = 0;
    let seen = 0;
    for await (const _ of counted.contacts.list({ per_page: 5 })) if (++seen === 3) break;
    expect(sent).toHaveLength(1);

    const second = await first.getNextPage();
    expect(second.meta.page).toBe(2);
    expect(second.data[0]!.id).not.toBe(first.data[0]!.id);
  });

  it("gives the raw response with the data, and replays a create sent again with the same Idempotency-Key", async () => {
    const { data, response } = await client.contacts
      .create({ name: "Once Only" }, { idempotencyKey: "client-ts-order-1" })
      .withResponse();
    expect(response.status).toBe(201);
    expect(response.headers.get("location")).toBe(`/v1/contacts/${data.id}`);
    expect(Number(response.headers.get("x-ratelimit-remaining"))).toBeGreaterThan(0);
    expect(response.headers.get("x-request-id")).toMatch(/^req_/);
    const again = await client.contacts
      .create({ name: "Once Only" }, { idempotencyKey: "client-ts-order-1" })
      .withResponse();
    expect(again.data.id).toBe(data.id);
    expect(again.response.headers.get("idempotent-replayed")).toBe("true");
    const raw = await client.contacts.retrieve(data.id).asResponse();
    expect(((await raw.json()) as { name: string }).name).toBe("Once Only");
  });

  it("throws each error class from the server's real answers", async () => {
    const badRequest = await client.invoices.list({ status: "late" as "open" }).catch((e: unknown) => e);
    expect(badRequest).toBeInstanceOf(BadRequestError);
    expect(badRequest).toMatchObject({
      status: 400,
      code: "invalid_request",
      errors: [{ param: "status", code: "invalid" }],
    });
    expect((badRequest as BadRequestError).requestId).toMatch(/^req_/);
    expect((badRequest as BadRequestError).headers!.get("content-type")).toBe("application/problem+json");

    const wrongKey = "sk_live_NotARealKey0000000000000000000000000";
    const unauthenticated = await new Tessera({ apiKey: wrongKey, baseURL: server.url }).me
      .retrieve()
      .catch((e: unknown) => e);
    expect(unauthenticated).toBeInstanceOf(AuthenticationError);
    expect(unauthenticated).toMatchObject({ status: 401, code: "invalid_token" });
    expect(String(unauthenticated)).not.toContain(wrongKey);

    const readOnly = await client.apiKeys.create({
      kind: "engine",
      engines: ["finance"],
      access: "read",
      name: "books",
    });
    const restricted = new Tessera({ apiKey: readOnly.secret, baseURL: server.url });
    expect((await restricted.invoices.list({ per_page: 1 })).data).toHaveLength(1);
    const forbidden = await restricted.contacts.list().catch((e: unknown) => e);
    expect(forbidden).toBeInstanceOf(PermissionDeniedError);
    expect((forbidden as PermissionDeniedError).headers!.get("www-authenticate")).toContain(
      'scope="growth:read"',
    );

    await expect(client.invoices.retrieve("inv_doesnotexist")).rejects.toMatchObject({
      status: 404,
      code: "not_found",
    });

    const open = await client.invoices.create({
      client: "Busy",
      currency: "EUR",
      due_date: "2030-01-01",
      amount: 10,
    });
    const conflict = await client.invoices.delete(open.id).catch((e: unknown) => e);
    expect(conflict).toBeInstanceOf(ConflictError);
    expect(conflict).toMatchObject({ status: 409, code: "invalid_state_transition" });

    const invalid = await client.invoices
      .create({ client: "X", currency: "eur", due_date: "2030-02-30", amount: -1 })
      .catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(UnprocessableEntityError);
    expect((invalid as UnprocessableEntityError).errors.map((error) => error.param).sort()).toEqual([
      "amount",
      "currency",
      "due_date",
    ]);
  });

  it("asks SYNC for a change, gets a proposal, and approves it", async () => {
    const asked = await client.sync.chat({ message: "add a contact Jane Roe, jane@roe.example" });
    expect(asked).toMatchObject({ object: "sync.interaction", status: "requires_approval" });
    const [action] = asked.actions;
    expect(action).toMatchObject({ tool: "create_record", status: "proposed" });
    expect((await client.contacts.list({ email: "jane@roe.example" })).data).toHaveLength(0);
    const approved = await client.sync.actions.approve(action!.id);
    expect(approved).toMatchObject({ status: "completed", result: { object: "contact", name: "Jane Roe" } });
    expect((await client.contacts.list({ email: "jane@roe.example" })).data).toHaveLength(1);
    await expect(client.sync.actions.approve(action!.id)).rejects.toBeInstanceOf(ConflictError);
    const audit = await client.sync.interactions.list({ conversation_id: asked.conversation_id });
    expect(audit.data.map((interaction) => interaction.id)).toEqual([asked.id]);
    expect((await client.sync.conversations.retrieve(asked.conversation_id)).id).toBe(asked.conversation_id);
  });

  it("streams a SYNC reply: deltas of its text, then the whole interaction", async () => {
    const { client: streaming, sent } = recording();
    const stream = await streaming.sync.chat({ message: "Which invoices are overdue?", stream: true });
    // A keyed stream would be held back by the server until complete (api/middleware/idempotency.ts).
    expect(sent[0]!.headers.get("idempotency-key")).toBeNull();
    expect(sent[0]!.headers.get("accept")).toBe("text/event-stream");
    expect(stream.response.headers.get("content-type")).toContain("text/event-stream");
    const events: SyncStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    const text = events.flatMap((event) => (event.type === "delta" ? [event.text] : [])).join("");
    const last = events.at(-1)!;
    expect(events[0]!.type).toBe("delta");
    expect(last.type).toBe("interaction");
    if (last.type !== "interaction") throw new Error("unreachable");
    expect(last.interaction.reply).toBe(text);
    expect(text).toMatch(/overdue invoices/);

    const proposal = await client.sync.chat({
      message: "add a contact John Roe, john@roe.example",
      stream: true,
    });
    const interaction = await proposal.finalInteraction();
    expect(interaction.status).toBe("requires_approval");
    expect(interaction.actions[0]!.tool).toBe("create_record");
  });

  it("deploys a function and invokes it with each method, a path, a query, a body and headers", async () => {
    const source = `export default async (req) => Response.json({
      method: req.method,
      url: new URL(req.url).pathname + new URL(req.url).search,
      body: req.method === "GET" || req.method === "DELETE" ? null : await req.text(),
      type: req.headers.get("content-type"),
      team: req.headers.get("x-team"),
    }, { status: new URL(req.url).pathname.endsWith("/missing") ? 404 : 200 });`;
    const deployed = await client.functions.deploy({ name: "echo", files: { "index.js": source } });
    expect(deployed).toMatchObject({ object: "function", name: "echo", version: 1 });

    const got = await client.functions.invoke("echo", {
      path: "reports/2026",
      query: { q: "x" },
      headers: { "x-team": "books" },
    });
    expect(await got.json()).toMatchObject({
      method: "GET",
      url: "/v1/functions/echo/invoke/reports/2026?q=x",
      team: "books",
    });
    for (const method of ["POST", "PUT", "PATCH"] as const) {
      const response = await client.functions.invoke("echo", { method, body: { n: 1 } });
      expect(await response.json()).toMatchObject({ method, body: '{"n":1}', type: "application/json" });
    }
    const deleted = await client.functions.invoke("echo", { method: "DELETE" });
    expect(await deleted.json()).toMatchObject({ method: "DELETE" });
    const text = await client.functions.invoke("echo", { method: "POST", body: "plain words" });
    expect(await text.json()).toMatchObject({ body: "plain words", type: "text/plain;charset=UTF-8" });

    const own404 = await client.functions.invoke("echo", { path: "missing" });
    expect(own404.status).toBe(404);
    await expect(client.functions.invoke("no-such-function")).rejects.toBeInstanceOf(NotFoundError);
    expect((await client.functions.listDeployments("echo")).data.map((d) => d.version)).toEqual([1]);
  });

  it("runs inside a Tessera edge function, calling the API in-process through ctx.platform.fetch", async () => {
    const source = fileURLToPath(new URL("../../../clients/typescript/src/", import.meta.url));
    const files: Record<string, string> = {};
    for (const file of readdirSync(source, { recursive: true }).map(String)) {
      if (file.endsWith(".ts")) files[`tessera/${file}`] = readFileSync(join(source, file), "utf8");
    }
    files["index.ts"] = `import { Tessera } from "./tessera/index.ts";
export default async (req: Request, ctx: any): Promise<Response> => {
  // As the caller, without a network hop: paths for ctx.platform.fetch, and its own Authorization.
  const client = new Tessera({ apiKey: "unused", baseURL: "", fetch: (path, init) => ctx.platform.fetch(path, init), defaultHeaders: { authorization: null } });
  const page = await client.invoices.list({ status: "overdue", per_page: 2 });
  const me = await client.me.retrieve();
  return Response.json({ total: page.meta.total, numbers: page.data.map((invoice) => invoice.number), credential: me.credential.type });
};`;
    await client.functions.deploy({ name: "client-inside", files });
    const answer = (await (await client.functions.invoke("client-inside")).json()) as {
      total: number;
      numbers: string[];
    };
    const overdue = await client.invoices.list({ status: "overdue", per_page: 2 });
    expect(answer).toEqual({
      total: overdue.meta.total,
      numbers: overdue.data.map((i) => i.number),
      credential: "api_key",
    });
  });

  it("verifies the webhooks the server delivers: v1, v1a, and both secrets after a rotation", async () => {
    const received: Array<{ body: string; headers: IncomingHttpHeaders }> = [];
    const receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        received.push({ body: Buffer.concat(chunks).toString("utf8"), headers: req.headers });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    cleanups.push(
      () => new Promise<void>((resolve) => (receiver.closeAllConnections(), receiver.close(() => resolve()))),
    );
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    const delivery = async (eventId: string) => {
      await expect
        .poll(() => received.find((r) => r.headers["webhook-id"] === eventId), { timeout: 15_000 })
        .toBeDefined();
      return received.find((r) => r.headers["webhook-id"] === eventId)!;
    };

    const hmacEndpoint = await client.webhookEndpoints.create({
      url: `${url}/v1`,
      event_types: ["contact.*"],
    });
    expect(hmacEndpoint.secret).toMatch(/^whsec_/);
    const contact = await client.contacts.create({ name: "Webhook Person" });
    const [created] = (await client.events.list({ type: "contact.created", per_page: 1 })).data;
    expect((created!.data.object as { id: string }).id).toBe(contact.id);
    const first = await delivery(created!.id);
    const event: Event = await Tessera.webhooks.verify(first.body, first.headers, hmacEndpoint.secret);
    expect(event).toMatchObject({
      id: created!.id,
      type: "contact.created",
      data: { object: { id: contact.id } },
    });
    await expect(
      client.webhooks.verify(first.body.replace("Webhook", "Forged!"), first.headers, hmacEndpoint.secret),
    ).rejects.toBeInstanceOf(WebhookVerificationError);

    const edEndpoint = await client.webhookEndpoints.create({
      url: `${url}/v1a`,
      event_types: ["invoice.paid"],
      signing_scheme: "v1a",
    });
    expect(edEndpoint.secret).toMatch(/^whpk_/);
    const edTest = await client.webhookEndpoints.test(edEndpoint.id);
    const edDelivery = await delivery(edTest.event_id);
    expect(edDelivery.headers["webhook-signature"]).toMatch(/^v1a,/);
    expect((await client.webhooks.verify(edDelivery.body, edDelivery.headers, edEndpoint.secret)).type).toBe(
      "webhook_endpoint.test",
    );
    await expect(
      client.webhooks.verify(edDelivery.body, edDelivery.headers, hmacEndpoint.secret),
    ).rejects.toBeInstanceOf(WebhookVerificationError);

    const rotated = await client.webhookEndpoints.rotateSecret(hmacEndpoint.id);
    expect(rotated.secret).not.toBe(hmacEndpoint.secret);
    const afterRotation = await delivery((await client.webhookEndpoints.test(hmacEndpoint.id)).event_id);
    expect(String(afterRotation.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    for (const secret of [rotated.secret, hmacEndpoint.secret]) {
      expect((await client.webhooks.verify(afterRotation.body, afterRotation.headers, secret)).type).toBe(
        "webhook_endpoint.test",
      );
    }
    expect((await client.webhookEndpoints.retrieveSecret(hmacEndpoint.id)).secret).toBe(rotated.secret);
  });

  it("streams new events, and after a cut connection resumes with Last-Event-ID, losing none", async () => {
    const proxy = await startCuttableProxy(new URL(server.url));
    cleanups.push(() => proxy.close());
    const { client: streaming, sent } = recording({ baseURL: proxy.url.replace(/\/$/, "") });
    const stream = await streaming.events.stream({ type: "contact.*" });
    const names = ["Stream One", "Stream Two", "Stream Three"];
    const seen: Event[] = [];
    const reading = (async () => {
      for await (const event of stream) {
        seen.push(event);
        if (seen.length === names.length) break;
      }
    })();
    const first = await client.contacts.create({ name: names[0]! });
    await expect.poll(() => seen.length, { timeout: 10_000 }).toBe(1);
    proxy.cut();
    // Made while the stream is down: the reconnect asks for what came after the last event it saw.
    await client.contacts.create({ name: names[1]! });
    await client.contacts.create({ name: names[2]! });
    await reading;
    expect(seen.map((event) => (event.data.object as { name: string }).name)).toEqual(names);
    expect((seen[0]!.data.object as { id: string }).id).toBe(first.id);
    expect(stream.reconnects).toBeGreaterThanOrEqual(1);
    const resumed = sent.filter((request) => request.headers.has("last-event-id"));
    expect(resumed[0]!.headers.get("last-event-id")).toBe(seen[0]!.id);
    expect(stream.lastEventId).toBe(seen[2]!.id);
    await expect(client.events.stream({ after: "evt_unknown" })).rejects.toBeInstanceOf(NotFoundError);
  });

  it("works the same from an OAuth access token, and refreshes a refused one once, handing over the new pair", async () => {
    const { owner, orgId } = await setUpOwner(server);
    const app = await client.oauthApps.create({
      name: "Ledger Sync",
      redirect_uris: [REDIRECT],
      scopes: ["finance:read", "finance:write"],
    });
    const secret = app.client_secret!;
    const tokens = await authorize(server.url, owner, orgId, app.client_id, secret);
    const plain = new Tessera({ accessToken: tokens.access_token, baseURL: server.url });
    expect((await plain.me.retrieve()).credential).toMatchObject({ type: "oauth", scopes: ["finance:read"] });
    expect((await plain.invoices.list({ per_page: 1 })).data).toHaveLength(1);
    await expect(plain.contacts.list()).rejects.toBeInstanceOf(PermissionDeniedError);

    // A token the server no longer knows is refused exactly as an expired one is (401, error="invalid_token").
    const pairs: OAuthTokens[] = [];
    const { client: oauth, sent } = recording({
      apiKey: undefined,
      accessToken: `expired_${randomBytes(16).toString("hex")}`,
      refreshToken: tokens.refresh_token,
      clientId: app.client_id,
      clientSecret: secret,
      onTokens: (pair) => void pairs.push(pair),
    });
    const [a, b, c] = await Promise.all([
      oauth.me.retrieve(),
      oauth.invoices.list({ per_page: 1 }),
      oauth.me.retrieve(),
    ]);
    expect([a.object, b.data.length, c.object]).toEqual(["me", 1, "me"]);
    // Refresh tokens rotate and a spent one revokes the grant: three refused requests, one refresh.
    expect(pairs).toHaveLength(1);
    expect(pairs[0]!.refreshToken).not.toBe(tokens.refresh_token);
    expect(sent.filter((request) => request.url.pathname === "/oauth/token")).toHaveLength(1);
    expect(
      sent.filter((request) => request.headers.get("authorization") === `Bearer ${pairs[0]!.accessToken}`),
    ).toHaveLength(3);
    expect((await oauth.me.retrieve()).credential.type).toBe("oauth");

    // The spent refresh token is refused (and, as docs/oauth.md says, ends the grant).
    const spent = new Tessera({
      accessToken: "expired_again",
      refreshToken: tokens.refresh_token,
      clientId: app.client_id,
      clientSecret: secret,
      baseURL: server.url,
    });
    await expect(spent.me.retrieve()).rejects.toMatchObject({
      name: "TokenRefreshError",
      error: "invalid_grant",
    });
  });
});

const REDIRECT = "http://127.0.0.1:9000/callback";
const csrfOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)![1]!;

/** Cookies as a browser keeps them. */
class CookieJar {
  readonly #values = new Map<string, string>();
  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const pair = line.split(";")[0]!;
      this.#values.set(pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1));
    }
  }
  header(): string {
    return [...this.#values].map(([name, value]) => `${name}=${value}`).join("; ");
  }
}

/** One step of a browser: cookies kept, redirects not followed, forms posted from the page's origin. */
async function browse(jar: CookieJar, url: string, form?: Record<string, string>): Promise<Response> {
  const response = await fetch(url, {
    method: form ? "POST" : "GET",
    redirect: "manual",
    headers: {
      cookie: jar.header(),
      ...(form ? { "content-type": "application/x-www-form-urlencoded", origin: new URL(url).origin } : {}),
    },
    ...(form ? { body: new URLSearchParams(form).toString() } : {}),
  });
  jar.take(response);
  return response;
}

/** The first owner, made on the setup page the first start printed: a signed-in browser. */
async function setUpOwner(server: ServerProcess): Promise<{ owner: CookieJar; orgId: string }> {
  const link = /(http:\/\/\S+\/setup\/\S+)/.exec(server.output())![1]!;
  const owner = new CookieJar();
  const page = await browse(owner, link);
  const form = {
    _csrf: csrfOf(await page.text()),
    name: "Owner",
    email: "owner@client.example",
    password: "a long enough passphrase",
  };
  const created = await browse(owner, link, form);
  expect(created.status).toBe(303);
  const me = (await (await fetch(`${server.url}/v1/me`, { headers: { cookie: owner.header() } })).json()) as {
    organization: { id: string };
  };
  return { owner, orgId: me.organization.id };
}

/** The code flow with PKCE (docs/oauth.md): the owner approves on the consent page, the code is exchanged. */
async function authorize(
  base: string,
  owner: CookieJar,
  orgId: string,
  clientId: string,
  clientSecret: string,
) {
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const auth = new URL(`${base}/oauth/auth`);
  auth.search = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    scope: "finance:read",
    state: "s1",
    code_challenge: challenge,
    code_challenge_method: "S256",
  }).toString();
  const interaction = new URL((await browse(owner, auth.href)).headers.get("location")!, base).href;
  const consent = await browse(owner, `${interaction}?org=${orgId}`);
  const approved = await browse(owner, `${interaction}/approve`, {
    _csrf: csrfOf(await consent.text()),
    org: orgId,
  });
  const back = await browse(owner, new URL(approved.headers.get("location")!, base).href);
  const code = new URL(back.headers.get("location")!).searchParams.get("code")!;
  const response = await fetch(`${base}/oauth/token`, {
    method: "POST",
    headers: {
      authorization: `Basic ${btoa(`${clientId}:${clientSecret}`)}`,
      "content-type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code,
      code_verifier: verifier,
      redirect_uri: REDIRECT,
    }).toString(),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { access_token: string; refresh_token: string };
}
