import type { InvocationIO, IsolateHost } from "../../sandbox/index.ts";

/**
 * Issue 18's compatibility probe: one plain-JavaScript program that runs unchanged in a
 * Tessera isolate, in Deno and in workerd, and says for each WinterTC Minimum Common API
 * name and each `Deno` member whether it is there and works. scripts/compat-table.ts runs
 * it in all three and prints sandbox/README.md's "Compatibility (measured)" tables;
 * test/sandbox/compat.test.ts runs it in an isolate and holds Tessera's column to the README.
 *
 * `compatProbe(input)` resolves to a `ProbeResult`. A WinterTC check returns true (works),
 * false (absent) or a string (present, but the named behaviour failed); a check that throws
 * counts as absent when the name is undefined and as failing otherwise.
 */

/** One WinterTC name's outcome: "yes", "no", or "fails: <what>". */
export type Verdict = string;

export interface ProbeInput {
  /** The `Deno` members to look for; absent: `Object.keys(Deno)` of the runtime probed. */
  denoNames?: string[];
  /** `Deno` members to call with a harmless argument, expecting them to throw the named error. */
  refusals?: Record<string, string>;
}

export interface ProbeResult {
  wintertc: Record<string, Verdict>;
  /** Member name to "yes" / "no" / "refused" (threw as expected) / "refused?: <what happened>". */
  deno: Record<string, string>;
}

/**
 * `Deno` members that Tessera defines only to refuse, and the error they throw: the table
 * shows them as "refused", not "yes". Each is called (in Tessera only) to confirm it still
 * refuses; the argument is a path under `/`, the deployment's read-only root.
 */
export const TESSERA_REFUSALS: Record<string, string> = {
  exit: "NotSupported",
  writeFile: "NotCapable",
  writeFileSync: "NotCapable",
  writeTextFile: "NotCapable",
  writeTextFileSync: "NotCapable",
  mkdir: "NotCapable",
  mkdirSync: "NotCapable",
  remove: "NotCapable",
  removeSync: "NotCapable",
  rename: "NotCapable",
  renameSync: "NotCapable",
  copyFile: "NotCapable",
  copyFileSync: "NotCapable",
};

