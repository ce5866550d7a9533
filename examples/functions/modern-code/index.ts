/**
 * modern-code: the JavaScript and web platform a Deno author writes today, over modules found
 * through deno.json's import map (`@lib/` → `./lib/`). Each route answers JSON computed inside
 * the function, deterministic so Deno and Tessera can be compared byte for byte: structuredClone
 * (views, holes, errors with a cause, `DataCloneError`), `EventTarget`/`AbortSignal` ordering,
 * `import.meta` (`resolve` through the map, `url`, `main`), ES2023+ built-ins and `using`,
 * gzip and deflate-raw streams, an HS256 JWT with `crypto.subtle`, `Temporal`, and an ES module's
 * top level: `await` in the entry and in the modules it imports, a dynamic `import()`, strict code.
 * Handler style: `export default { fetch }`.
 *
 *   GET …/clone | …/events | …/meta | …/builtins | …/compression | …/crypto | …/temporal | …/top-level
 */
import { builtins } from "@lib/builtins.ts";
import { clone } from "@lib/clone.ts";
import { compression } from "@lib/compression.ts";
import { events } from "@lib/events.ts";
import { belowRoot, libMeta } from "@lib/format.ts";
import { webCrypto } from "@lib/jwt.ts";
import { temporal } from "@lib/temporal.ts";
import { evaluated, settings, startedMac } from "@lib/top-level.ts";

evaluated.push("index.ts");
const { lazy } = await import("@lib/lazy.ts");
// The smallest WebAssembly module (magic number, version 1), compiled while the function starts.
const wasm = await WebAssembly.compile(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]));
const strict = (function (this: unknown) {
  return this === undefined;
})();

const INVOKE_PREFIX = /^\/v1\/functions\/[^/]+\/invoke(?=\/|$)/;

const ROUTES: Record<string, () => unknown> = {
  clone,
  events,
  meta,
  builtins,
  compression,
  crypto: webCrypto,
  temporal,
  "top-level": () => ({
    evaluated,
    settings,
    lazy,
    wasm: wasm instanceof WebAssembly.Module,
    strict,
    started_mac: startedMac,
  }),
};

export default {
  async fetch(req: Request): Promise<Response> {
    const name = new URL(req.url).pathname.replace(INVOKE_PREFIX, "").replace(/^\//, "");
    const route = Object.hasOwn(ROUTES, name) ? ROUTES[name] : undefined;
    if (!route)
      return Response.json({ error: "unknown route", routes: Object.keys(ROUTES) }, { status: 404 });
    try {
      return Response.json({ route: name, result: await route() });
    } catch (error) {
      return Response.json(
        { route: name, error: `${(error as Error).name}: ${(error as Error).message}` },
        { status: 500 },
      );
    }
  },
};

function meta() {
  return {
    resolved: belowRoot(import.meta.resolve("@lib/format.ts")),
    entry: { url: belowRoot(import.meta.url), main: import.meta.main },
    lib: libMeta(),
  };
}
