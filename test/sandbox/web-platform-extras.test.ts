import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { IsolateHost } from "../../sandbox/index.ts";
import { failure, hostFor, json, recordingIO, request, text } from "./helpers.ts";

/**
 * Issue 18's first slice, run inside a real isolate: CustomEvent, ErrorEvent, reportError and
 * the global's listeners, User Timing, asynchronous WebAssembly and the Deno members that
 * need no host.
 */

/** (module (func (export "add") (param i32 i32) (result i32) local.get 0 local.get 1 i32.add)) */
const ADD = [
  0, 97, 115, 109, 1, 0, 0, 0, 1, 7, 1, 96, 2, 127, 127, 1, 127, 3, 2, 1, 0, 7, 7, 1, 3, 97, 100, 100, 0, 0,
  10, 9, 1, 7, 0, 32, 0, 32, 1, 106, 11,
];
/** (module (import "env" "twice" (func (param i32) (result i32))) (func (export "run") … twice(x) + 1)) */
const IMPORTS = [
  0, 97, 115, 109, 1, 0, 0, 0, 1, 6, 1, 96, 1, 127, 1, 127, 2, 13, 1, 3, 101, 110, 118, 5, 116, 119, 105, 99,
  101, 0, 0, 3, 2, 1, 0, 7, 7, 1, 3, 114, 117, 110, 0, 1, 10, 11, 1, 9, 0, 32, 0, 16, 0, 65, 1, 106, 11,
];

