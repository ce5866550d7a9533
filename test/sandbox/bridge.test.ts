import ivm, { type IsolatedVM } from "../../sandbox/isolated-vm/index.ts";
import { afterEach, describe, expect, it } from "vitest";
import { createSandbox, type IsolateHost } from "../../sandbox/index.ts";
import { failure, hostFor, json, LIMITS, recordingIO, request, SANDBOX_OPTIONS, text } from "./helpers.ts";

/**
 * The host↔guest bridge: entries bounded by applySync timeouts, requests interleaved
 * in one isolate, streamed bodies, waitUntil, and host I/O failures seen by the guest.
 */
const hosts: IsolateHost[] = [];
async function boot(source: string, env: Record<string, string> = {}) {
  const host = await hostFor(source, undefined, env);
  hosts.push(host);
  return host;
}
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.dispose()));
});

describe("applySync entries", () => {
  it("stop a microtask continuation that loops forever (the timeout covers the checkpoint)", () => {
    const isolate = new ivm.Isolate({ memoryLimit: 16 });
    try {
      const context = isolate.createContextSync();
      const entry = context.evalSync(
        "(function () { (async () => { await null; for (;;) {} })(); return 'returned'; })",
        { reference: true },
      ) as IsolatedVM.Reference<() => string>;
      expect(() => entry.applySync(undefined, [], { timeout: 50 })).toThrow(/Script execution timed out/);
    } finally {
      isolate.dispose();
    }
  });
});

describe("interleaved requests in one isolate", () => {
  it("each see their own ctx.user and Tessera, and their logs land on their own request", async () => {
    const host = await boot(`
      export default {
        async fetch(request, env, ctx) {
          const wait = Number(new URL(request.url).searchParams.get("wait"));
          console.log("start", ctx.user.id);
          await new Promise((resolve) => setTimeout(resolve, wait));
          const upstream = await fetch("https://upstream.example/" + ctx.user.id);
          console.log("after", Tessera.user.id, await upstream.text());
          return Response.json({ user: ctx.user.id, tessera: Tessera.user.id });
        },
      };`);
    const reply = (path: string) =>
      Promise.resolve({
        status: 200,
        statusText: "OK",
        headers: [],
        body: new TextEncoder().encode(path),
        url: path,
      });
    const ioA = recordingIO({
      fetch: (r) => new Promise((resolve) => setTimeout(() => resolve(reply(r.url)), 30)),
    });
    const ioB = recordingIO({ fetch: (r) => reply(r.url) });
    const [a, b] = await Promise.all([
      host.invoke(request("https://fn.example/?wait=20", { context: { user: { id: "alice" } } }), ioA),
      host.invoke(request("https://fn.example/?wait=1", { context: { user: { id: "bob" } } }), ioB),
    ]);
    expect(await json(a)).toEqual({ user: "alice", tessera: "alice" });
    expect(await json(b)).toEqual({ user: "bob", tessera: "bob" });
    expect(ioA.logs.map((l) => l.message)).toEqual([
      "start alice",
      "after alice https://upstream.example/alice",
    ]);
    expect(ioB.logs.map((l) => l.message)).toEqual(["start bob", "after bob https://upstream.example/bob"]);
  });
});

describe("Tessera in a Deno.serve handler", () => {
  it("is made on first use, after awaits too, once per request, for its own request", async () => {
    const host = await boot(`
      Deno.serve(async (request) => {
        const wait = Number(new URL(request.url).searchParams.get("wait"));
        await new Promise((resolve) => setTimeout(resolve, wait));
        const first = Tessera;
        await null;
        Tessera.waitUntil(new Promise((resolve) => setTimeout(resolve, 5)));
        return Response.json({ user: Tessera.user.id, id: Tessera.request_id, same: first === Tessera });
      });`);
    const [a, b] = await Promise.all([
      host.invoke(
        request("https://fn.example/?wait=20", { context: { user: { id: "alice" } }, requestId: "req_a" }),
        recordingIO(),
      ),
      host.invoke(
        request("https://fn.example/?wait=1", { context: { user: { id: "bob" } }, requestId: "req_b" }),
        recordingIO(),
      ),
    ]);
    expect(await json(a)).toEqual({ user: "alice", id: "req_a", same: true });
    expect(await json(b)).toEqual({ user: "bob", id: "req_b", same: true });
  });
});