/** Plain JavaScript (no TypeScript, no imports): defines `compatProbe(input)`. */
export const PROBE = String.raw`
const EMPTY_WASM = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/** Resolves to what the promise settles with, or to "never settled" after ms. */
const settles = (promise, ms = 1000) =>
  Promise.race([
    Promise.resolve(promise).then((value) => ({ value }), (error) => ({ error: String(error) })),
    sleep(ms).then(() => ({ error: "never settled" })),
  ]);
const bytes = async (stream) => new Uint8Array(await new Response(stream).arrayBuffer());
const roundTrip = async (format) => {
  const input = new TextEncoder().encode("compat ".repeat(50));
  const packed = await bytes(new Blob([input]).stream().pipeThrough(new CompressionStream(format)));
  const back = await bytes(new Blob([packed]).stream().pipeThrough(new DecompressionStream(format)));
  return back.length === input.length && back.every((b, i) => b === input[i]) || format + " did not round-trip";
};
const isClass = (value) => typeof value === "function";
const wasmModule = () => new WebAssembly.Module(EMPTY_WASM);

const CHECKS = {
  // Interfaces (WinterTC Minimum Common API, "Interfaces").
  AbortController: () => new AbortController().signal instanceof AbortSignal,
  AbortSignal: () => isClass(AbortSignal) && !new AbortController().signal.aborted,
  "AbortSignal.abort": () => AbortSignal.abort().aborted || "not aborted",
  "AbortSignal.timeout": async () => {
    const signal = AbortSignal.timeout(1);
    const fired = await settles(new Promise((resolve) => signal.addEventListener("abort", resolve)), 1000);
    return (!fired.error && signal.reason?.name === "TimeoutError") || "timeout(1) did not abort in 1 s";
  },
  "AbortSignal.any": () => {
    const controller = new AbortController();
    const signal = AbortSignal.any([controller.signal]);
    controller.abort();
    return signal.aborted || "any() did not follow its source";
  },
  Blob: async () => (await new Blob(["a", "b"]).text()) === "ab" || "text() differs",
  ByteLengthQueuingStrategy: () => new ByteLengthQueuingStrategy({ highWaterMark: 4 }).size(new Uint8Array(3)) === 3,
  CompressionStream: () => roundTrip("gzip"),
  CountQueuingStrategy: () => new CountQueuingStrategy({ highWaterMark: 4 }).size() === 1,
  Crypto: () => isClass(Crypto) && crypto instanceof Crypto,
  CryptoKey: async () => {
    const key = await crypto.subtle.generateKey({ name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    return key instanceof CryptoKey || "generateKey's key is not a CryptoKey";
  },
  CustomEvent: () => new CustomEvent("x", { detail: 1 }).detail === 1,
  DecompressionStream: () => roundTrip("deflate-raw"),
  DOMException: () => new DOMException("m", "AbortError").code === 20 || "code is not 20",
  ErrorEvent: () => new ErrorEvent("error", { message: "m" }).message === "m",
  Event: () => new Event("x").type === "x",
  EventTarget: () => {
    const target = new EventTarget();
    let heard = 0;
    target.addEventListener("x", () => heard++);
    target.dispatchEvent(new Event("x"));
    return heard === 1 || "listener not called";
  },
  File: () => new File(["a"], "a.txt", { type: "text/plain" }).name === "a.txt",
  FormData: () => {
    const form = new FormData();
    form.append("a", "1");
    return form.get("a") === "1";
  },
  Headers: () => new Headers({ "X-A": "1" }).get("x-a") === "1",
  MessageChannel: async () => {
    const { port1, port2 } = new MessageChannel();
    const got = settles(new Promise((resolve) => (port2.onmessage = (event) => resolve(event.data))), 1000);
    port1.postMessage({ n: 1 });
    const { value } = await got;
    port1.close();
    port2.close();
    return value?.n === 1 || "message not delivered";
  },
  MessageEvent: () => new MessageEvent("message", { data: 1 }).data === 1,
  MessagePort: () => isClass(MessagePort) && new MessageChannel().port1 instanceof MessagePort,
  PerformanceEntry: () => isClass(PerformanceEntry) && performance.mark("compat-entry") instanceof PerformanceEntry,
  PerformanceMark: () => performance.mark("compat-mark") instanceof PerformanceMark,
  PerformanceMeasure: () => {
    performance.mark("compat-start");
    return performance.measure("compat-measure", "compat-start") instanceof PerformanceMeasure;
  },
  PromiseRejectionEvent: () => {
    const promise = Promise.resolve();
    return new PromiseRejectionEvent("unhandledrejection", { promise, reason: 1 }).reason === 1;
  },
  ReadableByteStreamController: () => {
    let controller;
    new ReadableStream({ type: "bytes", start: (c) => void (controller = c) });
    return isClass(ReadableByteStreamController) && controller instanceof ReadableByteStreamController;
  },
  ReadableStream: async () => {
    const stream = new ReadableStream({ start: (c) => (c.enqueue("a"), c.close()) });
    return (await stream.getReader().read()).value === "a";
  },
  ReadableStreamBYOBReader: () =>
    new ReadableStream({ type: "bytes" }).getReader({ mode: "byob" }) instanceof ReadableStreamBYOBReader,
  ReadableStreamBYOBRequest: async () => {
    let seen = false;
    const stream = new ReadableStream({
      type: "bytes",
      pull(controller) {
        seen = controller.byobRequest instanceof ReadableStreamBYOBRequest;
        controller.byobRequest.view[0] = 7;
        controller.byobRequest.respond(1);
      },
    });
    const { value } = await stream.getReader({ mode: "byob" }).read(new Uint8Array(1));
    return (seen && value[0] === 7) || "byobRequest not filled";
  },
  ReadableStreamDefaultController: () => {
    let controller;
    new ReadableStream({ start: (c) => void (controller = c) });
    return isClass(ReadableStreamDefaultController) && controller instanceof ReadableStreamDefaultController;
  },
  ReadableStreamDefaultReader: () => new ReadableStream().getReader() instanceof ReadableStreamDefaultReader,
  Request: async () => (await new Request("https://x/", { method: "POST", body: "a" }).text()) === "a",
  Response: async () => (await Response.json({ a: 1 }).json()).a === 1,
  SubtleCrypto: () => isClass(SubtleCrypto) && crypto.subtle instanceof SubtleCrypto,
  TextDecoder: () => new TextDecoder().decode(new Uint8Array([0xc3, 0xa9])) === "\u00e9",
  TextDecoderStream: async () => {
    const stream = new Blob([new Uint8Array([0xc3, 0xa9])]).stream().pipeThrough(new TextDecoderStream());
    return (await new Response(stream.pipeThrough(new TextEncoderStream())).text()) === "\u00e9";
  },
  TextEncoder: () => new TextEncoder().encode("\u00e9").length === 2,
  TextEncoderStream: async () => {
    const source = new ReadableStream({ start: (c) => (c.enqueue("\u00e9"), c.close()) });
    return (await bytes(source.pipeThrough(new TextEncoderStream()))).length === 2;
  },
  TransformStream: async () => {
    const upper = new TransformStream({ transform: (chunk, c) => c.enqueue(chunk.toUpperCase()) });
    const source = new ReadableStream({ start: (c) => (c.enqueue("a"), c.close()) });
    return (await source.pipeThrough(upper).getReader().read()).value === "A";
  },
  TransformStreamDefaultController: () => {
    let controller;
    new TransformStream({ start: (c) => void (controller = c) });
    return isClass(TransformStreamDefaultController) && controller instanceof TransformStreamDefaultController;
  },
  URL: () => new URL("/a?b=1", "https://x.example").href === "https://x.example/a?b=1",
  URLPattern: () =>
    new URLPattern({ pathname: "/a/:id" }).exec("https://x/a/1")?.pathname.groups.id === "1" || "no match",
  URLSearchParams: () => new URLSearchParams("a=1&b=2").get("b") === "2",
  "WebAssembly.Global": () => new WebAssembly.Global({ value: "i32", mutable: true }, 1).value === 1,
  "WebAssembly.Instance": () => new WebAssembly.Instance(wasmModule()) instanceof WebAssembly.Instance,
  "WebAssembly.Memory": () => new WebAssembly.Memory({ initial: 1 }).buffer.byteLength === 65536,
  "WebAssembly.Module": () => wasmModule() instanceof WebAssembly.Module,
  "WebAssembly.Table": () => new WebAssembly.Table({ initial: 1, element: "anyfunc" }).length === 1,
  "WebAssembly.Tag": () => new WebAssembly.Tag({ parameters: ["i32"] }) instanceof WebAssembly.Tag,
  "WebAssembly.Exception": () => {
    const tag = new WebAssembly.Tag({ parameters: ["i32"] });
    return new WebAssembly.Exception(tag, [5]).getArg(tag, 0) === 5;
  },
  "WebAssembly.JSTag": () => WebAssembly.JSTag instanceof WebAssembly.Tag,
  WritableStream: async () => {
    const seen = [];
    const writer = new WritableStream({ write: (chunk) => void seen.push(chunk) }).getWriter();
    await writer.write("a");
    await writer.close();
    return seen.join() === "a";
  },
  WritableStreamDefaultController: () => {
    let controller;
    new WritableStream({ start: (c) => void (controller = c) });
    return isClass(WritableStreamDefaultController) && controller instanceof WritableStreamDefaultController;
  },
  WritableStreamDefaultWriter: () => new WritableStream().getWriter() instanceof WritableStreamDefaultWriter,
  // No network here: the constructor and its constants only.
  WebSocket: () => isClass(WebSocket) && WebSocket.OPEN === 1,
  CloseEvent: () => new CloseEvent("close", { code: 1000 }).code === 1000,

  // Global methods and properties.
  globalThis: () => typeof globalThis === "object" && globalThis.globalThis === globalThis,
  self: () => self === globalThis,
  atob: () => atob("aGk=") === "hi",
  btoa: () => btoa("hi") === "aGk=",
  console: () => ["log", "info", "warn", "error", "debug"].every((m) => typeof console[m] === "function"),
  crypto: () => crypto.getRandomValues(new Uint8Array(8)).length === 8,
  "crypto.subtle": async () => (await crypto.subtle.digest("SHA-256", new Uint8Array(0))).byteLength === 32,
  "crypto.randomUUID": () => /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(crypto.randomUUID()),
  // No network here: that it is a function only.
  fetch: () => typeof fetch === "function",
  "navigator.userAgent": () => typeof navigator.userAgent === "string" && navigator.userAgent.length > 0,
  onerror: () => "onerror" in globalThis,
  onunhandledrejection: async () => {
    if (!("onunhandledrejection" in globalThis)) return false;
    let heard;
    const fired = new Promise((resolve) => (heard = resolve));
    const listener = (event) => (heard(true), event.preventDefault());
    addEventListener("unhandledrejection", listener);
    Promise.reject(new Error("compat probe"));
    const { value } = await settles(fired, 1000);
    removeEventListener("unhandledrejection", listener);
    return value === true || "no unhandledrejection event for an unhandled rejection in 1 s";
  },
  onrejectionhandled: () => "onrejectionhandled" in globalThis,
  addEventListener: () => {
    let heard = 0;
    const listener = () => heard++;
    addEventListener("compat-probe", listener);
    globalThis.dispatchEvent(new Event("compat-probe"));
    removeEventListener("compat-probe", listener);
    return heard === 1 || "listener on the global not called";
  },
  "performance.now": () => typeof performance.now() === "number",
  "performance.timeOrigin": () =>
    (typeof performance.timeOrigin === "number" && performance.timeOrigin > 0) ||
    "timeOrigin is " + String(performance.timeOrigin),
  "performance.mark": () => performance.mark("compat-global").name === "compat-global",
  "performance.measure": () => performance.measure("compat-global-measure").duration >= 0,
  queueMicrotask: async () => {
    let ran = false;
    queueMicrotask(() => (ran = true));
    await null;
    await null;
    return ran || "microtask not run";
  },
  reportError: () => {
    let heard = false;
    const listener = (event) => ((heard = event.error?.message === "compat"), event.preventDefault());
    addEventListener("error", listener);
    reportError(new Error("compat"));
    removeEventListener("error", listener);
    return heard || "no error event on the global";
  },
  setTimeout: async () => (await settles(sleep(1), 1000)).error === undefined || "timer never fired",
  clearTimeout: async () => {
    let fired = false;
    clearTimeout(setTimeout(() => (fired = true), 1));
    await sleep(20);
    return !fired || "cleared timer fired";
  },
  setInterval: async () => {
    // Waits for the second tick rather than counting ticks in a fixed time: a busy machine may run one in 30 ms.
    let ticks = 0;
    let ticked;
    const twice = new Promise((resolve) => (ticked = resolve));
    const id = setInterval(() => ++ticks === 2 && ticked(), 1);
    await settles(twice, 1000);
    clearInterval(id);
    return ticks >= 2 || "interval ticked " + ticks + " times in 1 s";
  },
  clearInterval: async () => {
    let ticks = 0;
    clearInterval(setInterval(() => ticks++, 1));
    await sleep(20);
    return ticks === 0 || "cleared interval ticked";
  },
  structuredClone: () => {
    const copy = structuredClone(new Map([["a", { b: [1] }]]));
    return copy.get("a").b[0] === 1;
  },
  "WebAssembly.compile": async () => {
    const { value, error } = await settles(WebAssembly.compile(EMPTY_WASM));
    return value instanceof WebAssembly.Module || error;
  },
  "WebAssembly.compileStreaming": async () => {
    const response = new Response(EMPTY_WASM, { headers: { "content-type": "application/wasm" } });
    const { value, error } = await settles(WebAssembly.compileStreaming(response));
    return value instanceof WebAssembly.Module || error;
  },
  "WebAssembly.instantiate": async () => {
    const { value, error } = await settles(WebAssembly.instantiate(EMPTY_WASM));
    return value?.instance instanceof WebAssembly.Instance || error;
  },
  "WebAssembly.instantiateStreaming": async () => {
    const response = new Response(EMPTY_WASM, { headers: { "content-type": "application/wasm" } });
    const { value, error } = await settles(WebAssembly.instantiateStreaming(response));
    return value?.instance instanceof WebAssembly.Instance || error;
  },
  "WebAssembly.validate": () => WebAssembly.validate(EMPTY_WASM) && !WebAssembly.validate(new Uint8Array(4)),
};

/** Whether a dotted name ("AbortSignal.any") is defined on the global. */
const defined = (name) => {
  try {
    return name.split(".").reduce((at, part) => (at == null ? undefined : at[part]), globalThis) !== undefined;
  } catch {
    return false;
  }
};

async function verdict(name, check) {
  try {
    const outcome = await check();
    if (outcome === true) return "yes";
    if (!defined(name)) return "no";
    return "fails: " + (typeof outcome === "string" ? outcome : "check returned " + String(outcome));
  } catch (error) {
    return defined(name) ? "fails: " + String(error?.message ?? error) : "no";
  }
}

async function refusal(name, expected) {
  try {
    await Deno[name]("/compat-probe");
    return "refused?: returned";
  } catch (error) {
    return error?.name === expected ? "refused" : "refused?: threw " + String(error?.name);
  }
}

async function compatProbe(input = {}) {
  const wintertc = {};
  // One at a time: timers, listeners on the global and performance entries do not mix.
  for (const [name, check] of Object.entries(CHECKS)) wintertc[name] = await verdict(name, check);
  const hasDeno = typeof Deno === "object" && Deno !== null;
  const names = input.denoNames ?? (hasDeno ? Object.keys(Deno).sort() : []);
  const refusals = input.refusals ?? {};
  const deno = {};
  for (const name of names) {
    const present = hasDeno && name in Deno;
    deno[name] = !present ? "no" : name in refusals ? await refusal(name, refusals[name]) : "yes";
  }
  return { wintertc, deno };
}
`;