const GUEST = `
const ADD = new Uint8Array(${JSON.stringify(ADD)});
const IMPORTS = new Uint8Array(${JSON.stringify(IMPORTS)});
const env = { env: { twice: (x) => 2 * x } };
const failure = (fn) => { try { fn(); return "no error"; } catch (e) { return e.name + ": " + e.message; } };
const rejection = (promise) => promise.then(() => "resolved", (e) => [e.name, e instanceof Error && e.constructor.name, e.message]);
const wasmResponse = (bytes, init = {}) => new Response(bytes, { headers: { "content-type": "application/wasm" }, ...init });
const checks = {
  events() {
    const custom = new CustomEvent("ping", { detail: { n: 1 }, cancelable: true });
    const bare = new CustomEvent("bare");
    const error = new ErrorEvent("error", { message: "m", filename: "f.js", lineno: 3, colno: -1, error: 42 });
    const plain = new ErrorEvent("error");
    const target = new EventTarget();
    let seen;
    target.addEventListener("ping", (e) => { seen = [e.detail.n, e.target === target]; e.preventDefault(); });
    const notCancelled = target.dispatchEvent(custom);
    return {
      custom: [custom.type, custom.detail, custom instanceof Event, custom instanceof CustomEvent, custom.cancelable],
      bare: bare.detail,
      // Accessors without setters: an assignment changes nothing (and throws in strict code).
      // Module code is strict: writing a readonly attribute throws (as in Deno) and changes nothing.
      readonly: (() => {
        const threw = [];
        try { custom.detail = 2; } catch (e) { threw.push(e.name); }
        try { error.message = "changed"; } catch (e) { threw.push(e.name); }
        return [custom.detail.n, error.message, ...threw];
      })(),
      missingType: failure(() => new CustomEvent()).split(":")[0],
      error: [error.message, error.filename, error.lineno, error.colno, error.error, error instanceof Event],
      plain: [plain.message, plain.filename, plain.lineno, plain.colno, plain.error],
      seen, notCancelled,
      tags: [custom, error, new Event("x")].map((e) => Object.prototype.toString.call(e)),
    };
  },
  reported() {
    const seen = [];
    const listener = (event) => {
      seen.push([event instanceof ErrorEvent, event.message, event.error?.message, event.target === globalThis, event.cancelable, /index\\.js$/.test(event.filename), event.lineno > 0]);
      event.preventDefault();
    };
    addEventListener("error", listener);
    const boom = new Error("handled boom");
    reportError(boom);
    removeEventListener("error", listener);
    globalThis.onerror = (event) => { seen.push(["onerror", event.error]); event.preventDefault(); };
    reportError("a string");
    globalThis.onerror = null;
    return { seen, missing: failure(() => reportError()).split(":")[0] };
  },
  unreported() {
    reportError(new Error("nobody listened"));
    return { after: "reportError returned" };
  },
  performance() {
    performance.clearMarks();
    performance.clearMeasures();
    const first = performance.mark("first", { detail: { step: 1 } });
    const second = performance.mark("second", { startTime: first.startTime + 5 });
    const between = performance.measure("between", "first", "second");
    const fromOptions = performance.measure("options", { start: 10, duration: 5, detail: [1] });
    const toEnd = performance.measure("toEnd", { end: "second" });
    const sinceStart = performance.measure("sinceStart");
    const made = new PerformanceMark("made", { startTime: 1 });
    const detail = { nested: { deep: true } };
    const cloned = performance.mark("cloned", { detail });
    return {
      first: [first.name, first.entryType, first.duration, first.detail, first instanceof PerformanceEntry, first instanceof PerformanceMark],
      between: [between.entryType, between.duration, between.startTime === first.startTime, between.detail, between instanceof PerformanceMeasure],
      fromOptions: [fromOptions.startTime, fromOptions.duration, fromOptions.detail],
      toEnd: [toEnd.startTime, toEnd.duration === second.startTime],
      sinceStart: sinceStart.startTime === 0 && sinceStart.duration > 0,
      made: [made.startTime, made.entryType, performance.getEntriesByName("made").length],
      tags: [first, between, performance].map((e) => Object.prototype.toString.call(e)),
      cloned: [cloned.detail !== detail, cloned.detail.nested.deep],
      names: performance.getEntries().map((e) => e.name),
      marks: performance.getEntriesByType("mark").map((e) => e.name),
      byName: performance.getEntriesByName("between", "measure").length + performance.getEntriesByName("between", "mark").length,
      json: JSON.parse(JSON.stringify(second)),
      errors: [
        failure(() => performance.measure("x", "no such mark")),
        failure(() => new PerformanceMark("neg", { startTime: -1 })),
        failure(() => performance.measure("x", { start: 1, end: 2, duration: 1 })),
        failure(() => performance.measure("x", { start: 1 }, "second")),
        failure(() => new PerformanceEntry()),
        failure(() => new PerformanceMeasure()),
        failure(() => new Performance()),
      ].map((m) => m.split(":")[0]),
      cleared: (() => {
        performance.clearMarks("first");
        const left = performance.getEntriesByType("mark").map((e) => e.name).sort();
        performance.clearMeasures();
        return [left, performance.getEntriesByType("measure").length];
      })(),
      perf: [performance instanceof Performance, performance instanceof EventTarget, typeof performance.timeOrigin, typeof performance.toJSON().timeOrigin],
    };
  },
  async wasm() {
    const { module, instance } = await WebAssembly.instantiate(ADD);
    const compiled = await WebAssembly.compile(ADD.buffer);
    const fromModule = await WebAssembly.instantiate(compiled);
    const imported = await WebAssembly.instantiate(IMPORTS, env);
    const streamed = await WebAssembly.instantiateStreaming(wasmResponse(IMPORTS), env);
    const fromPromise = await WebAssembly.instantiateStreaming(Promise.resolve(wasmResponse(ADD)));
    const compiledStreaming = await WebAssembly.compileStreaming(wasmResponse(ADD, { headers: { "content-type": "Application/WASM; charset=binary" } }));
    return {
      instantiate: [module instanceof WebAssembly.Module, instance instanceof WebAssembly.Instance, instance.exports.add(2, 3)],
      compile: compiled instanceof WebAssembly.Module,
      fromModule: [fromModule instanceof WebAssembly.Instance, fromModule.exports.add(4, 5)],
      imported: imported.instance.exports.run(5),
      streamed: [streamed.module instanceof WebAssembly.Module, streamed.instance.exports.run(20)],
      fromPromise: fromPromise.instance.exports.add(1, 1),
      compileStreaming: WebAssembly.Module.exports(compiledStreaming),
      validate: [WebAssembly.validate(ADD), WebAssembly.validate(new Uint8Array([1, 2, 3]))],
      names: ["compile", "instantiate", "compileStreaming", "instantiateStreaming"].map((n) => [WebAssembly[n].name, WebAssembly[n].length]),
    };
  },
  async wasmErrors() {
    return {
      garbage: await rejection(WebAssembly.compile(new Uint8Array([1, 2, 3, 4]))),
      garbageInstantiate: await rejection(WebAssembly.instantiate(new Uint8Array([0, 97, 115, 109, 2, 0, 0, 0]))),
      notBytes: await rejection(WebAssembly.compile("nope")),
      link: await rejection(WebAssembly.instantiate(IMPORTS, { env: {} })),
      wrongType: await rejection(WebAssembly.instantiateStreaming(new Response(new Uint8Array(ADD), { headers: { "content-type": "text/plain" } }))),
      notOk: await rejection(WebAssembly.compileStreaming(wasmResponse(ADD, { status: 404 }))),
      notResponse: await rejection(WebAssembly.compileStreaming(ADD)),
      used: await (async () => { const r = wasmResponse(ADD); await r.arrayBuffer(); return rejection(WebAssembly.compileStreaming(r)); })(),
      garbageStreaming: await rejection(WebAssembly.instantiateStreaming(wasmResponse(new Uint8Array([9, 9])))),
      compileErrorIsError: new WebAssembly.CompileError("x") instanceof Error,
    };
  },
  deno() {
    const names = Object.keys(Deno.errors);
    const notFound = new Deno.errors.NotFound("missing.txt", { cause: "c" });
    return {
      names,
      allNamed: names.every((n) => { const e = new Deno.errors[n]("m"); return e instanceof Error && e.name === n && Deno.errors[n].name === n && e.message === "m"; }),
      notFound: [notFound.name, notFound.message, notFound.cause, notFound instanceof Deno.errors.NotFound, notFound instanceof Deno.errors.PermissionDenied, String(notFound)],
      inspect: [
        Deno.inspect("text"),
        Deno.inspect({ a: [1, "two"], m: new Map([["k", 1]]) }),
        Deno.inspect({ a: { b: { c: {} } } }, { depth: 1 }),
        Deno.inspect(42),
        Deno.inspect(null),
      ],
      env: [Deno.env.has("SECRET"), Deno.env.has("OTHER"), Deno.env.toObject()],
      cwd: Deno.cwd(),
      exit: (() => { try { Deno.exit(1); } catch (e) { return [e.name, e instanceof Deno.errors.NotSupported, e.message]; } })(),
      ua: navigator.userAgent,
    };
  },
};
export default {
  async fetch(request) {
    const name = new URL(request.url).pathname.slice(1);
    return Response.json(await checks[name]());
  },
};
`;

