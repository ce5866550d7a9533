import conversions from "webidl-conversions";
import { URL, URLSearchParams } from "whatwg-url";
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

export { URL, URLSearchParams };
