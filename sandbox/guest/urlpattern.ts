import { hostSync } from "./bridge.ts";

/**
 * URLPattern (WHATWG URL Pattern Standard) from urlpattern-polyfill, which runs the Web
 * Platform Tests' urlpatterntestdata.json (counts in the sandbox README). It canonicalizes
 * each component through the global `URL`, which in the isolate is the platform's own
 * (whatwg-url, `url.ts`), so a pattern and `URL` agree on every host, port and path.
 *
 * @example
 * const pattern = new URLPattern({ pathname: "/books/:id" });
 * pattern.exec("https://example.com/books/42")?.pathname.groups.id; // "42"
 */
type URLPatternClass = (typeof import("urlpattern-polyfill/urlpattern"))["URLPattern"];

/** Captured at startup, as lazyTr46 does (web-platform.ts): a guest may replace the global one. */
const FunctionConstructor = Function as unknown as new (body: string) => () => unknown;

const define = (target: object, value: unknown) =>
  Object.defineProperty(target, "URLPattern", {
    value,
    writable: true,
    configurable: true,
    enumerable: false,
  });

/**
 * The global's `URLPattern`: on first read it asks the host for the polyfill (op "module", as tr46
 * is loaded), evaluates it and puts the class in its own place (a data property, as the other
 * globals are). Kept out of the snapshot: its ~21 kB of source would sit in every isolate's heap
 * (the platform bundle is 234 kB without it, 255 kB with it), and few functions use it. Evaluated
 * in the snapshot it broke besides: it keeps one-character strings in module variables (the `"*"`
 * of every wildcard component), and a one-character string made in the snapshot comes back as
 * another character (`"*"` read as `"ý"`: the snapshot's sharp edge with one-character names,
 * sandbox README).
 */
export const urlPatternGlobal: PropertyDescriptor = {
  configurable: true,
  enumerable: false,
  get(this: object): URLPatternClass {
    const exports = new FunctionConstructor(hostSync("module", 0, "urlpattern") as string)() as {
      URLPattern: URLPatternClass;
    };
    define(this, exports.URLPattern);
    return exports.URLPattern;
  },
  set(this: object, value: unknown) {
    define(this, value);
  },
};