let host: IsolateHost;
beforeAll(async () => {
  host = await hostFor(
    GUEST,
    { memoryLimitMb: 64, cpuTimeLimitMs: 2_000, wallTimeLimitMs: 2_000 },
    { SECRET: "s" },
  );
});
afterAll(() => host.dispose());

const check = async (name: string, io = recordingIO()) =>
  json(await host.invoke(request(`https://fn.example/${name}`), io));

describe("CustomEvent, ErrorEvent and reportError", () => {
  it("makes CustomEvent and ErrorEvent as the DOM and HTML say: detail, defaults, readonly, instanceof Event", async () => {
    expect(await check("events")).toEqual({
      custom: ["ping", { n: 1 }, true, true, true],
      bare: null,
      readonly: [1, "m", "TypeError", "TypeError"],
      missingType: "TypeError",
      error: ["m", "f.js", 3, 4294967295, 42, true],
      plain: ["", "", 0, 0, null],
      seen: [1, true],
      notCancelled: false,
      tags: ["[object CustomEvent]", "[object ErrorEvent]", "[object Event]"],
    });
  });

  it("reportError dispatches an ErrorEvent on the global, which a listener or onerror may cancel", async () => {
    expect(await check("reported")).toEqual({
      seen: [
        [true, "handled boom", "handled boom", true, true, true, true],
        ["onerror", "a string"],
      ],
      missing: "TypeError",
    });
  });

  it("reports an error nobody cancels as uncaught: logged as Deno prints it (a response already given stands)", async () => {
    const io = recordingIO();
    const outcome = await host.invoke(request("https://fn.example/unreported"), io).then(
      async (response) => ({ status: response.status, body: await text(response) }),
      (error: Error) => ({ error: error.message }),
    );
    const uncaught = io.logs.filter(
      (log) => log.level === "error" && /Uncaught .*nobody listened/.test(log.message),
    );
    expect(uncaught).toHaveLength(1);
    // The handler had answered before the checkpoint reported the error: the response stands.
    expect(outcome).toEqual({ status: 200, body: JSON.stringify({ after: "reportError returned" }) });
  });
});

