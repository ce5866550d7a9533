import { describe, expect, it } from "vitest";
import { newId, randomBase62, safeEqual } from "../../core/index.ts";

describe("random ids and credentials", () => {
  it("makes prefixed ids of 24 base62 characters, never the same twice", () => {
    const ids = Array.from({ length: 20_000 }, () => newId("inv"));
    for (const id of ids.slice(0, 100)) expect(id).toMatch(/^inv_[0-9A-Za-z]{24}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("draws every base62 character about equally often (no modulo bias)", () => {
    const counts = new Map<string, number>();
    const text = randomBase62(620_000);
    for (const char of text) counts.set(char, (counts.get(char) ?? 0) + 1);
    expect(counts.size).toBe(62);
    // 10,000 expected each; 5 standard deviations (~500) is far outside chance.
    for (const count of counts.values()) expect(Math.abs(count - 10_000)).toBeLessThan(500);
  });

  it("compares credentials in constant time and only equal strings match", () => {
    expect(safeEqual("sk_live_abc", "sk_live_abc")).toBe(true);
    expect(safeEqual("sk_live_abc", "sk_live_abd")).toBe(false);
    expect(safeEqual("sk_live_abc", "sk_live_ab")).toBe(false);
    expect(safeEqual("sk_live_ab", "sk_live_abc")).toBe(false);
    expect(safeEqual("xk_live_abc", "sk_live_abc")).toBe(false);
    expect(safeEqual("", "")).toBe(true);
    expect(safeEqual("", "a")).toBe(false);
    expect(safeEqual("café", "cafe")).toBe(false);
    expect(safeEqual("café", "café")).toBe(true);
    // A length mismatch compares the first string with itself: it must still say no.
    expect(safeEqual("aaaa", "aaaaa")).toBe(false);
  });
});
