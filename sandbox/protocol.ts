import { z } from "zod";
import { SUBTLE_METHODS } from "./guest/subtle-methods.ts";

/**
 * The host↔guest protocol. The guest gets one host function, `host(op, slot, ...args)`
 * (an isolated-vm Callback, captured by the platform and never left on the global);
 * the host keeps one guest function, `dispatch(kind, slot, ...args)`, and every entry
 * into the guest goes through it (`applySync`, bounded by the request's CPU budget).
 * Values are copied both ways, never referenced. Every guest→host message is checked
 * here before the host acts on it (CONTRIBUTING.md, "How the code should feel": zod at every boundary).
 */

/** The entries into the guest (host→guest), each for one request slot. */
export type GuestEntry = "request" | "settle" | "timer" | "pull" | "cancel" | "end" | "boot" | "ws";

const Bytes = z.instanceof(Uint8Array);
const MAX_PAIRS = 1000;
const MAX_NAME = 8192;
const MAX_VALUE = 65_536;
const Pairs = z.array(z.tuple([z.string().max(MAX_NAME), z.string().max(MAX_VALUE)])).max(MAX_PAIRS);
const isPair = (item: unknown): boolean =>
  Array.isArray(item) &&
  item.length === 2 &&
  typeof item[0] === "string" &&
  typeof item[1] === "string" &&
  item[0].length <= MAX_NAME &&
  item[1].length <= MAX_VALUE;

/**
 * Responses of one function mostly carry the same headers (`Response.json`'s content-type, a
 * CORS set): a sandbox keeps their checked pairs by text, frozen, so the common case is one
 * lookup. Made per sandbox (`createKnownHeaderPairs`), never module state.
 */
export type KnownHeaderPairs = Map<string, Array<[string, string]>>;
const KNOWN_PAIRS_MAX = 256;
const KNOWN_TEXT_MAX = 1024;

export function createKnownHeaderPairs(): KnownHeaderPairs {
  return new Map();
}

/** Header pairs from their JSON text (the bounds of `Pairs`), or undefined. */
function parsePairs(text: string, known: KnownHeaderPairs | undefined): Array<[string, string]> | undefined {
  const hit = known?.get(text);
  if (hit) return hit;
  const pairs = checkPairs(text);
  if (known && pairs && text.length <= KNOWN_TEXT_MAX) {
    if (known.size >= KNOWN_PAIRS_MAX) known.clear();
    for (const pair of pairs) Object.freeze(pair);
    known.set(text, Object.freeze(pairs) as Array<[string, string]>);
  }
  return pairs;
}

function checkPairs(text: string): Array<[string, string]> | undefined {
  if (text.length > 8_000_000) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return Array.isArray(value) && value.length <= MAX_PAIRS && value.every(isPair)
    ? (value as Array<[string, string]>)
    : undefined;
}

export type RespondArgs = [
  status: number,
  statusText: string,
  headers: Array<[string, string]>,
  body: Uint8Array | string | true | null,
  guestDone: boolean,
];

/**
 * `respond`, the one message of every request, is checked by a plain function, called
 * directly by `parseGuestOp`: as a zod tuple it cost more than the rest of the host's share
 * of a trivial invocation, and even wrapped in a zod transform ~1 µs. Status 200–599; status
 * text ≤ 1024 chars; headers as the JSON text of name/value pairs (one string crosses the
 * boundary faster than an array of pairs); the whole body (bytes, or text to write as UTF-8),
 * `true` when a stream follows chunk by chunk, or null; and whether the guest is done with
 * the request (no stream, no waitUntil: no "end" entry).
 */
function checkRespond(args: unknown[], known?: KnownHeaderPairs): RespondArgs | undefined {
  const [status, statusText, headerJson, body, done] = args;
  const headers = typeof headerJson === "string" ? parsePairs(headerJson, known) : undefined;
  if (
    !Number.isInteger(status) ||
    (status as number) < 200 ||
    (status as number) > 599 ||
    typeof statusText !== "string" ||
    statusText.length > 1024 ||
    !headers ||
    !(body === null || body === true || typeof body === "string" || body instanceof Uint8Array) ||
    typeof done !== "boolean"
  ) {
    return undefined;
  }
  return [status as number, statusText, headers, body, done];
}

/**
 * A "request" entry's return value, when the handler answered at once (guest/serve.ts,
 * `answering`): the same message as `respond` in one string, the JSON of `[status, statusText]`,
 * a newline, the headers' JSON, a newline, then the text body (empty: none). The guest is done
 * with the request. Checked as `respond` is; undefined when it is not such a message.
 */
export function answerText(text: string, known?: KnownHeaderPairs): RespondArgs | undefined {
  const first = text.indexOf("\n");
  const second = first < 0 ? -1 : text.indexOf("\n", first + 1);
  if (second < 0) return undefined;
  let head: unknown;
  try {
    head = JSON.parse(text.slice(0, first));
  } catch {
    return undefined;
  }
  if (!Array.isArray(head) || head.length !== 2) return undefined;
  const body = text.slice(second + 1);
  return checkRespond(
    [head[0], head[1], text.slice(first + 1, second), body === "" ? null : body, true],
    known,
  );
}

/** The same check as a schema, for the message table. */
const Respond = z.unknown().transform((raw, ctx) => {
  const checked = Array.isArray(raw) ? checkRespond(raw) : undefined;
  if (checked) return checked;
  ctx.addIssue({ code: "custom", message: "invalid respond message" });
  return z.NEVER;
});

export const LogLevelSchema = z.enum(["debug", "info", "log", "warn", "error"]);
export type LogLevel = z.infer<typeof LogLevelSchema>;