describe("ctx", () => {
  it("is frozen, with the context's fields, user, a snapshot getter, engines, platform, and hidden waitUntil", async () => {
    const host = await boot(`
      export default {
        fetch(request, env, ctx) {
          const shape = Object.getOwnPropertyNames(ctx).map((name) => {
            const d = Object.getOwnPropertyDescriptor(ctx, name);
            return [name, "get" in d ? "getter" : typeof d.value, d.enumerable, d.writable ?? null, d.configurable];
          });
          const user = ctx.user;
          const seen = user.seen ?? "fresh";
          user.seen = "mutated"; // ctx.user is the caller's own copy: no later request sees this
          return Response.json({
            shape, seen, frozen: Object.isFrozen(ctx), keys: Object.keys(ctx), requestId: ctx.request_id,
            engines: Object.keys(ctx.engines), finance: Object.keys(ctx.engines.finance),
            deepFrozen: Object.isFrozen(ctx.engines) && Object.isFrozen(ctx.engines.sync) && Object.isFrozen(ctx.platform),
            names: [Object.getOwnPropertyDescriptor(ctx, "snapshot").get.name, ctx.waitUntil.name, ctx.passThroughOnException.name],
          });
        },
      };`);
    const context = { user: { id: "alice" }, function: { id: "fn_1" }, organization_id: "org_a" };
    // The same context object for both, as the runtime hands one caller's requests: the second
    // still gets a fresh `user` and its own request id.
    const first = await json(
      await host.invoke(request(undefined, { context, requestId: "req_1" }), recordingIO()),
    );
    const second = await json(
      await host.invoke(request(undefined, { context, requestId: "req_2" }), recordingIO()),
    );
    expect(first).toEqual({
      shape: [
        ["user", "object", true, false, false],
        ["function", "object", true, false, false],
        ["organization_id", "string", true, false, false],
        ["request_id", "string", true, false, false],
        ["snapshot", "getter", true, null, false],
        ["engines", "object", true, false, false],
        ["platform", "object", true, false, false],
        ["waitUntil", "function", false, false, false],
        ["passThroughOnException", "function", false, false, false],
      ],
      seen: "fresh",
      frozen: true,
      keys: ["user", "function", "organization_id", "request_id", "snapshot", "engines", "platform"],
      engines: ["finance", "growth", "talent", "sync"],
      finance: ["get", "set", "delete", "list"],
      deepFrozen: true,
      names: ["get", "value", "value"],
      requestId: "req_1",
    });
    expect(second).toEqual({ ...first, requestId: "req_2" });
  });

  it("copies the context deeply for each request, a `__proto__` field as an own field", async () => {
    const host = await boot(`
      export default {
        fetch(request, env, ctx) {
          const { extra } = ctx;
          const seen = { keys: Object.keys(extra), own: Object.getPrototypeOf(extra) === Object.prototype,
            inner: extra.__proto__.inner, list: extra.list[1].n };
          extra.list[1].n = "mutated";
          extra.__proto__.inner = "mutated";
          return Response.json(seen);
        },
      };`);
    const context = {
      user: null,
      extra: JSON.parse('{"__proto__": {"inner": "kept"}, "list": [1, {"n": 2}]}') as unknown,
    };
    const expected = { keys: ["__proto__", "list"], own: true, inner: "kept", list: 2 };
    expect(await json(await host.invoke(request(undefined, { context }), recordingIO()))).toEqual(expected);
    expect(await json(await host.invoke(request(undefined, { context }), recordingIO()))).toEqual(expected);
  });

  it("acts for its own request when another request reaches it", async () => {
    // The second request reads the first one's ctx: its snapshot is still the first request's.
    const host = await boot(`
      let first;
      export default {
        fetch(request, env, ctx) {
          if (!first) {
            first = ctx;
            return Response.json({ own: ctx.snapshot });
          }
          return Response.json({ own: ctx.snapshot, first: first.snapshot, symbols: Object.getOwnPropertySymbols(first).length });
        },
      };`);
    const snapshotIO = (value: string) => recordingIO({ snapshot: () => value });
    expect(await json(await host.invoke(request(), snapshotIO("first's")))).toEqual({ own: "first's" });
    expect(await json(await host.invoke(request(), snapshotIO("second's")))).toEqual({
      own: "second's",
      first: "first's",
      symbols: 0,
    });
  });

  it("is right for every caller when an isolate has seen more callers than it keeps contexts for", async () => {
    // The guest keeps 16 contexts; past that it forgets them, and asks the host for a forgotten one.
    const host = await boot(`
      export default { fetch: (request, env, ctx) => Response.json({ user: ctx.user.id, fn: ctx.function.id }) };`);
    const callers = Array.from({ length: 40 }, (_, i) => ({
      user: { id: `user_${i}` },
      function: { id: "fn_1" },
    }));
    for (const round of [0, 1]) {
      for (const [i, context] of callers.entries()) {
        const answer = await json(
          await host.invoke(request(undefined, { context, requestId: `req_${round}_${i}` }), recordingIO()),
        );
        expect(answer).toEqual({ user: `user_${i}`, fn: "fn_1" });
      }
    }
  });

  it("of a Deno.serve handler is made on first use, from the context its request named", async () => {
    const host = await boot(`
      Deno.serve(async (request) => {
        await null;
        return new Response(Tessera.user.id + " " + Tessera.request_id);
      });`);
    const a = { user: { id: "alice" } };
    const b = { user: { id: "bob" } };
    const answers = await Promise.all(
      [a, b, a, b].map(async (context, i) =>
        text(await host.invoke(request(undefined, { context, requestId: `req_${i}` }), recordingIO())),
      ),
    );
    expect(answers).toEqual(["alice req_0", "bob req_1", "alice req_2", "bob req_3"]);
  });
});

