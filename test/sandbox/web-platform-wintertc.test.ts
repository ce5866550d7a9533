import { once } from "node:events";
import {
  deflateRawSync,
  deflateSync,
  gunzipSync,
  gzipSync,
  inflateRawSync,
  inflateSync,
  createGzip,
} from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { IsolateHost } from "../../sandbox/index.ts";
import { failure, hostFor, json, recordingIO, request } from "./helpers.ts";

/**
 * Issue 18, the rest of the WinterTC Minimum Common API inside a real isolate: Compression
 * Streams through the host's zlib (round trips with Node's zlib both ways, corrupt input, a
 * decompression bomb, abandoned streams), and what the list asks of AbortSignal, streams,
 * queuing strategies, MessageChannel and DOMException.
 */
const GUEST = `
const failure = (fn) => { try { fn(); return "no error"; } catch (e) { return e.name + ": " + e.message; } };
const bytesOf = (stream) => new Response(stream).arrayBuffer().then((b) => new Uint8Array(b));
const routes = {
  async compress(request, format) {
    return new Response(request.body.pipeThrough(new CompressionStream(format)));
  },
  async decompress(request, format) {
    return new Response(request.body.pipeThrough(new DecompressionStream(format)));
  },
  async roundtrip(request, format) {
    const input = new Uint8Array(await request.arrayBuffer());
    const packed = await bytesOf(new Blob([input]).stream().pipeThrough(new CompressionStream(format)));
    const back = await bytesOf(new Blob([packed]).stream().pipeThrough(new DecompressionStream(format)));
    return Response.json({ same: back.length === input.length && back.every((b, i) => b === input[i]), packed: packed.length });
  },
  async corrupt(request, format) {
    const ds = new DecompressionStream(format);
    const writer = ds.writable.getWriter();
    writer.write(new Uint8Array(await request.arrayBuffer())).catch(() => {});
    writer.close().catch(() => {});
    try {
      await bytesOf(ds.readable);
      return Response.json({ error: null });
    } catch (e) {
      return Response.json({ error: [e.name, e instanceof TypeError, e.message] });
    }
  },
  async count(request) {
    // Reads and drops every chunk: the isolate's heap never holds the output, the host's bound still holds.
    let total = 0;
    for await (const chunk of request.body.pipeThrough(new DecompressionStream("gzip"))) total += chunk.length;
    return Response.json({ total });
  },
  async abandon(request, format) {
    const ds = new DecompressionStream(format);
    const writer = ds.writable.getWriter();
    // A transform runs once its readable side is read from (backpressure).
    const reader = ds.readable.getReader();
    reader.read();
    await writer.write(new Uint8Array(await request.arrayBuffer()));
    globalThis.kept = { writer, reader };
    return Response.json({ left: "open" });
  },
  async hold(request, format) {
    const cs = new CompressionStream(format);
    const writer = cs.writable.getWriter();
    cs.readable.getReader().read();
    await writer.write(new Uint8Array([1, 2, 3]));
    return new Response(new ReadableStream({ pull() { return new Promise(() => {}); } }));
  },
  async reuse() {
    try {
      const next = new DecompressionStream("gzip");
      next.readable.getReader().read();
      await next.writable.getWriter().write(new Uint8Array([31, 139]));
      globalThis.kept.reader.read().catch(() => {});
      await globalThis.kept.writer.write(new Uint8Array([1]));
      return Response.json({ error: null });
    } catch (e) {
      return Response.json({ error: [e.name, e.message] });
    }
  },
  async formats() {
    return Response.json({
      bad: failure(() => new CompressionStream("br")),
      badDecompress: failure(() => new DecompressionStream("zip")),
      missing: failure(() => new CompressionStream()),
      tags: [new CompressionStream("gzip"), new DecompressionStream("deflate-raw")].map((s) => Object.prototype.toString.call(s)),
      string: await new Response("x").body.pipeThrough(new TextDecoderStream()).pipeThrough(new CompressionStream("gzip")).getReader().read().then(() => "no error", (e) => e.name + ": " + e.message),
    });
  },
};
export default {
  async fetch(request) {
    const url = new URL(request.url);
    return routes[url.pathname.slice(1)](request, url.searchParams.get("format"));
  },
};
`;

