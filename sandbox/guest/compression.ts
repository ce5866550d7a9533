import { currentRequest, hostCall } from "./bridge.ts";
import { TransformStream, type ReadableStream, type WritableStream } from "./streams.ts";

/**
 * Compression Streams (WHATWG): gzip, deflate and deflate-raw, run by the host's zlib
 * (sandbox/compression.ts) one chunk at a time through the bridge's asynchronous `call`.
 * A stream is bound to the request that first writes to it; its host context goes with
 * that request. Bad input errors the stream with a TypeError (as in Deno); a request whose
 * streams make more output than its memory limit fails (`function_memory_limit`).
 */
const FORMATS: readonly string[] = ["deflate", "deflate-raw", "gzip"];
/** Bytes per step to the host (MAX_ZLIB_CHUNK_BYTES in sandbox/protocol.ts): larger chunks go in parts. */
const MAX_STEP_BYTES = 1_048_576;

type Mode = "compress" | "decompress";
type Input = Uint8Array | "end" | "abort";

let nextStream = 1;

/** WebIDL's enum conversion, with Deno's messages. */
function formatOf(what: string, count: number, format: unknown): string {
  if (count < 1)
    throw new TypeError(`Failed to construct '${what}': 1 argument required, but only 0 present`);
  const name = String(format);
  if (!FORMATS.includes(name)) {
    throw new TypeError(
      `Failed to construct '${what}': The provided value '${name}' is not a valid enum value of type CompressionFormat`,
    );
  }
  return name;
}

/** WebIDL's BufferSource: an ArrayBuffer or a view of one, never of a SharedArrayBuffer (no [AllowShared]). */
function bufferSource(chunk: unknown): Uint8Array {
  if (chunk instanceof ArrayBuffer) return new Uint8Array(chunk);
  if (ArrayBuffer.isView(chunk)) {
    if (!(chunk.buffer instanceof ArrayBuffer)) {
      throw new TypeError("The provided ArrayBufferView value must not be shared");
    }
    return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  }
  throw new TypeError("The provided value is not of type '(ArrayBuffer or ArrayBufferView)'");
}

function zlibTransform(mode: Mode, format: string): TransformStream<unknown, Uint8Array> {
  const stream = nextStream++;
  let slot: number | undefined;
  const step = (input: Input): Promise<Uint8Array> => {
    const request = currentRequest("Compressing");
    if (slot === undefined) slot = request.slot;
    else if (slot !== request.slot) {
      // Its host context is the other request's, and goes when that request ends (as in Workers).
      throw new TypeError("A compression stream can only be used by the request that first used it");
    }
    return hostCall("Compressing", "zlib", { stream, mode, format, input }) as Promise<Uint8Array>;
  };
  return new TransformStream<unknown, Uint8Array>({
    async transform(chunk, controller) {
      const bytes = bufferSource(chunk);
      for (let at = 0; at < bytes.byteLength; at += MAX_STEP_BYTES) {
        // A copy: the writer may change its buffer while an earlier part is at the host.
        const output = await step(bytes.slice(at, at + MAX_STEP_BYTES));
        if (output.byteLength > 0) controller.enqueue(output);
      }
    },
    async flush(controller) {
      const output = await step("end");
      if (output.byteLength > 0) controller.enqueue(output);
    },
    cancel() {
      // Frees the host context now rather than when the request ends; nothing to free if never used.
      if (slot === undefined) return;
      try {
        step("abort").catch(() => undefined);
      } catch {
        // The request already ended: the host destroyed the context with it.
      }
    },
  });
}

export class CompressionStream {
  readonly #transform: TransformStream<unknown, Uint8Array>;
  constructor(format: string) {
    this.#transform = zlibTransform("compress", formatOf("CompressionStream", arguments.length, format));
  }
  get readable(): ReadableStream<Uint8Array> {
    return this.#transform.readable;
  }
  get writable(): WritableStream<unknown> {
    return this.#transform.writable;
  }
  get [Symbol.toStringTag](): string {
    return "CompressionStream";
  }
}

export class DecompressionStream {
  readonly #transform: TransformStream<unknown, Uint8Array>;
  constructor(format: string) {
    this.#transform = zlibTransform("decompress", formatOf("DecompressionStream", arguments.length, format));
  }
  get readable(): ReadableStream<Uint8Array> {
    return this.#transform.readable;
  }
  get writable(): WritableStream<unknown> {
    return this.#transform.writable;
  }
  get [Symbol.toStringTag](): string {
    return "DecompressionStream";
  }
}
