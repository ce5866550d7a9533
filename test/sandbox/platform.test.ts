import { webcrypto } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { IsolateHost } from "../../sandbox/index.ts";
import { hostFor, json, recordingIO, request } from "./helpers.ts";

/**
 * The in-isolate web platform, API by API: one guest function computes, and the test
 * compares with what Node's own implementation gives for the same input.
 */
const URL_QUERY_STEPS = `(URL) => {
  const out = [];
  const a = new URL("https://h.example/p?x=1&y=2#f");
  a.search = "?z=3";
  out.push([...a.searchParams], a.href);
  const b = new URL("https://h.example/p?x=1");
  b.href = "https://o.example/q?k=v";
  out.push([...b.searchParams], b.search);
  const c = new URL("https://h.example/p?x=1");
  c.searchParams.set("x", "2");
  c.searchParams.append("w", "a b");
  out.push(c.href, c.search);
  const e = new URL("https://h.example/p?gone");
  e.search = "";
  out.push([...e.searchParams], e.href);
  const f = new URL("?q=1", "https://h.example/base");
  out.push(f.searchParams.get("q"), f.searchParams === f.searchParams, f.searchParams.size);
  const g = new URL("https://h.example/p?s=1");
  g.pathname = "/other";
  g.hash = "h";
  out.push([...g.searchParams], g.href);
  return out;
}`;
/** WPT's fetch/api/headers/headers-basic iteration cases: a Headers changed while it is iterated. */
const HEADERS_LIVE_STEPS = `(Headers) => {
  const names = (init, step) => {
    const headers = new Headers(init);
    const seen = [];
    for (const [name] of headers) {
      seen.push(name);
      step(headers, name);
    }
    return seen;
  };
  const three = [["foo", "1"], ["baz", "2"], ["bar", "3"]];
  return [
    names(three, (h) => h.delete("foo")),
    names(three, (h, name) => name === "baz" && h.delete("bar")),
    names(three, (h, name) => name === "bar" && h.append("qux", "4")),
    names(three, (h, name) => name === "baz" && h.append("aaa", "0")),
    names(three, (h, name) => name === "bar" && h.set("baz", "5")),
  ];
}`;
/**
 * Inputs for the form-urlencoded parser: the plain ones its fast path takes (printable
 * ASCII, no % or +) and their edges, and the ones it must leave to the reference parser.
 */
