import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHarness, type Asked, type Harness } from "./builtin/harness.ts";
import { createTruth, plural, type Truth } from "./builtin/truth.ts";

/**
 * Conversations: follow-ups that lean on the last reply through the memory it left ("and how
 * much do they add up to?", "the second one", "show me more", "what about last month?"), the
 * questions asked back before a change, and the help text for what is not understood.
 */

let h: Harness;
let truth: Truth;

beforeAll(async () => {
  h = await createHarness();
  truth = createTruth(h);
});
afterAll(async () => {
  await h.dispose();
});

interface Listed {
  list?: { items: Array<{ id: string; label: string; resource: string }> };
}
const items = (asked: Asked) => (asked.outcome.memory as Listed).list!.items;

describe("follow-ups on a list", () => {
  it("adds up, counts per currency, then acts on the first one", async () => {
    const [list, sum, count, mark] = await h.converse([
      "which invoices are overdue?",
      "and how much do they add up to?",
      "how many of them are in EUR?",
      "mark the first one as paid",
    ]);
    const owed = await truth.invoiceTotals("amount - amount_paid", "s = 'overdue'");
    for (const text of owed.money) expect(sum!.reply).toContain(text);
    const eur = await truth.invoices("s = 'overdue' AND currency = 'EUR'");
    expect(count!.reply).toContain(`**${eur.length}** of them are in EUR`);
    const first = items(list!)[0]!;
    const firstLine = list!.reply.split("\n").find((line) => line.startsWith("- "));
    expect(firstLine).toContain(first.label.split(" ")[0]);
    expect(mark!.proposals).toHaveLength(1);
    expect(mark!.proposals[0]).toMatchObject({ tool: "mark_invoice_paid", arguments: { invoice: first.id } });
  });

  it("the second one, then void it", async () => {
    const [list, second, voided] = await h.converse([
      "show me overdue invoices",
      "the second one",
      "void it",
    ]);
    const target = items(list!)[1]!;
    const number = target.label.split(" ")[0]!;
    const [row] = await truth.invoices("number = $3", [number]);
    expect(second!.reply).toContain(`**${number}** — ${row!.client}`);
    expect(second!.proposals).toHaveLength(0);
    expect(voided!.proposals[0]).toMatchObject({ tool: "void_invoice", arguments: { invoice: target.id } });
  });

  it("show me more, until there is no more", async () => {
    const [first, more, end] = await h.converse(["unpaid invoices", "show me more", "show me more"]);
    const rows = await truth.invoices("s IN ('open', 'overdue')");
    expect(first!.reply).toContain(`and ${rows.length - 10} more`);
    const shown = items(first!).slice(10, 20);
    for (const item of shown.slice(0, rows.length - 10))
      expect(more!.reply).toContain(item.label.split(" ")[0]);
    expect(more!.reply).toContain(`11–${Math.min(20, rows.length)} of ${rows.length}`);
    expect(end!.reply).toContain(rows.length <= 20 ? "That was all of them" : "21–");
  });

  it("what about last month, and this year", async () => {
    const [, lastMonth, thisYear] = await h.converse([
      "revenue this month",
      "what about last month?",
      "and this year?",
    ]);
    const february = await truth.paymentTotals("2026-02-01T00:00:00Z", "2026-03-01T00:00:00Z");
    const year = await truth.paymentTotals("2026-01-01T00:00:00Z", "2027-01-01T00:00:00Z");
    for (const text of february.money) expect(lastMonth!.reply).toContain(text);
    expect(lastMonth!.reply).toContain(plural(february.count, "payment"));
    for (const text of year.money) expect(thisYear!.reply).toContain(text);
  });

  it("what about the lost ones", async () => {
    const [, lost] = await h.converse(["deals won", "what about the lost ones?"]);
    const totals = await truth.dealTotals("stage = 'lost'");
    expect(lost!.reply).toContain(plural(totals.count, "lost deal"));
    for (const text of totals.money) expect(lost!.reply).toContain(text);
  });

  it("the same question for another client", async () => {
    const [, acme] = await h.converse([
      "overdue invoices for Kestrel Robotics",
      "what about Acme Logistics?",
    ]);
    const rows = await truth.invoices("s = 'overdue' AND client = 'Acme Logistics'");
    expect(acme!.reply).toContain(plural(rows.length, "overdue invoice"));
    for (const row of rows) expect(acme!.reply).toContain(row.number);
    expect(acme!.reply).not.toContain("Kestrel");
  });

  it("the same question in another currency", async () => {
    const [, usd] = await h.converse(["which invoices are overdue?", "and in USD?"]);
    const rows = await truth.invoices("s = 'overdue' AND currency = 'USD'");
    expect(usd!.reply).toContain(plural(rows.length, "overdue invoice"));
    expect(usd!.reply).not.toContain("EUR");
  });

  it("the same question for another stage", async () => {
    const [, prospects] = await h.converse(["how many customers do we have?", "and prospects?"]);
    const names = await truth.names("contacts", "lifecycle_stage = 'prospect'");
    expect(prospects!.reply).toContain(`${names.length} prospects`);
  });

  it("the same question over another period", async () => {
    const [, wider] = await h.converse([
      "skills verified in the last 7 days",
      "what about the last 60 days?",
    ]);
    const since = new Date(h.now.getTime() - 60 * 86_400_000).toISOString();
    const count = await truth.count("skills", "status = 'verified' AND verified_at > $2", [since]);
    expect(wider!.reply).toContain(plural(count, "skill"));
  });

  it("a candidate's skills, then verify the third one", async () => {
    const [detail, verify] = await h.converse(["tell me about Liam Moreau", "verify the 3rd one"]);
    const third = items(detail!)[2]!;
    expect(verify!.proposals[0]).toMatchObject({ tool: "verify_skill", arguments: { id: third.id } });
  });

  it("candidates in a status, then move the first one", async () => {
    const [list, move] = await h.converse(["candidates in interview", "move the first one to offer"]);
    const first = items(list!)[0]!;
    expect(move!.proposals[0]).toMatchObject({
      tool: "set_candidate_status",
      arguments: { id: first.id, status: "offer" },
    });
  });

  it("one invoice, then mark it as paid", async () => {
    const [, mark] = await h.converse(["show invoice INV-000012", "mark it as paid"]);
    const id = (await truth.one<{ id: string }>("invoices", "number = 'INV-000012'")).id;
    expect(mark!.proposals[0]).toMatchObject({ tool: "mark_invoice_paid", arguments: { invoice: id } });
  });

  it("a contact, then change his email", async () => {
    const [, change] = await h.converse([
      "what is Theo Novak's email?",
      "change his email to theo@example.com",
    ]);
    const id = (await truth.one<{ id: string }>("contacts", "name = 'Theo Novak'")).id;
    expect(change!.proposals[0]).toMatchObject({
      tool: "update_record",
      arguments: { resource: "contacts", id, fields: { email: "theo@example.com" } },
    });
  });
});