const LIMITS = { memoryLimitMb: 64, cpuTimeLimitMs: 2_000, wallTimeLimitMs: 10_000 };
const FORMATS = ["gzip", "deflate", "deflate-raw"] as const;
const NODE = {
  gzip: { pack: gzipSync, unpack: gunzipSync },
  deflate: { pack: deflateSync, unpack: inflateSync },
  "deflate-raw": { pack: deflateRawSync, unpack: inflateRawSync },
};

let host: IsolateHost;
beforeAll(async () => {
  host = await hostFor(GUEST, LIMITS);
});
afterAll(() => host.dispose());

const call = (path: string, body: Uint8Array | null = null, method = body ? "POST" : "GET") =>
  host.invoke(request(`https://fn.example/${path}`, { method, body }), recordingIO());

async function bytes(path: string, body: Uint8Array | null = null): Promise<Uint8Array> {
  const response = await call(path, body);
  const out = response.body;
  if (!out) return new Uint8Array(0);
  if (typeof out === "string") return new TextEncoder().encode(out);
  return out instanceof Uint8Array ? out : new Uint8Array(await new Response(out).arrayBuffer());
}

/** Text that compresses, and bytes that do not, past the 1 MiB step so a chunk crosses in parts. */
function sample(size: number): Uint8Array {
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i++) out[i] = i % 3 === 0 ? (i * 2654435761) >>> 24 : 97 + (i % 26);
  return out;
}

describe("CompressionStream and DecompressionStream", () => {
  it.each(FORMATS)(
    "%s: what the guest compresses Node inflates, and what Node compresses the guest inflates",
    async (format) => {
      const input = sample(1_500_000);
      const packed = await bytes(`compress?format=${format}`, input);
      expect(packed.length).toBeLessThan(input.length);
      expect(Buffer.compare(NODE[format].unpack(packed), input)).toBe(0);
      const unpacked = await bytes(`decompress?format=${format}`, NODE[format].pack(input));
      expect(Buffer.compare(unpacked, input)).toBe(0);
      expect(await json(await call(`roundtrip?format=${format}`, input.subarray(0, 10_000)))).toMatchObject({
        same: true,
      });
    },
  );

  it("refuses an unknown format with Deno's TypeError and a non-BufferSource chunk with a TypeError", async () => {
    expect(await json(await call("formats"))).toEqual({
      bad: "TypeError: Failed to construct 'CompressionStream': The provided value 'br' is not a valid enum value of type CompressionFormat",
      badDecompress:
        "TypeError: Failed to construct 'DecompressionStream': The provided value 'zip' is not a valid enum value of type CompressionFormat",
      missing: "TypeError: Failed to construct 'CompressionStream': 1 argument required, but only 0 present",
      tags: ["[object CompressionStream]", "[object DecompressionStream]"],
      string: "TypeError: The provided value is not of type '(ArrayBuffer or ArrayBufferView)'",
    });
  });

  it("errors the stream with a TypeError on corrupt, truncated or trailing input", async () => {
    const good = gzipSync(Buffer.from("hello"));
    const cases = [
      ["gzip", new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])],
      ["deflate", new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])],
      ["gzip", good.subarray(0, good.length - 4)],
      ["deflate", new Uint8Array([...deflateSync("abc"), 1, 2, 3])],
      ["deflate-raw", new Uint8Array([...deflateRawSync("abc"), 1, 2, 3])],
    ] as const;
    for (const [format, body] of cases) {
      const { error } = (await json(await call(`corrupt?format=${format}`, body))) as { error: unknown[] };
      expect(error?.slice(0, 2), `${format} ${body.length}`).toEqual(["TypeError", true]);
    }
    expect(await json(await call("corrupt?format=gzip", good))).toEqual({ error: null });
  });

  it("fails a decompression bomb's request (1 GB of zeros) at the memory limit; the next request works", async () => {
    const gzip = createGzip();
    const parts: Buffer[] = [];
    gzip.on("data", (chunk: Buffer) => parts.push(chunk));
    const zeros = Buffer.alloc(1 << 20);
    for (let i = 0; i < 1024; i++) if (!gzip.write(zeros)) await once(gzip, "drain");
    gzip.end();
    await once(gzip, "end");
    const bomb = Buffer.concat(parts);
    expect(bomb.length).toBeLessThan(1_200_000);
    const started = performance.now();
    expect(await failure(call("count", bomb))).toEqual({
      code: "function_memory_limit",
      message:
        "The function's compression streams made more than 64 MB of output in one request (its memory limit)",
    });
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(host.healthy).toBe(true);
    expect(host.compressionStreams).toBe(0);
    expect(await json(await call("count", gzipSync(Buffer.alloc(1_000_000))))).toEqual({ total: 1_000_000 });
  });

  it("destroys the host's zlib context of a stream the guest abandons when its request ends", async () => {
    const response = await call("hold?format=gzip");
    expect(host.compressionStreams).toBe(1);
    await (response.body as ReadableStream).cancel();
    await response.finished;
    expect(host.compressionStreams).toBe(0);

    const abandoned = await call(
      "abandon?format=gzip",
      gzipSync(Buffer.from("x".repeat(100_000))).subarray(0, 200),
    );
    expect(await json(abandoned)).toEqual({ left: "open" });
    await abandoned.finished;
    expect(host.compressionStreams).toBe(0);
    expect(await json(await call("reuse"))).toEqual({
      error: ["TypeError", "A compression stream can only be used by the request that first used it"],
    });
  });
});

