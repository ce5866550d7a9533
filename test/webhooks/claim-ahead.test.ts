import { describe, expect, it } from "vitest";
import { FakeClock, silentLogger } from "../../core/index.ts";
import { createClaimAhead } from "../../webhooks/claim-ahead.ts";

type Item = { delivery: { id: string } };

/** A queue of `due` ids behind a fake claim; what was claimed and handed back is kept. */
function fakeQueue(due: number) {
  const clock = new FakeClock("2025-03-15T10:00:00Z");
  const waiting = Array.from({ length: due }, (_, i) => `whd_${i}`);
  const claims: number[] = [];
  const released: string[] = [];
  let failNext: Error | undefined;
  const ahead = createClaimAhead<Item>({
    async claim(limit) {
      claims.push(limit);
      if (failNext) {
        const error = failNext;
        failNext = undefined;
        throw error;
      }
      return waiting.splice(0, limit).map((id) => ({ delivery: { id } }));
    },
    async release(items) {
      released.push(...items.map((item) => item.delivery.id));
      waiting.unshift(...items.map((item) => item.delivery.id));
    },
    ahead: 8,
    freshMs: 2_500,
    now: () => clock.now(),
    log: silentLogger,
  });
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  return { clock, ahead, claims, released, waiting, settle, fail: (error: Error) => (failNext = error) };
}

const ids = (items: Item[]) => items.map((item) => item.delivery.id);

describe("claiming webhook deliveries ahead", () => {
  it("answers a take from what it claimed ahead, and refills once half of that is gone", async () => {
    const queue = fakeQueue(40);
    expect(ids(await queue.ahead.take(4))).toEqual(["whd_0", "whd_1", "whd_2", "whd_3"]);
    expect(queue.claims).toEqual([12]); // the 4 asked for and 8 ahead
    expect(await queue.ahead.take(4)).toHaveLength(4);
    await queue.settle();
    expect(queue.claims).toEqual([12, 4]); // 4 left ahead: topped up to 8
    expect(ids(await queue.ahead.take(4))).toEqual(["whd_8", "whd_9", "whd_10", "whd_11"]);
    await queue.ahead.dispose();
  });

  it("stops refilling in the background once a claim finds the queue drained", async () => {
    const queue = fakeQueue(5);
    expect(await queue.ahead.take(4)).toHaveLength(4);
    expect(await queue.ahead.take(4)).toHaveLength(1);
    await queue.settle();
    expect(queue.claims).toEqual([12, 11]); // the take's own claim (1 kept, 4 asked for), none after it
    await queue.ahead.dispose();
  });

  it("hands back what it kept past freshMs instead of sending it, before claiming again", async () => {
    const queue = fakeQueue(12);
    await queue.ahead.take(4);
    queue.clock.advance(2_501);
    const taken = await queue.ahead.take(4);
    expect(queue.released).toEqual([
      "whd_4",
      "whd_5",
      "whd_6",
      "whd_7",
      "whd_8",
      "whd_9",
      "whd_10",
      "whd_11",
    ]);
    // Claimed again, with a fresh lease, by the claim that followed.
    expect(ids(taken)).toEqual(["whd_4", "whd_5", "whd_6", "whd_7"]);
    await queue.ahead.dispose();
  });

  it("hands back everything it kept when disposed", async () => {
    const queue = fakeQueue(20);
    await queue.ahead.take(2);
    await queue.ahead.dispose();
    expect(queue.released).toHaveLength(8);
    expect(queue.waiting).toHaveLength(18);
  });

  it("surfaces a failed claim to the take that needed it", async () => {
    const queue = fakeQueue(20);
    queue.fail(new Error("database restarting"));
    await expect(queue.ahead.take(4)).rejects.toThrow("database restarting");
    expect(await queue.ahead.take(4)).toHaveLength(4);
    await queue.ahead.dispose();
  });
});
