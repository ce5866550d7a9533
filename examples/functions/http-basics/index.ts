/**
 * http-basics: routing on `URL` and `URLSearchParams`, request and response
 * headers, cookies, status codes and redirects. Handler style: `Deno.serve`.
 *
 *   GET  …/query?tag=a&tag=b&q=x   parsed query (repeated keys, sorted, encoded)
 *   GET  …/headers                 the request headers the function saw (a chosen few)
 *   GET  …/cookies                 the request's cookies; sets two, one deleted
 *   GET  …/status/:code            an empty or JSON answer with that status
 *   GET  …/redirect/:code?to=path  a redirect, absolute Location built from the request URL
 *   any  …/methods                 405 with Allow unless GET or HEAD
 */
const INVOKE_PREFIX = /^\/v1\/functions\/[^/]+\/invoke(?=\/|$)/;
const ECHOED_HEADERS = ["accept", "accept-language", "content-type", "user-agent", "x-custom"];

Deno.serve((req) => {
  const url = new URL(req.url);
  const path = url.pathname.replace(INVOKE_PREFIX, "") || "/";
  const [, first = "", second] = path.split("/");
  switch (first) {
    case "query":
      return query(url.searchParams);
    case "headers":
      return Response.json(Object.fromEntries(ECHOED_HEADERS.map((name) => [name, req.headers.get(name)])), {
        headers: { "x-header-count": String([...req.headers.keys()].length > 0), vary: "accept-language" },
      });
    case "cookies":
      return cookies(req);
    case "status":
      return status(Number(second));
    case "redirect":
      return redirect(url, Number(second));
    case "methods":
      if (req.method === "GET" || req.method === "HEAD") return new Response("allowed\n");
      return new Response(null, { status: 405, headers: { allow: "GET, HEAD" } });
    default:
      return Response.json({ error: "not found", path }, { status: 404 });
  }
});

function query(params: URLSearchParams): Response {
  const sorted = new URLSearchParams(params);
  sorted.sort();
  return Response.json({
    tags: params.getAll("tag"),
    q: params.get("q"),
    has_missing: params.has("missing"),
    sorted: sorted.toString(),
    size: [...params.keys()].length,
  });
}

function cookies(req: Request): Response {
  const received = Object.fromEntries(
    (req.headers.get("cookie") ?? "")
      .split(";")
      .map((pair) => pair.trim())
      .filter(Boolean)
      .map((pair) => {
        const at = pair.indexOf("=");
        return [pair.slice(0, at), decodeURIComponent(pair.slice(at + 1))];
      }),
  );
  const headers = new Headers({ "content-type": "application/json" });
  headers.append("set-cookie", "session=abc123; Path=/; HttpOnly; Secure; SameSite=Lax; Max-Age=3600");
  headers.append("set-cookie", `theme=${encodeURIComponent("dark mode")}; Path=/`);
  headers.append("set-cookie", "legacy=; Path=/; Max-Age=0");
  return new Response(JSON.stringify({ received, set: headers.getSetCookie().length }), { headers });
}

function status(code: number): Response {
  if (!Number.isInteger(code) || code < 200 || code > 599) {
    return Response.json({ error: "status must be 200-599" }, { status: 400 });
  }
  // 204, 205 and 304 must not carry a body (RFC 9110 §15.3.5, §15.4.5).
  if (code === 204 || code === 205 || code === 304) return new Response(null, { status: code });
  return Response.json({ status: code }, { status: code, headers: { "x-requested-status": String(code) } });
}

function redirect(url: URL, code: number): Response {
  if (![301, 302, 303, 307, 308].includes(code))
    return Response.json({ error: "not a redirect status" }, { status: 400 });
  const to = url.searchParams.get("to") ?? "/";
  if (!to.startsWith("/") || to.startsWith("//"))
    return Response.json({ error: "only local targets" }, { status: 400 });
  return Response.redirect(new URL(to, url), code);
}