/**
 * A module worker (Tessera, workerd) whose fetch handler runs the probe on the request's
 * JSON body (a `ProbeInput`) and answers with the `ProbeResult`.
 */
export const PROBE_WORKER = `${PROBE}
export default {
  async fetch(request) {
    const input = request.method === "POST" ? await request.json() : {};
    return Response.json(await compatProbe(input));
  },
};
`;

/** The Deno program: the probe over `Object.keys(Deno)`, its result on stdout. */
export const PROBE_DENO = `${PROBE}
console.log(JSON.stringify(await compatProbe({})));
`;

/**
 * Runs the probe in a booted Tessera isolate (`PROBE_WORKER`'s host): one POST request whose
 * body is the input. Throws with the isolate's log when the request fails.
 */
export async function probeIsolate(host: IsolateHost, input: ProbeInput = {}): Promise<ProbeResult> {
  const logs: string[] = [];
  const io: InvocationIO = {
    fetch: () => Promise.reject(new Error("no network in the compatibility probe")),
    call: () => Promise.resolve(null),
    snapshot: () => null,
    log: (level, message) => void logs.push(`${level}: ${message}`),
  };
  const response = await host.invoke(
    {
      requestId: "req_compat",
      method: "POST",
      url: "https://compat.example/",
      headers: [["content-type", "application/json"]],
      body: new TextEncoder().encode(JSON.stringify(input)),
      context: { user: null },
    },
    io,
  );
  const text = response.body ? await new Response(response.body).text() : "";
  if (response.status !== 200)
    throw new Error(`probe answered ${response.status}: ${text}\n${logs.join("\n")}`);
  return JSON.parse(text) as ProbeResult;
}
