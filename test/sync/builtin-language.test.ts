import { describe, expect, it } from "vitest";
import { analyze } from "../../sync/builtin/analysis.ts";
import { findDates } from "../../sync/builtin/dates.ts";
import { findEntities } from "../../sync/builtin/entities.ts";
import { classify } from "../../sync/builtin/intents.ts";
import { normalize } from "../../sync/builtin/normalize.ts";
import { detectWrite } from "../../sync/builtin/writes.ts";

/**
 * The built-in planner's reading of English, without data: normalization, dates from a fixed
 * today (Wednesday 2026-03-18), entities, which question a message asks and which change it
 * orders. The data-backed behaviour is in the other builtin-*.test.ts files.
 */

const TODAY = "2026-03-18";

describe("normalize", () => {
  it.each([
    ["Could you please tell me what's overdue?", "what is overdue?"],
    ["I'd like to know which invoices are late", "which invoices are late"],
    ["Hey SYNC, can you show me the pipeline?", "the pipeline?"],
    ["I want you to mark INV-000030 as paid", "mark INV-000030 as paid"],
    ["Thanks! Who's in screening?", "Who is in screening?"],
    ["make me a list of overdue invoices", "list of overdue invoices"],
    // Owners' ways of saying a bound, an exclusion, "them", a narrowing: the one form the readers know.
    ["which paymnts were 9600 or bigger", "which payments were at least 9600"],
    ["deals 5k or less", "deals at most 5k"],
    ["payments of $300 or more", "payments of at least $300"],
    ["invs with 7+ units", "invoices with at least 7 units"],
    ["unpaid invs anywhere from 5k up to 10k incl", "unpaid invoices between 5k and 10k"],
    ["unpaid invoices, leave out the dollar ones", "unpaid invoices, excluding dollar"],
    ["bills due in april, leave helios out", "bills due in april, excluding helios"],
    ["drafts n voids aside", "excluding drafts and voids"],
    ["list applicants except the ones we turned down", "list applicants except turned down"],
    ["open invoices with 1k left on em", "open invoices with 1k left on them"],
    ["narrow it down to qualified", "only qualified"],
    ["what came in payment-wise during feb", "what came in payment during feb"],
    ["break down payments by method", "payments by method"],
    ["break it down by method", "split it by method"],
    ["billed per month for jan feb mar", "billed per month for jan to mar"],
    ["jan, feb and apr", "jan, feb and apr"],
    ["skills signed off last week", "skills verified last week"],
    ["total won since new year", "total won this year so far"],
  ])("%s → %s", (message, text) => {
    expect(normalize(message).text).toBe(text);
  });

  it("keeps names' case and strips possessives from tokens", () => {
    const { tokens } = normalize("What is Ava Okafor's email?");
    expect(tokens.map((token) => token.raw)).toEqual(["What", "is", "Ava", "Okafor", "email"]);
    expect(tokens[3]!.possessive).toBe(true);
  });

  it("tells questions from commands", () => {
    expect(normalize("Is INV-000030 paid?").question).toBe(true);
    expect(normalize("mark INV-000030 as paid").question).toBe(false);
  });
});

