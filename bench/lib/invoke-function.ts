/**
 * The functions the function-invoke benchmark's subjects serve, as ES modules with
 * `export default { fetch }` (workerd, Tessera), as a service worker (edge-runtime's
 * `addEventListener("fetch")`), and as the same logic in Node for the Hono anchor.
 *
 * - trivial: `{ ok: true, n: 42 }`, touching nothing of the request: what is left is
 *   the platform's own cost per invocation.
 * - url: `{ ok: true, n }` with n read from the query string through `new URL(request.url)`,
 *   what nearly every real function does first.
 */
export const FUNCTIONS = {
  trivial: `export default {
  fetch() {
    return Response.json({ ok: true, n: 42 });
  },
};
`,
  url: `export default {
  fetch(request) {
    const n = new URL(request.url).searchParams.get("n");
    return Response.json({ ok: true, n: Number(n) });
  },
};
`,
};
export type FunctionName = keyof typeof FUNCTIONS;

/** The query every subject is asked with; the trivial function ignores it. */
export const QUERY = "?n=42";
export const EXPECTED_BODY = JSON.stringify({ ok: true, n: 42 });

/** A module as a service worker, for edge-runtime. */
export function serviceWorker(module: string): string {
  return `${module.replace("export default", "const handler =")}
addEventListener("fetch", (event) => event.respondWith(handler.fetch(event.request)));
`;
}