describe("questions asked back before a change", () => {
  it("which of the client's invoices: the first one", async () => {
    const [question, answer] = await h.converse(["mark Acme's invoice as paid", "the first one"]);
    expect(question!.proposals).toHaveLength(0);
    expect(question!.reply).toContain("Which one?");
    const first = items(question!)[0]!;
    expect(answer!.proposals[0]).toMatchObject({
      tool: "mark_invoice_paid",
      arguments: { invoice: first.id },
    });
  });

  it("which invoice: its number", async () => {
    const [question, answer] = await h.converse(["mark it as paid", "INV-000012"]);
    expect(question!.proposals).toHaveLength(0);
    expect(question!.reply).toContain("Which invoice?");
    const id = (await truth.one<{ id: string }>("invoices", "number = 'INV-000012'")).id;
    expect(answer!.proposals[0]).toMatchObject({ tool: "mark_invoice_paid", arguments: { invoice: id } });
  });

  it("which deal: the first one", async () => {
    const [question, answer] = await h.converse(["move the Blue Fjord deal to won", "the first one"]);
    const first = items(question!)[0]!;
    expect(answer!.proposals[0]).toMatchObject({
      tool: "move_deal",
      arguments: { id: first.id, stage: "won" },
    });
  });

  it("which stage: its name", async () => {
    const [question, answer] = await h.converse(["move the Juniper deal", "to proposal"]);
    expect(question!.proposals).toHaveLength(0);
    const id = (await truth.one<{ id: string }>("deals", "title = 'Consulting retainer — Juniper Health'"))
      .id;
    expect(answer!.proposals[0]).toMatchObject({ tool: "move_deal", arguments: { id, stage: "proposal" } });
  });
});

