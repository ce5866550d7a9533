import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INVOICE_LIFECYCLE } from "../../engines/finance/invoices.ts";
import { prepareWriteTool, SYNC_TOOLS } from "../../sync/tools/catalog.ts";
import type { ToolContext } from "../../sync/tools/types.ts";
import { createHarness, NOW, type Asked, type Harness } from "./builtin/harness.ts";
import { createTruth, type Truth } from "./builtin/truth.ts";

/**
 * Commands said in passing (issue 34): an order inside news or a reason ("they signed today —
 * move it to won", "not a fit, reject her") becomes exactly the proposal the data says it means,
 * with "it", "her", "their deal" read from the turn before or from a name earlier in the same
 * message, and a name in the message beating the memory. News without an order proposes nothing,
 * and a record that cannot be told apart is asked about (`understood: false`), never guessed.
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

/** The last answer of a conversation (each message with the history and memory of those before). */
async function last(messages: readonly string[]): Promise<Asked> {
  const answers = await h.converse(messages);
  return answers[answers.length - 1]!;
}

function expectProposed(asked: Asked, tool: string, args: Record<string, unknown>, phrase = ""): void {
  expect(asked.proposals, `${phrase}: ${asked.reply}`).toHaveLength(1);
  const [action] = asked.proposals;
  expect(action!.tool, phrase).toBe(tool);
  expect(action!.arguments, phrase).toMatchObject(args);
  expect(asked.reply, phrase).toContain("I've prepared this change; approve it to apply");
  expect(asked.reply).toContain(action!.preview);
  expect(asked.outcome.failed, phrase).toBeFalsy();
  expect(asked.outcome.understood, phrase).toBeUndefined();
}

function expectNothingProposed(asked: Asked, phrase = ""): void {
  expect(asked.proposals, `${phrase}: ${asked.reply}`).toHaveLength(0);
  expect(asked.reply, phrase).not.toContain("I've prepared");
}

function expectAsked(asked: Asked, phrase: string, ...shown: string[]): void {
  expectNothingProposed(asked, phrase);
  expect(asked.outcome.understood, `${phrase}: ${asked.reply}`).toBe(false);
  expect(asked.reply, phrase).toMatch(/\?/);
  for (const text of shown) expect(asked.reply, phrase).toContain(text);
}

describe("a deal moved in passing", () => {
  it.each([
    [
      ["show me the Arm retrofit deal", "they signed today — move it to won"],
      "Arm retrofit — Kestrel Robotics",
      "won",
    ],
    [
      ["show me the Kestrel deal", "they signed today, move it to won"],
      "Arm retrofit — Kestrel Robotics",
      "won",
    ],
    [["Sofia Okafor", "they signed!! move their deal to won"], "Arm retrofit — Kestrel Robotics", "won"],
    [
      ["Juniper loved the demo, so move their deal to proposal"],
      "Consulting retainer — Juniper Health",
      "proposal",
    ],
    [
      ["quanta went with a competitor. mark the quanta deal lost"],
      "Seat expansion — Quanta Analytics",
      "lost",
    ],
    [
      ["Oakridge called back and wants to go ahead, move their deal to qualified"],
      "Data migration project — Oakridge Builders",
      "qualified",
    ],
    [
      ["the Larkspur renewal is signed – pls mark it as won"],
      "Annual support renewal — Larkspur Foods",
      "won",
    ],
    [
      ["Riverbend is not ready yet; push their deal back to qualified"],
      "Consulting retainer — Riverbend Coffee",
      "qualified",
    ],
    [
      ["Ravi Reyes", "he is keen, move his deal to qualified"],
      "Data migration project — Oakridge Builders",
      "qualified",
    ],
  ] as const)("%j", async (messages, title, stage) => {
    const asked = await last(messages);
    expectProposed(asked, "move_deal", { id: await dealId(title), stage }, messages.join(" | "));
    expect(asked.proposals[0]!.preview).toContain(title);
    expect(asked.proposals[0]!.preview).toContain(stage);
  });
});

