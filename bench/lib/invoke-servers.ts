/**
 * `node --import tsx bench/lib/invoke-servers.ts hono|edge-runtime`: one subject of
 * the function-invoke benchmark in a process of its own, printing `listening on
 * http://…` like `tessera serve`.
 *
 * - hono: bare Hono handlers on @hono/node-server, the anchor: `/trivial/…` answers
 *   the trivial function's JSON, `/url/…` reads `n` from the query with Node's URL;
 * - edge-runtime: Vercel's edge-runtime (`EdgeRuntime` + `runServer` from the npm
 *   package), running the trivial function in its VM context.
 */
import { serve } from "@hono/node-server";
import { EdgeRuntime, runServer } from "edge-runtime";
import { Hono } from "hono";
import { FUNCTIONS, serviceWorker } from "./invoke-function.ts";

async function start(subject: string | undefined): Promise<() => Promise<void>> {
  if (subject === "hono") {
    const app = new Hono();
    app.get("/trivial/*", (c) => c.json({ ok: true, n: 42 }));
    app.get("/url/*", (c) => c.json({ ok: true, n: Number(new URL(c.req.url).searchParams.get("n")) }));
    return new Promise((resolve) => {
      const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, (info) => {
        process.stdout.write(`listening on http://127.0.0.1:${info.port}\n`);
        resolve(() => new Promise((done) => server.close(() => done())));
      });
    });
  }
  if (subject === "edge-runtime") {
    const runtime = new EdgeRuntime({ initialCode: serviceWorker(FUNCTIONS.trivial) });
    const server = await runServer({ runtime, host: "127.0.0.1", port: 0 });
    process.stdout.write(`listening on ${server.url.replace(/\/$/, "")}\n`);
    return () => server.close();
  }
  throw new Error(`unknown subject ${subject}: hono or edge-runtime`);
}

const close = await start(process.argv[2]);
process.once("SIGTERM", () => void close().then(() => process.exit(0)));
