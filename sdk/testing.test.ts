/** `deno test sdk/`: the fake context behaves as Tessera's ctx does. */
import { createTestContext } from "./testing.ts";

function expectEqual(actual: unknown, expected: unknown): void {
  const [a, e] = [JSON.stringify(actual), JSON.stringify(expected)];
  if (a !== e) throw new Error(`expected ${e}, got ${a}`);
}

Deno.test("engine state keeps JSON copies and lists by key with a cursor", async () => {
  const ctx = createTestContext({ engines: { finance: { b: 2, a: 1 } } });
  const value = { n: 1 };
  await ctx.engines.finance.set("c", value);
  value.n = 2;
  expectEqual(await ctx.engines.finance.get("c"), { n: 1 });
  expectEqual(await ctx.engines.growth.get("a"), null);
  const first = await ctx.engines.finance.list({ limit: 2 });
  expectEqual(first, {
    entries: [
      { key: "a", value: 1 },
      { key: "b", value: 2 },
    ],
    cursor: "b",
  });
  expectEqual(await ctx.engines.finance.list({ cursor: first.cursor }), {
    entries: [{ key: "c", value: { n: 1 } }],
    cursor: null,
  });
  expectEqual(await ctx.engines.finance.delete("a"), true);
  expectEqual(await ctx.engines.finance.delete("a"), false);
});

Deno.test("platform.fetch takes API paths and records them", async () => {
  const ctx = createTestContext({ platform: (req) => Response.json({ path: new URL(req.url).pathname }) });
  expectEqual(await (await ctx.platform.fetch("/v1/invoices?status=overdue")).json(), {
    path: "/v1/invoices",
  });
  expectEqual(
    ctx.platformRequests.map((req) => req.url),
    ["https://platform.tessera.invalid/v1/invoices?status=overdue"],
  );
  let refused = false;
  await ctx.platform.fetch("https://example.com/").catch(() => (refused = true));
  expectEqual(refused, true);
});

Deno.test("settled() waits for waitUntil and returns its rejections", async () => {
  const ctx = createTestContext();
  let done = false;
  ctx.waitUntil(new Promise((resolve) => setTimeout(resolve, 5)).then(() => (done = true)));
  ctx.waitUntil(Promise.reject(new Error("boom")));
  const errors = await ctx.settled();
  expectEqual([done, errors.map((error) => (error as Error).message)], [true, ["boom"]]);
});