export const FetchCallSchema = z.object({
  via: z.enum(["network", "platform"]),
  method: z.string().min(1).max(64),
  url: z.string().min(1).max(16_384),
  headers: Pairs,
  body: Bytes.nullable(),
});

export const OpCallSchema = z.object({
  op: z.enum(["engines.get", "engines.set", "engines.delete", "engines.list"]),
  args: z.unknown(),
});

export { SUBTLE_METHODS };
export const CryptoCallSchema = z.object({
  method: z.enum(SUBTLE_METHODS),
  args: z.array(z.unknown()).max(8),
});

export const ZLIB_FORMATS = ["gzip", "deflate", "deflate-raw"] as const;
/** Bytes one CompressionStream write carries to the host; the guest splits larger chunks. */
export const MAX_ZLIB_CHUNK_BYTES = 1_048_576;
/**
 * One step of a CompressionStream/DecompressionStream (sandbox/compression.ts): the guest's id
 * for the stream (per isolate), what it is, and its next input, or "end" (flush, then close) or
 * "abort" (drop it). The first step of an id opens the host's zlib context.
 */
export const ZlibCallSchema = z.object({
  stream: z.number().int().positive(),
  mode: z.enum(["compress", "decompress"]),
  format: z.enum(ZLIB_FORMATS),
  input: z.union([
    Bytes.refine((bytes) => bytes.byteLength <= MAX_ZLIB_CHUNK_BYTES, "chunk too large"),
    z.enum(["end", "abort"]),
  ]),
});
export type ZlibCall = z.infer<typeof ZlibCallSchema>;

/** A path under the function's root, as the guest normalized it (the host only looks it up). */
const FilePath = z.string().startsWith("/").max(4096);

/** The bridge's bound on one WebSocket message (the operator's limit, at most this, is the runtime's). */
export const MAX_SOCKET_MESSAGE_BYTES = 16 * 1024 * 1024;
const SocketId = z.number().int().positive();
/**
 * WebSocket ops (sandbox/socket.ts), for the socket's own request slot: accept the upgrade of
 * that request (the subprotocol chosen), open an outbound one (URL, subprotocols), send, close
 * (a code the guest may send, RFC 6455 §7.4; a reason of at most 123 bytes).
 */
const SOCKET_OPS = {
  "ws.accept": z.tuple([SocketId, z.string().max(256).nullable()]),
  "ws.connect": z.tuple([SocketId, z.string().min(1).max(16_384), z.array(z.string().max(256)).max(64)]),
  "ws.send": z.tuple([
    SocketId,
    z.union([
      z.string().max(MAX_SOCKET_MESSAGE_BYTES),
      Bytes.refine((bytes) => bytes.byteLength <= MAX_SOCKET_MESSAGE_BYTES),
    ]),
  ]),
  "ws.close": z.tuple([
    SocketId,
    z.union([z.literal(1000), z.number().int().min(3000).max(4999)]),
    z.string().max(123),
  ]),
} as const;

/** Guest→host messages: op name → its arguments after the slot. */
export const GUEST_OPS = {
  log: z.tuple([LogLevelSchema, z.string()]),
  random: z.tuple([z.number().int().min(1).max(65_536)]),
  now: z.tuple([]),
  snapshot: z.tuple([]),
  // The request's context JSON, when the guest has forgotten the one its id names (isolate.ts).
  context: z.tuple([]),
  "timer.set": z.tuple([z.number().int().positive(), z.number().min(0), z.boolean()]),
  "timer.clear": z.tuple([z.number().int().positive()]),
  respond: Respond,
  chunk: z.tuple([Bytes.nullable()]),
  "body.error": z.tuple([z.string()]),
  fail: z.tuple([z.string()]),
  idle: z.tuple([]),
  call: z.tuple([z.number().int().positive(), z.enum(["fetch", "call", "crypto", "zlib"]), z.unknown()]),
  module: z.tuple([z.enum(["tr46", "urlpattern"])]),
  // The function's deployed files (sandbox/function-files.ts): an absolute, normalized path.
  "file.read": z.tuple([FilePath]),
  "file.stat": z.tuple([FilePath]),
  "file.list": z.tuple([FilePath]),
  ...SOCKET_OPS,
} as const;
export type GuestOp = keyof typeof GUEST_OPS;
export type GuestOpArgs<O extends GuestOp> = z.infer<(typeof GUEST_OPS)[O]>;

/** Ops that need no request (random bytes, the clock, a lazily loaded platform module, the files). */
export const SLOTLESS_OPS: ReadonlySet<string> = new Set([
  "random",
  "now",
  "module",
  // The files are the isolate's, not a request's: a module's top level may read them too.
  "file.read",
  "file.stat",
  "file.list",
]);

/**
 * Checks one guest→host message; throws a plain Error the guest sees. `known` is the
 * sandbox's cache of checked header pairs (none: every `respond` parses its headers).
 */
export function parseGuestOp(
  op: unknown,
  args: unknown[],
  known?: KnownHeaderPairs,
): { op: GuestOp; args: unknown[] } {
  if (typeof op !== "string" || !Object.prototype.hasOwnProperty.call(GUEST_OPS, op)) {
    throw new Error("invalid bridge message");
  }
  if (op === "respond") {
    const checked = checkRespond(args, known);
    if (!checked) throw new Error("invalid bridge message for respond");
    return { op, args: checked };
  }
  const schema = GUEST_OPS[op as GuestOp];
  const arity = (schema as z.ZodTuple).def.items.length;
  const parsed = schema.safeParse(args.slice(0, arity));
  if (!parsed.success) throw new Error(`invalid bridge message for ${op}`);
  return { op: op as GuestOp, args: parsed.data as unknown[] };
}