/** Every interface and global the WinterTC Minimum Common API (2025 snapshot, §4) lists. */
const WINTERTC_INTERFACES = [
  "AbortController",
  "AbortSignal",
  "Blob",
  "ByteLengthQueuingStrategy",
  "CompressionStream",
  "CountQueuingStrategy",
  "Crypto",
  "CryptoKey",
  "CustomEvent",
  "DecompressionStream",
  "DOMException",
  "ErrorEvent",
  "Event",
  "EventTarget",
  "File",
  "FormData",
  "Headers",
  "MessageChannel",
  "MessageEvent",
  "MessagePort",
  "Performance",
  "PromiseRejectionEvent",
  "ReadableByteStreamController",
  "ReadableStream",
  "ReadableStreamBYOBReader",
  "ReadableStreamBYOBRequest",
  "ReadableStreamDefaultController",
  "ReadableStreamDefaultReader",
  "Request",
  "Response",
  "SubtleCrypto",
  "TextDecoder",
  "TextDecoderStream",
  "TextEncoder",
  "TextEncoderStream",
  "TransformStream",
  "TransformStreamDefaultController",
  "URL",
  "URLSearchParams",
  "WritableStream",
  "WritableStreamDefaultController",
  "WritableStreamDefaultWriter",
];
const WINTERTC_FUNCTIONS = [
  "atob",
  "btoa",
  "clearTimeout",
  "clearInterval",
  "fetch",
  "queueMicrotask",
  "reportError",
  "setTimeout",
  "setInterval",
  "structuredClone",
];
const WASM = [
  "Global",
  "Instance",
  "Memory",
  "Module",
  "Table",
  "Tag",
  "Exception",
  "CompileError",
  "LinkError",
  "RuntimeError",
  "compile",
  "compileStreaming",
  "instantiate",
  "instantiateStreaming",
  "validate",
];

