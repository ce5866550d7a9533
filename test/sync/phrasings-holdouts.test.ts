import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHarness, type Harness } from "./builtin/harness.ts";
import { holdout } from "./phrasings/cases-holdout.ts";
import { holdout2 } from "./phrasings/cases-holdout-2.ts";
import { holdout3 } from "./phrasings/cases-holdout-3.ts";
import { holdout4 } from "./phrasings/cases-holdout-4.ts";
import { holdout5 } from "./phrasings/cases-holdout-5.ts";
import { holdout6 } from "./phrasings/cases-holdout-6.ts";
import { holdout7 } from "./phrasings/cases-holdout-7.ts";
import { holdout8 } from "./phrasings/cases-holdout-8.ts";
import { holdout9 } from "./phrasings/cases-holdout-9.ts";
import { holdout10 } from "./phrasings/cases-holdout-10.ts";
import { holdout11 } from "./phrasings/cases-holdout-11.ts";
import { holdout12 } from "./phrasings/cases-holdout-12.ts";
import { holdout13 } from "./phrasings/cases-holdout-13.ts";
import { holdout14 } from "./phrasings/cases-holdout-14.ts";
import { holdout15 } from "./phrasings/cases-holdout-15.ts";
import { holdout16 } from "./phrasings/cases-holdout-16.ts";
import { holdout17 } from "./phrasings/cases-holdout-17.ts";
import { holdout18 } from "./phrasings/cases-holdout-18.ts";
import { formatTally, gradeAll, notRight, tally, type Case, type Graded } from "./phrasings/grade.ts";

