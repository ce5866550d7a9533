import conversions from "webidl-conversions";
import { URL, URLSearchParams } from "whatwg-url";
import urlImpl from "whatwg-url/lib/URL-impl.js";
import searchParams from "whatwg-url/lib/URLSearchParams.js";
import stateMachine from "whatwg-url/lib/url-state-machine.js";
import urlencoded from "whatwg-url/lib/urlencoded.js";

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

/**
 * The form-urlencoded parser (every `searchParams`, `new URLSearchParams(string)`,
 * `request.formData()` of a form) as whatwg-url writes it encodes the whole string to
 * UTF-8 bytes, splits the bytes, and percent-decodes and UTF-8-decodes each name and value:
 * ~10 µs for `n=42`. A string of printable ASCII with no `%` and no `+` decodes to itself
 * (there is nothing to replace or decode, and ASCII is its own UTF-8), so for it the
 * parser comes down to the splits: names and values are the same strings the standard
 * algorithm returns. Anything else takes the reference parser.
 */
const PLAIN_FORM = /^[\x20-\x24\x26-\x2a\x2c-\x7e]*$/;
const parseFormSlowly = urlencoded.parseUrlencodedString;
urlencoded.parseUrlencodedString = (input: string): Array<[string, string]> => {
  if (!PLAIN_FORM.test(input)) return parseFormSlowly(input);
  const list: Array<[string, string]> = [];
  for (const sequence of input.split("&")) {
    if (sequence === "") continue;
    const equals = sequence.indexOf("=");
    list.push(equals === -1 ? [sequence, ""] : [sequence.slice(0, equals), sequence.slice(equals + 1)]);
  }
  return list;
};

export { URL, URLSearchParams };