describe("a candidate moved in passing", () => {
  it.each([
    [["tell me about Amara Iyer", "not a fit, reject her"], "Amara Iyer", "rejected"],
    [["Amara Iyer passed the first call, put her in screening"], "Amara Iyer", "screening"],
    [["Amara Iyer", "passed the first call, put him in screening"], "Amara Iyer", "screening"],
    [["great interview with Liam Moreau - move him to offer"], "Liam Moreau", "offer"],
    [["Mia Lindqvist withdrew her application, so reject her"], "Mia Lindqvist", "rejected"],
    [["Noah Iyer did really well on the take-home test, advance him"], "Noah Iyer", "interview"],
    [["Mia Haddad", "she accepted the offer!! hire her"], "Mia Haddad", "hired"],
    [["Yara Kowalski bombed the interview — decline her"], "Yara Kowalski", "rejected"],
    // A name in the message beats the memory, and a name earlier in the message is what "her" means.
    [
      ["candidates in screening", "Sofia Schmidt passed the phone screen, put her in interview"],
      "Sofia Schmidt",
      "interview",
    ],
    [
      ["tell me about Noah Iyer", "Amara Iyer passed the first call, put her in screening"],
      "Amara Iyer",
      "screening",
    ],
    [["Amara Iyer passed the first call", "put her in screening"], "Amara Iyer", "screening"],
    [["amara iyer is not a fit for us. pls reject"], "Amara Iyer", "rejected"],
  ] as const)("%j", async (messages, name, status) => {
    const asked = await last(messages);
    expectProposed(
      asked,
      "set_candidate_status",
      { id: await candidateId(name), status },
      messages.join(" | "),
    );
    expect(asked.proposals[0]!.preview).toContain(name);
  });
});

describe("an invoice changed in passing", () => {
  it.each([
    [["show invoice 3", "paid yesterday, mark it paid"], "INV-000003"],
    [["Solstice paid invoice 24 in full, mark it as paid"], "INV-000024"],
    [["INV-000012", "Solstice called, they paid by card — mark it paid"], "INV-000012"],
    [["invoices of Kestrel Robotics", "they paid the first one, mark it paid"], "INV-000018"],
  ] as const)("mark paid: %j", async (messages, number) => {
    const asked = await last(messages);
    expectProposed(asked, "mark_invoice_paid", { invoice: await invoiceId(number) }, messages.join(" | "));
    expect(asked.proposals[0]!.preview).toContain(number);
  });

  it.each([
    [["got 1,000 from them for inv 5, record it"], "INV-000005", { amount: 1000 }],
    [["recieved 500 for invoice 2 yesterday, log it"], "INV-000002", { amount: 500 }],
    [
      ["Juniper wired 209.93 EUR for INV-000029 - record it pls"],
      "INV-000029",
      { amount: 209.93, method: "bank_transfer" },
    ],
    [
      ["show invoice 13", "got 250 for inv 21 by card, record it"],
      "INV-000021",
      { amount: 250, method: "card" },
    ],
    [["INV-000014", "they sent 2,000 today, record it"], "INV-000014", { amount: 2000 }],
  ] as const)("record a payment: %j", async (messages, number, args) => {
    const asked = await last(messages);
    expectProposed(
      asked,
      "record_payment",
      { invoice: await invoiceId(number), ...args },
      messages.join(" | "),
    );
  });

  it.each([
    [["show invoice 13", "void that draft"], "INV-000013"],
    [["void the Quanta draft"], "INV-000022"],
    [["that one was never sent, void invoice 25"], "INV-000025"],
    [["draft invoices", "the client cancelled, so void the second one"], "INV-000013"],
  ] as const)("void a draft: %j", async (messages, number) => {
    const asked = await last(messages);
    expectProposed(asked, "void_invoice", { invoice: await invoiceId(number) }, messages.join(" | "));
    const status = await truth.one<{ status: string }>("invoices", "number = $2", [number]);
    expect(status.status).toBe("draft");
  });

  it("a payment bigger than what is owed is refused with the reason, nothing proposed", async () => {
    const asked = await h.ask("got 1,000 from them for inv 3, record it");
    expectNothingProposed(asked);
    expect(asked.reply).toContain("more than the 150.00 EUR still owed on INV-000003");
    expect(asked.outcome.failed).toBe(true);
  });
});

