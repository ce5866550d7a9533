/**
 * The anchor: a bare Hono handler served by @hono/node-server, returning the JSON
 * body of one real Tessera response (read from the file named in argv[2]). It
 * serializes the object on every request, as any JSON handler does; everything
 * Tessera spends beyond this (auth, rate limit, SQL, rendering) is what the ratio
 * measures. Prints `listening on http://…` like `tessera serve`.
 */
import { readFileSync } from "node:fs";
import { serve } from "@hono/node-server";
import { Hono } from "hono";

const page = JSON.parse(readFileSync(process.argv[2]!, "utf8")) as object;
const app = new Hono();
app.get("/v1/invoices", (c) => c.json(page));

const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, (info) => {
  process.stdout.write(`listening on http://127.0.0.1:${info.port}\n`);
});
process.once("SIGTERM", () => server.close(() => process.exit(0)));
