/**
 * The function every subject of the function-invoke benchmark serves: JSON
 * `{ ok: true, n }` where n is the last path segment when it is a number (else 0),
 * as an ES module with `export default { fetch }` (workerd, Tessera) and as the
 * same handler for Hono and edge-runtime.
 */
export const FUNCTION_MODULE = `export default {
  fetch(request) {
    const last = new URL(request.url).pathname.split("/").pop() ?? "";
    return Response.json({ ok: true, n: /^[0-9]+$/.test(last) ? Number(last) : 0 });
  },
};
`;

/** The same handler for a service-worker runtime (edge-runtime's `addEventListener("fetch")`). */
export const FUNCTION_SERVICE_WORKER = `${FUNCTION_MODULE.replace("export default", "const handler =")}
addEventListener("fetch", (event) => event.respondWith(handler.fetch(event.request)));
`;

/** The handler's logic, in Node, for the Hono anchor. */
export function lastNumber(pathname: string): number {
  const last = pathname.split("/").pop() ?? "";
  return /^[0-9]+$/.test(last) ? Number(last) : 0;
}
