import { webcrypto } from "node:crypto";
import { types } from "node:util";
import { CryptoCallSchema } from "./protocol.ts";

/** Marks a key handle in arguments from the guest (sandbox/guest/crypto.ts). */
const KEY_MARK = "\u0000tessera.key";
/** Keys one isolate may hold: each import/generate adds one, kept until the isolate goes. */
export const MAX_KEYS_PER_ISOLATE = 10_000;

type Key = webcrypto.CryptoKey;

export interface KeyInfo {
  handle: number;
  type: string;
  extractable: boolean;
  algorithm: unknown;
  usages: string[];
}
export type CryptoResult =
  | { t: "bytes"; v: Uint8Array }
  | { t: "key"; v: KeyInfo }
  | { t: "pair"; v: { publicKey: KeyInfo; privateKey: KeyInfo } }
  | { t: "value"; v: unknown };

/**
 * WebCrypto for one isolate, run by Node's `crypto.webcrypto`. The guest holds only
 * handles; the keys stay here, in this isolate's own table, so one function can never
 * name another's key.
 */
export function createCryptoHost() {
  const keys = new Map<number, Key>();
  let next = 1;

  const register = (key: Key): KeyInfo => {
    if (keys.size >= MAX_KEYS_PER_ISOLATE)
      throw new Error(`At most ${MAX_KEYS_PER_ISOLATE} keys per isolate`);
    const handle = next++;
    keys.set(handle, key);
    return {
      handle,
      type: key.type,
      extractable: key.extractable,
      algorithm: plain(key.algorithm),
      usages: [...key.usages],
    };
  };

  const decode = (value: unknown, depth = 0): unknown => {
    if (depth > 8 || value === null || typeof value !== "object" || value instanceof Uint8Array) return value;
    if (Array.isArray(value)) return value.map((item) => decode(item, depth + 1));
    const record = value as Record<string, unknown>;
    if (KEY_MARK in record) {
      const key = keys.get(Number(record[KEY_MARK]));
      if (!key) throw new TypeError("Unknown CryptoKey");
      return key;
    }
    return Object.fromEntries(Object.entries(record).map(([name, item]) => [name, decode(item, depth + 1)]));
  };

  const encode = (result: unknown): CryptoResult => {
    if (result instanceof ArrayBuffer) return { t: "bytes", v: new Uint8Array(result) };
    if (types.isCryptoKey(result)) return { t: "key", v: register(result) };
    if (result && typeof result === "object" && "privateKey" in result && "publicKey" in result) {
      const pair = result as { publicKey: Key; privateKey: Key };
      return { t: "pair", v: { publicKey: register(pair.publicKey), privateKey: register(pair.privateKey) } };
    }
    return { t: "value", v: plain(result) };
  };

  return {
    async run(payload: unknown): Promise<CryptoResult> {
      const { method, args } = CryptoCallSchema.parse(payload);
      const subtle = webcrypto.subtle as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
      const fn = subtle[method]!;
      const decoded = args.map((arg) => decode(arg));
      return encode(await fn.apply(webcrypto.subtle, decoded).catch(renameNodeError));
    },
    get size() {
      return keys.size;
    },
  };
}

/**
 * WebCrypto's name for an error Node names otherwise. Node 20 and 22 reject exporting or wrapping
 * a key that is not extractable with "InvalidAccessException" (Node 24: "InvalidAccessError"),
 * which the isolate host would pass on as an OperationError. WebCrypto's exportKey and wrapKey
 * say: "If the [[extractable]] internal slot of key is false, then throw an InvalidAccessError".
 */
function renameNodeError(error: unknown): never {
  const { name, message } = (error ?? {}) as { name?: unknown; message?: unknown };
  if (name === "InvalidAccessException") throw new DOMException(String(message), "InvalidAccessError");
  throw error;
}

/** A copy the guest can take: plain objects, arrays, strings, numbers, Uint8Array. */
function plain(value: unknown, depth = 0): unknown {
  if (depth > 8 || value === null || typeof value !== "object") return value;
  if (value instanceof Uint8Array) return new Uint8Array(value);
  if (ArrayBuffer.isView(value))
    return new Uint8Array(value.buffer.slice(value.byteOffset, value.byteOffset + value.byteLength));
  if (Array.isArray(value)) return value.map((item) => plain(item, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, plain(item, depth + 1)]));
}
