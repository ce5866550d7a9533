import conversions from "webidl-conversions";
import { URL, URLSearchParams } from "whatwg-url";
import urlImpl from "whatwg-url/lib/URL-impl.js";
import searchParams from "whatwg-url/lib/URLSearchParams.js";
import stateMachine from "whatwg-url/lib/url-state-machine.js";

/**
 * URL Standard from whatwg-url (the reference implementation); IDNA loads on first
 * non-ASCII host. The reference parser is slow (~50 µs for `http://127.0.0.1:8787/…`,
 * ~17 µs for a domain, where V8's native one takes 1 µs), and every request parses its
 * URL at least twice (the Request, then the function's `new URL(req.url)`). So fresh
 * parses (no state override) are memoized per isolate: a hit returns a copy of the
 * record, which the URL object then owns and may change through its setters.
 */

type Host = string | number | number[] | null;
interface UrlRecord {
  scheme: string;
  username: string;
  password: string;
  host: Host;
  port: number | null;
  path: string | string[];
  query: string | null;
  fragment: string | null;
}

const MAX_ENTRIES = 512;
const MAX_INPUT_CHARS = 2048;
const cache = new Map<string, UrlRecord | null>();
const parse = stateMachine.basicURLParse.bind(stateMachine);

const copy = (record: UrlRecord): UrlRecord => ({
  ...record,
  host: Array.isArray(record.host) ? record.host.slice() : record.host,
  path: Array.isArray(record.path) ? record.path.slice() : record.path,
});

stateMachine.basicURLParse = (input: string, options?: Record<string, unknown>) => {
  if (
    typeof input !== "string" ||
    input.length > MAX_INPUT_CHARS ||
    (options &&
      (options.url !== undefined || options.stateOverride !== undefined || options.encodingOverride))
  ) {
    return parse(input, options);
  }
  const base = options?.baseURL as UrlRecord | null | undefined;
  const key = base ? `${stateMachine.serializeURL(base)}\u0000${input}` : input;
  let record = cache.get(key);
  if (record === undefined) {
    record = parse(input, options) as UrlRecord | null;
    if (cache.size >= MAX_ENTRIES) cache.delete(cache.keys().next().value!);
    cache.set(key, record);
  }
  return record && copy(record);
};

/**
 * WebIDL USVString (replace lone surrogates with U+FFFD) as webidl-conversions writes it
 * builds one string per UTF-16 code unit: ~10 µs for a 50-character URL, in every URL
 * constructor and setter. A string without surrogates is already a USVString, as is.
 */
const SURROGATE = /[\uD800-\uDFFF]/;
const usvString = conversions.USVString;
conversions.USVString = (value, options) => {
  const text = conversions.DOMString(value, options);
  return SURROGATE.test(text) ? usvString(text, options) : text;
};

/**
 * A URL's `searchParams` object, made when first used: whatwg-url's URLImpl builds it in
 * its constructor (a wrapper, its impl and a parse of the query), which was a third of
 * `new URL(request.url)` in a handler that never looks at the query. The constructor
 * below is URLImpl's without it; the prototype's `_query` makes the object on first read
 * (from the URL's query as it is then; the setters that change the query read it first,
 * so it stays in step). `URL.parse` keeps the eager constructor, whose `_query` the setter
 * stores as is.
 */
interface Impl {
  _url: UrlRecord;
  _globalObject: unknown;
}
const EagerURLImpl = urlImpl.implementation;
const ownQuery = (impl: object, query: unknown) =>
  Object.defineProperty(impl, "_query", {
    value: query,
    writable: true,
    enumerable: true,
    configurable: true,
  });
Object.defineProperty(EagerURLImpl.prototype, "_query", {
  configurable: true,
  get(this: Impl) {
    const query = searchParams.createImpl(this._globalObject, [this._url.query ?? ""], {
      doNotStripQMark: true,
    }) as { _url: unknown };
    query._url = this;
    ownQuery(this, query);
    return query;
  },
  set(this: Impl, query: unknown) {
    ownQuery(this, query);
  },
});
function LazyURLImpl(this: Impl, globalObject: unknown, [url, base]: [string, string | undefined]): void {
  let parsedBase: unknown = null;
  if (base !== undefined) {
    parsedBase = stateMachine.basicURLParse(base);
    if (parsedBase === null) throw new TypeError(`Invalid base URL: ${base}`);
  }
  const parsedURL = stateMachine.basicURLParse(url, { baseURL: parsedBase }) as UrlRecord | null;
  if (parsedURL === null) throw new TypeError(`Invalid URL: ${url}`);
  this._url = parsedURL;
  this._globalObject = globalObject;
}
LazyURLImpl.prototype = EagerURLImpl.prototype;
Object.assign(LazyURLImpl, { parse: EagerURLImpl.parse, canParse: EagerURLImpl.canParse });
urlImpl.implementation = LazyURLImpl as unknown as typeof EagerURLImpl;

export { URL, URLSearchParams };
