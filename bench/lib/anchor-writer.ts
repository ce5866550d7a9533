/**
 * The anchor for writes: a bare Hono handler that parses the JSON body and writes
 * the same two rows a Tessera create writes (the contact and its `contact.created`
 * event) in one transaction with postgres.js, with no validation, auth or rendering.
 * argv: database URL, organization id, pool size. Prints `listening on http://…`.
 */
import { randomUUID } from "node:crypto";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import postgres from "postgres";

const [url, orgId, poolSize] = process.argv.slice(2) as [string, string, string];
const sql = postgres(url, { max: Number(poolSize), onnotice: () => {} });
const app = new Hono();
app.post("/v1/contacts", async (c) => {
  const body = await c.req.json<{ name: string; email: string }>();
  const id = `con_${randomUUID().replaceAll("-", "")}`;
  const contact = { id, object: "contact", name: body.name, email: body.email, metadata: {} };
  await sql.begin(async (tx) => {
    await tx`INSERT INTO contacts (id, org_id, name, email) VALUES (${id}, ${orgId}, ${body.name}, ${body.email})`;
    await tx`INSERT INTO events (id, org_id, type, data, created_at)
             VALUES (${`evt_${randomUUID().replaceAll("-", "")}`}, ${orgId}, 'contact.created', ${sql.json({ object: contact })}, now())`;
  });
  return c.json(contact, 201);
});

const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, (info) => {
  process.stdout.write(`listening on http://127.0.0.1:${info.port}\n`);
});
process.once("SIGTERM", () => server.close(() => void sql.end().then(() => process.exit(0))));
