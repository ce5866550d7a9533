/**
 * Built-ins from ES2023 onwards, each used as an author would and answered with what it
 * computed. On an older engine Tessera adds the missing ones when the code names them
 * (docs/functions.md, "JavaScript built-ins by Node.js line"). Not here, because a function on
 * Node 20 does not have them (Deno does): `Error.isError` and `ArrayBuffer.prototype.transfer`.
 */
interface Invoice {
  client: string;
  amount: number;
}

const INVOICES: Invoice[] = [
  { client: "acme", amount: 120 },
  { client: "globex", amount: 80 },
  { client: "acme", amount: 45 },
];

export async function builtins() {
  return {
    es2023: es2023(),
    group_by: groupBy(),
    with_resolvers: await withResolvers(),
    set_methods: setMethods(),
    iterator_helpers: [1, 2, 3]
      .values()
      .map((x) => x * 2)
      .toArray(),
    from_async: await Array.fromAsync(countdown(3)),
    using: disposal(),
    has_own: Object.hasOwn({ a: 1 }, "a") && !Object.hasOwn(Object.create({ a: 1 }), "a"),
    well_formed: { ok: "Zoë ✓".isWellFormed(), lone_surrogate: "a\uD800b".isWellFormed() },
    base64_hex: base64Hex(),
    regexp_escape: RegExp.escape("1.5*(x)"),
    sum_precise: Math.sumPrecise([1e20, 0.1, -1e20]),
    buffer_transfer: bufferTransfer(),
  };
}

function es2023() {
  const amounts = INVOICES.map((invoice) => invoice.amount);
  return {
    find_last: INVOICES.findLast((invoice) => invoice.client === "acme")?.amount,
    to_sorted: amounts.toSorted((a, b) => a - b),
    with: amounts.with(1, 0),
    unchanged: amounts,
  };
}

function groupBy() {
  const byClient = Object.groupBy(INVOICES, (invoice) => invoice.client);
  const bySize = Map.groupBy(INVOICES, (invoice) => (invoice.amount >= 100 ? "large" : "small"));
  return {
    object: Object.fromEntries(Object.entries(byClient).map(([client, list]) => [client, list?.length])),
    null_prototype: Object.getPrototypeOf(byClient) === null,
    map: [...bySize].map(([size, list]) => [size, list.map((invoice) => invoice.amount)]),
  };
}

function bufferTransfer() {
  const source = new Uint8Array([1, 2, 3, 4, 5, 6]).buffer;
  const moved = source.transfer(8);
  return { moved: moved.byteLength, source: source.byteLength, detached: source.detached };
}

async function withResolvers() {
  const { promise, resolve } = Promise.withResolvers<string>();
  setTimeout(() => resolve("resolved later"), 1);
  return await promise;
}

function setMethods() {
  const paid = new Set(["acme", "globex"]);
  const active = new Set(["globex", "initech"]);
  return {
    union: [...paid.union(active)],
    intersection: [...paid.intersection(active)],
    is_subset_of: new Set(["acme"]).isSubsetOf(paid),
  };
}

async function* countdown(from: number): AsyncGenerator<number> {
  for (let n = from; n > 0; n--) {
    await Promise.resolve();
    yield n;
  }
}

function disposal(): string[] {
  const log: string[] = [];
  const resource = (name: string): Disposable => {
    log.push(`open ${name}`);
    return { [Symbol.dispose]: () => log.push(`close ${name}`) };
  };
  {
    using _first = resource("first");
    using _second = resource("second");
    log.push("work");
  }
  return log;
}

function base64Hex() {
  const bytes = Uint8Array.fromBase64("dGVzc2VyYQ==");
  return { text: new TextDecoder().decode(bytes), hex: bytes.toHex() };
}
