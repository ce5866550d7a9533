import { ReadableStream, TransformStream, WritableStream } from "web-streams-polyfill";
import { TextDecoder, utf8Encode } from "./encoding.ts";

/** WHATWG Streams from web-streams-polyfill (spec-tested), plus the Encoding Standard's streams. */
export {
  ByteLengthQueuingStrategy,
  CountQueuingStrategy,
  ReadableByteStreamController,
  ReadableStream,
  ReadableStreamBYOBReader,
  ReadableStreamBYOBRequest,
  ReadableStreamDefaultController,
  ReadableStreamDefaultReader,
  TransformStream,
  TransformStreamDefaultController,
  WritableStream,
  WritableStreamDefaultController,
  WritableStreamDefaultWriter,
} from "web-streams-polyfill";

/**
 * WebIDL makes a ReadableStream's async iterator inherit from %AsyncIteratorPrototype% (WPT's
 * async-iterator.any.js checks it); the polyfill's prototype is a plain object. Done once, when
 * the platform is built (its snapshot keeps it).
 */
const asyncGenerator = Object.getPrototypeOf(async function* () {}) as { prototype: object };
const asyncIteratorPrototype = Object.getPrototypeOf(asyncGenerator.prototype) as object;
Object.setPrototypeOf(Object.getPrototypeOf(new ReadableStream().values()), asyncIteratorPrototype);

/** A stream of the given bytes, in one chunk. */
export function streamOf(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      if (bytes.byteLength > 0) controller.enqueue(bytes);
      controller.close();
    },
  });
}

/** Reads a stream of Uint8Array chunks to the end, into one Uint8Array. */
export async function readAll(stream: ReadableStream<unknown>): Promise<Uint8Array> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (!(value instanceof Uint8Array)) throw new TypeError("A body stream must yield Uint8Array chunks");
    chunks.push(value);
    size += value.byteLength;
  }
  return concat(chunks, size);
}

export function concat(
  chunks: Uint8Array[],
  size = chunks.reduce((n, c) => n + c.byteLength, 0),
): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

export class TextEncoderStream {
  readonly #transform: TransformStream<string, Uint8Array>;
  constructor() {
    let pending = "";
    this.#transform = new TransformStream<string, Uint8Array>({
      transform(chunk, controller) {
        let text = pending + String(chunk);
        pending = "";
        // A chunk may end in the first half of a surrogate pair: keep it for the next one.
        const last = text.charCodeAt(text.length - 1);
        if (last >= 0xd800 && last <= 0xdbff) {
          pending = text.slice(-1);
          text = text.slice(0, -1);
        }
        if (text) controller.enqueue(utf8Encode(text));
      },
      flush(controller) {
        if (pending) controller.enqueue(utf8Encode(pending));
      },
    });
  }
  get encoding(): string {
    return "utf-8";
  }
  get readable(): ReadableStream<Uint8Array> {
    return this.#transform.readable;
  }
  get writable(): WritableStream<string> {
    return this.#transform.writable;
  }
}

export class TextDecoderStream {
  readonly #transform: TransformStream<Uint8Array, string>;
  readonly #decoder: TextDecoder;
  constructor(label = "utf-8", options: { fatal?: boolean; ignoreBOM?: boolean } = {}) {
    const decoder = (this.#decoder = new TextDecoder(label, options));
    this.#transform = new TransformStream<Uint8Array, string>({
      transform(chunk, controller) {
        const text = decoder.decode(chunk, { stream: true });
        if (text) controller.enqueue(text);
      },
      flush(controller) {
        const text = decoder.decode();
        if (text) controller.enqueue(text);
      },
    });
  }
  get encoding(): string {
    return "utf-8";
  }
  get fatal(): boolean {
    return this.#decoder.fatal;
  }
  get ignoreBOM(): boolean {
    return this.#decoder.ignoreBOM;
  }
  get readable(): ReadableStream<string> {
    return this.#transform.readable;
  }
  get writable(): WritableStream<Uint8Array> {
    return this.#transform.writable;
  }
}
