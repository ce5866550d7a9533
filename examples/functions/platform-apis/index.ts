/**
 * platform-apis: the web platform a function can count on, each answer
 * deterministic so Deno and Tessera can be compared byte for byte. Covers
 * `crypto.subtle.digest`, the shape of `crypto.randomUUID` and `getRandomValues`,
 * `structuredClone` (Date, Map, Set, typed arrays, cycles, and the error for a
 * function), `AbortController` / `AbortSignal.timeout` racing a slow timer,
 * `TextEncoder`/`TextDecoder`, `atob`/`btoa`, `Blob`, `EventTarget` and the order of
 * microtasks and timers, and `CompressionStream`/`DecompressionStream` (a round
 * trip in each format, a gzip made elsewhere, corrupt input). Handler style: `export default function (req)`, which
 * plain Deno serves through `_shared/dev-host.ts`.
 *
 *   GET …/crypto | …/clone | …/abort | …/encoding | …/events | …/compression
 */
const INVOKE_PREFIX = /^\/v1\/functions\/[^/]+\/invoke(?=\/|$)/;
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const CHECKS: Record<string, () => Promise<unknown>> = {
  crypto: cryptoChecks,
  clone,
  abort,
  encoding,
  events,
  compression,
};

export default async function (req: Request): Promise<Response> {
  const name = new URL(req.url).pathname.replace(INVOKE_PREFIX, "").replace(/^\//, "");
  const check = CHECKS[name];
  if (!check) return Response.json({ error: "unknown check", checks: Object.keys(CHECKS) }, { status: 404 });
  return Response.json({ check: name, result: await check() });
}

async function cryptoChecks() {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode("tessera"));
  const random = crypto.getRandomValues(new Uint8Array(16));
  const uuids = new Set(Array.from({ length: 3 }, () => crypto.randomUUID()));
  return {
    sha256: hex(new Uint8Array(digest)),
    sha1: hex(new Uint8Array(await crypto.subtle.digest("SHA-1", new Uint8Array([1, 2, 3])))),
    uuid_v4_shape: [...uuids].every((uuid) => UUID_V4.test(uuid)),
    uuids_distinct: uuids.size === 3,
    random_bytes: random.length,
  };
}

async function clone() {
  const original: Record<string, unknown> = {
    date: new Date(Date.UTC(2024, 1, 29, 12)),
    map: new Map([["a", 1]]),
    set: new Set(["x", "y"]),
    bytes: new Uint8Array([1, 2, 3]),
    nested: { list: [1, { deep: true }] },
  };
  original.self = original;
  const copy = structuredClone(original);
  let functionError = "none";
  try {
    structuredClone({ f: () => 1 });
  } catch (error) {
    functionError = (error as Error).name;
  }
  return {
    date: (copy.date as Date).toISOString(),
    map: [...(copy.map as Map<string, number>)],
    set: [...(copy.set as Set<string>)],
    bytes: [...(copy.bytes as Uint8Array)],
    nested_equal: JSON.stringify(copy.nested) === JSON.stringify(original.nested),
    nested_is_copy: copy.nested !== original.nested,
    cycle_kept: copy.self === copy,
    function_error: functionError,
  };
}

async function abort() {
  const slow = (signal: AbortSignal) =>
    new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => resolve("finished"), 2_000);
      signal.addEventListener("abort", () => {
        clearTimeout(timer);
        reject(signal.reason);
      });
    });
  const outcome = async (signal: AbortSignal) =>
    slow(signal).catch((reason: unknown) => `${(reason as Error).name}: ${(reason as Error).message}`);

  const byTimeout = await outcome(AbortSignal.timeout(10));
  const controller = new AbortController();
  setTimeout(() => controller.abort(new RangeError("cancelled by caller")), 5);
  const byController = await outcome(controller.signal);
  const already = AbortSignal.abort();
  return {
    timeout: byTimeout.split(":")[0],
    controller: byController,
    pre_aborted: { aborted: already.aborted, reason: (already.reason as Error).name },
    any: AbortSignal.any([already, new AbortController().signal]).aborted,
  };
}

async function encoding() {
  const text = "Zoë ✓ 日本";
  const bytes = new TextEncoder().encode(text);
  const blob = new Blob([bytes, "!"], { type: "text/plain" });
  return {
    utf8_bytes: bytes.length,
    round_trip: new TextDecoder().decode(bytes) === text,
    btoa: btoa("tessera:functions"),
    atob: atob("aGVsbG8="),
    blob: { size: blob.size, type: blob.type, text: await blob.text() },
    invalid_utf8: new TextDecoder().decode(new Uint8Array([0xff, 0x41])),
  };
}

async function events() {
  const order: string[] = [];
  const target = new EventTarget();
  target.addEventListener("ping", (event) => order.push(`event:${event.type}`), { once: true });
  setTimeout(() => order.push("timeout"), 0);
  queueMicrotask(() => order.push("microtask"));
  void Promise.resolve().then(() => order.push("promise"));
  target.dispatchEvent(new Event("ping"));
  target.dispatchEvent(new Event("ping"));
  order.push("sync");
  await new Promise((resolve) => setTimeout(resolve, 1));
  return { order, performance_now_is_number: typeof performance.now() === "number" };
}

/** `gzip -n` of "tessera": a gzip made by another implementation. */
const GZIPPED = new Uint8Array([
  31, 139, 8, 0, 0, 0, 0, 0, 2, 3, 43, 73, 45, 46, 78, 45, 74, 4, 0, 179, 99, 42, 115, 7, 0, 0, 0,
]);

async function compression() {
  const text = "a body worth compressing, ".repeat(200);
  const pipe = (bytes: Uint8Array<ArrayBuffer>, stream: CompressionStream | DecompressionStream) =>
    new Response(new Blob([bytes]).stream().pipeThrough(stream)).bytes();
  const formats: Record<string, unknown> = {};
  for (const format of ["gzip", "deflate", "deflate-raw"] as const) {
    // Compressed bytes differ between zlib builds; what they decompress to does not.
    const packed = await pipe(new TextEncoder().encode(text), new CompressionStream(format));
    const back = new TextDecoder().decode(await pipe(packed, new DecompressionStream(format)));
    formats[format] = { round_trip: back === text, smaller: packed.length < text.length / 10 };
  }
  const corrupt = await pipe(
    new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]),
    new DecompressionStream("gzip"),
  ).then(
    () => "no error",
    (error: Error) => error.name,
  );
  return {
    formats,
    foreign_gzip: new TextDecoder().decode(await pipe(GZIPPED, new DecompressionStream("gzip"))),
    corrupt,
  };
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}
