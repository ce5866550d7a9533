import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileFunction } from "../../runtime/index.ts";
import type { IsolateHost } from "../../sandbox/index.ts";
import { hostFor, json, recordingIO, request } from "./helpers.ts";

/**
 * Issue 38: the ES2024–2026 built-ins a function gets on every Node line (runtime/polyfills.ts:
 * V8's own where it has them, core-js's where not, put ahead of the code of a function that names
 * them), run inside a real isolate. The cases follow
 * test262's for each built-in; the expectations hold on every line, native or polyfilled.
 */

const GUEST = `
const failure = (fn) => { try { fn(); return "no error"; } catch (e) { return e.constructor.name; } };
const rejection = (promise) => promise.then((v) => ["resolved", v], (e) => ["rejected", e.constructor.name]);
const AsyncIteratorPrototype = Object.getPrototypeOf(Object.getPrototypeOf(async function* () {}.prototype));
const IteratorPrototype = Object.getPrototypeOf(Object.getPrototypeOf([].keys()));
/** A set-like (size, has, keys) that logs the protocol's reads and calls. */
const setLike = (values, log) => new Proxy({
  size: values.length,
  has(v) { log.push("has " + v); return values.includes(v); },
  keys() { log.push("keys"); return values[Symbol.iterator](); },
}, { get(target, key) { if (typeof key === "string") log.push("get " + key); return target[key]; } });
/** An iterator (not an Iterator) that logs next() and return(). */
const counting = (log, limit = 5) => {
  let i = 0;
  return Object.setPrototypeOf({
    next() { log.push("next"); return i < limit ? { value: ++i, done: false } : { value: undefined, done: true }; },
    return() { log.push("return"); return {}; },
  }, IteratorPrototype);
};

const METHODS = {
  "Object.groupBy": [Object, "groupBy", 2], "Map.groupBy": [Map, "groupBy", 2],
  "Promise.withResolvers": [Promise, "withResolvers", 0], "Promise.try": [Promise, "try", 1],
  "Array.fromAsync": [Array, "fromAsync", 1],
  ...Object.fromEntries(["union", "intersection", "difference", "symmetricDifference", "isSubsetOf", "isSupersetOf", "isDisjointFrom"]
    .map((name) => ["Set.prototype." + name, [Set.prototype, name, 1]])),
  "Iterator.from": [globalThis.Iterator, "from", 1],
  ...Object.fromEntries(["map", "filter", "take", "drop", "flatMap", "reduce", "forEach", "some", "every", "find"]
    .map((name) => ["Iterator.prototype." + name, [globalThis.Iterator?.prototype, name, 1]])),
  "Iterator.prototype.toArray": [globalThis.Iterator?.prototype, "toArray", 0],
  "Iterator.prototype[Symbol.dispose]": [IteratorPrototype, Symbol.dispose, 0],
  "AsyncIteratorPrototype[Symbol.asyncDispose]": [AsyncIteratorPrototype, Symbol.asyncDispose, 0],
  "Uint8Array.fromBase64": [Uint8Array, "fromBase64", 1], "Uint8Array.fromHex": [Uint8Array, "fromHex", 1],
  "Uint8Array.prototype.toBase64": [Uint8Array.prototype, "toBase64", 0], "Uint8Array.prototype.toHex": [Uint8Array.prototype, "toHex", 0],
  "Uint8Array.prototype.setFromBase64": [Uint8Array.prototype, "setFromBase64", 1], "Uint8Array.prototype.setFromHex": [Uint8Array.prototype, "setFromHex", 1],
  "Math.sumPrecise": [Math, "sumPrecise", 1], "RegExp.escape": [RegExp, "escape", 1],
  "Iterator": [globalThis, "Iterator", 0], "DisposableStack": [globalThis, "DisposableStack", 0],
  "AsyncDisposableStack": [globalThis, "AsyncDisposableStack", 0], "SuppressedError": [globalThis, "SuppressedError", 3],
  "Array.prototype.toSorted": [Array.prototype, "toSorted", 1], "Array.prototype.toReversed": [Array.prototype, "toReversed", 0],
  "Array.prototype.with": [Array.prototype, "with", 2], "Array.prototype.toSpliced": [Array.prototype, "toSpliced", 2],
  "Array.prototype.findLast": [Array.prototype, "findLast", 1], "Array.prototype.findLastIndex": [Array.prototype, "findLastIndex", 1],
};

const checks = {
  descriptors() {
    const out = {};
    for (const [label, [target, key, length]] of Object.entries(METHODS)) {
      const d = target && Object.getOwnPropertyDescriptor(target, key);
      const expectedName = typeof key === "symbol" ? "[" + key.description + "]" : key;
      // true when right, else the name it has (a failure then shows it).
      out[label] = d ? [typeof d.value, d.enumerable, d.writable, d.configurable, d.value.name === expectedName || d.value.name, d.value.length === length] : "missing";
    }
    const tag = Object.getOwnPropertyDescriptor(Iterator.prototype, Symbol.toStringTag);
    out["Iterator.prototype[Symbol.toStringTag]"] = [tag.get.name, tag.set.name, tag.enumerable, tag.configurable];
    const detached = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, "detached");
    out["ArrayBuffer.prototype.detached"] = [typeof detached.get, detached.set, detached.enumerable, detached.configurable, detached.get.name];
    for (const name of ["dispose", "asyncDispose"]) {
      const d = Object.getOwnPropertyDescriptor(Symbol, name);
      out["Symbol." + name] = [typeof d.value, d.value.description, d.enumerable, d.writable, d.configurable, Symbol.keyFor(d.value)];
    }
    return out;
  },
  nothingEnumerable() {
    const touched = { Object, Map, Promise, Array, Set: Set.prototype, ArrayBuffer: ArrayBuffer.prototype, Iterator,
      IteratorPrototype, AsyncIteratorPrototype, Uint8Array, Uint8ArrayPrototype: Uint8Array.prototype, Math, RegExp,
      Symbol, FunctionPrototype: Function.prototype, DisposableStack: DisposableStack.prototype };
    const forIn = [];
    for (const key in globalThis) forIn.push(key);
    return {
      globalKeys: Object.keys(globalThis),
      forIn,
      enumerable: Object.entries(touched).filter(([, o]) => Object.keys(o).length > 0).map(([name]) => name),
      coreJs: Object.getOwnPropertyNames(globalThis).filter((name) => /core-?js/i.test(name)),
      toString: [Object.groupBy.toString(), Function.prototype.toString.call((a) => a), Function.prototype.toString.name,
        Function.prototype.toString.length, failure(() => Function.prototype.toString.call({}))],
    };
  },
  groupBy() {
    const indexes = [];
    const byParity = Object.groupBy([1, 2, 3, 4, 5], (n, i) => (indexes.push(i), n % 2 ? "odd" : "even"));
    const fromSet = Object.groupBy(new Set(["ab", "c", "de"]), (s) => s.length);
    const map = Map.groupBy([-0, 0, 1, 1.5], (n) => (Number.isInteger(n) ? n : "fraction"));
    return {
      byParity, keys: Object.keys(byParity), proto: Object.getPrototypeOf(byParity), indexes,
      fromString: Object.groupBy("aab", (c) => c),
      fromSet, numericKeys: Object.keys(fromSet),
      map: [map instanceof Map, [...map.keys()].map((k) => (Object.is(k, -0) ? "-0" : k)), [...map.values()]],
      errors: [failure(() => Object.groupBy(null, (x) => x)), failure(() => Object.groupBy([], null)), failure(() => Map.groupBy([1], 1))],
    };
  },
  setMethods() {
    const log = [];
    const base = new Set([1, 2, 3]);
    const intersection = [...base.intersection(setLike([2, 9], log))];
    const intersectionLog = log.splice(0);
    const subset = new Set([1, 2]).isSubsetOf(setLike([2, 3, 4], log));
    const subsetLog = log.splice(0);
    return {
      union: [...base.union(setLike([3, 4], log))],
      intersection, intersectionLog, subset, subsetLog,
      difference: [...base.difference(new Set([2]))],
      symmetricDifference: [...base.symmetricDifference(new Set([3, 4]))],
      superset: [base.isSupersetOf(new Set([1, 3])), base.isSupersetOf(new Set([4]))],
      disjoint: [base.isDisjointFrom(new Set([7])), base.isDisjointFrom(new Set([3]))],
      mapAsSetLike: [...base.union(new Map([[5, "five"]]))],
      thisUnchanged: [...base],
      errors: [
        failure(() => base.union([4])), // an array has no size: not set-like
        failure(() => base.union({ size: -1, has() {}, keys() {} })),
        failure(() => base.union({ size: 1, has: 1, keys() {} })),
        failure(() => Set.prototype.union.call(new Map(), new Set())),
      ],
    };
  },
  async promises() {
    const resolvers = Promise.withResolvers();
    resolvers.resolve(42);
    class Sub extends Promise {}
    const sub = Promise.withResolvers.call(Sub);
    let tried = "not yet";
    // Handled at once: an unhandled rejection would fail the request.
    const thrown = rejection(Promise.try(() => { throw new RangeError("no"); }));
    const called = Promise.try((a, b) => { tried = "sync"; return a + b; }, 1, 2);
    const triedAtOnce = tried;
    return {
      keys: Object.keys(resolvers), value: await resolvers.promise, sub: sub.promise instanceof Sub,
      notConstructor: failure(() => Promise.withResolvers.call({})),
      tryValue: await called, triedAtOnce, tryThrown: await thrown,
    };
  },
  async fromAsync() {
    async function* letters() { yield "a"; yield "b"; }
    const thenable = { then(resolve) { resolve("then"); } };
    return {
      asyncIterable: await Array.fromAsync(letters()),
      syncOfPromises: await Array.fromAsync([Promise.resolve(1), thenable, 3]),
      arrayLike: await Array.fromAsync({ length: 2, 0: Promise.resolve("x"), 1: "y" }),
      mapped: await Array.fromAsync([1, 2], async (n, i) => n * 10 + i),
      badMapper: await rejection(Array.fromAsync([1], 5)),
      rejected: await rejection(Array.fromAsync([{ then(_, reject) { reject(new TypeError("boom")); } }])),
      isPromise: Array.fromAsync([]) instanceof Promise,
    };
  },
  iteratorHelpers() {
    const log = [];
    function* numbers() { log.push("start"); yield 1; log.push("after 1"); yield 2; yield 3; }
    const mapped = numbers().map((n) => (log.push("map " + n), n * 2));
    const lazy = log.length;
    const first = mapped.next().value;
    const afterFirst = log.splice(0);
    const closing = [];
    const take = counting(closing).take(2).toArray();
    const takeLog = closing.splice(0);
    const found = counting(closing).find((n) => n === 2);
    const findLog = closing.splice(0);
    const badArgument = failure(() => counting(closing).take(-1));
    const badArgumentLog = closing.splice(0);
    const badMapper = failure(() => counting(closing).map(1));
    const badMapperLog = closing.splice(0);
    const wrapped = Iterator.from({ next: () => ({ done: true }) });
    class Counter extends Iterator { next() { return { done: true }; } }
    const arrayIterator = [1][Symbol.iterator]();
    return {
      lazy, first, afterFirst, take, takeLog, found, findLog, badArgument, badArgumentLog, badMapper, badMapperLog,
      chain: [1, 2, 3, 4, 5].values().filter((n) => n % 2).map((n) => n * n).drop(1).toArray(),
      flatMap: [1, 2].values().flatMap((n) => [n, -n]).toArray(),
      flatMapString: failure(() => [1].values().flatMap(() => "ab").next()),
      reduce: [[1, 2, 3].values().reduce((a, b) => a + b), [].values().reduce((a, b) => a + b, "init"), failure(() => [].values().reduce((a, b) => a + b))],
      someEvery: [[1, 2].values().some((n) => n > 1), [1, 2].values().every((n) => n > 1)],
      forEach: (() => { const seen = []; [5, 6].values().forEach((v, i) => seen.push([v, i])); return seen; })(),
      from: [wrapped instanceof Iterator, Iterator.from(arrayIterator) === arrayIterator, Iterator.from("ab").toArray()],
      abstract: failure(() => new Iterator()),
      subclass: new Counter() instanceof Iterator,
      tag: [Iterator.prototype[Symbol.toStringTag], Object.prototype.toString.call([].values().map((x) => x))],
    };
  },
  async disposal() {
    const weak = new WeakSet();
    weak.add(Symbol.dispose);
    const order = [];
    const stack = new DisposableStack();
    stack.use({ [Symbol.dispose]() { order.push("used"); } });
    stack.defer(() => order.push("deferred"));
    stack.adopt("value", (v) => order.push("adopted " + v));
    const moved = stack.move();
    const movedState = [stack.disposed, moved.disposed];
    moved.dispose();
    const afterDispose = [moved.disposed, failure(() => moved.use({ [Symbol.dispose]() {} }))];
    const failing = new DisposableStack();
    failing.defer(() => { throw new Error("first registered, thrown last"); });
    failing.defer(() => { throw new TypeError("thrown first"); });
    let suppressed;
    try { failing.dispose(); } catch (e) { suppressed = [e.constructor.name, e.error.message, e.suppressed.message, e instanceof Error]; }
    const asyncOrder = [];
    const asyncStack = new AsyncDisposableStack();
    asyncStack.use({ async [Symbol.asyncDispose]() { await null; asyncOrder.push("async"); } });
    asyncStack.use({ [Symbol.dispose]() { asyncOrder.push("sync"); } });
    await asyncStack.disposeAsync();
    const returns = [];
    const iterator = counting(returns);
    iterator[Symbol.dispose]();
    const args = [];
    const asyncResult = await AsyncIteratorPrototype[Symbol.asyncDispose].call({ return(...a) { args.push(a.length, a[0]); return 7; } });
    const noReturn = await AsyncIteratorPrototype[Symbol.asyncDispose].call({});
    // \`using\` is syntax: the deploy compiler (esbuild, target ES2022) lowers it onto Symbol.dispose.
    const usingOrder = [];
    {
      using resource = { [Symbol.dispose]() { usingOrder.push("disposed"); } };
      await using asyncResource = { async [Symbol.asyncDispose]() { usingOrder.push("async disposed"); } };
      usingOrder.push("body");
    }
    return {
      symbols: [typeof Symbol.dispose, typeof Symbol.asyncDispose, Symbol.dispose !== Symbol.asyncDispose, weak.has(Symbol.dispose)],
      shared: DisposableStack.prototype[Symbol.dispose] === DisposableStack.prototype.dispose,
      asyncShared: AsyncDisposableStack.prototype[Symbol.asyncDispose] === AsyncDisposableStack.prototype.disposeAsync,
      order, movedState, afterDispose, suppressed, asyncOrder, iteratorReturn: returns,
      asyncIteratorDispose: [asyncResult, args, noReturn],
      tags: [Object.prototype.toString.call(stack), Object.prototype.toString.call(asyncStack)],
      suppressedError: (() => { const e = new SuppressedError(1, 2, "m"); return [e.error, e.suppressed, e.message, e.name, e instanceof Error]; })(),
      usingOrder,
    };
  },
  bytes() {
    const hello = new Uint8Array([72, 101, 108, 108, 111]);
    const target = new Uint8Array(8);
    const result = target.setFromBase64("SGVsbG8=");
    const hexTarget = new Uint8Array(2);
    return {
      toBase64: [hello.toBase64(), new Uint8Array([251, 255]).toBase64({ alphabet: "base64url" }), hello.toBase64({ omitPadding: true })],
      fromBase64: [...Uint8Array.fromBase64("SGVs bG8=")],
      fromBase64url: [...Uint8Array.fromBase64("-_8", { alphabet: "base64url" })],
      strict: failure(() => Uint8Array.fromBase64("SGVsbG9=", { lastChunkHandling: "strict" })),
      loose: [...Uint8Array.fromBase64("SGVsbG8", { lastChunkHandling: "loose" })],
      stopBeforePartial: [...Uint8Array.fromBase64("SGVsbG8", { lastChunkHandling: "stop-before-partial" })],
      notString: failure(() => Uint8Array.fromBase64(1)),
      setFromBase64: [result, [...target]],
      toHex: hello.toHex(),
      fromHex: [...Uint8Array.fromHex("48656C6c6F")],
      oddHex: failure(() => Uint8Array.fromHex("abc")),
      setFromHex: [hexTarget.setFromHex("cafe00"), [...hexTarget]],
      notUint8: failure(() => Uint8Array.prototype.toHex.call(new Uint16Array(1))),
    };
  },
  numbers() {
    return {
      sum: [Math.sumPrecise([1e308, 1e308, -1e308]), Math.sumPrecise([0.1, 0.2, 0.3]), [0.1, 0.2, 0.3].reduce((a, b) => a + b)],
      empty: Object.is(Math.sumPrecise([]), -0), negativeZero: Object.is(Math.sumPrecise([-0, -0]), -0),
      special: [String(Math.sumPrecise([Infinity, 1])), String(Math.sumPrecise([Infinity, -Infinity])), String(Math.sumPrecise([NaN]))],
      sumErrors: [failure(() => Math.sumPrecise([1, "2"])), failure(() => Math.sumPrecise(1))],
      escape: [RegExp.escape("foo.bar"), RegExp.escape("a b"), RegExp.escape("(1+1)"), RegExp.escape("_x"), RegExp.escape("a\\tb\\r\\n-=")],
      escapedMatches: new RegExp(RegExp.escape("1.5*x")).test("1.5*x") && !new RegExp(RegExp.escape("1.5*x")).test("125*x"),
      escapeError: failure(() => RegExp.escape(1)),
    };
  },
  buffers() {
    const memory = new WebAssembly.Memory({ initial: 1 });
    const old = memory.buffer;
    memory.grow(1);
    const transfer = ArrayBuffer.prototype.transfer;
    let transferred = "absent";
    if (transfer) { const b = new ArrayBuffer(4); const c = b.transfer(8); transferred = [b.detached, c.byteLength]; }
    return {
      detached: [new ArrayBuffer(8).detached, new ArrayBuffer(0).detached, old.detached, failure(() => Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, "detached").get.call(new SharedArrayBuffer(1)))],
      transferred,
      es2023: [[3, 1, 2].toSorted(), [1, 2].toReversed(), [1, 2].with(0, 9), [1, 2, 3].toSpliced(1, 1), [1, 2, 3].findLast((n) => n < 3)],
    };
  },
  async exportKey() {
    const { subtle } = crypto;
    const hidden = await subtle.generateKey({ name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    const shown = await subtle.generateKey({ name: "HMAC", hash: "SHA-256", length: 256 }, true, ["sign"]);
    const wrapper = await subtle.generateKey({ name: "AES-KW", length: 128 }, false, ["wrapKey"]);
    const name = (promise) => promise.then(() => "resolved", (e) => [e.constructor.name, e.name]);
    return {
      raw: await name(subtle.exportKey("raw", hidden)),
      jwk: await name(subtle.exportKey("jwk", hidden)),
      wrap: await name(subtle.wrapKey("raw", hidden, wrapper, "AES-KW")),
      extractable: (await subtle.exportKey("raw", shown)).byteLength,
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
  host = await hostFor(GUEST, { memoryLimitMb: 64, cpuTimeLimitMs: 2_000, wallTimeLimitMs: 5_000 });
});
afterAll(() => host.dispose());

const check = async (name: string) =>
  json(await host.invoke(request(`https://fn.example/${name}`), recordingIO()));

