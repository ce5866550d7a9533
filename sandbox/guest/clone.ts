/* eslint-disable @typescript-eslint/unbound-method -- brand checks: the built-ins' own getters and methods, applied to the value with .call */
import { Blob, File } from "./blob.ts";
import { DOMException } from "./dom-exception.ts";
import { AbortController, AbortSignal, Event, EventTarget } from "./events.ts";
import { Headers } from "./headers.ts";
import { Request, Response } from "./http.ts";
import { ReadableStream, TransformStream, WritableStream } from "./streams.ts";

/**
 * HTML's `structuredClone` (§2.7 StructuredSerializeWithTransfer, then StructuredDeserialize), in
 * one walk: what V8's serializer gives Deno. Kept as the spec has it:
 * - a typed array or DataView keeps its `byteOffset` and length, and views of one buffer stay views
 *   of one (cloned) buffer; the same object twice, or a cycle, is one object in the clone;
 * - an array keeps its length and its holes; an object its own enumerable string keys;
 * - Date, RegExp (source and flags), Map, Set, the boxed primitives, the Error kinds (name, message,
 *   cause, stack), ArrayBuffer, Blob and File;
 * - a function, symbol, WeakMap, WeakSet, WeakRef, Promise, a stream, Request, Response, Headers,
 *   an event or an abort signal is a `DataCloneError`, as a platform object that is not serializable;
 * - `transfer`: each buffer is moved and the source detached, with `ArrayBuffer.prototype.transfer`
 *   (V8 11.4+; Node 20's V8 11.3 has it behind a flag the sandbox sets, sandbox/v8-flags.ts).
 */
export function structuredClone(value: unknown, options?: { transfer?: unknown[] }): unknown {
  if (arguments.length === 0) throw new TypeError("structuredClone: 1 argument required, but only 0 present");
  const transfer = transferList(options);
  const memory = new Map<object, unknown>();
  const copy = cloneOf(value, memory, 0);
  // Moved: the source buffers are detached once the clone holds their bytes.
  for (const buffer of transfer) detach(buffer);
  return copy;
}

/** Deeper than any data a function clones; a deeper value is refused rather than overflow the stack. */
const MAX_DEPTH = 2_000;

/** Read when cloning, not at load: these modules import this one (a cycle would see them undefined). */
const notSerializable = (): ReadonlyArray<[new (...args: never[]) => object, string]> => [
  [WeakMap, "WeakMap"],
  [WeakSet, "WeakSet"],
  [WeakRef, "WeakRef"],
  [FinalizationRegistry, "FinalizationRegistry"],
  [Promise, "Promise"],
  [ReadableStream, "ReadableStream"],
  [WritableStream, "WritableStream"],
  [TransformStream, "TransformStream"],
  [Request, "Request"],
  [Response, "Response"],
  [Headers, "Headers"],
  [AbortSignal, "AbortSignal"],
  [AbortController, "AbortController"],
  [Event, "Event"],
  [EventTarget, "EventTarget"],
];

const ERROR_NAMES = new Set([
  "Error",
  "EvalError",
  "RangeError",
  "ReferenceError",
  "SyntaxError",
  "TypeError",
  "URIError",
]);
const ERRORS: Record<string, ErrorConstructor> = {
  Error,
  EvalError,
  RangeError,
  ReferenceError,
  SyntaxError,
  TypeError,
  URIError,
};

// Brand checks: the internal slot, not the prototype chain (which a value can fake).
const byteLengthOf = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, "byteLength")!.get!;
const typedArrayName = Object.getOwnPropertyDescriptor(
  Object.getPrototypeOf(Uint8Array.prototype) as object,
  Symbol.toStringTag,
)!.get!;
const regexpSource = Object.getOwnPropertyDescriptor(RegExp.prototype, "source")!.get!;
const regexpFlags = Object.getOwnPropertyDescriptor(RegExp.prototype, "flags")!.get!;
const mapSize = Object.getOwnPropertyDescriptor(Map.prototype, "size")!.get!;
const setSize = Object.getOwnPropertyDescriptor(Set.prototype, "size")!.get!;

const has = (brand: (this: unknown) => unknown, value: unknown): boolean => {
  try {
    brand.call(value);
    return true;
  } catch {
    return false;
  }
};

const sharedByteLengthOf =
  typeof SharedArrayBuffer === "function"
    ? Object.getOwnPropertyDescriptor(SharedArrayBuffer.prototype, "byteLength")?.get
    : undefined;

/** A copy that is resizable like its source (`maxByteLength`), as the spec's CloneArrayBuffer makes. */
function bufferCopy(source: ArrayBuffer): ArrayBuffer {
  const resizable = source as ArrayBuffer & { resizable?: boolean; maxByteLength?: number };
  if (!resizable.resizable) return source.slice(0);
  const Buffer = ArrayBuffer as unknown as new (
    length: number,
    options: { maxByteLength: number },
  ) => ArrayBuffer;
  const copy = new Buffer(source.byteLength, { maxByteLength: resizable.maxByteLength! });
  new Uint8Array(copy).set(new Uint8Array(source));
  return copy;
}

/** IsTypedArrayOutOfBounds / IsViewOutOfBounds: V8 refuses these to `slice` and to `byteLength`. */
function outOfBounds(view: ArrayBufferView, typedArray: string | undefined): boolean {
  try {
    if (typedArray === undefined) void view.byteLength;
    else (view as unknown as { slice(start: number, end: number): unknown }).slice(0, 0);
    return false;
  } catch {
    return true;
  }
}

