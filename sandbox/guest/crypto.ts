import { hostCall, hostSync, requests } from "./bridge.ts";
import { DOMException } from "./dom-exception.ts";
import { toBytes } from "./encoding.ts";
import { SUBTLE_METHODS } from "./subtle-methods.ts";

/**
 * Web Crypto. Random bytes come from the host's CSPRNG (pooled); `subtle` runs in the
 * host's Node WebCrypto through the bridge. A CryptoKey here is an opaque handle to a
 * key the host keeps for this isolate; its material never enters the guest unless
 * exported.
 */
export const KEY_MARK = "\u0000tessera.key";

let pool: Uint8Array = new Uint8Array(0);
let poolAt = 0;

function randomBytes(n: number): Uint8Array {
  if (n > 512) return hostSync("random", requests.current?.slot ?? 0, n) as Uint8Array;
  if (poolAt + n > pool.length) {
    pool = hostSync("random", requests.current?.slot ?? 0, 4096) as Uint8Array;
    poolAt = 0;
  }
  const out = pool.subarray(poolAt, poolAt + n);
  poolAt += n;
  return out;
}

const INTEGER_ARRAYS = [
  Int8Array,
  Uint8Array,
  Uint8ClampedArray,
  Int16Array,
  Uint16Array,
  Int32Array,
  Uint32Array,
  BigInt64Array,
  BigUint64Array,
];

export function getRandomValues<T extends ArrayBufferView>(array: T): T {
  if (!INTEGER_ARRAYS.some((type) => array instanceof type)) {
    throw new DOMException("The data argument must be an integer-type TypedArray", "TypeMismatchError");
  }
  if (array.byteLength > 65_536) {
    throw new DOMException(
      `The ArrayBufferView's byte length (${array.byteLength}) exceeds 65536`,
      "QuotaExceededError",
    );
  }
  new Uint8Array(array.buffer, array.byteOffset, array.byteLength).set(randomBytes(array.byteLength));
  return array;
}

export function randomUUID(): string {
  const b = randomBytes(16).slice();
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const handles = new WeakMap<object, number>();
let constructing = false;

export class CryptoKey {
  readonly type!: string;
  readonly extractable!: boolean;
  readonly algorithm!: Record<string, unknown>;
  readonly usages!: string[];
  constructor() {
    if (!constructing) throw new TypeError("Illegal constructor");
  }
  get [Symbol.toStringTag](): string {
    return "CryptoKey";
  }
}

interface KeyInfo {
  handle: number;
  type: string;
  extractable: boolean;
  algorithm: Record<string, unknown>;
  usages: string[];
}

function makeKey(info: KeyInfo): CryptoKey {
  constructing = true;
  let key: CryptoKey;
  try {
    key = new CryptoKey();
  } finally {
    constructing = false;
  }
  const algorithm = reviveBytes(info.algorithm) as Record<string, unknown>;
  Object.defineProperties(key, {
    type: { value: info.type, enumerable: true },
    extractable: { value: info.extractable, enumerable: true },
    algorithm: { value: Object.freeze(algorithm), enumerable: true },
    usages: { value: Object.freeze([...info.usages]), enumerable: true },
  });
  handles.set(key, info.handle);
  return key;
}

/** Host results keep byte fields (publicExponent) as Uint8Array: that is what WebCrypto gives. */
function reviveBytes(value: unknown): unknown {
  return value;
}

/** Arguments for the host: keys become handles, buffers become Uint8Array copies. */
function encode(value: unknown, depth = 0): unknown {
  if (depth > 8) throw new TypeError("Crypto arguments nest too deeply");
  if (value instanceof CryptoKey) {
    const handle = handles.get(value);
    if (handle === undefined) throw new TypeError("Not a CryptoKey");
    return { [KEY_MARK]: handle };
  }
  if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) return toBytes(value).slice();
  if (Array.isArray(value)) return value.map((item) => encode(item, depth + 1));
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const name of Object.keys(value))
      out[name] = encode((value as Record<string, unknown>)[name], depth + 1);
    return out;
  }
  return value;
}

type HostResult =
  | { t: "bytes"; v: Uint8Array }
  | { t: "key"; v: KeyInfo }
  | { t: "pair"; v: { publicKey: KeyInfo; privateKey: KeyInfo } }
  | { t: "value"; v: unknown };

function decode(result: HostResult): unknown {
  switch (result.t) {
    case "bytes":
      return result.v.slice().buffer;
    case "key":
      return makeKey(result.v);
    case "pair":
      return { publicKey: makeKey(result.v.publicKey), privateKey: makeKey(result.v.privateKey) };
    default:
      return result.v;
  }
}

/** Host errors come back as DOMExceptions with the WebCrypto name (NotSupportedError, OperationError…). */
async function run(method: string, args: unknown[]): Promise<unknown> {
  let result: HostResult;
  try {
    result = (await hostCall("crypto.subtle", "crypto", {
      method,
      args: args.map((a) => encode(a)),
    })) as HostResult;
  } catch (error) {
    const { name, message } = error as Error;
    throw name === "TypeError"
      ? error
      : new DOMException(message, name === "Error" ? "OperationError" : name);
  }
  return decode(result);
}

export class SubtleCrypto {
  constructor(key?: symbol) {
    if (key !== SUBTLE) throw new TypeError("Illegal constructor");
  }
  get [Symbol.toStringTag](): string {
    return "SubtleCrypto";
  }
}
const SUBTLE = Symbol("subtle");
for (const method of SUBTLE_METHODS) {
  Object.defineProperty(SubtleCrypto.prototype, method, {
    value: {
      [method](...args: unknown[]) {
        return run(method, args);
      },
    }[method],
    writable: true,
    configurable: true,
    enumerable: true,
  });
}

export class Crypto {
  readonly #subtle = new SubtleCrypto(SUBTLE);
  constructor(key?: symbol) {
    if (key !== SUBTLE) throw new TypeError("Illegal constructor");
  }
  get subtle(): SubtleCrypto {
    return this.#subtle;
  }
  getRandomValues<T extends ArrayBufferView>(array: T): T {
    return getRandomValues(array);
  }
  randomUUID(): string {
    return randomUUID();
  }
  get [Symbol.toStringTag](): string {
    return "Crypto";
  }
}

export const crypto = new Crypto(SUBTLE);
