/**
 * Fetch Standard §5.2 Headers: names are byte-lowercased, values trimmed of HTTP
 * whitespace; iteration is sorted by name with values combined by ", ", except
 * `set-cookie`, listed once per value (§5.2 "sort and combine").
 */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const BAD_VALUE = /[\0\r\n]/;

export type HeadersGuard = "none" | "immutable";
export type HeadersInit =
  Headers | Array<[string, string]> | Record<string, string> | Iterable<Iterable<string>>;

function normalizeValue(value: unknown): string {
  return String(value).replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, "");
}

function checkName(name: unknown): string {
  const text = String(name);
  if (!TOKEN.test(text)) throw new TypeError(`Invalid header name: "${text}"`);
  return text.toLowerCase();
}

function checkValue(value: string, name: string): string {
  if (BAD_VALUE.test(value)) throw new TypeError(`Invalid header value for "${name}"`);
  return value;
}

export class Headers {
  /** Lowercased name → values in insertion order. */
  #map = new Map<string, string[]>();
  /** What iteration goes through (§5.2 "sort and combine"), made when first asked for after a change. */
  #list: Array<[string, string]> | undefined;
  #guard: HeadersGuard = "none";

  constructor(init?: HeadersInit | null) {
    if (init === undefined || init === null) return;
    if (init instanceof Headers) {
      for (const [name, values] of init.#map) this.#map.set(name, [...values]);
      return;
    }
    if (typeof init !== "object") throw new TypeError("Headers init must be an object or a sequence");
    if (Symbol.iterator in init) {
      for (const pair of init as Iterable<Iterable<string>>) {
        const items = [...pair];
        if (items.length !== 2) throw new TypeError("Each header pair must have exactly a name and a value");
        this.append(items[0]!, items[1]!);
      }
      return;
    }
    for (const name of Object.keys(init)) this.append(name, init[name] as string);
  }

  /** @internal */ static setGuard(headers: Headers, guard: HeadersGuard): Headers {
    headers.#guard = guard;
    return headers;
  }
  /** @internal Fast path for trusted, already-lowercased pairs from the host. */
  static fromTrusted(pairs: Array<[string, string]>): Headers {
    const headers = new Headers();
    for (const [name, value] of pairs) {
      const list = headers.#map.get(name);
      if (list) list.push(value);
      else headers.#map.set(name, [value]);
    }
    return headers;
  }

  #mutable(): void {
    if (this.#guard === "immutable") throw new TypeError("Headers are immutable");
  }

  append(name: string, value: string): void {
    const key = checkName(name);
    const text = checkValue(normalizeValue(value), key);
    this.#mutable();
    this.#list = undefined;
    const list = this.#map.get(key);
    if (list) list.push(text);
    else this.#map.set(key, [text]);
  }
  set(name: string, value: string): void {
    const key = checkName(name);
    const text = checkValue(normalizeValue(value), key);
    this.#mutable();
    this.#list = undefined;
    this.#map.set(key, [text]);
  }
  delete(name: string): void {
    const key = checkName(name);
    this.#mutable();
    this.#list = undefined;
    this.#map.delete(key);
  }
  get(name: string): string | null {
    const values = this.#map.get(checkName(name));
    return values ? values.join(", ") : null;
  }
  getSetCookie(): string[] {
    return [...(this.#map.get("set-cookie") ?? [])];
  }
  has(name: string): boolean {
    return this.#map.has(checkName(name));
  }
  forEach(callback: (value: string, name: string, headers: Headers) => void, thisArg?: unknown): void {
    for (const [name, value] of this.entries()) callback.call(thisArg, value, name, this);
  }
  /**
   * As WebIDL iterates a pair iterable: each step takes the pair at its index in the list as it is
   * at that step, so a header appended while iterating is reached, and one removed is not.
   */
  *entries(): IterableIterator<[string, string]> {
    for (let index = 0; ; index++) {
      const list = Headers.toList(this);
      if (index >= list.length) return;
      const [name, value] = list[index]!;
      yield [name, value];
    }
  }
  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name;
  }
  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }
  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
  /**
   * @internal Every pair, in the order of iteration: what `entries()` steps through, and what the
   * host is sent (every response's headers cross this way, so it is one loop: a generator spread
   * into an array cost the service's main thread ~2 % of a trivial invocation). Kept until the
   * next change; callers read it and never change it.
   */
  static toList(headers: Headers): Array<[string, string]> {
    if (headers.#list) return headers.#list;
    const map = headers.#map;
    const list: Array<[string, string]> = [];
    for (const name of map.size > 1 ? [...map.keys()].sort() : map.keys()) {
      const values = map.get(name)!;
      if (name === "set-cookie") for (const value of values) list.push([name, value]);
      else list.push([name, values.length === 1 ? values[0]! : values.join(", ")]);
    }
    return (headers.#list = list);
  }
  get [Symbol.toStringTag]() {
    return "Headers";
  }
}
