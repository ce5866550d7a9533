import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHarness, type Harness } from "./builtin/harness.ts";
import { holdout } from "./phrasings/cases-holdout.ts";
import { holdout2 } from "./phrasings/cases-holdout-2.ts";
import { holdout3 } from "./phrasings/cases-holdout-3.ts";
import { holdout4 } from "./phrasings/cases-holdout-4.ts";
import { holdout5 } from "./phrasings/cases-holdout-5.ts";
import { formatTally, gradeAll, notRight, tally, type Case, type Graded } from "./phrasings/grade.ts";

/**
 * The holdout phrasing exams for SYNC's read questions: five sets of 84 owners' questions (12 in
 * each of the seven categories of test/sync/phrasings.test.ts), each written by a session that did
 * not read the planner, graded the same way (right, honest, confidently wrong) against the truth
 * computed from the tables. A set measures phrasings nobody tuned the planner on only on its first,
 * blind run; the sets the planner was taught since are ratchets. The tally of each is printed;
 * SYNC_PHRASINGS_SHOW=all lists every case not answered right.
 *
 * `floor`: what the set scored when last measured (bench/README.md "SYNC's phrasing set"), `blind`
 * its first run. No change may answer more of a set wrong or fewer right; raise the floors as it
 * improves (and when a set is taught, a new blind one is what measures the planner).
 */
const SETS: Array<{ name: string; cases: Case[]; floor: { right: number; wrong: number } }> = [
  { name: "holdout 1 (blind: 52 right, 19 wrong)", cases: holdout, floor: { right: 81, wrong: 2 } },
  { name: "holdout 2 (blind: 42 right, 18 wrong)", cases: holdout2, floor: { right: 75, wrong: 1 } },
  { name: "holdout 3 (blind: 34 right, 26 wrong)", cases: holdout3, floor: { right: 54, wrong: 12 } },
  { name: "holdout 4 (blind: 31 right, 19 wrong)", cases: holdout4, floor: { right: 38, wrong: 10 } },
  { name: "holdout 5 (blind: 25 right, 21 wrong)", cases: holdout5, floor: { right: 25, wrong: 21 } },
];

let h: Harness;
const graded = new Map<string, Graded[]>();

beforeAll(async () => {
  h = await createHarness();
  for (const set of SETS) {
    const results = await gradeAll(h, set.cases);
    graded.set(set.name, results);
    const tallies = tally(results.filter((g) => !g.truthError));
    console.log(`\n## SYNC phrasings, ${set.name}: ${set.cases.length} cases\n\n${formatTally(tallies)}`);
    if (process.env.SYNC_PHRASINGS_SHOW === "all") console.log(notRight(results));
  }
}, 900_000);

afterAll(async () => {
  await h?.dispose();
});

describe.each(SETS)("SYNC phrasings, $name", (set) => {
  it("computes every case's truth from the tables", () => {
    const results = graded.get(set.name)!;
    const broken = results
      .filter((g) => g.truthError)
      .map((g) => `${JSON.stringify(g.case.messages)}: ${g.truthError}`);
    expect(broken, broken.join("\n")).toEqual([]);
    expect(results).toHaveLength(set.cases.length);
  });

  it("is answered no worse than when last measured", () => {
    const results = graded.get(set.name)!;
    const wrong = results.filter((g) => !g.truthError && g.verdict === "wrong").length;
    const right = results.filter((g) => g.verdict === "right").length;
    expect(wrong, `confidently wrong\n${notRight(results)}`).toBeLessThanOrEqual(set.floor.wrong);
    expect(right, `right\n${notRight(results)}`).toBeGreaterThanOrEqual(set.floor.right);
  });
});