function refuse(what: string): never {
  throw new DOMException(`${what} could not be cloned.`, "DataCloneError");
}

function transferList(options: { transfer?: unknown[] } | undefined): ArrayBuffer[] {
  const list = options?.transfer;
  if (list === undefined) return [];
  const buffers: ArrayBuffer[] = [];
  for (const item of list) {
    if (!has(byteLengthOf, item)) refuse("Value not transferable: it");
    if (buffers.includes(item as ArrayBuffer))
      refuse("ArrayBuffer at index 1 is a duplicate of an earlier ArrayBuffer. It");
    if ((item as { detached?: boolean }).detached) refuse("An ArrayBuffer is detached and");
    buffers.push(item as ArrayBuffer);
  }
  return buffers;
}

function detach(buffer: ArrayBuffer): void {
  const transfer = (buffer as { transfer?: () => ArrayBuffer }).transfer;
  if (typeof transfer === "function") transfer.call(buffer);
}

function cloneOf(value: unknown, memory: Map<object, unknown>, depth: number): unknown {
  if (value === null || (typeof value !== "object" && typeof value !== "function")) {
    if (typeof value === "symbol") refuse(String(value));
    return value;
  }
  if (typeof value === "function") refuse(`${String(value).slice(0, 60)}`);
  const seen = memory.get(value);
  if (seen !== undefined) return seen;
  if (depth > MAX_DEPTH) refuse("A value nested this deep");
  const next = (child: unknown) => cloneOf(child, memory, depth + 1);
  const keep = <T>(copy: T): T => (memory.set(value, copy), copy);

  // Boxed primitives.
  for (const [Box, read] of [
    [Boolean, Boolean.prototype.valueOf],
    [Number, Number.prototype.valueOf],
    [String, String.prototype.valueOf],
    [BigInt, BigInt.prototype.valueOf],
  ] as const) {
    try {
      const primitive = (read as (this: unknown) => unknown).call(value);
      void Box;
      return keep(Object(primitive));
    } catch {
      // Not that box.
    }
  }
  if (has(Date.prototype.getTime, value)) return keep(new Date(Date.prototype.getTime.call(value)));
  if (has(regexpSource, value) && value !== RegExp.prototype) {
    return keep(new RegExp(regexpSource.call(value) as string, regexpFlags.call(value) as string));
  }
  // Shared memory crosses only into a cross-origin-isolated agent, which an isolate is not (HTML).
  if (sharedByteLengthOf && has(sharedByteLengthOf, value)) refuse("#<SharedArrayBuffer>");
  if (has(byteLengthOf, value)) return keep(bufferCopy(value as ArrayBuffer));
  if (ArrayBuffer.isView(value)) {
    const view = value;
    const name = typedArrayName.call(view) as string | undefined;
    // A view past the end of its (shrunk) resizable buffer cannot be serialized.
    if (outOfBounds(view, name)) refuse("An ArrayBufferView that is out of bounds");
    const buffer = next(view.buffer) as ArrayBuffer;
    if (name === undefined) return keep(new DataView(buffer, view.byteOffset, view.byteLength));
    const Typed = (
      globalThis as unknown as Record<string, new (b: ArrayBuffer, o: number, l: number) => object>
    )[name]!;
    return keep(new Typed(buffer, view.byteOffset, (view as unknown as { length: number }).length));
  }
  if (has(mapSize, value)) {
    const copy = keep(new Map());
    for (const [key, item] of [...(value as Map<unknown, unknown>)]) copy.set(next(key), next(item));
    return copy;
  }
  if (has(setSize, value)) {
    const copy = keep(new Set());
    for (const item of [...(value as Set<unknown>)]) copy.add(next(item));
    return copy;
  }
  if (value instanceof File) {
    return keep(new File([value], value.name, { type: value.type, lastModified: value.lastModified }));
  }
  if (value instanceof Blob) return keep(new Blob([value], { type: value.type }));
  for (const [Kind, name] of notSerializable()) if (value instanceof Kind) refuse(`#<${name}>`);
  if (value instanceof DOMException) return keep(new DOMException(value.message, value.name));
  if (value instanceof Error) {
    const source = value as Error & { cause?: unknown };
    const name = ERROR_NAMES.has(source.name) ? source.name : "Error";
    const copy = keep(new ERRORS[name]!());
    const message = Object.getOwnPropertyDescriptor(source, "message");
    if (message)
      Object.defineProperty(copy, "message", {
        value: String(source.message),
        writable: true,
        configurable: true,
      });
    else delete (copy as { message?: string }).message;
    if (typeof source.stack === "string")
      Object.defineProperty(copy, "stack", { value: source.stack, writable: true, configurable: true });
    if (Object.hasOwn(source, "cause"))
      Object.defineProperty(copy, "cause", { value: next(source.cause), writable: true, configurable: true });
    return copy;
  }
  if (Array.isArray(value)) {
    // The length first, then only the indices and keys that exist: holes stay holes.
    const copy = keep(new Array<unknown>((value as unknown[]).length));
    for (const key of Object.keys(value))
      (copy as unknown as Record<string, unknown>)[key] = next(
        (value as unknown as Record<string, unknown>)[key],
      );
    return copy;
  }
  const copy: Record<string, unknown> = keep({});
  for (const key of Object.keys(value)) copy[key] = next((value as Record<string, unknown>)[key]);
  return copy;
}