describe("dates from today", () => {
  it.each([
    ["revenue last month", "2026-02-01", "2026-02-28"],
    ["this month", "2026-03-01", "2026-03-31"],
    ["this week", "2026-03-16", "2026-03-22"],
    ["last week", "2026-03-09", "2026-03-15"],
    ["next week", "2026-03-23", "2026-03-29"],
    ["this year", "2026-01-01", "2026-12-31"],
    ["last year", "2025-01-01", "2025-12-31"],
    ["this quarter", "2026-01-01", "2026-03-31"],
    ["last quarter", "2025-10-01", "2025-12-31"],
    ["today", "2026-03-18", "2026-03-18"],
    ["yesterday", "2026-03-17", "2026-03-17"],
    ["in the last 30 days", "2026-02-16", "2026-03-18"],
    ["over the past two weeks", "2026-03-04", "2026-03-18"],
    ["past 7 days", "2026-03-11", "2026-03-18"],
    ["in the last month", "2026-02-16", "2026-03-18"],
    ["year to date", "2026-01-01", "2026-03-18"],
    ["in January", "2026-01-01", "2026-01-31"],
    ["in December", "2025-12-01", "2025-12-31"],
    ["February 2026", "2026-02-01", "2026-02-28"],
    ["since February", "2026-02-01", "2026-03-18"],
    ["on 2026-03-01", "2026-03-01", "2026-03-01"],
    ["March 3rd", "2026-03-03", "2026-03-03"],
    ["3 March 2025", "2025-03-03", "2025-03-03"],
    ["from 2026-01-05 to 2026-01-20", "2026-01-05", "2026-01-20"],
    ["between March 1 and March 10", "2026-03-01", "2026-03-10"],
    ["last Friday", "2026-03-13", "2026-03-13"],
    ["next Friday", "2026-03-20", "2026-03-20"],
    ["in Q4 2025", "2025-10-01", "2025-12-31"],
    ["in 2025", "2025-01-01", "2025-12-31"],
    // Parts of a month, a week from a day, "mar", bare day ranges, "since" a weekday or the Nth.
    ["invoices sent 1st week of march", "2026-03-01", "2026-03-07"],
    ["the second week of feb", "2026-02-08", "2026-02-14"],
    ["the last week of feb", "2026-02-22", "2026-02-28"],
    ["in the first half of march", "2026-03-01", "2026-03-15"],
    ["the second half of jan", "2026-01-16", "2026-01-31"],
    ["the first 10 days of feb", "2026-02-01", "2026-02-10"],
    ["the first 2 weeks of jan", "2026-01-01", "2026-01-14"],
    ["the week of jan 26", "2026-01-26", "2026-02-01"],
    ["the week starting mar 2", "2026-03-02", "2026-03-08"],
    ["issued on mar 7", "2026-03-07", "2026-03-07"],
    ["jan 10 - mar 10", "2026-01-10", "2026-03-10"],
    ["due mar 20 thru apr 5", "2026-03-20", "2026-04-05"],
    ["since monday", "2026-03-16", "2026-03-18"],
    ["since the 10th", "2026-03-10", "2026-03-18"],
    ["since the 20th", "2026-02-20", "2026-03-18"],
  ])("%s (as the past)", (phrase, from, to) => {
    const found = findDates(normalize(phrase).lower, TODAY);
    expect(found.past?.range).toMatchObject({ from, to });
  });

  it.each([
    ["due in the next 14 days", "2026-03-18", "2026-04-01"],
    ["due within 10 days", "2026-03-18", "2026-03-28"],
    ["due by Friday", "2026-03-18", "2026-03-20"],
    ["due in April", "2026-04-01", "2026-04-30"],
    ["due next month", "2026-04-01", "2026-04-30"],
    ["due tomorrow", "2026-03-19", "2026-03-19"],
    ["due on Monday", "2026-03-23", "2026-03-23"],
    ["due the week after next", "2026-03-30", "2026-04-05"],
    ["closing in the first 2 weeks of may", "2026-05-01", "2026-05-14"],
  ])("%s (as the future)", (phrase, from, to) => {
    expect(findDates(phrase.toLowerCase(), TODAY).future?.range).toMatchObject({ from, to });
  });

  it("a rolling window keeps its length in days, for tools that take days", () => {
    expect(findDates("skills verified in the last 45 days", TODAY).past).toMatchObject({ days: 45 });
  });

  it("numbers that are no dates are left alone", () => {
    expect(findDates("invoice 30", TODAY).past).toBeUndefined();
    expect(findDates("top 5 clients", TODAY).past).toBeUndefined();
  });
});