const FORM_INPUTS = [
  "",
  "n=42",
  "a=1&b=2&a=3",
  "&&a=1&&b&&",
  "=",
  "=x",
  "a==b=c",
  "a&b=&=c",
  "?x=1",
  "a=b c&d=e\\f",
  "key=~!*()'\"<>[]{}|^\`,;:@$/?",
  "a=%20b",
  "a+b=c+d",
  "%zz=%e2%82%ac",
  "a=\t&b=\n",
  "ä=ö&€",
  "a=\ud800",
];
const GUEST = `
const enc = new TextEncoder();
const hex = (buffer) => Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");
const checks = {
  form() {
    return ${JSON.stringify(FORM_INPUTS)}.map((input) => [...new URLSearchParams(input)]);
  },
  headersLive() {
    return (${HEADERS_LIVE_STEPS})(Headers);
  },
  urlQuery() {
    return { steps: (${URL_QUERY_STEPS})(URL), parsed: URL.parse("https://h.example/p?m=n").searchParams.get("m") };
  },
  async url() {
    const cases = ["HTTP://Example.COM:80/a/./b/../c?x=1#f", "https://user:pa ss@host.example/p a t h?q=a b", "http://[::1]:8080/", "https://xn--nxasmq6b.example/", "https://bücher.example/", "http://192.168.0.1./", "file:///tmp/x", "https://h/%zz", "https://h.example/\\ud800x?\\udc00#\\ud83d\\ude00"];
    const parsed = cases.map((input) => { try { const u = new URL(input); return [u.href, u.origin, u.host, u.pathname, u.search, u.hash]; } catch (e) { return e.name; } });
    const params = new URLSearchParams("b=2&a=1&a=3&c=%20x+y");
    params.sort();
    // Parses are memoized per isolate: a second parse gives the same answer, and changing one URL changes no other.
    const again = cases.map((input) => { try { const u = new URL(input); return [u.href, u.origin, u.host, u.pathname, u.search, u.hash]; } catch (e) { return e.name; } });
    const first = new URL("http://[::1]:8080/a/b?q#h");
    first.pathname = "/changed"; first.hostname = "[::2]"; first.search = "?x"; first.searchParams.append("y", "1");
    const second = new URL("http://[::1]:8080/a/b?q#h");
    const relatives = [new URL("c", "https://h.example/a/b#one").href, new URL("c", "https://h.example/a/b#two").href, new URL("", "https://h.example/a/b?q#three").href];
    return { parsed, again, mutated: first.href, untouched: second.href, relatives, params: params.toString(), all: params.getAll("a"), relative: new URL("../up?q", "https://h.example/a/b/c").href, invalid: URL.canParse("nope"), stillInvalid: URL.canParse("nope") };
  },
  async encoding() {
    const decoder = new TextDecoder();
    const bytes = enc.encode("h€llo 𝄞!");
    let streamed = "";
    for (let i = 0; i < bytes.length; i++) streamed += decoder.decode(bytes.subarray(i, i + 1), { stream: true });
    streamed += decoder.decode();
    let fatal;
    try { new TextDecoder("utf-8", { fatal: true }).decode(new Uint8Array([0xff])); } catch (e) { fatal = e.name; }
    return {
      bytes: Array.from(bytes), streamed, fatal,
      lossy: new TextDecoder().decode(new Uint8Array([0x61, 0xe2, 0x82, 0x62])),
      bom: [new TextDecoder().decode(new Uint8Array([0xef, 0xbb, 0xbf, 0x61])), new TextDecoder("utf-8", { ignoreBOM: true }).decode(new Uint8Array([0xef, 0xbb, 0xbf, 0x61]))],
      lone: Array.from(enc.encode("\\ud800")),
      btoa: btoa("hello\\xff"), atob: atob(" aGVs bG8= "),
    };
  },
  async headers() {
    const h = new Headers([["Set-Cookie", "a=1"], ["X-B", " two "], ["x-a", "one"], ["set-cookie", "b=2"], ["X-b", "three"]]);
    let invalid;
    try { h.append("bad name", "x"); } catch (e) { invalid = e.name; }
    return { entries: [...h], get: h.get("x-b"), cookies: h.getSetCookie(), invalid };
  },
  async bodies() {
    const r = new Response(JSON.stringify({ a: [1, 2] }), { status: 201, headers: { "content-type": "application/json" } });
    const copy = r.clone();
    const json = await r.json();
    const used = r.bodyUsed;
    let again;
    try { await r.text(); } catch (e) { again = e.name; }
    const blob = await copy.blob();
    const form = new FormData();
    form.append("name", "Ada");
    form.append("file", new Blob(["bytes!"], { type: "text/plain" }), "a.txt");
    const parsed = await new Response(form).formData();
    const redirect = Response.redirect("https://example.com/next", 307);
    const base = new Request("https://example.com/a", { method: "POST", body: "payload", headers: { "x-a": "1" } });
    const derived = new Request(base, { headers: { "x-b": "2" } });
    const urlencoded = await new Request("https://e.example/", { method: "POST", body: new URLSearchParams({ q: "a b" }) }).formData();
    return {
      json, used, again, blob: [blob.type, blob.size, await blob.text()],
      form: [parsed.get("name"), parsed.get("file").name, parsed.get("file").type, await parsed.get("file").text()],
      redirect: [redirect.status, redirect.headers.get("location")],
      error: [Response.error().type, Response.error().status],
      jsonStatic: [Response.json({ x: 1 }).headers.get("content-type"), await Response.json({ x: 1 }).text()],
      derived: [derived.method, derived.headers.get("x-a"), derived.headers.get("x-b"), await derived.text(), base.bodyUsed],
      urlencoded: urlencoded.get("q"),
      arrayBuffer: Array.from(new Uint8Array(await new Response(new Uint8Array([1, 2, 3])).arrayBuffer())),
      getBody: () => null,
      nullStatus: (() => { try { new Response("x", { status: 204 }); } catch (e) { return e.name; } })(),
      getWithBody: (() => { try { new Request("https://e.example/", { body: "x" }); } catch (e) { return e.name; } })(),
    };
  },
  async streams() {
    const upper = new TransformStream({ transform(chunk, c) { c.enqueue(chunk.toUpperCase()); } });
    const out = new Response(new Blob(["hé", "llo"]).stream().pipeThrough(new TextDecoderStream()).pipeThrough(upper).pipeThrough(new TextEncoderStream()));
    const chunks = [];
    for await (const chunk of ReadableStream.from(["a", "b"])) chunks.push(chunk);
    return { piped: await out.text(), from: chunks };
  },
  async clone() {
    const cyclic = { name: "root", when: new Date(0), map: new Map([["k", new Set([1, 2])]]), bytes: new Uint8Array([7]) };
    cyclic.self = cyclic;
    const copy = structuredClone(cyclic);
    let fn;
    try { structuredClone(() => 1); } catch (e) { fn = e.name; }
    return { same: copy === cyclic, cycle: copy.self === copy, date: copy.when instanceof Date && copy.when.getTime(), map: [...copy.map.get("k")], bytes: Array.from(copy.bytes), fn };
  },
  async events() {
    const target = new EventTarget();
    const seen = [];
    target.addEventListener("ping", (e) => seen.push(e.type + ":" + (e.target === target)), { once: true });
    target.dispatchEvent(new Event("ping"));
    target.dispatchEvent(new Event("ping"));
    const controller = new AbortController();
    const any = AbortSignal.any([controller.signal, AbortSignal.timeout(10_000)]);
    controller.abort(new Error("stop"));
    const timeout = AbortSignal.timeout(1);
    await new Promise((resolve) => timeout.addEventListener("abort", resolve));
    let interval = 0;
    await new Promise((resolve) => { const id = setInterval(() => { if (++interval === 3) { clearInterval(id); resolve(); } }, 1); });
    const order = [];
    queueMicrotask(() => order.push("micro"));
    await new Promise((resolve) => setTimeout(() => { order.push("timer"); resolve(); }, 0));
    return { seen, any: [any.aborted, any.reason.message], timeout: timeout.reason.name, interval, order, perf: typeof performance.now(), ua: navigator.userAgent, self: self === globalThis };
  },
  async console() {
    console.log("plain", 1, { a: [1, { b: "x" }], m: new Map([[1, 2]]) }, [1, 2], null, undefined);
    console.warn("%s is %d years", "Ada", 36.6, "extra");
    console.error(new TypeError("bad"));
    return {};
  },
  async crypto() {
    const subtle = crypto.subtle;
    const digest = hex(await subtle.digest("SHA-256", enc.encode("abc")));
    const hmacKey = await subtle.importKey("raw", enc.encode("secret"), { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
    const hmac = hex(await subtle.sign("HMAC", hmacKey, enc.encode("message")));
    const hmacOk = await subtle.verify("HMAC", hmacKey, new Uint8Array(Array.from(hmac.match(/../g), (x) => parseInt(x, 16))), enc.encode("message"));
    const aesKey = await subtle.importKey("raw", new Uint8Array(16).fill(1), "AES-GCM", true, ["encrypt", "decrypt"]);
    const iv = new Uint8Array(12).fill(2);
    const sealed = await subtle.encrypt({ name: "AES-GCM", iv }, aesKey, enc.encode("top secret"));
    const opened = new TextDecoder().decode(await subtle.decrypt({ name: "AES-GCM", iv }, aesKey, sealed));
    const ec = await subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"]);
    const ecSig = hex(await subtle.sign({ name: "ECDSA", hash: "SHA-256" }, ec.privateKey, enc.encode("signed")));
    const ecJwk = await subtle.exportKey("jwk", ec.publicKey);
    const ed = await subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"]);
    const edSig = hex(await subtle.sign("Ed25519", ed.privateKey, enc.encode("signed")));
    const edRaw = hex(await subtle.exportKey("raw", ed.publicKey));
    let unknown;
    try { await subtle.digest("MD5", enc.encode("x")); } catch (e) { unknown = e.name; }
    const values = crypto.getRandomValues(new Uint32Array(4));
    return {
      digest, hmac, hmacOk, sealed: hex(sealed), opened, ecSig, ecJwk, edSig, edRaw, unknown,
      key: [hmacKey instanceof CryptoKey, hmacKey.type, hmacKey.algorithm.name, hmacKey.algorithm.hash.name, hmacKey.usages, hmacKey.extractable],
      random: values.length, uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(crypto.randomUUID()),
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

const io = recordingIO();
const check = async (name: string) => json(await host.invoke(request(`https://fn.example/${name}`), io));
const hex = (buffer: ArrayBuffer) => Buffer.from(buffer).toString("hex");
const bytes = (hexText: string) => Buffer.from(hexText, "hex");