/**
 * The holdout phrasing exams for SYNC's read questions: eighteen sets of 84 owners' questions (12 in
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
  // Accounting for every word (sync/builtin/accounting.ts) withheld answers that had been right by luck
  // (a window or a rank ignored, the list happening to match): sets 2, 3 and 5 lost 2, 2 and 1 of those.
  { name: "holdout 1 (blind: 52 right, 19 wrong)", cases: holdout, floor: { right: 81, wrong: 0 } },
  { name: "holdout 2 (blind: 42 right, 18 wrong)", cases: holdout2, floor: { right: 79, wrong: 0 } },
  { name: "holdout 3 (blind: 34 right, 26 wrong)", cases: holdout3, floor: { right: 63, wrong: 0 } },
  { name: "holdout 4 (blind: 31 right, 19 wrong)", cases: holdout4, floor: { right: 58, wrong: 3 } },
  { name: "holdout 5 (blind: 25 right, 21 wrong)", cases: holdout5, floor: { right: 38, wrong: 0 } },
  // Written for the accounting change and run blind on it; the tree before it scored 41 / 18 and 24 / 27.
  { name: "holdout 6 (blind: 37 right, 7 wrong)", cases: holdout6, floor: { right: 60, wrong: 0 } },
  { name: "holdout 7 (blind: 23 right, 10 wrong)", cases: holdout7, floor: { right: 41, wrong: 2 } },
  // Run blind after accounting was tuned on 6 and 7; the tree before accounting scored 41 / 13 and 42 / 14.
  // Every set was taught since (the session after: follow-ups asking "who", groupings said in passing,
  // "except paid", "got away", names at a word's start, chat asides): 408 right / 38 wrong over the nine
  // became 437 / 16.
  { name: "holdout 8 (blind: 41 right, 8 wrong)", cases: holdout8, floor: { right: 63, wrong: 0 } },
  { name: "holdout 9 (blind: 39 right, 4 wrong)", cases: holdout9, floor: { right: 56, wrong: 0 } },
  // Written blind by a helper session while sets 1–9 were taught; its blind run (39 / 5) scored what the
  // tree before that teaching scored: the teaching did not carry over to it. It was taught after (chat asides,
  // "feb 1st to 14th", "w/o", "paid or not"): 42 / 4.
  { name: "holdout 10 (blind: 39 right, 5 wrong)", cases: holdout10, floor: { right: 60, wrong: 0 } },
  // Written blind by a helper session while this session taught the planner the ways of speaking that
  // belong to every question (cases-operators.ts): the tree before scored 53 / 1 on it, the taught tree 54 / 1.
  // It was taught after (asides after the question, dates as orders, "which are…" after a client's list): 72 / 0.
  // Sets 1–10 went from 479 right / 20 wrong to 549 / 17 over the session.
  { name: "holdout 11 (blind: 54 right, 1 wrong)", cases: holdout11, floor: { right: 72, wrong: 0 } },
  // Written blind by a helper session after the first teaching; run blind on the tree before the session
  // (57 / 3) and after that teaching (61 / 3), then taught ("who owes us the most" names one client, what was
  // paid in, remarks after a dash, a count of ten or fewer shows them): 73 / 1.
  { name: "holdout 12 (blind: 61 right, 3 wrong)", cases: holdout12, floor: { right: 74, wrong: 1 } },
  // Written blind by a helper session after the second teaching; run blind on the tree before the session
  // (50 / 7) and after the teaching on sets 11 and 12 (58 / 6), then taught (billed vs paid by client,
  // "by the end of this quarter", "their emails" after a list, a name only where a word of it starts): 63 / 1.
  { name: "holdout 13 (blind: 58 right, 6 wrong)", cases: holdout13, floor: { right: 65, wrong: 1 } },
  // Written blind by a helper session at the start of the next; the tree before that session scored 47 / 8 on
  // it, and so did the tree after its first fixes (to wrong answers in sets 1–13). Taught after ("on or
  // before", "sitting at proposal", "left on them", counts of related records, clients who never paid,
  // a pipeline in one currency, asides and restatements): 75 / 0.
  { name: "holdout 14 (blind: 47 right, 8 wrong)", cases: holdout14, floor: { right: 76, wrong: 0 } },
  // Written blind by a helper session while 14 was taught: the tree before that session scored 41 / 8, the
  // tree taught on 14 45 / 7 (the blind run). Taught after ("drafts voids everything", "don't count the
  // voided one", "not paid on time", "which 3 owe us the most" after a list, won deals in a period added
  // up over that period, clients who owe nothing, "of them" with no list before, chat noises): 71 / 0.
  { name: "holdout 15 (blind: 45 right, 7 wrong)", cases: holdout15, floor: { right: 73, wrong: 0 } },
  // Written blind by a helper session while 15 was taught: the tree before that session scored 48 / 5, the
  // tree taught on 14 and 15 (and on what sets 1–13 still missed) 55 / 3 (the blind run). Taught after
  // ("— who from and how much", a payment's line names its invoice and client, "how much is left on it",
  // "jan and feb combined" as one window the intents read as January: confidently wrong, "collect",
  // "which 3 have been overdue the longest", "didn't go our way", "passed on", "should've closed by now"): 75 / 1.
  { name: "holdout 16 (blind: 55 right, 3 wrong)", cases: holdout16, floor: { right: 75, wrong: 1 } },
  // Written blind by a helper session while 16 was taught: the tree before that session scored 46 / 8, the
  // tree taught on 14–16 56 / 6 (the blind run). Taught after (", which ones" was read as "least first" per
  // client: confidently wrong, "skip the voided ones", "still into us for", "what are they worth all
  // together", "don't care what stage", "said no to", "what invoices have we sent X", remarks after a comma): 69 / 2.
  { name: "holdout 17 (blind: 56 right, 6 wrong)", cases: holdout17, floor: { right: 69, wrong: 2 } },
  // Written blind by a helper session while 17 was taught: the tree before that session scored 37 / 7, the
  // tree taught on 14–17 45 / 6 (the blind run). Taught after (a remark after the question mark held
  // "today": was read as a window, "… or was it all this month", "card vs bank transfer" per method, "what
  // does that come to" after a list, "at the latest", "supposed to land", "calls/emails/meetings"): 62 / 1.
  // Over the session's five blind runs (14–18, 420 cases): the tree before it 219 right / 36 wrong, the
  // taught tree of each run 248 / 30.
  { name: "holdout 18 (blind: 45 right, 6 wrong)", cases: holdout18, floor: { right: 62, wrong: 1 } },
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
