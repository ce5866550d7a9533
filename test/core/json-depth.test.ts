import { describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../../core/index.ts";

/** `depth` arrays around a 1: `nest(2)` is `[[1]]`. */
const nest = (depth: number): unknown => (depth === 0 ? 1 : [nest(depth - 1)]);

describe("nestsDeeperThan", () => {
  it(`allows ${MAX_JSON_DEPTH} levels of arrays and objects and refuses one more`, () => {
    expect(nestsDeeperThan(nest(MAX_JSON_DEPTH))).toBe(false);
    expect(nestsDeeperThan(nest(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(nestsDeeperThan({ a: { b: [1] } }, 3)).toBe(false);
    expect(nestsDeeperThan({ a: { b: [1] } }, 2)).toBe(true);
  });

  it("counts no level for scalars, and finds a deep branch beside shallow ones", () => {
    expect(nestsDeeperThan("text", 0)).toBe(false);
    expect(nestsDeeperThan(null, 0)).toBe(false);
    expect(nestsDeeperThan({}, 0)).toBe(true);
    expect(nestsDeeperThan({ a: 1, b: [2, 3], c: { d: [[[4]]] } }, 4)).toBe(true);
  });

  it("answers for 100,000 levels parsed from JSON without overflowing the stack", () => {
    const deep: unknown = JSON.parse(`${"[".repeat(100_000)}${"]".repeat(100_000)}`);
    expect(nestsDeeperThan(deep)).toBe(true);
  });
});
