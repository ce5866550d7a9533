import type { Transform } from "node:stream";
import {
  createDeflate,
  createDeflateRaw,
  createGunzip,
  createGzip,
  createInflate,
  createInflateRaw,
  type Zlib,
} from "node:zlib";
import { AppError } from "../core/index.ts";
import type { SandboxLimits } from "./limits.ts";
import { ZlibCallSchema, type ZlibCall } from "./protocol.ts";

/** zlib contexts one request may have open at once (each holds up to ~300 kB of native zlib state). */
export const MAX_ZLIB_STREAMS_PER_REQUEST = 16;

type ZlibStream = Transform & Zlib;

const MAKERS: Record<ZlibCall["mode"], Record<ZlibCall["format"], () => ZlibStream>> = {
  compress: { gzip: createGzip, deflate: createDeflate, "deflate-raw": createDeflateRaw },
  decompress: { gzip: createGunzip, deflate: createInflate, "deflate-raw": createInflateRaw },
};

/** One request's zlib contexts and the output they made (guest stream id → context). */
interface RequestZlib {
  readonly streams: Map<number, ZlibContext>;
  outputBytes: number;
}

/**
 * CompressionStream and DecompressionStream for one isolate, run by Node's zlib (off the
 * Node thread, in libuv's pool). Contexts belong to the request that opened them and are
 * destroyed when it ends (`release`), so a stream the guest abandons holds nothing past its
 * request.
 *
 * Every byte a context makes (compressed or not) counts against its request: at most the
 * function's `memoryLimitMb` MiB in all. Each byte also lands in the isolate's heap, which
 * holds no more than that, so a function within the bound is one that could keep what it
 * inflated; it also bounds what the host buffers for one request. A request past it (a
 * decompression bomb) fails with `function_memory_limit`, the context is destroyed as soon
 * as the count crosses the bound, and the isolate stays.
 *
 * @example
 *   const zlib = createCompressionHost(limits);
 *   await zlib.run(slot, { stream: 1, mode: "compress", format: "gzip", input: bytes });
 *   zlib.release(slot); // when the request ends
 */
export function createCompressionHost(limits: SandboxLimits) {
  const maxOutputBytes = limits.memoryLimitMb * 1_048_576;
  const requests = new Map<number, RequestZlib>();

  function open(request: RequestZlib, call: ZlibCall): ZlibContext {
    if (request.streams.size >= MAX_ZLIB_STREAMS_PER_REQUEST) {
      throw new TypeError(`At most ${MAX_ZLIB_STREAMS_PER_REQUEST} compression streams per request`);
    }
    const context = new ZlibContext(call, request, maxOutputBytes);
    request.streams.set(call.stream, context);
    return context;
  }

  return {
    /** One step of a stream: its output so far, or a TypeError (bad input), or `function_memory_limit`. */
    async run(slot: number, payload: unknown): Promise<Uint8Array> {
      const call = ZlibCallSchema.parse(payload);
      let request = requests.get(slot);
      if (!request) requests.set(slot, (request = { streams: new Map(), outputBytes: 0 }));
      let context = request.streams.get(call.stream);
      if (call.input === "abort") {
        context?.destroy();
        request.streams.delete(call.stream);
        return new Uint8Array(0);
      }
      context ??= open(request, call);
      try {
        const output = await context.step(call.input);
        if (call.input === "end") request.streams.delete(call.stream);
        return output;
      } catch (error) {
        context.destroy();
        request.streams.delete(call.stream);
        if (error instanceof OutputLimit) {
          throw new AppError(
            "function_memory_limit",
            `The function's compression streams made more than ${limits.memoryLimitMb} MB of output in one request (its memory limit)`,
          );
        }
        throw new TypeError((error as Error).message);
      }
    },
    /** Destroys the contexts of a request that ended. */
    release(slot: number): void {
      const request = requests.get(slot);
      if (!request) return;
      requests.delete(slot);
      for (const context of request.streams.values()) context.destroy();
    },
    /** zlib contexts open now, across this isolate's requests. */
    get size(): number {
      let size = 0;
      for (const request of requests.values()) size += request.streams.size;
      return size;
    },
  };
}

export type CompressionHost = ReturnType<typeof createCompressionHost>;

/** Thrown inside a step when the request's output passed its bound. */
class OutputLimit extends Error {}

/** One zlib context: a Node zlib stream in flowing mode, its output collected per step. */
class ZlibContext {
  readonly #zlib: ZlibStream;
  readonly #decompress: boolean;
  #output: Buffer[] = [];
  #outputBytes = 0;
  #inputBytes = 0;
  #failure: Error | undefined;
  #wake: (() => void) | undefined;

  constructor(call: ZlibCall, request: RequestZlib, maxOutputBytes: number) {
    this.#decompress = call.mode === "decompress";
    const zlib = (this.#zlib = MAKERS[call.mode][call.format]());
    // Counted as zlib makes it (16 kB at a time), so a bomb stops within one chunk of the bound.
    zlib.on("data", (chunk: Buffer) => {
      request.outputBytes += chunk.byteLength;
      if (request.outputBytes > maxOutputBytes) {
        this.#failure ??= new OutputLimit();
        this.#output = [];
        zlib.destroy();
        return;
      }
      this.#output.push(chunk);
      this.#outputBytes += chunk.byteLength;
    });
    this.#zlib.on("error", (error: Error) => {
      this.#failure ??= error;
      this.#wake?.();
    });
    this.#zlib.on("end", () => this.#wake?.());
    this.#zlib.on("close", () => this.#wake?.());
  }

  /** Feeds `input` (or ends the stream) and resolves with the output it made. */
  step(input: Uint8Array | "end"): Promise<Uint8Array> {
    const zlib = this.#zlib;
    return new Promise<Uint8Array>((resolve, reject) => {
      this.#wake = () => {
        this.#wake = undefined;
        if (!this.#failure && input === "end") this.#checkConsumed();
        if (this.#failure) reject(this.#failure);
        else resolve(this.#take());
      };
      if (input === "end") zlib.end();
      else {
        this.#inputBytes += input.byteLength;
        zlib.write(input, (error) => {
          if (error) this.#failure ??= error;
          this.#wake?.();
        });
      }
    });
  }

  /** Compression Streams §5 "decompress and enqueue": input past the end of the compressed data is an error. */
  #checkConsumed(): void {
    if (this.#decompress && this.#zlib.bytesWritten < this.#inputBytes) {
      this.#failure = new TypeError("Junk found after the end of the compressed data");
    }
  }

  #take(): Uint8Array {
    const out = new Uint8Array(this.#outputBytes);
    let offset = 0;
    for (const chunk of this.#output) {
      out.set(chunk, offset);
      offset += chunk.byteLength;
    }
    this.#output = [];
    this.#outputBytes = 0;
    return out;
  }

  destroy(): void {
    this.#zlib.destroy();
  }
}