describe("performance: User Timing", () => {
  it("marks, measures, lists and clears entries as User Timing L3 says", async () => {
    const result = await check("performance");
    expect(result).toMatchObject({
      first: ["first", "mark", 0, { step: 1 }, true, true],
      between: ["measure", 5, true, null, true],
      fromOptions: [10, 5, [1]],
      toEnd: [0, true],
      sinceStart: true,
      made: [1, "mark", 0],
      tags: ["[object PerformanceMark]", "[object PerformanceMeasure]", "[object Performance]"],
      cloned: [true, true],
      byName: 1,
      errors: ["SyntaxError", "TypeError", "TypeError", "TypeError", "TypeError", "TypeError", "TypeError"],
      cleared: [["cloned", "second"], 0],
      perf: [true, true, "number", "number"],
    });
    expect(result.names).toEqual(expect.arrayContaining(["first", "second", "between", "options", "toEnd"]));
    // In start time order: "second" was given a start time 5 ms after "first".
    expect((result.marks as string[]).slice(0, 1)).toEqual(["first"]);
    expect([...(result.marks as string[])].sort()).toEqual(["cloned", "first", "second"]);
    expect(result.json).toEqual({
      name: "second",
      entryType: "mark",
      startTime: expect.any(Number),
      duration: 0,
    });
  });
});

describe("asynchronous WebAssembly", () => {
  it("instantiates, compiles and streams (from a Response or its promise) and settles within the request", async () => {
    expect(await check("wasm")).toEqual({
      instantiate: [true, true, 5],
      compile: true,
      fromModule: [true, 9],
      imported: 11,
      streamed: [true, 41],
      fromPromise: 2,
      compileStreaming: [{ name: "add", kind: "function" }],
      validate: [true, false],
      names: [
        ["compile", 1],
        ["instantiate", 1],
        ["compileStreaming", 1],
        ["instantiateStreaming", 1],
      ],
    });
  });

  it("rejects with CompileError, LinkError and TypeError as the spec says", async () => {
    const result = await check("wasmErrors");
    expect(result).toMatchObject({
      garbage: ["CompileError", "CompileError", expect.stringMatching(/magic|expected/)],
      garbageInstantiate: ["CompileError", "CompileError", expect.any(String)],
      notBytes: ["TypeError", "TypeError", expect.any(String)],
      link: ["LinkError", "LinkError", expect.any(String)],
      wrongType: ["TypeError", "TypeError", expect.stringContaining("application/wasm")],
      notOk: ["TypeError", "TypeError", expect.stringContaining("404")],
      notResponse: ["TypeError", "TypeError", expect.stringContaining("Response")],
      used: ["TypeError", "TypeError", expect.any(String)],
      garbageStreaming: ["CompileError", "CompileError", expect.any(String)],
      compileErrorIsError: true,
    });
  });

  it("no longer hangs until the wall limit: `await WebAssembly.instantiate(bytes)` answers at once", async () => {
    const source = `
      const ADD = new Uint8Array(${JSON.stringify(ADD)});
      Deno.serve(async () => {
        const { instance } = await WebAssembly.instantiate(ADD);
        return new Response(String(instance.exports.add(20, 22)));
      });`;
    // Before, this request failed at its wall limit with function_timeout (the promise never
    // settled); an answer at all is the proof, so no timing is asserted on a busy machine.
    await using own = await hostFor(source, {
      memoryLimitMb: 64,
      cpuTimeLimitMs: 1_000,
      wallTimeLimitMs: 3_000,
    });
    const response = await own.invoke(request(), recordingIO());
    expect(response.status).toBe(200);
    expect(await text(response)).toBe("42");
  });
});

/**
 * A module of `count` functions of `steps` additions each (~1.5 kB a function), made at the
 * top level, then compiled `compiles` times by one request, so only compiling is the request's
 * work. The first function's constant is written before each compile (a padded four-byte
 * LEB128, from a random start), so every compile is of bytes new to V8's per-process module
 * cache, in this run and any other in the same process.
 */
