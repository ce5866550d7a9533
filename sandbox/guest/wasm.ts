import { Response } from "./http.ts";

/**
 * WebAssembly's promise-returning functions, rebuilt on the synchronous constructors.
 *
 * V8's own `WebAssembly.compile`/`instantiate` compile off the thread and settle their
 * promise from a task V8 posts to the isolate's foreground task runner. A Tessera isolate
 * only runs JavaScript inside an entry (`applySync` and the microtask checkpoint that
 * follows it, sandbox/README.md "The bridge"), and nothing runs that task between entries,
 * so the promise never settled and the request waited for its wall limit (the same hang
 * as laverdet/isolated-vm#308). Even if it ran, it would run outside any request's entry,
 * unwatched and uncounted. Here the module is compiled by `new WebAssembly.Module` inside
 * the calling entry, so compiling counts against that request's CPU limit and a module too
 * costly to compile stops the request (`function_cpu_limit`) like any other loop; errors
 * (WebAssembly.CompileError, LinkError, TypeError) reject the promise, as the spec says.
 * `instantiateStreaming`/`compileStreaming` (which V8 leaves to the embedder) read the whole
 * Response first. `validate` is V8's own and synchronous.
 */
interface WasmNamespace {
  Module: new (bytes: unknown) => object;
  Instance: new (module: object, imports?: unknown) => object;
}

/** V8 adds `WebAssembly` only to a context made from the snapshot, not while making it. */
let Module: WasmNamespace["Module"];
let Instance: WasmNamespace["Instance"];

function compile(bytes: unknown): Promise<object> {
  // The executor runs now: a throw becomes the promise's rejection.
  return new Promise((resolve) => resolve(new Module(bytes)));
}

function instantiate(source: unknown, ...rest: unknown[]): Promise<unknown> {
  const imports = rest[0];
  return new Promise((resolve) => {
    if (source instanceof Module) {
      resolve(new Instance(source, imports));
      return;
    }
    const module = new Module(source);
    resolve({ module, instance: new Instance(module, imports) });
  });
}

/** WebAssembly Web API §3 "compile a potential WebAssembly response": its checks, in order. */
async function responseBytes(source: unknown, what: string): Promise<ArrayBuffer> {
  const response = await source;
  if (!(response instanceof Response)) {
    throw new TypeError(`WebAssembly.${what}(): Argument 0 must be a Response or a promise of one`);
  }
  const type = (response.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/wasm") {
    throw new TypeError(
      `WebAssembly.${what}(): the response's Content-Type must be application/wasm, not "${type}"`,
    );
  }
  if (!response.ok) {
    throw new TypeError(`WebAssembly.${what}(): the response's status must be ok, not ${response.status}`);
  }
  return response.arrayBuffer();
}

async function compileStreaming(source: unknown): Promise<object> {
  return compile(await responseBytes(source, "compileStreaming"));
}

async function instantiateStreaming(source: unknown, ...rest: unknown[]): Promise<unknown> {
  return instantiate(await responseBytes(source, "instantiateStreaming"), rest[0]);
}

const FUNCTIONS = { compile, instantiate, compileStreaming, instantiateStreaming };

/**
 * At boot (`__tessera_boot`), before any of the function's code: the constructors are kept
 * as they are then (a guest that replaces `WebAssembly.Module` does not change these), and
 * the functions are put on the namespace as V8 defines its own (enumerable, writable,
 * configurable). An isolate without WebAssembly is left as it is.
 */
export function installWebAssembly(): void {
  const wasm = (globalThis as unknown as { WebAssembly?: WasmNamespace }).WebAssembly;
  if (!wasm) return;
  ({ Module, Instance } = wasm);
  for (const [name, value] of Object.entries(FUNCTIONS)) {
    Object.defineProperty(wasm, name, { value, writable: true, enumerable: true, configurable: true });
  }
}