describe("the built-ins a function gets (issue 38)", () => {
  it("has each as a non-enumerable, writable, configurable own property with the spec's name and length", async () => {
    const descriptors = await check("descriptors");
    const fn = ["function", false, true, true, true, true];
    for (const [label, value] of Object.entries(descriptors)) {
      if (label === "ArrayBuffer.prototype.detached")
        expect(value, label).toEqual(["function", null, false, true, "get detached"]);
      else if (label === "Iterator.prototype[Symbol.toStringTag]")
        expect(value, label).toEqual(["get [Symbol.toStringTag]", "set [Symbol.toStringTag]", false, true]);
      else if (label.startsWith("Symbol."))
        expect(value, label).toEqual(["symbol", label, false, false, false, null]);
      else expect(value, label).toEqual(fn);
    }
    expect(Object.keys(descriptors)).toHaveLength(48);
  });

  it("adds nothing enumerable: not to the global, not to the objects it extends; core-js's store is not on the global", async () => {
    const result = await check("nothingEnumerable");
    expect(result).toEqual({
      globalKeys: ["__tessera_module"],
      forIn: ["__tessera_module"],
      enumerable: [],
      coreJs: [],
      toString: ["function groupBy() { [native code] }", "(a) => a", "toString", 0, "TypeError"],
    });
  });

  it("groups with Object.groupBy and Map.groupBy: any iterable, keys in first-seen order, a null-prototype result", async () => {
    expect(await check("groupBy")).toEqual({
      byParity: { odd: [1, 3, 5], even: [2, 4] },
      keys: ["odd", "even"],
      proto: null,
      indexes: [0, 1, 2, 3, 4],
      fromString: { a: ["a", "a"], b: ["b"] },
      fromSet: { 1: ["c"], 2: ["ab", "de"] },
      numericKeys: ["1", "2"],
      // Map.groupBy keeps keys as values, -0 made +0 (a -0 key would read "-0" here).
      map: [true, [0, 1, "fraction"], [[0, 0], [1], [1.5]]],
      errors: ["TypeError", "TypeError", "TypeError"],
    });
  });

  it("runs the Set methods on set-likes through size, has and keys, as the spec orders them", async () => {
    expect(await check("setMethods")).toEqual({
      union: [1, 2, 3, 4],
      intersection: [2],
      // this (3) larger than the other (2): the other's keys are walked, its has() never called.
      intersectionLog: ["get size", "get has", "get keys", "keys"],
      subset: false,
      // this (2) not larger: has() is asked for each of this's elements, stopping at the first miss.
      subsetLog: ["get size", "get has", "get keys", "has 1"],
      difference: [1, 3],
      symmetricDifference: [1, 2, 4],
      superset: [true, false],
      disjoint: [true, false],
      mapAsSetLike: [1, 2, 3, 5],
      thisUnchanged: [1, 2, 3],
      errors: ["TypeError", "RangeError", "TypeError", "TypeError"],
    });
  });

  it("makes Promise.withResolvers (subclass-aware) and Promise.try (calls at once, rejects a throw)", async () => {
    expect(await check("promises")).toEqual({
      keys: ["promise", "resolve", "reject"],
      value: 42,
      sub: true,
      notConstructor: "TypeError",
      tryValue: 3,
      triedAtOnce: "sync",
      tryThrown: ["rejected", "RangeError"],
    });
  });

  it("awaits async iterables, promises, thenables and array-likes in Array.fromAsync", async () => {
    expect(await check("fromAsync")).toEqual({
      asyncIterable: ["a", "b"],
      syncOfPromises: [1, "then", 3],
      arrayLike: ["x", "y"],
      mapped: [10, 21],
      badMapper: ["rejected", "TypeError"],
      rejected: ["rejected", "TypeError"],
      isPromise: true,
    });
  });

  it("runs iterator helpers lazily and closes the underlying iterator when done early or given a bad argument", async () => {
    expect(await check("iteratorHelpers")).toEqual({
      lazy: 0,
      first: 2,
      afterFirst: ["start", "map 1"],
      take: [1, 2],
      takeLog: ["next", "next", "return"],
      found: 2,
      findLog: ["next", "next", "return"],
      badArgument: "RangeError",
      badArgumentLog: ["return"],
      badMapper: "TypeError",
      badMapperLog: ["return"],
      chain: [9, 25],
      flatMap: [1, -1, 2, -2],
      flatMapString: "TypeError",
      reduce: [6, "init", "TypeError"],
      someEvery: [true, false],
      forEach: [
        [5, 0],
        [6, 1],
      ],
      from: [true, true, ["a", "b"]],
      abstract: "TypeError",
      subclass: true,
      tag: ["Iterator", "[object Iterator Helper]"],
    });
  });

  it("has Symbol.dispose shared by DisposableStack, AsyncDisposableStack, iterators and the compiler's `using`", async () => {
    expect(await check("disposal")).toEqual({
      symbols: ["symbol", "symbol", true, true],
      shared: true,
      asyncShared: true,
      order: ["adopted value", "deferred", "used"],
      movedState: [true, false],
      afterDispose: [true, "ReferenceError"],
      // The last error thrown wraps the one before it.
      suppressed: ["SuppressedError", "first registered, thrown last", "thrown first", true],
      asyncOrder: ["sync", "async"],
      iteratorReturn: ["return"],
      asyncIteratorDispose: [null, [1, null], null],
      tags: ["[object DisposableStack]", "[object AsyncDisposableStack]"],
      suppressedError: [1, 2, "m", "SuppressedError", true],
      usingOrder: ["body", "async disposed", "disposed"],
    });
  });

  it("encodes and decodes base64 and hex on Uint8Array", async () => {
    expect(await check("bytes")).toEqual({
      toBase64: ["SGVsbG8=", "-_8=", "SGVsbG8"],
      fromBase64: [72, 101, 108, 108, 111],
      fromBase64url: [251, 255],
      strict: "SyntaxError",
      loose: [72, 101, 108, 108, 111],
      stopBeforePartial: [72, 101, 108],
      notString: "TypeError",
      setFromBase64: [{ read: 8, written: 5 }, [72, 101, 108, 108, 111, 0, 0, 0]],
      toHex: "48656c6c6f",
      fromHex: [72, 101, 108, 108, 111],
      oddHex: "SyntaxError",
      setFromHex: [{ read: 4, written: 2 }, [202, 254]],
      notUint8: "TypeError",
    });
  });

  it("sums exactly with Math.sumPrecise and escapes with RegExp.escape", async () => {
    expect(await check("numbers")).toEqual({
      sum: [1e308, 0.6, 0.6000000000000001],
      empty: true,
      negativeZero: true,
      special: ["Infinity", "NaN", "NaN"],
      sumErrors: ["TypeError", "TypeError"],
      escape: ["\\x66oo\\.bar", "\\x61\\x20b", "\\(1\\+1\\)", "_x", "\\x61\\tb\\r\\n\\x2d\\x3d"],
      escapedMatches: true,
      escapeError: "TypeError",
    });
  });

  // transfer cannot be polyfilled (nothing else detaches): Node 20's V8 has it behind a flag the
  // sandbox sets (sandbox/v8-flags.ts), later lines without one.
  it("tells a detached ArrayBuffer; has transfer on every Node line", async () => {
    expect(await check("buffers")).toEqual({
      detached: [false, false, true, "TypeError"],
      transferred: [true, 8],
      es2023: [[1, 2, 3], [2, 1], [9, 2], [1, 3], 2],
    });
  });
});