describe("a record updated in passing", () => {
  it.each([
    [
      ["Theo Novak has a new phone number: +44 20 7946 5555, update it"],
      "contacts",
      "Theo Novak",
      { phone: "+44 20 7946 5555" },
    ],
    [
      ["who is Theo Novak", "has a new phone number: +44 20 7946 4444, update it"],
      "contacts",
      "Theo Novak",
      { phone: "+44 20 7946 4444" },
    ],
    [
      ["who is Theo Novak", "he has a new mobile, +44 7700 900555 — update it"],
      "contacts",
      "Theo Novak",
      { phone: "+44 7700 900555" },
    ],
    [
      ["ada byron's new email is ada@lovelace.example - pls update"],
      "contacts",
      "Ada Byron",
      { email: "ada@lovelace.example" },
    ],
    [
      ["Liam Haddad now works at Riverbend Roasters, update it"],
      "contacts",
      "Liam Haddad",
      { company: "Riverbend Roasters" },
    ],
    [
      ["Ravi Reyes signed the contract, make him a customer"],
      "contacts",
      "Ravi Reyes",
      { lifecycle_stage: "customer" },
    ],
    [
      ["Yara Haddad", "she became a customer, update her"],
      "contacts",
      "Yara Haddad",
      { lifecycle_stage: "customer" },
    ],
    [
      ["Noah Iyer gave us his number, +44 7700 900222, update it"],
      "candidates",
      "Noah Iyer",
      { phone: "+44 7700 900222" },
    ],
    [
      ["Amara Iyer switched to amara@iyer.example, update her email"],
      "candidates",
      "Amara Iyer",
      { email: "amara@iyer.example" },
    ],
  ] as const)("%j", async (messages, resource, name, fields) => {
    const asked = await last(messages);
    const id = resource === "contacts" ? await contactId(name) : await candidateId(name);
    expectProposed(asked, "update_record", { resource, id, fields }, messages.join(" | "));
    const preview = asked.proposals[0]!.preview;
    expect(preview).toContain(name);
    for (const [field, value] of Object.entries(fields)) {
      expect(preview).toContain(field.replace(/_/g, " "));
      expect(preview).toContain(value);
    }
  });
});

describe("a record created from the words that are its name", () => {
  it.each([
    ["new contact – Jane Roe from Roe Ltd", { name: "Jane Roe", company: "Roe Ltd" }],
    ["met Jane Roe from Roe Ltd at the expo, add her as a contact", { name: "Jane Roe", company: "Roe Ltd" }],
    [
      "new lead - Priya Shah, priya@shah.example, at Shah Consulting",
      {
        name: "Priya Shah",
        email: "priya@shah.example",
        company: "Shah Consulting",
        lifecycle_stage: "lead",
      },
    ],
    [
      "Spoke with Tom Baker (tom@baker.example) today, pls create a contact for him",
      { name: "Tom Baker", email: "tom@baker.example" },
    ],
  ] as const)("%s", async (phrase, fields) => {
    const asked = await h.ask(phrase);
    expectProposed(asked, "create_record", { resource: "contacts", fields }, phrase);
    expect((asked.proposals[0]!.arguments as { fields: Record<string, unknown> }).fields).toEqual(fields);
  });
});

