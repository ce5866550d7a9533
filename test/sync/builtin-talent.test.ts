import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { money } from "../../sync/tools/resources.ts";
import { createHarness, type Harness } from "./builtin/harness.ts";
import { createTruth, expectRead, plural, type Truth } from "./builtin/truth.ts";

/**
 * The built-in planner on candidates, skills, the snapshot, search and counts of anything,
 * against the demo organization; every expected figure and name comes from the tables.
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

type Row = Record<string, string | null>;
const candidate = (name: string) => truth.one<Row>("candidates", "name = $2", [name]);

describe("candidates", () => {
  const statusCases: Array<[string, string[], string]> = [
    ["candidates in interview", ["interview"], "in interview"],
    ["who is in screening?", ["screening"], "in screening"],
    ["which candidates are interviewing", ["interview"], "in interview"],
    ["how many candidates were hired?", ["hired"], "hired"],
    ["who did we hire?", ["hired"], "hired"],
    ["show rejected candidates", ["rejected"], "rejected"],
    ["candidates with an offer", ["offer"], "with an offer"],
    ["who got an offer?", ["offer"], "with an offer"],
    ["new applicants", ["applied"], "applied"],
    ["candidates who applied", ["applied"], "applied"],
  ];
  it.each(statusCases)("%s", async (phrase, statuses, words) => {
    const names = await truth.names("candidates", "status = ANY($2)", [statuses]);
    expectRead(await h.ask(phrase), [plural(names.length, "candidate"), words, ...names], phrase);
  });

  it.each([
    "hiring funnel",
    "candidates by status",
    "how many applicants do we have",
    "recruitment pipeline",
    "how many candidates",
  ])("%s", async (phrase) => {
    const rows = await h.sql<{ status: string; n: number }>(
      "SELECT status, count(*)::int AS n FROM candidates WHERE org_id = $1 GROUP BY 1",
    );
    const words: Record<string, string> = {
      applied: "applied",
      screening: "in screening",
      interview: "in interview",
      offer: "with an offer",
      hired: "hired",
      rejected: "rejected",
    };
    const total = rows.reduce((sum, row) => sum + row.n, 0);
    const texts = [plural(total, "candidate"), ...rows.map((row) => `${row.n} ${words[row.status]}`)];
    expectRead(await h.ask(phrase), texts, phrase);
  });

  it.each([
    ["list candidates for the Backend engineer position", "Backend engineer"],
    ["Show me candidates for the data analyst role", "Data analyst"],
    ["who applied for the product designer job?", "Product designer"],
  ])("%s: the candidates for that role", async (phrase, position) => {
    const names = await truth.names("candidates", "position = $2", [position]);
    expectRead(await h.ask(phrase), [plural(names.length, "candidate"), ...names], phrase);
  });

  it.each([
    ["Is Liam Moreau hired?", "Liam Moreau is in interview, not hired."],
    ["has Yara Iyer been hired?", "Yara Iyer is hired."],
    ["is Amara Novak rejected?", "Amara Novak is rejected."],
  ])("%s: yes or no, from the status", async (phrase, answer) => {
    expectRead(await h.ask(phrase), [answer], phrase);
  });
});

describe("a candidate and their skills", () => {
  const cases: Array<[string, string]> = [
    ["tell me about Liam Moreau", "Liam Moreau"],
    ["what skills does Yara Kowalski have?", "Yara Kowalski"],
    ["Mia Haddad's skills", "Mia Haddad"],
    ["candidate Noah Iyer", "Noah Iyer"],
    ["where is Sofia Schmidt in the process?", "Sofia Schmidt"],
    ["status of Amara Iyer", "Amara Iyer"],
    ["show Yara Iyer's profile", "Yara Iyer"],
    ["liam moreu skills", "Liam Moreau"],
    ["Yara Kowalsky candidate status", "Yara Kowalski"],
    ["what position did Mia Lindqvist apply for?", "Mia Lindqvist"],
  ];
  it.each(cases)("%s", async (phrase, name) => {
    const row = await candidate(name);
    const skills = await truth.names("skills", "candidate_id = $2", [row.id]);
    expectRead(await h.ask(phrase), [name, row.position!, row.status!, row.email!, ...skills], phrase);
  });
});

describe("skills", () => {
  const verifiedSince = async (days: number) => {
    const since = new Date(h.now.getTime() - days * 86_400_000).toISOString();
    return truth.names("skills", "status = 'verified' AND verified_at > $2", [since]);
  };
  it.each([
    ["skills verified in the last 7 days", 7],
    ["recently verified skills", 30],
    ["verified skills in the last 30 days", 30],
    ["how many skills were verified in the past 60 days?", 60],
    ["what got verified lately?", 30],
    ["skills verified over the past two weeks", 14],
  ] as const)("%s", async (phrase, days) => {
    const names = await verifiedSince(days);
    expectRead(await h.ask(phrase), [plural(names.length, "skill"), ...new Set(names)], phrase);
  });

  it("skills verified this month: the calendar month", async () => {
    const names = await truth.names("skills", "status = 'verified' AND verified_at >= '2026-03-01'");
    expectRead(await h.ask("which skills were verified this month?"), [plural(names.length, "skill")]);
  });

  it("one skill verified in a period: that skill only, by its exact name", async () => {
    const names = await truth.names("skills", "status = 'verified' AND name = 'SQL' AND verified_at > $2", [
      new Date(h.now.getTime() - 60 * 86_400_000).toISOString(),
    ]);
    const asked = await h.ask("SQL skills verified in the last 60 days");
    expectRead(asked, [plural(names.length, "SQL skill")]);
    expect(asked.reply).not.toContain("PostgreSQL");
  });

  it.each([
    ["who knows Python?", "Python"],
    ["which candidates have TypeScript", "TypeScript"],
    ["who has Figma skills?", "Figma"],
    ["candidates that know SQL", "SQL"],
    ["python developers", "Python"],
    ["who can speak German?", "German"],
    ["who has user research skills?", "User research"],
  ])("%s", async (phrase, skill) => {
    const rows = await h.sql<{ name: string }>(
      "SELECT c.name FROM skills s JOIN candidates c ON c.id = s.candidate_id WHERE s.org_id = $1 AND lower(s.name) = lower($2)",
      [skill],
    );
    expectRead(
      await h.ask(phrase),
      [plural(rows.length, "candidate"), ...rows.map((row) => row.name)],
      phrase,
    );
  });

  it.each(["list unverified skills", "show claimed skills"])("%s", async (phrase) => {
    const total = await truth.count("skills", "status = 'claimed'");
    expectRead(await h.ask(phrase), [plural(total, "claimed skill")], phrase);
  });
});

describe("the latest snapshot", () => {
  it.each([
    "give me an overview",
    "latest snapshot",
    "how are we doing?",
    "show the dashboard",
    "KPIs",
    "what's our DSO?",
    "summary of the business",
    "key figures please",
    "what's our cash position?",
  ])("%s", async (phrase) => {
    const [row] = await h.sql<{
      snapshot: { finance: Record<string, never>; growth: Record<string, never> };
    }>("SELECT snapshot FROM intelligence_snapshots WHERE org_id = $1 ORDER BY computed_at DESC LIMIT 1");
    const finance = row!.snapshot.finance as unknown as {
      outstanding: Record<string, number>;
      overdue_count: number;
    };
    const growth = row!.snapshot.growth as unknown as { contacts: number; deals_won: number };
    const texts = [
      ...Object.entries(finance.outstanding).map(([currency, amount]) => money(amount, currency)),
      plural(finance.overdue_count, "invoice"),
      `Contacts: **${growth.contacts}**`,
      `Deals won: ${growth.deals_won}`,
    ];
    expectRead(await h.ask(phrase), texts, phrase);
  });
});

describe("search", () => {
  it.each([
    ["find Kestrel", "Kestrel"],
    ["search for Quanta", "Quanta"],
    ["look up Oakridge", "Oakridge"],
    ["find anything about Helios", "Helios"],
    ["look for Larkspur", "Larkspur"],
    ['search "Blue Fjord"', "Blue Fjord"],
    ["find juniper", "juniper"],
  ])("%s", async (phrase, query) => {
    const contacts = await h.sql<{ name: string; company: string }>(
      "SELECT name, company FROM contacts WHERE org_id = $1 AND (name ILIKE $2 OR email ILIKE $2 OR company ILIKE $2) ORDER BY created_at DESC LIMIT 5",
      [`%${query}%`],
    );
    const invoices = await h.sql<{ number: string }>(
      "SELECT number FROM invoices WHERE org_id = $1 AND (client ILIKE $2 OR number ILIKE $2) ORDER BY created_at DESC LIMIT 5",
      [`%${query}%`],
    );
    expect(contacts.length + invoices.length).toBeGreaterThan(0);
    const texts = [`“${query}”`, ...contacts.map((row) => `${row.name} (${row.company})`)];
    if (invoices.length < 5) texts.push(...invoices.map((row) => row.number));
    expectRead(await h.ask(phrase), texts, phrase);
  });
});

describe("counts of anything", () => {
  it.each([
    ["how many products do we have", "products", "product"],
    ["how many payments are there?", "payments", "payment"],
    ["how many deals do we have", "deals", "deal"],
    ["how many skills are on record?", "skills", "skill"],
    ["how many communications have we logged?", "communications", "communication"],
    ["number of candidates", "candidates", "candidate"],
  ])("%s", async (phrase, table, noun) => {
    const total = await truth.count(table);
    expectRead(await h.ask(phrase), [plural(total, noun)], phrase);
  });
});
