import { describe, expect, it } from "vitest";
import {
  DEFAULT_SCHEDULE_S,
  maxAttempts,
  MAX_RETRY_AFTER_S,
  nextAttemptAt,
  parseRetryAfter,
} from "../../webhooks/backoff.ts";

const now = new Date("2025-03-15T10:00:00Z");
const mid = () => 0.5; // no jitter
const after = (at: Date | null) => (at === null ? null : (at.getTime() - now.getTime()) / 1000);

describe("nextAttemptAt", () => {
  it("follows the default schedule after each attempt, then gives up after the 8th", () => {
    const delays = [1, 2, 3, 4, 5, 6, 7].map((attempt) => after(nextAttemptAt(attempt, now, mid)));
    expect(delays).toEqual([5, 300, 1800, 7200, 18000, 36000, 36000]);
    expect(nextAttemptAt(8, now, mid)).toBeNull();
    expect(maxAttempts()).toBe(8);
    expect(DEFAULT_SCHEDULE_S).toHaveLength(7);
  });

  it("jitters by at most 20 % either way", () => {
    expect(after(nextAttemptAt(2, now, () => 0))).toBe(240);
    expect(after(nextAttemptAt(2, now, () => 0.999999))).toBeCloseTo(360, 0);
    expect(after(nextAttemptAt(2, now, () => 0.25))).toBe(270);
  });

  it("follows an endpoint's explicit schedule", () => {
    const policy = { schedule_s: [10, 20] };
    expect(after(nextAttemptAt(1, now, mid, policy))).toBe(10);
    expect(after(nextAttemptAt(2, now, mid, policy))).toBe(20);
    expect(nextAttemptAt(3, now, mid, policy)).toBeNull();
  });

  it("doubles an exponential policy up to its cap, for max_attempts in all", () => {
    const policy = { exponential: { base_s: 10, cap_s: 50 }, max_attempts: 5 };
    const delays = [1, 2, 3, 4].map((attempt) => after(nextAttemptAt(attempt, now, mid, policy)));
    expect(delays).toEqual([10, 20, 40, 50]);
    expect(nextAttemptAt(5, now, mid, policy)).toBeNull();
  });

  it("lets Retry-After replace the delay, bounded to 24 h, but not add attempts", () => {
    expect(after(nextAttemptAt(1, now, mid, null, 120))).toBe(120);
    expect(after(nextAttemptAt(3, now, () => 0, null, 0))).toBe(0);
    expect(after(nextAttemptAt(1, now, mid, null, 10 * 86_400))).toBe(MAX_RETRY_AFTER_S);
    expect(nextAttemptAt(8, now, mid, null, 5)).toBeNull();
  });
});

describe("parseRetryAfter", () => {
  it("reads delay-seconds and HTTP dates (RFC 9110 §10.2.3)", () => {
    expect(parseRetryAfter("120", now)).toBe(120);
    expect(parseRetryAfter(" 7 ", now)).toBe(7);
    expect(parseRetryAfter("Sat, 15 Mar 2025 10:01:30 GMT", now)).toBe(90);
    expect(parseRetryAfter("Sat, 15 Mar 2025 09:00:00 GMT", now)).toBe(0);
  });

  it("ignores what it cannot read", () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter("-5", now)).toBeUndefined();
  });
});