describe("the guest platform, compared with Node's", () => {
  it("parses URLs as Node's URL does (whatwg-url), IDNA included", async () => {
    const cases = [
      "HTTP://Example.COM:80/a/./b/../c?x=1#f",
      "https://user:pa ss@host.example/p a t h?q=a b",
      "http://[::1]:8080/",
      "https://xn--nxasmq6b.example/",
      "https://bücher.example/",
      "http://192.168.0.1./",
      "file:///tmp/x",
      "https://h/%zz",
      // Lone surrogates become U+FFFD (WebIDL USVString); a pair is kept.
      "https://h.example/\ud800x?\udc00#\ud83d\ude00",
    ];
    const expected = cases.map((input) => {
      const u = new URL(input);
      return [u.href, u.origin, u.host, u.pathname, u.search, u.hash];
    });
    const params = new URLSearchParams("b=2&a=1&a=3&c=%20x+y");
    params.sort();
    const mutated = new URL("http://[::1]:8080/a/b?q#h");
    mutated.pathname = "/changed";
    mutated.hostname = "[::2]";
    mutated.search = "?x";
    mutated.searchParams.append("y", "1");
    expect(await check("url")).toEqual({
      parsed: expected,
      again: expected,
      mutated: mutated.href,
      untouched: "http://[::1]:8080/a/b?q#h",
      relatives: [
        new URL("c", "https://h.example/a/b#one").href,
        new URL("c", "https://h.example/a/b#two").href,
        new URL("", "https://h.example/a/b?q#three").href,
      ],
      params: params.toString(),
      all: ["1", "3"],
      relative: new URL("../up?q", "https://h.example/a/b/c").href,
      invalid: false,
      stillInvalid: false,
    });
  });

  it("parses application/x-www-form-urlencoded as Node's URLSearchParams does (plain ASCII on a fast path)", async () => {
    expect(await check("form")).toEqual(FORM_INPUTS.map((input) => [...new URLSearchParams(input)]));
  });

  it("keeps a URL's searchParams in step with its query as Node's URL does (made on first use in the guest)", async () => {
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the same steps run in both
    const steps = new Function(`return ${URL_QUERY_STEPS}`)() as (url: typeof URL) => unknown[];
    expect(await check("urlQuery")).toEqual({ steps: steps(URL), parsed: "n" });
  });

  it("encodes and decodes UTF-8 as Node's TextEncoder/TextDecoder, streaming split characters", async () => {
    const result = await check("encoding");
    expect(result).toEqual({
      bytes: Array.from(new TextEncoder().encode("h€llo 𝄞!")),
      streamed: "h€llo 𝄞!",
      fatal: "TypeError",
      lossy: new TextDecoder().decode(new Uint8Array([0x61, 0xe2, 0x82, 0x62])),
      bom: ["a", "\ufeffa"],
      lone: Array.from(new TextEncoder().encode("\ud800")),
      btoa: btoa("hello\xff"),
      atob: atob(" aGVs bG8= "),
    });
  });

  it("iterates Headers sorted and combined, set-cookie apart, as Node's Headers", async () => {
    const h = new Headers([
      ["Set-Cookie", "a=1"],
      ["X-B", " two "],
      ["x-a", "one"],
      ["set-cookie", "b=2"],
      ["X-b", "three"],
    ]);
    expect(await check("headers")).toEqual({
      entries: [...h],
      get: h.get("x-b"),
      cookies: h.getSetCookie(),
      invalid: "TypeError",
    });
  });

  it("iterates Headers as they are at each step, as Node's Headers (WPT headers-basic)", async () => {
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the same steps run in both
    const steps = new Function(`return ${HEADERS_LIVE_STEPS}`)() as (headers: typeof Headers) => unknown[];
    const expected = steps(Headers);
    expect(expected).toEqual([
      ["bar", "baz"],
      ["bar", "baz"],
      ["bar", "baz", "foo", "qux"],
      ["bar", "baz", "baz", "foo"],
      ["bar", "baz", "foo"],
    ]);
    expect(await check("headersLive")).toEqual(expected);
  });

  it("implements the body mixins, clone, redirect, error and Request from Request", async () => {
    expect(await check("bodies")).toEqual({
      json: { a: [1, 2] },
      used: true,
      again: "TypeError",
      blob: ["application/json", 11, '{"a":[1,2]}'],
      form: ["Ada", "a.txt", "text/plain", "bytes!"],
      redirect: [307, "https://example.com/next"],
      error: ["error", 0],
      jsonStatic: ["application/json", '{"x":1}'],
      derived: ["POST", null, "2", "payload", true],
      urlencoded: "a b",
      arrayBuffer: [1, 2, 3],
      nullStatus: "TypeError",
      getWithBody: "TypeError",
    });
  });

  it("pipes web streams through transform, TextDecoderStream and TextEncoderStream", async () => {
    expect(await check("streams")).toEqual({ piped: "HÉLLO", from: ["a", "b"] });
  });

  it("structuredClones Maps, Sets, Dates, bytes and cycles; refuses functions", async () => {
    expect(await check("clone")).toEqual({
      same: false,
      cycle: true,
      date: 0,
      map: [1, 2],
      bytes: [7],
      fn: "DataCloneError",
    });
  });

  it("runs events, AbortSignal.any/timeout, intervals and microtasks in order", async () => {
    expect(await check("events")).toEqual({
      seen: ["ping:true"],
      any: [true, "stop"],
      timeout: "TimeoutError",
      interval: 3,
      order: ["micro", "timer"],
      perf: "number",
      ua: expect.stringMatching(/^Tessera/),
      self: true,
    });
  });

  it("formats console output roughly as Deno does, on the request's log", async () => {
    io.logs.length = 0;
    await check("console");
    expect(io.logs[0]).toEqual({
      level: "log",
      message: 'plain 1 { a: [ 1, { b: "x" } ], m: Map(1) { 1 => 2 } } [ 1, 2 ] null undefined',
    });
    expect(io.logs[1]).toEqual({ level: "warn", message: "Ada is 36.6 years extra" });
    expect(io.logs[2]!.level).toBe("error");
    expect(io.logs[2]!.message).toMatch(/^TypeError: bad\n\s+at /);
  });

  it("runs crypto.subtle in the host: results verified by Node's webcrypto", async () => {
    const result = await check("crypto");
    const subtle = webcrypto.subtle;
    const encode = (text: string) => new TextEncoder().encode(text);
    expect(result.digest).toBe(hex(await subtle.digest("SHA-256", encode("abc"))));
    const hmacKey = await subtle.importKey(
      "raw",
      encode("secret"),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign"],
    );
    expect(result.hmac).toBe(hex(await subtle.sign("HMAC", hmacKey, encode("message"))));
    expect(result.hmacOk).toBe(true);
    const aesKey = await subtle.importKey("raw", new Uint8Array(16).fill(1), "AES-GCM", false, ["encrypt"]);
    const sealed = await subtle.encrypt(
      { name: "AES-GCM", iv: new Uint8Array(12).fill(2) },
      aesKey,
      encode("top secret"),
    );
    expect(result.sealed).toBe(hex(sealed));
    expect(result.opened).toBe("top secret");
    const ecPublic = await subtle.importKey(
      "jwk",
      result.ecJwk as webcrypto.JsonWebKey,
      { name: "ECDSA", namedCurve: "P-256" },
      false,
      ["verify"],
    );
    expect(
      await subtle.verify(
        { name: "ECDSA", hash: "SHA-256" },
        ecPublic,
        bytes(result.ecSig as string),
        encode("signed"),
      ),
    ).toBe(true);
    const edPublic = await subtle.importKey(
      "raw",
      bytes(result.edRaw as string),
      { name: "Ed25519" },
      false,
      ["verify"],
    );
    expect(await subtle.verify("Ed25519", edPublic, bytes(result.edSig as string), encode("signed"))).toBe(
      true,
    );
    expect(result).toMatchObject({
      unknown: "NotSupportedError",
      key: [true, "secret", "HMAC", "SHA-256", ["sign", "verify"], false],
      random: 4,
      uuid: true,
    });
  });
});
