/**
 * hono-app: a Hono app as the whole function (`export default app`: Hono's
 * `fetch`), with routes in a second module, path params, query strings, JSON in
 * and out, middleware setting a header, and custom 404 and error handlers. `hono`
 * is mapped to `npm:hono@4` in deno.json; Deno reads it from a local node_modules
 * (`"nodeModulesDir": "manual"`), and a Tessera deploy vendors node_modules/hono.
 *
 * Routes match the path below `/v1/functions/<name>/invoke` when the function is
 * invoked through Tessera, and the plain path under `deno serve`.
 */
import { Hono } from "hono";
import { functionPath } from "./path.ts";
import { contacts } from "./routes/contacts.ts";

const app = new Hono({ getPath: (req) => functionPath(req.url) });

app.use("*", async (c, next) => {
  await next();
  c.header("x-powered-by", "hono-app example");
});

app.get("/", (c) => c.json({ name: "hono-app", routes: ["/hello/:name", "/contacts", "/contacts/:id"] }));
app.get("/hello/:name", (c) => {
  const greeting = c.req.query("greeting") ?? "Hello";
  return c.text(`${greeting}, ${c.req.param("name")}!`);
});
app.route("/contacts", contacts);
app.get("/boom", () => {
  throw new Error("boom");
});

app.notFound((c) => c.json({ error: "not_found", path: functionPath(c.req.url) }, 404));
app.onError((error, c) => c.json({ error: "internal", message: error.message }, 500));

export default app;