describe("a garbled answer", () => {
  it("fails only its own request with function_failed, and the isolate serves the next one", async () => {
    // The answer crosses as text the platform builds with JSON.stringify, which a function can replace.
    const host = await boot(`
      const stringify = JSON.stringify;
      export default {
        fetch(request) {
          const garble = new URL(request.url).searchParams.has("garble");
          JSON.stringify = garble ? () => "not json" : stringify;
          return new Response("fine");
        },
      };`);
    expect(await failure(host.invoke(request("https://fn.example/?garble"), recordingIO()))).toEqual({
      code: "function_failed",
      message: "The function's response could not be read",
    });
    expect(await text(await host.invoke(request("https://fn.example/"), recordingIO()))).toBe("fine");
  });
});

describe("response bodies", () => {
  it("stream chunk by chunk: the host has the first chunk before the last is produced", async () => {
    const host = await boot(`
      Deno.serve(() => {
        let n = 0;
        const body = new ReadableStream({
          async pull(controller) {
            n++;
            if (n > 1) await new Promise((resolve) => setTimeout(resolve, 5));
            console.log("produced " + n);
            controller.enqueue(new TextEncoder().encode("chunk" + n + ";"));
            if (n === 3) controller.close();
          },
        });
        return new Response(body, { headers: { "content-type": "text/plain" } });
      });`);
    const io = recordingIO();
    const response = await host.invoke(request(), io);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe("chunk1;");
    expect(io.logs.map((l) => l.message)).not.toContain("produced 3");
    let rest = "";
    for (let next = await reader.read(); !next.done; next = await reader.read())
      rest += new TextDecoder().decode(next.value);
    expect(rest).toBe("chunk2;chunk3;");
    await response.finished;
  });

  it("propagate cancellation to the guest's stream and abort request.signal", async () => {
    const host = await boot(`
      export default (request) => {
        request.signal.addEventListener("abort", () => console.log("signal aborted"));
        const body = new ReadableStream({
          pull(controller) { controller.enqueue(new Uint8Array([1])); },
          cancel(reason) { console.log("cancelled: " + reason); },
        });
        return new Response(body);
      };`);
    const io = recordingIO();
    const response = await host.invoke(request(), io);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    await reader.cancel("client went away");
    await response.finished;
    expect(io.logs.map((l) => l.message)).toEqual(["signal aborted", "cancelled: client went away"]);
  });

  it("give a request.signal first touched after the client went away as already aborted", async () => {
    const host = await boot(`
      export default (request) => new Response(new ReadableStream({
        pull(controller) { controller.enqueue(new Uint8Array([1])); },
        cancel() { console.log("aborted: " + request.signal.aborted + ", " + request.signal.reason.message); },
      }));`);
    const io = recordingIO();
    const response = await host.invoke(request(), io);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    await reader.cancel("client went away");
    await response.finished;
    expect(io.logs.map((l) => l.message)).toEqual(["aborted: true, client went away"]);
  });

  it("error the host stream when the guest's stream errors", async () => {
    const host = await boot(`
      export default () => new Response(new ReadableStream({ pull(c) { c.error(new Error("disk on fire")); } }));`);
    const io = recordingIO();
    const response = await host.invoke(request(), io);
    await expect(text(response)).rejects.toThrow(/disk on fire/);
    await response.finished;
  });
});

