/**
 * What runs around core-js's modules in a function that uses built-ins its V8 lacks (polyfills.ts
 * picks the modules and bundles them ahead of the function's code): the dispose symbols before
 * them, the async iterators' dispose method and the removal of core-js's store after. Runs inside
 * the isolate, as plain JavaScript once bundled.
 */

const SHARED_STORE = "__core-js_shared__";

/**
 * `Symbol.dispose` and `Symbol.asyncDispose` as V8 makes well-known symbols: unregistered (so
 * `Symbol.keyFor` gives undefined and a WeakMap may hold them) and read-only. Left alone, core-js
 * would take `Symbol.for("Symbol.dispose")`, a registered one.
 */
export function defineDisposeSymbols(): void {
  for (const name of ["dispose", "asyncDispose"]) {
    if (!(name in Symbol))
      Object.defineProperty(Symbol, name, {
        value: Symbol(`Symbol.${name}`),
        writable: false,
        configurable: false,
      });
  }
}

/**
 * After core-js's modules: the async iterators' dispose method, and core-js's shared store (its
 * internal state: which objects are DisposableStacks, …) off the global, where a function could
 * reach or corrupt it; its modules' closures still hold it.
 */
export function finishPolyfills(): void {
  installAsyncIteratorDispose();
  delete (globalThis as Record<string, unknown>)[SHARED_STORE];
}

/**
 * `%AsyncIteratorPrototype%[Symbol.asyncDispose]` (explicit resource management, 27.1.3.1):
 * core-js's module looks for that prototype through a global `AsyncIterator` V8 does not have
 * and, not finding it, would put the method on an object of its own, so it is made here: `return`
 * called with one undefined argument, its result awaited, the promise fulfilled with undefined.
 */
function installAsyncIteratorDispose(): void {
  const asyncDispose = (Symbol as unknown as { asyncDispose: symbol }).asyncDispose;
  const AsyncIteratorPrototype = Object.getPrototypeOf(
    Object.getPrototypeOf(async function* () {}.prototype),
  ) as object;
  if (Object.hasOwn(AsyncIteratorPrototype, asyncDispose)) return;
  // Taken now, as the spec's %Promise% and PerformPromiseThen are: patching them changes nothing.
  const resolve = Promise.resolve.bind(Promise) as (value: unknown) => Promise<unknown>;
  const reject = Promise.reject.bind(Promise) as (reason: unknown) => Promise<never>;
  // eslint-disable-next-line @typescript-eslint/unbound-method -- applied to a promise (Reflect.apply)
  const then = Promise.prototype.then as (
    this: Promise<unknown>,
    onFulfilled: () => undefined,
  ) => Promise<undefined>;
  const unwrap = () => undefined;
  const methods = {
    [asyncDispose](this: unknown): Promise<undefined> {
      let wrapper: Promise<unknown>;
      try {
        // GetMethod: a this of undefined or null throws here (GetV), as a missing `return` does not.
        const method = (this as { return?: unknown }).return;
        if (method === undefined || method === null) return resolve(undefined) as Promise<undefined>;
        if (typeof method !== "function") throw new TypeError("iterator.return is not a function");
        wrapper = resolve(Reflect.apply(method, this, [undefined]));
      } catch (error) {
        return reject(error);
      }
      return Reflect.apply(then, wrapper, [unwrap]);
    },
  };
  Object.defineProperty(AsyncIteratorPrototype, asyncDispose, {
    value: methods[asyncDispose],
    writable: true,
    configurable: true,
    enumerable: false,
  });
}