describe("a new question is not taken for a follow-up", () => {
  it("after a question asked back, a question of its own is answered", async () => {
    const [, overdue] = await h.converse(["mark it as paid", "which invoices are overdue?"]);
    const rows = await truth.invoices("s = 'overdue'");
    expect(overdue!.reply).toContain(plural(rows.length, "overdue invoice"));
    expect(overdue!.proposals).toHaveLength(0);
  });

  it("after a list of contacts, a total of invoices is about invoices", async () => {
    const [, count] = await h.converse(["list our leads", "how many invoices are there in total?"]);
    expect(count!.reply).toContain(plural(await truth.count("invoices"), "invoice"));
  });

  it("after a search, show me more pages through its matches", async () => {
    const [first, more] = await h.converse(["find Kestrel", "show me more"]);
    const matches = items(first!);
    if (matches.length > 10) expect(more!.reply).toContain(matches[10]!.label);
    else expect(more!.reply).toContain("That was all of them");
  });
});

describe("a follow-up with nothing before it", () => {
  it.each(["show me more", "the second one", "how much do they add up to?", "mark them all as paid"])(
    "%s: says there is no earlier list, proposes nothing",
    async (phrase) => {
      const asked = await h.ask(phrase);
      expect(asked.proposals).toHaveLength(0);
      expect(asked.reply).toMatch(/earlier list|Which invoice\?/);
    },
  );
});

describe("memory it did not leave", () => {
  it("another planner's memory is ignored, nothing is guessed", async () => {
    const history = [
      { message: "hi", reply: "hello", sources: [], actions: [], memory: { messages: ["x"] } },
    ];
    const asked = await h.ask("mark the second one as paid", { history });
    expect(asked.proposals).toHaveLength(0);
    expect(asked.reply).toContain("Which invoice?");
  });

  it("an ordinal past the end of the list says so", async () => {
    const [, tenth] = await h.converse(["show deals in proposal", "the 9th one"]);
    expect(tenth!.reply).toContain("there is no number 9");
    expect(tenth!.proposals).toHaveLength(0);
  });
});

describe("help", () => {
  it.each(["help", "what can you do?", "hi", "hello there", "examples please", "How does this work?"])(
    "%s: what it can do, with examples",
    async (phrase) => {
      const asked = await h.ask(phrase);
      expect(asked.reply).toContain("I can answer questions about");
      expect(asked.reply).toContain("Mark INV-000030 as paid");
      expect(asked.proposals).toHaveLength(0);
      expect(asked.outcome.failed).toBeFalsy();
    },
  );

  it.each([
    "what's the weather in Paris?",
    "sing me a song",
    "asdf qwerty",
    "tell me a joke",
    "blorp the zizzle",
    "translate this into French",
  ])("%s: says it did not understand, lists examples, proposes nothing", async (phrase) => {
    const asked = await h.ask(phrase);
    expect(asked.reply, asked.reply).toContain("I'm not sure what you mean");
    expect(asked.reply).toContain("Which invoices are overdue?");
    expect(asked.proposals).toHaveLength(0);
    expect(asked.outcome.failed).toBe(true);
  });
});