describe("waitUntil", () => {
  it("keeps work alive after the response, and finished waits for it", async () => {
    const host = await boot(`
      export default {
        fetch(request, env, ctx) {
          ctx.waitUntil(new Promise((resolve) => setTimeout(resolve, 20)).then(() =>
            ctx.engines.finance.set("last", { at: "later" })));
          return new Response("now");
        },
      };`);
    const io = recordingIO();
    const response = await host.invoke(request(), io);
    expect(await text(response)).toBe("now");
    expect(io.calls).toEqual([]);
    await response.finished;
    expect(io.calls).toEqual([
      { op: "engines.set", args: { engine: "finance", key: "last", value: { at: "later" } } },
    ]);
  });
});

describe("host I/O", () => {
  it("turns io.fetch and io.call failures into rejections the guest can catch", async () => {
    const host = await boot(`
      export default {
        async fetch(request, env, ctx) {
          const out = {};
          try { await fetch("https://10.0.0.1/"); } catch (error) { out.fetch = error.name + ": " + error.message; }
          try { await ctx.engines.growth.get("k"); } catch (error) { out.call = error.name + ": " + error.message; }
          try { await ctx.platform.fetch("/v1/invoices"); } catch (error) { out.platform = error.name; }
          return Response.json(out);
        },
      };`);
    const io = recordingIO({
      fetch: () => Promise.reject(new Error("private address refused")),
      call: () => Promise.reject(new Error("engine unavailable")),
    });
    expect(await json(await host.invoke(request(), io))).toEqual({
      fetch: "TypeError: private address refused",
      call: "Error: engine unavailable",
      platform: "TypeError",
    });
    expect(io.fetches.map((f) => [f.via, f.request.url])).toEqual([
      ["network", "https://10.0.0.1/"],
      ["platform", "/v1/invoices"],
    ]);
  });

  it("passes fetch bodies and headers both ways, and reads ctx.snapshot only when touched", async () => {
    const host = await boot(`
      export default async (request, ctx) => {
        const upstream = await fetch("https://api.example/echo", {
          method: "POST", headers: { "X-Token": "t" }, body: JSON.stringify({ a: 1 }),
        });
        const body = await upstream.json();
        const touched = new URL(request.url).searchParams.has("snapshot") ? ctx.snapshot : "untouched";
        return Response.json({ status: upstream.status, body, header: upstream.headers.get("x-up"), touched });
      };`);
    let snapshotReads = 0;
    const io = recordingIO({
      fetch: (r) =>
        Promise.resolve({
          status: 201,
          statusText: "Created",
          headers: [["x-up", "yes"]],
          body: r.body,
          url: r.url,
        }),
      snapshot: () => {
        snapshotReads++;
        return { revenue: 42 };
      },
    });
    expect(await json(await host.invoke(request(), io))).toEqual({
      status: 201,
      body: { a: 1 },
      header: "yes",
      touched: "untouched",
    });
    expect(snapshotReads).toBe(0);
    expect(io.fetches[0]!.request).toMatchObject({
      method: "POST",
      headers: [
        ["content-type", "text/plain;charset=UTF-8"],
        ["x-token", "t"],
      ],
    });
    const withSnapshot = await json(await host.invoke(request("https://fn.example/?snapshot"), io));
    expect(withSnapshot.touched).toEqual({ revenue: 42 });
    expect(snapshotReads).toBe(1);
  });
});

