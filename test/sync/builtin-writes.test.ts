import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHarness, type Asked, type Harness } from "./builtin/harness.ts";
import { createTruth, type Truth } from "./builtin/truth.ts";

/**
 * Changes through the built-in planner: each phrasing proposes exactly the change the data
 * says it means (the right record's id, the right values), through `propose` only, and a change
 * the data or the lifecycle rules refuse is explained instead (builtin-safety.test.ts has what
 * must never be proposed).
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

const idOf = async (table: string, where: string, params: unknown[] = []) =>
  (await truth.one<{ id: string }>(table, where, params)).id;
const invoiceId = (number: string) => idOf("invoices", "number = $2", [number]);
const dealId = (title: string) => idOf("deals", "title = $2", [title]);
const candidateId = (name: string) => idOf("candidates", "name = $2", [name]);
const contactId = (name: string) => idOf("contacts", "name = $2", [name]);
const skillId = async (candidate: string, skill: string) =>
  idOf("skills", "candidate_id = $2 AND name = $3", [await candidateId(candidate), skill]);

function expectProposed(asked: Asked, tool: string, args: Record<string, unknown>, phrase = ""): void {
  expect(asked.proposals, `${phrase}: ${asked.reply}`).toHaveLength(1);
  const [action] = asked.proposals;
  expect(action!.tool, phrase).toBe(tool);
  expect(action!.arguments, phrase).toMatchObject(args);
  expect(asked.reply).toContain("I've prepared this change; approve it to apply");
  expect(asked.reply).toContain(action!.preview);
  expect(asked.outcome.failed).toBeFalsy();
  expect(asked.emitted).toBe(asked.reply);
}

function expectNothingProposed(asked: Asked, phrase = ""): void {
  expect(asked.proposals, `${phrase}: ${asked.reply}`).toHaveLength(0);
  expect(asked.reply).not.toContain("I've prepared");
}

describe("invoice changes", () => {
  it.each([
    ["mark INV-000001 as paid", "INV-000001"],
    ["Mark invoice 1 as paid", "INV-000001"],
    ["please mark inv 12 paid", "INV-000012"],
    ["set INV-000012 to paid", "INV-000012"],
    ["flag invoice #19 as settled", "INV-000019"],
    ["could you mark INV-000023 as paid?", "INV-000023"],
    ["I want you to mark invoice 29 as paid", "INV-000029"],
  ])("%s", async (phrase, number) => {
    expectProposed(await h.ask(phrase), "mark_invoice_paid", { invoice: await invoiceId(number) }, phrase);
  });

  it("several invoices at once: one proposal each", async () => {
    const asked = await h.ask("mark invoices 3 and 4 as paid");
    expect(asked.proposals.map((action) => action.arguments)).toEqual([
      { invoice: await invoiceId("INV-000003") },
      { invoice: await invoiceId("INV-000004") },
    ]);
    expect(asked.reply).toContain("I've prepared 2 changes; approve them to apply");
  });

  it.each([
    ["void invoice 31", "INV-000031"],
    ["cancel INV-000029", "INV-000029"],
    ["void INV-000013", "INV-000013"],
    ["please void invoice #21", "INV-000021"],
    ["mark invoice 8 as void", "INV-000008"],
  ])("%s", async (phrase, number) => {
    expectProposed(await h.ask(phrase), "void_invoice", { invoice: await invoiceId(number) }, phrase);
  });

  it.each([
    ["record a payment of 300 EUR on INV-000001", "INV-000001", { amount: 300, method: "bank_transfer" }],
    ["log a payment of €150 for invoice 3", "INV-000003", { amount: 150 }],
    ["record a $200 payment on INV-000031 by card", "INV-000031", { amount: 200, method: "card" }],
    ["we received 400 EUR for INV-000011", "INV-000011", { amount: 400 }],
    ["record payment on invoice 2", "INV-000002", { amount: 1600.5 }],
    [
      "register a 1,000.50 EUR payment against INV-000005 reference TX-991",
      "INV-000005",
      { amount: 1000.5, reference: "TX-991" },
    ],
  ] as const)("%s", async (phrase, number, args) => {
    const asked = await h.ask(phrase);
    expectProposed(asked, "record_payment", { invoice: await invoiceId(number), ...args }, phrase);
  });

  it.each([
    ["Mark INV-000030 as paid", "paid"],
    ["void INV-000026", "void"],
    ["record a payment of 500 EUR on INV-000011", "more than the 450.00 EUR still owed"],
    ["record a payment of 100 USD on INV-000001", "is in EUR"],
  ])("%s: refused with the reason, nothing proposed", async (phrase, reason) => {
    const asked = await h.ask(phrase);
    expectNothingProposed(asked, phrase);
    expect(asked.reply).toContain(reason);
    expect(asked.outcome.failed).toBe(true);
  });
});

describe("deal, candidate and skill moves", () => {
  it.each([
    ["move the Kestrel deal to won", "Arm retrofit — Kestrel Robotics", "won"],
    ["mark the Larkspur deal as won", "Annual support renewal — Larkspur Foods", "won"],
    ["move the Juniper deal to proposal", "Consulting retainer — Juniper Health", "proposal"],
    ["we lost the Quanta deal", "Seat expansion — Quanta Analytics", "lost"],
    ["set the Oakridge deal to qualified", "Data migration project — Oakridge Builders", "qualified"],
    ["move the Riverbend deal back to qualified", "Consulting retainer — Riverbend Coffee", "qualified"],
  ])("%s", async (phrase, title, stage) => {
    expectProposed(await h.ask(phrase), "move_deal", { id: await dealId(title), stage }, phrase);
  });

  it.each([
    ["move Ava Okafor to interview", "Ava Okafor", "interview"],
    ["reject Amara Iyer", "Amara Iyer", "rejected"],
    ["hire Mia Haddad", "Mia Haddad", "hired"],
    ["advance Noah Iyer", "Noah Iyer", "interview"],
    ["move Yara Kowalski to offer", "Yara Kowalski", "offer"],
    ["make Liam Moreau an offer", "Liam Moreau", "offer"],
  ])("%s", async (phrase, name, status) => {
    expectProposed(
      await h.ask(phrase),
      "set_candidate_status",
      { id: await candidateId(name), status },
      phrase,
    );
  });

  it.each([
    ["verify Ava's TypeScript skill", "Ava Okafor", "TypeScript", {}],
    ["verify Noah Iyer's Python skill", "Noah Iyer", "Python", {}],
    ["mark Liam Moreau's PostgreSQL as verified", "Liam Moreau", "PostgreSQL", {}],
    ["confirm Mia Haddad's SQL skill", "Mia Haddad", "SQL", {}],
    ["verify Yara Iyer's TypeScript, verified by Priya", "Yara Iyer", "TypeScript", { verified_by: "Priya" }],
  ])("%s", async (phrase, candidate, skill, extra) => {
    const id = await skillId(candidate, skill);
    expectProposed(await h.ask(phrase), "verify_skill", { id, ...extra }, phrase);
  });

  it.each([
    ["move Amara Iyer to hired", "cannot go from applied to hired"],
    ["verify Liam Moreau's TypeScript skill", "already verified"],
    ["move the Solar monitoring deal to won", "cannot go from qualified to won"],
    ["set Ava Okafor's stage to customer", "already has lifecycle stage customer"],
  ])("%s: refused with the reason", async (phrase, reason) => {
    const asked = await h.ask(phrase);
    expectNothingProposed(asked, phrase);
    expect(asked.reply).toContain(reason);
    expect(asked.outcome.failed).toBe(true);
  });

  it("a name that fits several deals, some of which can move: asks which", async () => {
    const asked = await h.ask("move the Blue Fjord deal to won");
    expectNothingProposed(asked);
    expect(asked.reply).toContain("Which one do you mean?");
    expect(asked.reply).toContain("Data migration project — Blue Fjord Studio");
  });
});

describe("creating and changing records", () => {
  it.each([
    ["change Ada's email to ada@example.com", "Ada Byron", { email: "ada@example.com" }],
    ["update Theo Novak's phone to +44 20 7946 0000", "Theo Novak", { phone: "+44 20 7946 0000" }],
    ["set Ravi Reyes to customer", "Ravi Reyes", { lifecycle_stage: "customer" }],
    [
      "change the company of Liam Haddad to Riverbend Roasters",
      "Liam Haddad",
      { company: "Riverbend Roasters" },
    ],
    ["rename Ada Byron to Ada Lovelace", "Ada Byron", { name: "Ada Lovelace" }],
  ])("%s", async (phrase, name, fields) => {
    const asked = await h.ask(phrase);
    expectProposed(
      asked,
      "update_record",
      { resource: "contacts", id: await contactId(name), fields },
      phrase,
    );
  });

  it("a candidate's field", async () => {
    const asked = await h.ask("update Liam Moreau's position to Staff engineer");
    expectProposed(asked, "update_record", {
      resource: "candidates",
      id: await candidateId("Liam Moreau"),
      fields: { position: "Staff engineer" },
    });
  });

  it.each([
    [
      "create a contact Ada Lovelace, ada@example.com, at Analytical Engines",
      "contacts",
      { name: "Ada Lovelace", email: "ada@example.com", company: "Analytical Engines" },
    ],
    [
      "add Grace Hopper as a lead, grace@navy.example",
      "contacts",
      { name: "Grace Hopper", email: "grace@navy.example", lifecycle_stage: "lead" },
    ],
    [
      "new contact: Alan Turing, alan@bletchley.example",
      "contacts",
      { name: "Alan Turing", email: "alan@bletchley.example" },
    ],
    ["add a product Widget at 20 EUR", "products", { name: "Widget", currency: "EUR" }],
    [
      "add candidate Linus Torvalds, linus@kernel.example, for the Backend engineer role",
      "candidates",
      { name: "Linus Torvalds", email: "linus@kernel.example", position: "Backend engineer" },
    ],
  ])("%s", async (phrase, resource, fields) => {
    expectProposed(await h.ask(phrase), "create_record", { resource, fields }, phrase);
  });

  it("a deal with its contact: the contact's id", async () => {
    const asked = await h.ask("create a deal Warehouse robots worth 12,000 EUR with Sofia Okafor");
    expectProposed(asked, "create_record", {
      resource: "deals",
      fields: { title: "Warehouse robots", currency: "EUR", contact_id: await contactId("Sofia Okafor") },
    });
  });

  it("a candidate without the required email: asks for it", async () => {
    const asked = await h.ask("add candidate Margaret Hamilton for the Backend engineer role");
    expectNothingProposed(asked);
    expect(asked.reply).toContain("an email");
  });
});
