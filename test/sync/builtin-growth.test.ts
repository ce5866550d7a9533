import { afterAll, beforeAll, describe, it } from "vitest";
import { createHarness, type Harness } from "./builtin/harness.ts";
import { createTruth, expectRead, plural, type Truth } from "./builtin/truth.ts";

/**
 * The built-in planner on contacts, the deal pipeline and communications, against the demo
 * organization; every expected figure and name comes from the tables.
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
const contact = (name: string) => truth.one<Row>("contacts", "name = $2", [name]);

describe("a contact's details", () => {
  const cases: Array<[string, string, Array<"email" | "phone" | "company" | "lifecycle_stage">]> = [
    ["what is Ava Okafor's email?", "Ava Okafor", ["email"]],
    ["email of Theo Novak", "Theo Novak", ["email"]],
    ["Theo Novak's phone number", "Theo Novak", ["phone"]],
    ["phone for mia schmidt", "Mia Schmidt", ["phone"]],
    ["who is Liam Haddad?", "Liam Haddad", ["email", "company", "lifecycle_stage"]],
    ["where does Yara Haddad work?", "Yara Haddad", ["company"]],
    ["which company is Jonas Brennan at", "Jonas Brennan", ["company"]],
    ["contact details for Ravi Reyes", "Ravi Reyes", ["email", "phone", "company"]],
    ["What stage is Sofia Novak in?", "Sofia Novak", ["lifecycle_stage"]],
    ["how do I reach Jonas Tanaka?", "Jonas Tanaka", ["email", "phone"]],
    ["ravi okafor's email address", "Ravi Okafor", ["email"]],
    ["Sofia Okafr phone", "Sofia Okafor", ["phone"]],
    ["Thoe Novak email", "Theo Novak", ["email"]],
    ["jonas tanka's company", "Jonas Tanaka", ["company"]],
    ["mia schmdt contact info", "Mia Schmidt", ["email", "phone"]],
    ["Ada Byron's email", "Ada Byron", ["email"]],
    ["What is the email address of Liam Haddad?", "Liam Haddad", ["email"]],
    ["Yara Haddad's mobile", "Yara Haddad", ["phone"]],
    ["Zoe Okafor's lifecycle stage", "Zoe Okafor", ["lifecycle_stage"]],
    ["could you please give me the phone number of Ravi Reyes", "Ravi Reyes", ["phone"]],
  ];
  it.each(cases)("%s", async (phrase, name, fields) => {
    const row = await contact(name);
    expectRead(await h.ask(phrase), [name, ...fields.map((field) => row[field]!)], phrase);
  });
});

describe("contacts by lifecycle stage", () => {
  const stageNouns: Record<string, [string, string]> = {
    lead: ["lead", "leads"],
    prospect: ["prospect", "prospects"],
    customer: ["customer", "customers"],
  };
  it.each([
    "how many contacts do we have?",
    "count our contacts",
    "contacts by lifecycle stage",
    "number of contacts",
  ])("%s", async (phrase) => {
    const rows = await h.sql<{ stage: string; n: number }>(
      "SELECT lifecycle_stage AS stage, count(*)::int AS n FROM contacts WHERE org_id = $1 GROUP BY 1",
    );
    const total = rows.reduce((sum, row) => sum + row.n, 0);
    const parts = rows.map((row) => plural(row.n, ...stageNouns[row.stage]!));
    expectRead(await h.ask(phrase), [plural(total, "contact"), ...parts], phrase);
  });
  it.each([
    ["how many customers do we have?", "customer", "customers"],
    ["who are our customers?", "customer", "customers"],
    ["list our leads", "lead", "leads"],
    ["show prospects", "prospect", "prospects"],
    ["number of prospects", "prospect", "prospects"],
  ])("%s", async (phrase, stage, noun) => {
    const names = await truth.names("contacts", "lifecycle_stage = $2", [stage]);
    expectRead(await h.ask(phrase), [`${names.length} ${noun}`, ...names.slice(0, 10)], phrase);
  });
});

describe("the deal pipeline", () => {
  const stageTexts = async (stage: string) => {
    const totals = await truth.dealTotals("stage = $3", [stage]);
    return [`${stage}: ${plural(totals.count, "deal")}`, ...totals.money];
  };
  it.each([
    "pipeline by stage",
    "what's in the pipeline?",
    "sales pipeline value",
    "how much is the pipeline worth",
    "deals by stage",
    "show the sales funnel",
    "what is our forecast?",
    "Pipeline",
  ])("%s", async (phrase) => {
    const open = await truth.dealTotals("stage IN ('lead', 'qualified', 'proposal')");
    const texts = [
      plural(open.count, "open deal"),
      ...open.money,
      ...(await stageTexts("lead")),
      ...(await stageTexts("qualified")),
      ...(await stageTexts("proposal")),
    ];
    expectRead(await h.ask(phrase), texts, phrase);
  });

  const stageCases: Array<[string, string, string]> = [
    ["which deals did we win?", "won", "won deal"],
    ["deals won", "won", "won deal"],
    ["show won deals", "won", "won deal"],
    ["closed won deals", "won", "won deal"],
    ["lost deals", "lost", "lost deal"],
    ["how many deals did we lose?", "lost", "lost deal"],
    ["show deals in proposal", "proposal", "proposal deal"],
    ["qualified deals", "qualified", "qualified deal"],
    ["deals in the lead stage", "lead", "lead deal"],
    ["how much did we win?", "won", "won deal"],
  ];
  it.each(stageCases)("%s", async (phrase, stage, noun) => {
    const totals = await truth.dealTotals("stage = $3", [stage]);
    const titles = await truth.names("deals", "stage = $2", [stage], "title");
    expectRead(
      await h.ask(phrase),
      [
        ...totals.money,
        ...(phrase.startsWith("how much") ? [] : [plural(totals.count, noun)]),
        ...titles.slice(0, 10),
      ],
      phrase,
    );
  });

  it.each(["what's our win rate?", "win rate", "deal win rate please"])("%s", async (phrase) => {
    const won = await truth.count("deals", "stage = 'won'");
    const lost = await truth.count("deals", "stage = 'lost'");
    expectRead(
      await h.ask(phrase),
      [`${((won / (won + lost)) * 100).toFixed(1)}%`, plural(won, "deal")],
      phrase,
    );
  });

  it("deals won last month: closed in that month only", async () => {
    const titles = await truth.names(
      "deals",
      "stage = 'won' AND closed_at >= '2026-02-01' AND closed_at < '2026-03-01'",
      [],
      "title",
    );
    const asked = await h.ask("deals won last month");
    expectRead(asked, [plural(titles.length, "won deal"), ...titles]);
  });
});

describe("communications", () => {
  it.each(["latest communications", "show the recent communication history", "recent interactions"])(
    "%s",
    async (phrase) => {
      const total = await truth.count("communications");
      const [latest] = await h.sql<{ subject: string }>(
        "SELECT subject FROM communications WHERE org_id = $1 ORDER BY occurred_at DESC LIMIT 1",
      );
      expectRead(await h.ask(phrase), [plural(total, "communication"), latest!.subject], phrase);
    },
  );
  it.each([
    ["emails with Ava Okafor", "Ava Okafor", "email"],
    ["calls with Jonas Tanaka", "Jonas Tanaka", "call"],
    ["communication history with Sofia Okafor", "Sofia Okafor", null],
    ["meetings with Mia Schmidt", "Mia Schmidt", "meeting"],
    ["When did we last talk to Mia Schmidt?", "Mia Schmidt", null],
    ["what did Yara Haddad say?", "Yara Haddad", null],
    ["have we spoken with Zoe Okafor recently?", "Zoe Okafor", null],
  ])("%s", async (phrase, name, channel) => {
    const { id } = await contact(name);
    const total = await truth.count(
      "communications",
      channel ? "contact_id = $2 AND channel = $3" : "contact_id = $2",
      channel ? [id, channel] : [id],
    );
    const noun = channel ?? "communication";
    const expected = total === 0 ? [`No ${noun}s logged`] : [plural(total, noun), name];
    expectRead(await h.ask(phrase), expected, phrase);
  });
  it.each(["inbound emails", "text messages", "show the meetings in the last 14 days"])(
    "%s",
    async (phrase) => {
      const where =
        phrase === "inbound emails"
          ? "direction = 'inbound' AND channel = 'email'"
          : phrase === "text messages"
            ? "channel = 'sms'"
            : "channel = 'meeting' AND occurred_at > $2";
      const params = phrase.includes("14 days")
        ? [new Date(h.now.getTime() - 14 * 86_400_000).toISOString()]
        : [];
      const total = await truth.count("communications", where, params);
      const noun =
        phrase === "text messages" ? "text message" : phrase === "inbound emails" ? "email" : "meeting";
      expectRead(await h.ask(phrase), [plural(total, noun)], phrase);
    },
  );
});
