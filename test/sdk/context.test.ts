/**
 * sdk/types.ts against the runtime: the types a function author imports (`tessera/types`) must say
 * what Tessera really hands a function. The enums and the snapshot are compared with the
 * runtime's own types here (`tsc`, `npm run check`); the shape of a real `ctx` (its fields, the
 * caller's, the engine ops' answers) with lists whose members the types fix, in a real isolate.
 * The fake of `tessera/testing` is held to the same lists.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { ENGINES, IntelligenceSnapshot, KeyKind } from "../../engines/index.ts";
import type { Role } from "../../engines/people/roles.ts";
import { createTestContext } from "../../sdk/testing.ts";
import type * as Sdk from "../../sdk/types.ts";
import { useTestApp, type TestOrg } from "../helpers/app.ts";
import { storeKinds } from "../helpers/stores.ts";

/** True when each type is assignable to the other. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** Compiles only when every member is `true`. */
const sameTypes: [
  Same<Sdk.EngineName, (typeof ENGINES)[number]>,
  Same<Sdk.KeyKind, KeyKind>,
  Same<Sdk.Role, Role>,
  Same<Sdk.IntelligenceSnapshot, IntelligenceSnapshot>,
] = [true, true, true, true];

/** The keys of `T`, listed: the list compiles only when it names each key of `T` (and no other). */
function keysOf<T>() {
  return <const K extends ReadonlyArray<keyof T>>(
    keys: K & (Same<K[number], keyof T> extends true ? unknown : never),
  ): string[] => [...keys].map(String).sort();
}

const CONTEXT_KEYS = keysOf<Sdk.Context>()([
  "user",
  "function",
  "organization_id",
  "request_id",
  "snapshot",
  "engines",
  "platform",
  "waitUntil",
  "passThroughOnException",
]);
const API_KEY_CALLER_KEYS = keysOf<Sdk.ApiKeyCaller>()([
  "type",
  "key_id",
  "kind",
  "organization_id",
  "organization",
  "scopes",
]);
const FUNCTION_KEYS = keysOf<Sdk.FunctionInfo>()(["id", "name", "version"]);
const ENGINE_KEYS = keysOf<Sdk.Context["engines"]>()(["finance", "growth", "talent", "sync"]);
const ENGINE_STATE_KEYS = keysOf<Sdk.EngineState>()(["get", "set", "delete", "list"]);
const PAGE_KEYS = keysOf<Sdk.EngineStatePage>()(["entries", "cursor"]);
const PLATFORM_KEYS = keysOf<Sdk.Platform>()(["fetch"]);
const SNAPSHOT_KEYS = keysOf<Sdk.IntelligenceSnapshot>()([
  "id",
  "object",
  "computed_at",
  "created_at",
  "updated_at",
  "metadata",
  "finance",
  "growth",
  "talent",
]);

/** A function that reports the ctx it was given, and what the engine ops answer. */
const REPORTER = `export default async function (req, ctx) {
  const finance = ctx.engines.finance;
  const missing = await finance.get("sdk-drift:absent");
  const set = await finance.set("sdk-drift:k", { a: 1 });
  const got = await finance.get("sdk-drift:k");
  const page = await finance.list({ prefix: "sdk-drift:", limit: 1 });
  const deleted = [await finance.delete("sdk-drift:k"), await finance.delete("sdk-drift:k")];
  return Response.json({
    own: Object.getOwnPropertyNames(ctx).sort(),
    user: Object.keys(ctx.user).sort(),
    userType: ctx.user.type,
    fn: Object.keys(ctx.function).sort(),
    engines: Object.keys(ctx.engines).sort(),
    methods: Object.keys(finance).sort(),
    platform: Object.keys(ctx.platform).sort(),
    snapshot: ctx.snapshot === null ? null : Object.keys(ctx.snapshot).sort(),
    answers: { missing, set: set ?? null, got, page: Object.keys(page).sort(), entry: Object.keys(page.entries[0]).sort(), cursor: typeof page.cursor, deleted },
  });
}`;

describe("sdk/types.ts says what the runtime hands a function", () => {
  const t = useTestApp(storeKinds()[0]!);
  let org: TestOrg;
  let report: Record<string, unknown>;

  beforeAll(async () => {
    org = await t.newOrg();
    const snapshot = await t.request("POST", "/v1/intelligence/snapshots", { key: org.key });
    expect(snapshot.status, snapshot.text).toBe(201);
    const deployed = await t.request("POST", "/v1/functions", {
      key: org.key,
      body: { name: "sdk-drift", files: { "index.js": REPORTER }, limits: { cpu_time_ms: 1_000 } },
    });
    expect(deployed.status, deployed.text).toBe(201);
    const invoked = await t.request("GET", "/v1/functions/sdk-drift/invoke", { key: org.key });
    expect(invoked.status, invoked.text).toBe(200);
    report = invoked.body as Record<string, unknown>;
  });

  it("relates the SDK's enums and snapshot to the runtime's types (checked by tsc)", () => {
    expect(sameTypes).toEqual([true, true, true, true]);
  });

  it("names ctx's fields, the caller's, the function's, the engines' and the platform's", () => {
    expect(report).toMatchObject({
      own: CONTEXT_KEYS,
      user: API_KEY_CALLER_KEYS,
      userType: "api_key",
      fn: FUNCTION_KEYS,
      engines: ENGINE_KEYS,
      methods: ENGINE_STATE_KEYS,
      platform: PLATFORM_KEYS,
      snapshot: SNAPSHOT_KEYS,
    });
  });

  it("answers engine ops as typed: get → value or null, set → nothing, list → a page, delete → boolean", () => {
    expect(report.answers).toEqual({
      missing: null,
      set: null,
      got: { a: 1 },
      page: PAGE_KEYS,
      entry: ["key", "value"],
      cursor: "object",
      deleted: [true, false],
    });
  });

  it("holds the fake ctx of tessera/testing to the same shape", async () => {
    const ctx = createTestContext();
    const own = Object.getOwnPropertyNames(ctx).filter(
      (key) => key !== "settled" && key !== "platformRequests",
    );
    expect(own.sort()).toEqual(CONTEXT_KEYS);
    expect(Object.keys(ctx.user!).sort()).toEqual(API_KEY_CALLER_KEYS);
    expect(Object.keys(ctx.engines).sort()).toEqual(ENGINE_KEYS);
    expect(Object.keys(ctx.engines.finance).sort()).toEqual(ENGINE_STATE_KEYS);
    expect(await ctx.engines.finance.get("absent")).toBeNull();
    await ctx.engines.finance.set("k", { a: 1 });
    const page = await ctx.engines.finance.list({ limit: 1 });
    expect(Object.keys(page).sort()).toEqual(PAGE_KEYS);
    expect([await ctx.engines.finance.delete("k"), await ctx.engines.finance.delete("k")]).toEqual([
      true,
      false,
    ]);
  });
});
