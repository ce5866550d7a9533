import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { IsolateHost } from "../../sandbox/index.ts";
import { hostFor, json, recordingIO, request } from "./helpers.ts";

/**
 * Issue 38: `structuredClone` in the isolate (sandbox/guest/clone.ts) against what Deno 2.9.6 printed
 * for the same program (2026-11-28): views keep their offsets and share their buffer, holes stay,
 * what is not serializable is a DataCloneError, errors keep their kind and cause.
 */
const PROGRAM = `
export default { async fetch() {
  const out = {};
  const buf = new ArrayBuffer(16);
  const a = new Uint8Array(buf, 4, 8); const b = new Uint16Array(buf, 2, 3);
  const c = structuredClone({ a, b, d: new DataView(buf, 1, 5) });
  out.views = [c.a.byteOffset, c.a.length, c.b.byteOffset, c.b.length, c.a.buffer === c.b.buffer, c.a.buffer.byteLength, c.d.byteOffset, c.d.byteLength, c.d.buffer === c.a.buffer];
  const holes = structuredClone([1, , 3]);
  out.holes = [holes.length, 1 in holes];
  const t = new ArrayBuffer(8);
  const moved = structuredClone(t, { transfer: [t] });
  out.transfer = [t.byteLength, moved.byteLength];
  out.refuse = [new WeakMap(), new WeakSet(), Promise.resolve(), new Request("http://x/"), new Headers(), new ReadableStream(), () => 1, Symbol("s"), { f() {} }]
    .map((v) => { try { structuredClone(v); return "cloned"; } catch (e) { return e.name; } });
  const e = structuredClone(new RangeError("r", { cause: { n: 1 } }));
  out.error = [e instanceof RangeError, e.message, e.cause.n, Object.keys(e).length];
  const cyc = { m: new Map([[1, new Set([2])]]), d: new Date(5), r: /a/gi, n: Object(3n), s: Object("x") }; cyc.self = cyc;
  const cc = structuredClone(cyc);
  out.misc = [cc.self === cc, cc.m.get(1).has(2), cc.d.getTime(), cc.r.flags, typeof cc.n, String(cc.n), cc.s instanceof String];
  class Point { constructor() { this.x = 1; } get y() { return 2; } }
  const p = structuredClone(new Point());
  out.plain = [Object.getPrototypeOf(p) === Object.prototype, p.x, p.y];
  out.file = await structuredClone(new File(["hi"], "a.txt", { type: "text/plain" })).text();
  return Response.json(out);
} };`;

let host: IsolateHost;
beforeAll(async () => {
  host = await hostFor(PROGRAM, { memoryLimitMb: 64, cpuTimeLimitMs: 2_000, wallTimeLimitMs: 5_000 });
});
afterAll(() => host.dispose());

describe("structuredClone (issue 38)", () => {
  it("answers as Deno does", async () => {
    expect(await json(await host.invoke(request("https://fn.example/"), recordingIO()))).toEqual({
      views: [4, 8, 2, 3, true, 16, 1, 5, true],
      holes: [3, false],
      // Detached, as in Deno: on Node 20 through V8's transfer flag (sandbox/v8-flags.ts).
      transfer: [0, 8],
      refuse: Array(9).fill("DataCloneError"),
      error: [true, "r", 1, 0],
      misc: [true, true, 5, "gi", "object", "3", true],
      plain: [true, 1, null],
      file: "hi",
    });
  });
});