const PLATFORM = `
const failure = (fn) => { try { fn(); return "no error"; } catch (e) { return e.name + ": " + e.message; } };
const checks = {
  globals() {
    const interfaces = ${JSON.stringify(WINTERTC_INTERFACES)};
    const functions = ${JSON.stringify(WINTERTC_FUNCTIONS)};
    const wasm = ${JSON.stringify(WASM)};
    return {
      interfaces: interfaces.filter((name) => typeof globalThis[name] !== "function"),
      functions: functions.filter((name) => typeof globalThis[name] !== "function"),
      wasm: wasm.filter((name) => typeof WebAssembly[name] !== "function"),
      others: [typeof console.log, typeof crypto.subtle, typeof navigator.userAgent, typeof performance.now, self === globalThis, "onerror" in globalThis],
    };
  },
  async timeout() {
    const started = performance.now();
    const signal = AbortSignal.timeout(30);
    const early = signal.aborted;
    const reason = await new Promise((resolve) => { signal.onabort = () => resolve(signal.reason); });
    return {
      early, elapsed: performance.now() - started >= 25,
      reason: [reason instanceof DOMException, reason.name, reason.code, reason.message],
      thrown: failure(() => signal.throwIfAborted()),
      checks: [failure(() => AbortSignal.timeout(-1)), failure(() => AbortSignal.timeout(NaN)), failure(() => AbortSignal.timeout())],
    };
  },
  orphan() {
    AbortSignal.timeout(20).onabort = () => console.log("orphan fired");
    return {};
  },
  waited(ctx) {
    const signal = AbortSignal.timeout(20);
    ctx.waitUntil(new Promise((resolve) => { signal.onabort = () => { console.log("waited fired"); resolve(); }; }));
    return {};
  },
  any() {
    const first = new AbortController();
    const second = new AbortController();
    const both = AbortSignal.any([first.signal, second.signal]);
    const seen = [];
    both.addEventListener("abort", () => seen.push(both.reason));
    second.abort("second");
    first.abort("first");
    const already = AbortSignal.any([AbortSignal.abort("gone"), first.signal]);
    const none = AbortSignal.any([]);
    return {
      both: [both.aborted, both.reason, seen],
      already: [already.aborted, already.reason],
      none: none.aborted,
      abort: [AbortSignal.abort().reason.name, AbortSignal.abort().reason.code],
      checks: [failure(() => AbortSignal.any()), failure(() => AbortSignal.any([1]))],
    };
  },
  async strategies() {
    const bytes = new ByteLengthQueuingStrategy({ highWaterMark: 16 });
    const count = new CountQueuingStrategy({ highWaterMark: 2 });
    let controller;
    const stream = new ReadableStream({ start(c) { controller = c; } }, bytes);
    const desired = [controller.desiredSize];
    controller.enqueue(new Uint8Array(10));
    desired.push(controller.desiredSize);
    controller.enqueue(new Uint8Array(10));
    desired.push(controller.desiredSize);
    const writes = [];
    const writable = new WritableStream({ write(chunk) { writes.push(chunk); } }, count);
    const writer = writable.getWriter();
    const sizes = [writer.desiredSize];
    writer.write("a");
    sizes.push(writer.desiredSize);
    await writer.close();
    return {
      desired, sizes, writes,
      size: [bytes.size(new Uint8Array(7)), count.size("anything"), bytes.highWaterMark, count.highWaterMark],
      tags: [bytes, count].map((s) => Object.prototype.toString.call(s)),
      reader: stream.getReader() instanceof ReadableStreamDefaultReader,
    };
  },
  async byob() {
    let request;
    const stream = new ReadableStream({
      type: "bytes",
      pull(controller) {
        request = controller.byobRequest;
        const view = controller.byobRequest.view;
        for (let i = 0; i < 3; i++) view[i] = 65 + i;
        controller.byobRequest.respond(3);
        controller.close();
      },
    });
    const reader = stream.getReader({ mode: "byob" });
    const first = await reader.read(new Uint8Array(8));
    const second = await reader.read(new Uint8Array(8));
    return {
      first: [first.done, Array.from(first.value), first.value.buffer.byteLength],
      second: second.done,
      types: [reader instanceof ReadableStreamBYOBReader, request instanceof ReadableStreamBYOBRequest],
      controller: failure(() => new ReadableByteStreamController()),
    };
  },
  async textStreams() {
    const encoded = [];
    const encoder = new TextEncoderStream();
    const writer = encoder.writable.getWriter();
    const reading = (async () => { for await (const chunk of encoder.readable) encoded.push(Array.from(chunk)); })();
    // "😀" split between two writes: its high surrogate waits for the low one.
    await writer.write("a\\uD83D");
    await writer.write("\\uDE00b");
    await writer.close();
    await reading;
    const decoder = new TextDecoderStream();
    const bytes = new TextEncoder().encode("héllo 😀");
    const decoded = [];
    const dw = decoder.writable.getWriter();
    const decoding = (async () => { for await (const text of decoder.readable) decoded.push(text); })();
    for (const byte of bytes) await dw.write(new Uint8Array([byte]));
    await dw.close();
    await decoding;
    const fatal = new TextDecoderStream("utf-8", { fatal: true });
    const fw = fatal.writable.getWriter();
    fw.write(new Uint8Array([0xff])).catch(() => {});
    const bad = await fatal.readable.getReader().read().then(() => "no error", (e) => e.name);
    return { encoded, decoded: decoded.join(""), bad, encoding: [encoder.encoding, decoder.encoding, fatal.fatal] };
  },
  async messages() {
    const channel = new MessageChannel();
    const seen = [];
    const payload = { n: 1, list: [1, 2] };
    channel.port2.onmessage = (event) => seen.push([event instanceof MessageEvent, event.data, event.data === payload, event.target === channel.port2]);
    channel.port1.postMessage(payload);
    seen.push("posted");
    await new Promise((resolve) => setTimeout(resolve, 0));
    const queued = new MessageChannel();
    const later = [];
    queued.port2.addEventListener("message", (event) => later.push(event.data));
    queued.port1.postMessage("waits for start()");
    await null; await null;
    later.push("before start");
    queued.port2.start();
    await new Promise((resolve) => setTimeout(resolve, 0));
    queued.port1.close();
    queued.port1.postMessage("dropped");
    await new Promise((resolve) => setTimeout(resolve, 0));
    const event = new MessageEvent("message", { data: 5 });
    return {
      seen, later,
      event: [event.data, event.origin, event.lastEventId, event.source, event.ports.length],
      clone: failure(() => channel.port1.postMessage(() => 1)).split(":")[0],
      missing: failure(() => channel.port1.postMessage()),
      illegal: failure(() => new MessagePort()).split(":")[0],
      tags: [channel, channel.port1, event].map((o) => Object.prototype.toString.call(o)),
      rejection: (() => { const p = Promise.resolve(); const e = new PromiseRejectionEvent("unhandledrejection", { promise: p, reason: 3 }); return [e.promise === p, e.reason, e instanceof Event, Object.prototype.toString.call(e)]; })(),
    };
  },
  domException() {
    const names = ["IndexSizeError", "HierarchyRequestError", "InvalidCharacterError", "NoModificationAllowedError", "InvalidModificationError", "URLMismatchError", "QuotaExceededError", "InvalidNodeTypeError", "EncodingError", "ValidationError"];
    return {
      codes: names.map((name) => new DOMException("", name).code),
      constants: [DOMException.ABORT_ERR, DOMException.prototype.TIMEOUT_ERR, DOMException.DATA_CLONE_ERR, DOMException.VALIDATION_ERR],
      defaults: [new DOMException().name, new DOMException().message, new DOMException("m") instanceof Error],
    };
  },
};
export default {
  async fetch(request, env, ctx) {
    return Response.json(await checks[new URL(request.url).pathname.slice(1)](ctx));
  },
};
`;