const MODULES = (count: number, steps: number, compiles: number) => `
  const leb = (n) => { const out = []; do { let b = n & 0x7f; n >>>= 7; if (n) b |= 0x80; out.push(b); } while (n); return out; };
  const body = new Uint8Array(6 + 3 * ${steps} + 1);
  body.set([0, 0x41, 0x80, 0x80, 0x80, 0]);
  for (let i = 0; i < ${steps}; i++) body.set([0x41, 1, 0x6a], 6 + 3 * i);
  body[body.length - 1] = 0x0b;
  const size = leb(body.length);
  const code = [...leb(${count})];
  const codeLength = code.length + ${count} * (size.length + body.length);
  const head = [0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 0x60, 0, 1, 0x7f];
  const funcs = [...leb(${count}), ...new Array(${count}).fill(0)];
  const parts = [head, [3, ...leb(funcs.length)], funcs, [10, ...leb(codeLength)], code];
  const BYTES = new Uint8Array(parts.reduce((n, p) => n + p.length, 0) + ${count} * (size.length + body.length));
  let at = 0;
  for (const part of parts) { BYTES.set(part, at); at += part.length; }
  const FIRST_CONSTANT = at + size.length + 2;
  for (let i = 0; i < ${count}; i++) { BYTES.set(size, at); at += size.length; BYTES.set(body, at); at += body.length; }
  Deno.serve(async () => {
    let exports = 0;
    for (let i = 0; i < ${compiles}; i++) {
      const n = (${Math.floor(Math.random() * 2 ** 26)} + i) % 2 ** 26;
      BYTES.set([0x80 | (n & 0x7f), 0x80 | ((n >> 7) & 0x7f), 0x80 | ((n >> 14) & 0x7f), n >> 21], FIRST_CONSTANT);
      exports += WebAssembly.Module.exports(await WebAssembly.compile(BYTES)).length;
    }
    return new Response(String(exports));
  });`;

describe("compiling counts against the request's CPU limit", () => {
  it("compiles a small module within it, and stops a request whose compiling is too costly", async () => {
    await using small = await hostFor(MODULES(10, 10, 1), {
      memoryLimitMb: 64,
      cpuTimeLimitMs: 1_000,
      wallTimeLimitMs: 2_000,
    });
    // V8 compiles a module's functions lazily, when each is first called: what `compile` costs is
    // validating the whole module on the calling thread (an 18 MB module: 17-35 ms here). One such
    // module was a margin of only ~2x over a 10 ms limit, and one CI run's came in under it.
    // Sixteen 4.5 MB modules took 235 ms here with a 1 s limit: ~20x this limit.
    await using big = await hostFor(MODULES(3_000, 500, 16), {
      memoryLimitMb: 128,
      cpuTimeLimitMs: 10,
      wallTimeLimitMs: 2_000,
    });
    expect(await text(await small.invoke(request(), recordingIO()))).toBe("0");
    expect(await failure(big.invoke(request(), recordingIO()))).toMatchObject({
      code: "function_cpu_limit",
    });
  });
});

describe("Deno: errors, inspect, env, cwd, exit", () => {
  it("has Deno 2's error classes, a formatter, env.has/toObject, cwd and a refusing exit", async () => {
    const result = await check("deno");
    expect(result).toEqual({
      names: expect.arrayContaining([
        "NotFound",
        "PermissionDenied",
        "AlreadyExists",
        "NotSupported",
        "NotCapable",
      ]),
      allNamed: true,
      notFound: ["NotFound", "missing.txt", "c", true, false, "NotFound: missing.txt"],
      inspect: [
        '"text"',
        '{ a: [ 1, "two" ], m: Map(1) { "k" => 1 } }',
        "{ a: { b: [Object] } }",
        "42",
        "null",
      ],
      env: [true, false, { SECRET: "s" }],
      cwd: "/",
      exit: ["NotSupported", true, expect.stringContaining("cannot exit the process")],
      ua: expect.stringMatching(/^Tessera\/\d+\.\d+\.\d+/),
    });
    expect((result.names as string[]).length).toBe(25);
  });
});
