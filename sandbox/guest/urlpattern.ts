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

/**
 * Required, not imported: the package's ESM build is one minified line ending in
 * `export{…}`, which the bundler's renaming pass (`longNames` in web-platform.ts) takes for
 * CommonJS; its CommonJS build is the same code. esbuild evaluates a required module on
 * the first call, so the polyfill's top level runs after boot, not in the snapshot.
 */
declare const require: (id: "urlpattern-polyfill/urlpattern") => { URLPattern: URLPatternClass };

const define = (target: object, value: unknown) =>
  Object.defineProperty(target, "URLPattern", {
    value,
    writable: true,
    configurable: true,
    enumerable: false,
  });

/**
 * The global's `URLPattern`: on first read it evaluates the polyfill and puts the class in
 * its own place (a data property, as the other globals are). Lazy because the polyfill
 * keeps one-character strings in module variables (the `"*"` of every wildcard component),
 * and a one-character string made in the snapshot comes back as another character (`"*"`
 * read as `"ý"`: the snapshot's sharp edge with one-character names, sandbox README). And a
 * function that never uses URLPattern is spared ~15 kB of heap.
 */
export const urlPatternGlobal: PropertyDescriptor = {
  configurable: true,
  enumerable: false,
  get(this: object): URLPatternClass {
    const { URLPattern } = require("urlpattern-polyfill/urlpattern");
    define(this, URLPattern);
    return URLPattern;
  },
  set(this: object, value: unknown) {
    define(this, value);
  },
};
