import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unaccounted } from "../../sync/builtin/accounting.ts";
import { analyze } from "../../sync/builtin/analysis.ts";
import { createHarness, type Harness } from "./builtin/harness.ts";

/**
 * Accounting for every word (sync/builtin/accounting.ts): an intent's answer leaves the planner only
 * when each word of the message that carries meaning is its cue, says nothing, or is said back by the
 * reply; otherwise the planner says which words it did not understand, `understood: false`, and
 * answers nothing. Each case below was answered confidently, and wrongly, before.
 */

let h: Harness;

beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h.dispose();
});

describe("the words an answer did not read", () => {
  const today = "2026-03-18";

  it("names a word that neither chose the answer nor is said back", () => {
    const analysis = analyze("who's best at python", today);
    const topClients =
      "Top 5 clients by revenue (what they paid):\n\n1. **Kestrel Robotics**: 41,275.00 EUR paid";
    expect(unaccounted(analysis, topClients, "top_clients")).toEqual(["python"]);
    expect(unaccounted(analysis, "1. **Mia Haddad**: Python (expert)", "skills")).toEqual([]);
  });

  it("takes a name typed with a slip when the reply has it spelt right", () => {
    const analysis = analyze("details for jonas tanka", today);
    expect(unaccounted(analysis, "**Jonas Tanaka**\n\n- Company: Helios Energy", "contacts:detail")).toEqual(
      [],
    );
  });

  it("needs a number, a window and a rank said back", () => {
    expect(
      unaccounted(
        analyze("3 clients that brought in the most cash", today),
        "You received **116,467.91 EUR**",
        "revenue",
      ),
    ).toEqual(expect.arrayContaining(["3", "most"]));
    const window = analyze("who did we reject in march", today);
    expect(unaccounted(window, "**2 candidates** are rejected:", "candidates")).toEqual(["march"]);
    expect(
      unaccounted(window, "**1 candidate** rejected in March 2026 (2026-03-01 to 2026-03-31):", "candidates"),
    ).toEqual([]);
  });

  it("does not take quoted text in the reply as said back", () => {
    const analysis = analyze("where did we find noah iyer", today);
    expect(unaccounted(analysis, "Nothing matches “where did we find noah iyer”.", "search")).not.toEqual([]);
  });
});

describe("the planner withholds an answer that did not read every word", () => {
  it.each([
    ["who's best at python", "python"],
    ["which of our customers are missing the priority tag", "missing"],
    ["how many client interactions in the fiscal week 9", "fiscal"],
    ["unpaid invoices, bar the dollar ones", "bar"],
    ["which of them are still active", "of them"],
  ])("%s", async (message, word) => {
    const asked = await h.ask(message);
    expect(asked.outcome.understood, asked.reply).toBe(false);
    expect(asked.reply).toContain(`“${word}”`);
    expect(asked.proposals).toHaveLength(0);
  });

  it("does not answer a follow-up about “them” as a fresh question", async () => {
    const [, asked] = await h.converse(["list data analyst candidates", "what skills do they list"]);
    expect(asked!.outcome.understood, asked!.reply).toBe(false);
    expect(asked!.reply).not.toContain("31 skills");
  });

  it("reads a number after a name as part of it, and answers for that record, not a namesake", async () => {
    const contacts = h.services.get("contacts")!;
    for (const name of ["Theo Novak 79", "Theo Novak 790"])
      await contacts.create(h.orgId, {
        name,
        email: `${name.replaceAll(" ", ".").toLowerCase()}@example.com`,
      });
    const asked = await h.ask("What is Theo Novak 79's email address?");
    expect(asked.outcome.understood, asked.reply).not.toBe(false);
    expect(asked.reply).toContain("theo.novak.79@example.com");
  });

  it.each([
    ["how much is left on INV-000009", "26,800.00 EUR"],
    ["where does Yara Haddad work?", "Juniper Health"],
    ["how much have we collected lately", "116,467.91 EUR"],
    ["has noah iyer been interviewed yet", "screening"],
  ])("still answers %s", async (message, expected) => {
    const asked = await h.ask(message);
    expect(asked.outcome.understood, asked.reply).not.toBe(false);
    expect(asked.reply).toContain(expected);
  });
});
