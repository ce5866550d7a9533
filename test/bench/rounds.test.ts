import { describe, expect, it } from "vitest";
import { orderOfRound } from "../../bench/lib/rounds.ts";

describe("the benchmarks' rounds", () => {
  it("give every subject the same mean place over each pair of rounds", () => {
    const subjects = ["hono", "workerd", "tessera", "baseline"];
    const places = new Map(subjects.map((subject) => [subject, 0]));
    for (let round = 0; round < 2; round++) {
      orderOfRound(subjects, round).forEach((subject, place) =>
        places.set(subject, places.get(subject)! + place),
      );
    }
    expect(new Set(places.values())).toEqual(new Set([subjects.length - 1]));
    expect(orderOfRound(subjects, 0)).toEqual(subjects);
    expect(subjects).toEqual(["hono", "workerd", "tessera", "baseline"]);
  });
});