describe("news without an order", () => {
  it.each([
    "they signed today",
    "Ava passed the first call",
    "INV-000001 has been paid",
    "Theo Novak has a new phone number: +44 20 7946 5555",
    "Kestrel paid yesterday",
    "Amara Iyer is not a fit",
    "we got 1,000 from Juniper",
  ])("%s: nothing proposed, not answered as something else", async (phrase) => {
    const asked = await h.ask(phrase);
    expectNothingProposed(asked, phrase);
    expect(asked.outcome.understood, `${phrase}: ${asked.reply}`).toBe(false);
    expect(asked.reply).not.toMatch(/^\*\*\d/);
  });

  it.each([
    "she asked us to void it",
    "if they pay, mark it paid",
    "did we mark it paid?",
    "we should reject her",
  ])("%s: no order given, nothing proposed", async (phrase) => {
    expectNothingProposed(await h.ask(phrase), phrase);
  });

  it("an order in passing from a read-only key: refused, naming the scope", async () => {
    const [, asked] = await h.converse(["tell me about Amara Iyer", "not a fit, reject her"], {
      scopes: ["*:read"],
    });
    expectNothingProposed(asked!);
    expect(asked!.outcome.failed).toBe(true);
    expect(asked!.reply).toContain("`talent:write`");
  });

  it("news names the record the next order means", async () => {
    const [news, order] = await h.converse([
      "Mia Lindqvist passed the phone screen",
      "ok, move her to screening",
    ]);
    expectNothingProposed(news!);
    expect(news!.reply).toContain("Mia Lindqvist");
    expectProposed(order!, "set_candidate_status", {
      id: await candidateId("Mia Lindqvist"),
      status: "screening",
    });
  });
});

describe("a record that cannot be told apart is asked about", () => {
  it.each([
    [["they signed today — move it to won"], ["Which deal?"]],
    [
      ["Blue Fjord signed - move the deal to won"],
      ["Which one do you mean?", "Data migration project — Blue Fjord Studio"],
    ],
    [["Northwind wants the renewal, move it to proposal"], ["Which one do you mean?", "Northwind Traders"]],
    [["Kestrel paid yesterday, mark it paid"], ["Which one?", "INV-000006", "INV-000018", "INV-000031"]],
    [["void that draft"], ["Which one?", "INV-000013", "INV-000022", "INV-000025"]],
    [["Okafor has a new phone: +44 20 7946 2222, update it"], ["fits more than one"]],
    [["not a fit, reject her"], ["Which candidate?"]],
    [["show me the Blue Fjord deals", "they signed, move it to won"], ["Which one do you mean?"]],
  ] as const)("%j: a question, nothing proposed", async (messages, shown) => {
    expectAsked(await last(messages), messages.join(" | "), ...shown);
  });

  it("the answer to the question completes the change", async () => {
    const [, asked, picked] = await h.converse(["draft invoices", "void that draft", "INV-000025"]);
    expectAsked(asked!, "void that draft");
    expectProposed(picked!, "void_invoice", { invoice: await invoiceId("INV-000025") });
  });
});

describe("a draft invoice can be voided", () => {
  it("the invoice lifecycle moves a draft to void, stamping voided_at", () => {
    expect(INVOICE_LIFECYCLE.canMove("draft", "void")).toBe(true);
    const now = new Date(NOW);
    expect(INVOICE_LIFECYCLE.move("draft", "void", now)).toEqual({ status: "void", voided_at: now });
    expect(INVOICE_LIFECYCLE.eventsOf("draft", "void")).toContain("invoice.voided");
  });

  it("void_invoice proposes and applies it on a draft that was never sent", async () => {
    const invoices = h.services.get("invoices")!;
    const draft = (await invoices.create(h.orgId, {
      client: "Draftwood Ltd",
      currency: "EUR",
      amount: "120",
      due_date: "2026-04-30",
      status: "draft",
    })) as { id: string; number: string; status: string };
    expect(draft.status).toBe("draft");
    const asked = await h.ask(`they never got it, void ${draft.number}`);
    expectProposed(asked, "void_invoice", { invoice: draft.id });
    const ctx: ToolContext = {
      orgId: h.orgId,
      scopes: ["*"],
      now: h.now,
      today: h.today,
      store: h.store,
      services: h.services,
    };
    const tool = SYNC_TOOLS.find((candidate) => candidate.name === "void_invoice")!;
    const prepared = await prepareWriteTool(tool, { invoice: draft.number }, ctx);
    expect(prepared.preview).toContain(draft.number);
    if (tool.access !== "write") throw new Error("void_invoice is a write tool");
    await tool.apply(ctx, prepared.arguments);
    const row = await truth.one<{ status: string; voided_at: string | null; issued_at: string | null }>(
      "invoices",
      "id = $2",
      [draft.id],
    );
    expect(row.status).toBe("void");
    expect(row.voided_at).not.toBeNull();
    expect(row.issued_at).toBeNull();
  });
});