describe("crypto.subtle.exportKey", () => {
  it("rejects exporting or wrapping a key that is not extractable with InvalidAccessError", async () => {
    expect(await check("exportKey")).toEqual({
      raw: ["DOMException", "InvalidAccessError"],
      jwk: ["DOMException", "InvalidAccessError"],
      wrap: ["DOMException", "InvalidAccessError"],
      extractable: 32,
    });
  });
});

describe("which functions get them", () => {
  const bundle = (source: string) =>
    compileFunction({ "index.ts": source }, "index.ts", { maxBundleBytes: 10 * 1024 * 1024 });

  it("puts core-js ahead of a function that names a built-in, and nothing ahead of one that does not", async () => {
    const plain = await bundle(`export default { fetch: () => new Response([1, 2].map(String).join()) };`);
    expect(plain.code).not.toContain("__core-js_shared__");
    const grouping = await bundle(
      `export default { fetch: () => Response.json(Object.groupBy([1, 2, 3], (n) => n % 2 ? "odd" : "even")) };`,
    );
    expect(grouping.code).toContain("__core-js_shared__");
    expect(grouping.bytes - plain.bytes).toBeGreaterThan(1000);
    // Only what is named: grouping brings no Set methods or base64.
    expect(grouping.code).not.toContain("symmetricDifference");
    expect(grouping.code).not.toContain("fromBase64");
  });

  it("runs a function that names none as before: a built-in its V8 lacks is still missing", async () => {
    const dynamic = await hostFor(
      // A name made at run time (esbuild folds "group" + "By" into the very name it looks for).
      `const name = ["group", "By"].join("");
export default { fetch: () => Response.json({ has: typeof Object[name] }) };`,
    );
    try {
      const seen = await json(await dynamic.invoke(request("https://fn.example/"), recordingIO()));
      // V8 12.4 (Node 22) has Object.groupBy of its own; 11.3 (Node 20) does not.
      expect(seen.has).toBe(Number(process.versions.v8.split(".")[0]) >= 12 ? "function" : "undefined");
    } finally {
      await dynamic.dispose();
    }
  });
});