describe("entities", () => {
  const entities = (text: string) => findEntities(text, text.toLowerCase(), []);

  it.each([
    ["mark INV-000030 as paid", ["INV-000030"]],
    ["invoice 30", ["INV-000030"]],
    ["inv 7", ["INV-000007"]],
    ["invoice #12", ["INV-000012"]],
    ["invoices 3 and 4", ["INV-000003", "INV-000004"]],
    ["show INV-31", ["INV-000031"]],
    ["invoices due in 30 days", []],
  ])("%s → %j", (text, refs) => {
    expect(entities(text).invoiceRefs).toEqual(refs);
  });

  it.each([
    ["300 EUR", "300", "EUR"],
    ["€300", "300", "EUR"],
    ["$1,200.50", "1200.50", "USD"],
    ["1,000.50 euros", "1000.50", "EUR"],
    ["£75", "75", "GBP"],
    ["2k USD", "2000", "USD"],
  ])("%s is %s %s", (text, amount, currency) => {
    expect(entities(`a payment of ${text} on INV-000001`).amounts[0]).toMatchObject({ amount, currency });
  });

  it.each([
    ["unpaid invoices", ["open", "overdue"]],
    ["late bills", ["overdue"]],
    ["past due", ["overdue"]],
    ["settled invoices", ["paid"]],
    ["cancelled invoices", ["void"]],
  ])("%s → invoice statuses %j", (text, statuses) => {
    expect(entities(text).invoiceStatuses).toEqual(statuses);
  });

  it.each([
    ["closed won deals", ["won"]],
    ["deals we lost", ["lost"]],
    ["onboarded people", ["hired"]],
    ["who got an offer", ["offer"]],
  ])("%s → stages and statuses", (text, values) => {
    const found = entities(text);
    expect([...found.dealStages, ...found.candidateStatuses]).toEqual(values);
  });

  it.each([
    ["the second one", 2],
    ["mark the first one as paid", 1],
    ["the last one", -1],
    ["number 3", 3],
    ["the 4th", 4],
  ])("%s → place %d", (text, ordinal) => {
    expect(entities(text).ordinal).toBe(ordinal);
  });

  it("no place in a list from everyday words", () => {
    expect(entities("the last emails from Ava").ordinal).toBeUndefined();
    expect(entities("show the first 5 invoices").ordinal).toBeUndefined();
  });

  it("emails and limits", () => {
    const found = entities("create a contact Ada, ada@example.com; top 3");
    expect(found.emails).toEqual(["ada@example.com"]);
    expect(found.limit).toBe(3);
  });
});

describe("which question", () => {
  it.each([
    ["which invoices are overdue?", "overdue"],
    ["what's due next week", "due_soon"],
    ["how much are we owed", "outstanding"],
    ["revenue last month", "revenue"],
    ["list draft invoices", "invoices"],
    ["show INV-000030", "invoice_detail"],
    ["top 5 clients", "top_clients"],
    ["how many customers do we have", "contacts"],
    ["pipeline by stage", "pipeline"],
    ["deals we won", "deals"],
    ["recent calls", "communications"],
    ["candidates in interview", "candidates"],
    ["skills verified this week", "skills_verified"],
    ["who knows Python", "skills"],
    ["give me an overview", "snapshot"],
    ["search for Kestrel", "search"],
    ["how many products", "products"],
    ["list payments", "payments"],
    ["what can you do", "help"],
    ["invocies overdeu", "overdue"],
    ["pipline by stage", "pipeline"],
    ["recieved payments last month", "revenue"],
    ["who has user research skills", "skills"],
  ])("%s → %s", (message, intent) => {
    expect(classify(analyze(message, TODAY))[0]?.intent).toBe(intent);
  });
});

describe("which change", () => {
  it.each([
    ["mark INV-000030 as paid", "mark_paid"],
    ["void invoice 31", "void"],
    ["record a payment of 300 EUR on INV-000030", "record_payment"],
    ["move the Kestrel deal to won", "move_deal"],
    ["we won the Acme deal", "move_deal"],
    ["move Ava Okafor to interview", "candidate_status"],
    ["reject Amara Iyer", "candidate_status"],
    ["verify Ava's TypeScript skill", "verify_skill"],
    ["change Ada's email to ada@example.com", "update"],
    ["set Ravi Reyes to customer", "update"],
    ["create a contact Ada Lovelace", "create"],
    ["new contact: Alan Turing", "create"],
    ["delete every contact", "delete"],
    ["send the invoice to Acme", "unsupported"],
    ["is INV-000030 paid?", undefined],
    ["did we mark INV-000030 as paid?", undefined],
    ["void invoices", undefined],
    ["add them up", undefined],
    ["new contacts this month", undefined],
    ["make me a list of overdue invoices", undefined],
  ])("%s → %s", (message, kind) => {
    expect(detectWrite(analyze(message, TODAY))).toBe(kind);
  });
});
