import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppError, FakeClock, randomBase62 } from "../../core/index.ts";
import {
  createEngineStateService,
  createOrganization,
  MAX_STATE_VALUE_BYTES,
  MAX_STATE_VALUE_DEPTH,
  prefixEnd,
  type EngineStateService,
} from "../../engines/index.ts";
import type { Store } from "../../store/index.ts";
import { storeKinds } from "../helpers/stores.ts";

/** Code point order, as the store sorts keys (JS `<` compares UTF-16 code units). */
const byCodePoint = (a: string, b: string) => {
  const [x, y] = [[...a], [...b]];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
};

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe.each(storeKinds())("engine state on $name", (kind) => {
  let store: Store;
  let clock: FakeClock;
  let state: EngineStateService;
  const newOrg = async () =>
    (await createOrganization(store, { name: `state-${randomBase62(10)}`, plan: "free" })).id;

  beforeAll(async () => {
    store = await kind.open();
    clock = new FakeClock(new Date("2025-03-15T10:00:00Z"));
    state = createEngineStateService(store, clock);
  });
  afterAll(() => store.dispose());

  it("creates at version 1, replaces with version + 1, reads back and deletes", async () => {
    const org = await newOrg();
    expect(await state.get(org, "finance", "cursor")).toBeNull();
    const created = await state.set(org, "finance", "cursor", { page: 1 });
    expect(created).toEqual({
      key: "cursor",
      value: { page: 1 },
      version: 1,
      created_at: "2025-03-15T10:00:00Z",
      updated_at: "2025-03-15T10:00:00Z",
    });
    clock.advance(60_000);
    const replaced = await state.set(org, "finance", "cursor", [1, "two", null]);
    expect(replaced).toMatchObject({
      version: 2,
      value: [1, "two", null],
      updated_at: "2025-03-15T10:01:00Z",
    });
    expect(replaced.created_at).toBe("2025-03-15T10:00:00Z");
    expect(await state.get(org, "finance", "cursor")).toEqual(replaced);
    expect(await state.delete(org, "finance", "cursor")).toBe(true);
    expect(await state.delete(org, "finance", "cursor")).toBe(false);
    expect(await state.get(org, "finance", "cursor")).toBeNull();
  });

  it.each([
    ["an object", { a: { b: [1, 2.5, -0.125] }, "": "empty name" }],
    ["an array", [[], {}, [null]]],
    ["a string", "hello ✓ 👋"],
    ["a number", 12345.678],
    ["a boolean", false],
    ["null", null],
  ])("stores %s exactly", async (_, value) => {
    const org = await newOrg();
    await state.set(org, "growth", "v", value);
    expect((await state.get(org, "growth", "v"))!.value).toEqual(value);
  });

  it("keeps each engine's keys apart", async () => {
    const org = await newOrg();
    await state.set(org, "finance", "k", "finance");
    await state.set(org, "talent", "k", "talent");
    expect((await state.get(org, "finance", "k"))!.value).toBe("finance");
    expect((await state.get(org, "talent", "k"))!.value).toBe("talent");
    expect(await state.get(org, "growth", "k")).toBeNull();
  });

  it("never lets another organization see, change or delete a key of the same name", async () => {
    const [owner, other] = [await newOrg(), await newOrg()];
    await state.set(owner, "finance", "shared", "owner's");
    expect(await state.get(other, "finance", "shared")).toBeNull();
    expect(await state.delete(other, "finance", "shared")).toBe(false);
    expect((await state.list(other, "finance", { limit: 100 })).entries).toEqual([]);
    expect((await refusal(state.set(other, "finance", "shared", "x", { ifVersion: 1 }))).code).toBe(
      "precondition_failed",
    );
    expect(await state.set(other, "finance", "shared", "other's")).toMatchObject({ version: 1 });
    expect(await state.get(owner, "finance", "shared")).toMatchObject({ value: "owner's", version: 1 });
  });

  describe("conditional writes", () => {
    it("writes with ifVersion only at that version, and refuses otherwise with precondition_failed", async () => {
      const org = await newOrg();
      await state.set(org, "finance", "k", 1);
      const error = await refusal(state.set(org, "finance", "k", 2, { ifVersion: 2 }));
      expect(error.code).toBe("precondition_failed");
      expect(error.message).toBe("Key 'k' is at version 1; expected 2");
      expect(await state.set(org, "finance", "k", 2, { ifVersion: 1 })).toMatchObject({
        version: 2,
        value: 2,
      });
      expect(await state.get(org, "finance", "k")).toMatchObject({ version: 2, value: 2 });
    });

    it("creates only when absent with ifVersion 0", async () => {
      const org = await newOrg();
      expect(await state.set(org, "finance", "lock", "a", { ifVersion: 0 })).toMatchObject({ version: 1 });
      const error = await refusal(state.set(org, "finance", "lock", "b", { ifVersion: 0 }));
      expect(error.message).toBe("Key 'lock' is at version 1; it must not exist");
      expect((await state.get(org, "finance", "lock"))!.value).toBe("a");
    });

    it("updates only an existing key with ifExists", async () => {
      const org = await newOrg();
      const error = await refusal(state.set(org, "finance", "k", 1, { ifExists: true }));
      expect(error.message).toBe("Key 'k' does not exist; it must exist");
      expect(await state.get(org, "finance", "k")).toBeNull();
      await state.set(org, "finance", "k", 1);
      expect(await state.set(org, "finance", "k", 2, { ifExists: true })).toMatchObject({ version: 2 });
    });

    it("deletes with ifVersion only that version", async () => {
      const org = await newOrg();
      await state.set(org, "finance", "k", 1);
      expect((await refusal(state.delete(org, "finance", "k", { ifVersion: 3 }))).code).toBe(
        "precondition_failed",
      );
      expect(await state.delete(org, "finance", "k", { ifVersion: 1 })).toBe(true);
    });
  });

  describe("concurrency", () => {
    it("keeps every one of many parallel writes to one key, with versions 1 to n", async () => {
      const org = await newOrg();
      const n = 12;
      const written = await Promise.all(
        Array.from({ length: n }, (_, i) => state.set(org, "finance", "counter", i)),
      );
      expect(written.map((e) => e.version).sort((a, b) => a - b)).toEqual(
        Array.from({ length: n }, (_, i) => i + 1),
      );
      const last = written.find((e) => e.version === n)!;
      expect(await state.get(org, "finance", "counter")).toMatchObject({ version: n, value: last.value });
    });

    it("lets exactly one of racing ifVersion writes win", async () => {
      const org = await newOrg();
      await state.set(org, "finance", "k", "start");
      const results = await Promise.allSettled(
        Array.from({ length: 8 }, (_, i) => state.set(org, "finance", "k", i, { ifVersion: 1 })),
      );
      const won = results.filter((r) => r.status === "fulfilled");
      expect(won).toHaveLength(1);
      for (const r of results.filter((r) => r.status === "rejected")) {
        expect((r.reason as AppError).code).toBe("precondition_failed");
      }
      expect(await state.get(org, "finance", "k")).toMatchObject({ version: 2 });
    });

    it("lets exactly one of racing create-only writes win", async () => {
      const org = await newOrg();
      const results = await Promise.allSettled(
        Array.from({ length: 8 }, (_, i) => state.set(org, "finance", "lock", i, { ifVersion: 0 })),
      );
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      expect(await state.get(org, "finance", "lock")).toMatchObject({ version: 1 });
    });
  });

  describe("listing", () => {
    let org: string;
    const keys = [
      "a",
      "a/b",
      "a/b/c",
      "a%2Fb",
      "a b",
      "ab",
      "b",
      "zz",
      "ä",
      "日本",
      "😀",
      "\uffff",
      "a/\u{10ffff}",
    ];
    beforeAll(async () => {
      org = await newOrg();
      for (const key of keys) await state.set(org, "talent", key, { key });
      await state.set(org, "growth", "a/elsewhere", 1);
    });

    const all = async (prefix: string | undefined, limit: number) => {
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await state.list(org, "talent", { prefix, cursor, limit });
        expect(page.entries.length).toBeLessThanOrEqual(limit);
        seen.push(...page.entries.map((e) => e.key));
        cursor = page.nextCursor ?? undefined;
        pages++;
      } while (cursor);
      return { seen, pages };
    };

    it.each([1, 2, 5, 100])("pages every key once, in code point order (limit %i)", async (limit) => {
      const { seen, pages } = await all(undefined, limit);
      expect(seen).toEqual([...keys].sort(byCodePoint));
      expect(pages).toBe(Math.max(1, Math.ceil(keys.length / limit)));
    });

    it.each([
      ["a/", ["a/b", "a/b/c", "a/\u{10ffff}"]],
      ["a", ["a", "a b", "a%2Fb", "a/b", "a/b/c", "a/\u{10ffff}", "ab"]],
      ["日", ["日本"]],
      ["\uffff", ["\uffff"]],
      ["nothing", []],
    ])("lists the keys starting with %j, across pages", async (prefix, expected) => {
      expect((await all(prefix, 2)).seen).toEqual(expected);
    });

    it("returns values and versions with the keys, and null nextCursor on the last page", async () => {
      const page = await state.list(org, "talent", { prefix: "zz", limit: 10 });
      expect(page).toEqual({
        entries: [expect.objectContaining({ key: "zz", value: { key: "zz" }, version: 1 })],
        nextCursor: null,
      });
    });

    it("continues after a cursor even when its key was deleted meanwhile", async () => {
      const other = await newOrg();
      for (const key of ["k1", "k2", "k3", "k4"]) await state.set(other, "finance", key, 0);
      const first = await state.list(other, "finance", { limit: 2 });
      await state.delete(other, "finance", "k2");
      const second = await state.list(other, "finance", { cursor: first.nextCursor!, limit: 2 });
      expect(second.entries.map((e) => e.key)).toEqual(["k3", "k4"]);
    });
  });

  describe("refusals", () => {
    it.each([
      ["an empty key", ""],
      ["a key of 513 characters", "k".repeat(513)],
      ["a key with a newline", "a\nb"],
      ["a key with NUL", "a\u0000b"],
      ["a key with a C1 control", "a\u0085b"],
      ["a key with an unpaired surrogate", "a\ud800"],
      ["the key '.'", "."],
      ["the key '..'", ".."],
    ])("refuses %s with validation_failed naming key", async (_, key) => {
      const org = await newOrg();
      const error = await refusal(state.set(org, "finance", key, 1));
      expect(error.code).toBe("validation_failed");
      expect(error.errors[0]!.param).toBe("key");
      expect((await state.list(org, "finance", { limit: 10 })).entries).toEqual([]);
    });

    it("accepts a key of 512 characters, astral ones counting once", async () => {
      const org = await newOrg();
      await state.set(org, "finance", "😀".repeat(512), 1);
      expect(await state.get(org, "finance", "😀".repeat(512))).toMatchObject({ version: 1 });
    });

    it.each([
      ["undefined", undefined, "value"],
      ["NaN", NaN, "value"],
      ["Infinity inside", { a: [Infinity] }, "value.a[0]"],
      ["a Date", new Date(), "value"],
      ["a function inside", { f: () => 1 }, "value.f"],
      ["a bigint", 1n, "value"],
      ["a NUL in a string", { s: "a\u0000" }, "value.s"],
      ["an unpaired surrogate", ["\udc00"], "value[0]"],
      [
        "a cycle",
        (() => {
          const o: Record<string, unknown> = {};
          o.self = o;
          return o;
        })(),
        `value${".self".repeat(MAX_STATE_VALUE_DEPTH)}`,
      ],
    ])("refuses %s as a value, naming where", async (_, value, param) => {
      const org = await newOrg();
      const error = await refusal(state.set(org, "finance", "k", value));
      expect(error.code).toBe("validation_failed");
      expect(error.errors[0]!.param).toBe(param);
      expect(await state.get(org, "finance", "k")).toBeNull();
    });

    it("stores a value of exactly 64 KiB and refuses one byte more", async () => {
      const org = await newOrg();
      const fits = "x".repeat(MAX_STATE_VALUE_BYTES - 2); // the quotes make up the rest
      expect(await state.set(org, "finance", "big", fits)).toMatchObject({ version: 1 });
      const error = await refusal(state.set(org, "finance", "big", `${fits}x`));
      expect(error.code).toBe("validation_failed");
      expect(error.message).toBe("value: is 65537 bytes as JSON; at most 65536 are allowed");
      expect((await state.get(org, "finance", "big"))!.value).toBe(fits);
    });

    it("counts the size in UTF-8 bytes", async () => {
      const org = await newOrg();
      const error = await refusal(state.set(org, "finance", "k", "é".repeat(MAX_STATE_VALUE_BYTES / 2)));
      expect(error.errors[0]!.param).toBe("value");
    });

    it(`stores ${MAX_STATE_VALUE_DEPTH} levels of nesting and refuses one more`, async () => {
      const org = await newOrg();
      const nest = (n: number): unknown => (n === 0 ? 1 : [nest(n - 1)]);
      await state.set(org, "finance", "deep", nest(MAX_STATE_VALUE_DEPTH));
      expect((await state.get(org, "finance", "deep"))!.value).toEqual(nest(MAX_STATE_VALUE_DEPTH));
      const error = await refusal(state.set(org, "finance", "deep", nest(MAX_STATE_VALUE_DEPTH + 1)));
      expect(error.code).toBe("validation_failed");
    });

    it("refuses an unknown engine, a bad ifVersion, a bad limit, prefix or cursor", async () => {
      const org = await newOrg();
      const params = async (promise: Promise<unknown>) => (await refusal(promise)).errors[0]!.param;
      expect(await params(state.get(org, "hr" as never, "k"))).toBe("engine");
      expect(await params(state.set(org, "finance", "k", 1, { ifVersion: -1 }))).toBe("ifVersion");
      expect(await params(state.set(org, "finance", "k", 1, { ifVersion: 1.5 }))).toBe("ifVersion");
      expect(await params(state.list(org, "finance", { limit: 0 }))).toBe("limit");
      expect(await params(state.list(org, "finance", { limit: 101 }))).toBe("limit");
      expect(await params(state.list(org, "finance", { limit: 5, prefix: "a\n" }))).toBe("prefix");
      expect(await params(state.list(org, "finance", { limit: 5, cursor: "not a cursor" }))).toBe("cursor");
      expect(await params(state.list(org, "finance", { limit: 5, cursor: "" }))).toBe("cursor");
    });
  });

  describe("the entry cap", () => {
    it("refuses a new key past the organization's cap, over every engine, but still replaces and frees", async () => {
      const capped = createEngineStateService(store, clock, { maxEntries: 3 });
      const org = await newOrg();
      await capped.set(org, "finance", "a", 1);
      await capped.set(org, "growth", "b", 1);
      await capped.set(org, "talent", "c", 1);
      const error = await refusal(capped.set(org, "finance", "d", 1));
      expect(error.code).toBe("conflict");
      expect(await capped.get(org, "finance", "d")).toBeNull();
      expect(await capped.set(org, "finance", "a", 2)).toMatchObject({ version: 2 });
      await capped.delete(org, "growth", "b");
      expect(await capped.set(org, "finance", "d", 1)).toMatchObject({ version: 1 });
      // Another organization has its own allowance.
      expect(await capped.set(await newOrg(), "finance", "a", 1)).toMatchObject({ version: 1 });
    });
  });
});

describe("prefixEnd", () => {
  it.each([
    ["a", "b"],
    ["a/", "a0"],
    ["\ud7ff", "\ue000"],
    ["a\u{10ffff}", "b"],
    ["\u{10ffff}", undefined],
    ["😀", "😁"],
  ])("ends the keys starting with %j before %j", (prefix, end) => {
    expect(prefixEnd(prefix)).toBe(end);
  });
});