describe("the rest of the WinterTC Minimum Common API", () => {
  let platform: IsolateHost;
  beforeAll(async () => {
    platform = await hostFor(PLATFORM, { memoryLimitMb: 64, cpuTimeLimitMs: 2_000, wallTimeLimitMs: 1_000 });
  });
  afterAll(() => platform.dispose());
  const check = async (name: string) =>
    json(await platform.invoke(request(`https://fn.example/${name}`), recordingIO()));

  it("puts every interface and global of the list on globalThis (WebAssembly's included)", async () => {
    expect(await check("globals")).toEqual({
      interfaces: [],
      functions: [],
      wasm: [],
      others: ["function", "object", "string", "function", true, true],
    });
  });

  it("AbortSignal.timeout fires on the request's own timer with a TimeoutError, and checks its argument as Deno", async () => {
    expect(await check("timeout")).toEqual({
      early: false,
      elapsed: true,
      reason: [true, "TimeoutError", 23, "The operation timed out."],
      thrown: "TimeoutError: The operation timed out.",
      checks: [
        "TypeError: Failed to execute 'AbortSignal.timeout': Argument 1 is outside the accepted range of 0 to 9007199254740991, inclusive",
        "TypeError: Failed to execute 'AbortSignal.timeout': Argument 1 is not a finite number",
        "TypeError: Failed to execute 'AbortSignal.timeout': 1 argument required, but only 0 present",
      ],
    });
  });

  it("AbortSignal.timeout's timer is its request's: it dies when the request ends, and fires while waitUntil holds it", async () => {
    const orphan = recordingIO();
    const waited = recordingIO();
    const responses = await Promise.all(
      ["orphan", "waited"].map((name, i) =>
        platform.invoke(request(`https://fn.example/${name}`), i === 0 ? orphan : waited),
      ),
    );
    await Promise.all(responses.map((response) => response.finished));
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(orphan.logs).toEqual([]);
    expect(waited.logs).toEqual([{ level: "log", message: "waited fired" }]);
  });

  it("AbortSignal.any follows the first source to abort, and AbortSignal.abort defaults to an AbortError", async () => {
    expect(await check("any")).toEqual({
      both: [true, "second", ["second"]],
      already: [true, "gone"],
      none: false,
      abort: ["AbortError", 20],
      checks: [
        "TypeError: Failed to execute 'AbortSignal.any': 1 argument required, but only 0 present",
        "TypeError: Failed to execute 'AbortSignal.any': Argument 1, index 0 is not of type AbortSignal",
      ],
    });
  });

  it("queuing strategies size chunks by bytes and by count", async () => {
    expect(await check("strategies")).toEqual({
      desired: [16, 6, -4],
      sizes: [2, 1],
      writes: ["a"],
      size: [7, 1, 16, 2],
      tags: ["[object ByteLengthQueuingStrategy]", "[object CountQueuingStrategy]"],
      reader: true,
    });
  });

  it("reads a byte stream with a BYOB reader into the caller's buffer", async () => {
    expect(await check("byob")).toEqual({
      first: [false, [65, 66, 67], 8],
      second: true,
      types: [true, true],
      controller: "TypeError: Illegal constructor",
    });
  });

  it("TextEncoderStream keeps a split surrogate pair whole; TextDecoderStream decodes byte by byte and is fatal when asked", async () => {
    expect(await check("textStreams")).toEqual({
      encoded: [[97], [240, 159, 152, 128, 98]],
      decoded: "héllo 😀",
      bad: "TypeError",
      encoding: ["utf-8", "utf-8", true],
    });
  });

  it("MessageChannel delivers structured clones after the post, once the port is started; close drops messages", async () => {
    expect(await check("messages")).toEqual({
      seen: ["posted", [true, { n: 1, list: [1, 2] }, false, true]],
      later: ["before start", "waits for start()"],
      event: [5, "", "", null, 0],
      clone: "DataCloneError",
      missing:
        "TypeError: Failed to execute 'postMessage' on 'MessagePort': 1 argument required, but only 0 present",
      illegal: "TypeError",
      tags: ["[object MessageChannel]", "[object MessagePort]", "[object MessageEvent]"],
      rejection: [true, 3, true, "[object PromiseRejectionEvent]"],
    });
  });

  it("DOMException has every legacy code and its constants", async () => {
    expect(await check("domException")).toEqual({
      codes: [1, 3, 5, 7, 13, 21, 22, 24, 0, 0],
      constants: [20, 23, 25, 16],
      defaults: ["Error", "", true],
    });
  });
});