describe("handler styles and faults", () => {
  it.each([
    ["Deno.serve(handler)", `Deno.serve((req) => new Response("a " + req.method));`],
    [
      "Deno.serve(options, handler)",
      `Deno.serve({ port: 8000 }, async (req) => new Response("a " + req.method));`,
    ],
    ["export default { fetch }", `export default { fetch: (req, env) => new Response("a " + req.method) };`],
    [
      "export default function",
      `export default async function (req, ctx) { return new Response("a " + req.method); }`,
    ],
  ])("%s answers", async (_style, source) => {
    const host = await boot(source);
    expect(await text(await host.invoke(request(), recordingIO()))).toBe("a GET");
  });

  it("gives secrets to Deno.env and the env argument", async () => {
    const host = await boot(
      `export default { fetch: (req, env) => Response.json([env.API_KEY, Deno.env.get("API_KEY"), Deno.env.has("NOPE"), Deno.env.toObject()]) };`,
      { API_KEY: "s3cret" },
    );
    expect(await json(await host.invoke(request(), recordingIO()))).toEqual([
      "s3cret",
      "s3cret",
      false,
      { API_KEY: "s3cret" },
    ]);
  });

  it("fails a request with an unhandled rejection, and logs it on that request", async () => {
    const host = await boot(`
      export default async () => {
        Promise.reject(new Error("nobody caught me"));
        await new Promise((resolve) => setTimeout(resolve, 5));
        return new Response("too late");
      };`);
    const io = recordingIO();
    const fault = await failure(host.invoke(request(), io));
    expect(fault).toMatchObject({ code: "function_failed" });
    expect(fault.message).toMatch(/nobody caught me/);
    expect(io.logs.some((l) => l.level === "error" && /nobody caught me/.test(l.message))).toBe(true);
    expect(host.healthy).toBe(true);
  });

  it("holds a request to 10,000 pending timers, and the next request starts with none", async () => {
    const host = await hostFor(
      `export default () => {
        const ids = [];
        let error = null;
        try {
          for (;;) ids.push(setTimeout(() => {}, 60_000));
        } catch (e) {
          error = e.message;
        }
        clearTimeout(ids.pop());
        ids.push(setTimeout(() => {}, 60_000)); // one cleared: room for one more
        for (const id of ids) clearTimeout(id);
        return Response.json({ set: ids.length, error });
      };`,
      { ...LIMITS, cpuTimeLimitMs: 5_000, wallTimeLimitMs: 10_000 },
    );
    hosts.push(host);
    expect(await json(await host.invoke(request(), recordingIO()))).toEqual({
      set: 10_000,
      error: "Too many timers",
    });
    expect(await json(await host.invoke(request(), recordingIO()))).toEqual({
      set: 10_000,
      error: "Too many timers",
    });
    expect(host.healthy).toBe(true);
  });

  it("refuses timers and fetch at the top level, as Workers do", async () => {
    const fault = await failure(hostFor(`setTimeout(() => {}, 1); export default () => new Response("x");`));
    expect(fault.message).toMatch(/only possible while handling a request/);
  });

  it("boots many isolates from the snapshot, each with its own globals", async () => {
    const source = `let n = 0; globalThis.mine ??= crypto.randomUUID; export default () => new Response(String(++n) + typeof mine);`;
    const many = await Promise.all(Array.from({ length: 25 }, () => boot(source)));
    const answers = await Promise.all(
      many.map(async (host) => text(await host.invoke(request(), recordingIO()))),
    );
    expect(answers).toEqual(Array(25).fill("1function"));
  });
});

describe("blank isolates made ahead of time", () => {
  it("serve cold starts without sharing anything between the functions that take them", async () => {
    const sandbox = createSandbox(SANDBOX_OPTIONS);
    const source = `globalThis.seen ??= []; export default (req) => { globalThis.seen.push(new URL(req.url).pathname); return Response.json(globalThis.seen); };`;
    const hosts: IsolateHost[] = [];
    try {
      for (const name of ["/a", "/b", "/c"]) {
        // A turn of the event loop lets the next blank isolate be made, so every boot after the first takes one.
        await new Promise((resolve) => setTimeout(resolve, 20));
        const host = await hostFor(source, undefined, undefined, sandbox);
        hosts.push(host);
        expect(await json(await host.invoke(request(`https://fn.example${name}`), recordingIO()))).toEqual([
          name,
        ]);
      }
      // Its spares go with the sandbox; another sandbox boots its own.
      await sandbox.dispose();
      const after = await hostFor(source);
      hosts.push(after);
      expect(await json(await after.invoke(request("https://fn.example/d"), recordingIO()))).toEqual(["/d"]);
    } finally {
      await Promise.all(hosts.map((host) => host.dispose()));
    }
  });
});
