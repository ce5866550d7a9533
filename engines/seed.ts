import type { Clock } from "../core/index.ts";
import { isoDate } from "../core/index.ts";
import type { Store } from "../store/index.ts";
import { createResourceService } from "./resource.ts";
import { invoices, type InvoiceCreate } from "./finance/invoices.ts";
import { payments } from "./finance/payments.ts";
import { products } from "./finance/products.ts";
import { communications, type CommunicationCreate } from "./growth/communications.ts";
import { contacts, type Contact } from "./growth/contacts.ts";
import { deals, type DealStage } from "./growth/deals.ts";
import { candidates, type CandidateStatus } from "./talent/candidates.ts";
import { skills, type SkillLevel } from "./talent/skills.ts";

const FIRST = [
  "Ava",
  "Noah",
  "Mia",
  "Liam",
  "Zoe",
  "Omar",
  "Lena",
  "Ravi",
  "Ines",
  "Theo",
  "Yara",
  "Jonas",
  "Sofia",
  "Kenji",
  "Amara",
];
const LAST = [
  "Okafor",
  "Lindqvist",
  "Moreau",
  "Tanaka",
  "García",
  "Novak",
  "Schmidt",
  "Haddad",
  "Kowalski",
  "Reyes",
  "Brennan",
  "Iyer",
];
const COMPANIES = [
  "Northwind Traders",
  "Acme Logistics",
  "Blue Fjord Studio",
  "Helios Energy",
  "Juniper Health",
  "Kestrel Robotics",
  "Larkspur Foods",
  "Meridian Legal",
  "Oakridge Builders",
  "Quanta Analytics",
  "Riverbend Coffee",
  "Solstice Travel",
];
const PRODUCTS = [
  { name: "Consulting hour", sku: "CONS-HR", price: "150" },
  { name: "Annual support plan", sku: "SUP-ANNUAL", price: "4800" },
  { name: "Onboarding workshop", sku: "WS-ONBOARD", price: "1250" },
  { name: "Data migration", sku: "SVC-MIGRATE", price: "3200.5" },
  { name: "Seat licence (monthly)", sku: "LIC-SEAT-M", price: "29.99" },
];

/** A small deterministic PRNG (mulberry32), so a demo looks the same every time. */
function prng(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface SeedSummary {
  contacts: number;
  products: number;
  invoices: number;
  payments: number;
  deals: number;
  communications: number;
  candidates: number;
  skills: number;
}

/**
 * Fills an organization with realistic demo data through the same services the
 * API uses: contacts at real-looking companies, a product catalogue, and invoices
 * in every state, some of them overdue relative to today.
 */
/** Days between an invoice's issue and its due date in the demo (net-30). */
const NET_TERMS_DAYS = 30;

/** The demo's one write past the engines: an invoice issued before the moment of seeding. */
async function backdateIssue(store: Store, orgId: string, invoiceId: string, issuedAt: Date): Promise<void> {
  await store.query("UPDATE invoices SET issued_at = $3 WHERE org_id = $1 AND id = $2", [
    orgId,
    invoiceId,
    issuedAt,
  ]);
}

export async function seedDemo(store: Store, clock: Clock, orgId: string, size = 1): Promise<SeedSummary> {
  const random = prng(42);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const contactService = createResourceService(contacts, store, clock);
  const productService = createResourceService(products, store, clock);
  const invoiceService = createResourceService(invoices, store, clock);
  const paymentService = createResourceService(payments, store, clock);

  const createdProducts = [];
  for (const product of PRODUCTS) {
    createdProducts.push(
      await productService.create(orgId, {
        ...product,
        currency: "EUR",
        sku: `${product.sku}-${orgId.slice(-4)}`,
      }),
    );
  }

  const createdContacts = [];
  for (let i = 0; i < 12 * size; i++) {
    const first = pick(FIRST);
    const last = pick(LAST);
    const company = COMPANIES[i % COMPANIES.length]!;
    createdContacts.push(
      await contactService.create(orgId, {
        name: `${first} ${last}`,
        email: `${first}.${last}.${i}@${company.toLowerCase().replace(/[^a-z]/g, "")}.example`.toLowerCase(),
        company,
        phone: `+44 20 7946 ${String(1000 + i).slice(-4)}`,
        tags: random() < 0.5 ? ["priority"] : [],
        lifecycle_stage: pick(["lead", "prospect", "customer", "customer"] as const),
      }),
    );
  }

  const today = clock.nowMs();
  const day = 86_400_000;
  let invoiceCount = 0;
  let paymentCount = 0;
  for (let i = 0; i < 30 * size; i++) {
    const contact = createdContacts[i % createdContacts.length]!;
    const product = pick(createdProducts);
    const dueOffsetDays = Math.round(random() * 90) - 45;
    const input: InvoiceCreate = {
      client: contact.company ?? contact.name,
      contact_id: contact.id,
      currency: "EUR",
      due_date: isoDate(new Date(today + dueOffsetDays * day)),
      line_items: [
        {
          product_id: product.id,
          description: product.name,
          quantity: String(1 + Math.floor(random() * 8)),
          unit_price: String(product.price),
        },
      ],
      status: random() < 0.15 ? "draft" : "open",
    };
    const invoice = await invoiceService.create(orgId, input);
    invoiceCount++;
    if (input.status === "open") {
      // Net-30 terms, as a real ledger has them: issued 30 days before it falls due, never later than now.
      const issuedAt = new Date(Math.min(today, today + (dueOffsetDays - NET_TERMS_DAYS) * day));
      await backdateIssue(store, orgId, invoice.id, issuedAt);
    }
    const roll = random();
    // Paid in full (one payment), paid in part (about half), or voided; the rest stay unpaid.
    if (input.status === "open" && roll < 0.45) {
      const full = roll < 0.35;
      const amount = full ? String(invoice.amount) : String(Math.floor(invoice.amount / 2));
      await paymentService.create(orgId, {
        invoice_id: invoice.id,
        amount,
        method: pick(["bank_transfer", "bank_transfer", "card", "direct_debit"] as const),
        reference: `${full ? "Settlement" : "Instalment"} ${invoice.number}`,
      });
      paymentCount++;
    } else if (roll > 0.95) await invoiceService.update(orgId, invoice.id, { status: "void" });
  }
  const pipeline = await seedPipeline(store, clock, orgId, createdContacts, size);
  const talent = await seedTalent(store, clock, orgId, size);
  return {
    contacts: createdContacts.length,
    products: createdProducts.length,
    invoices: invoiceCount,
    payments: paymentCount,
    ...pipeline,
    ...talent,
  };
}

const DEAL_TITLES = [
  "Annual support renewal",
  "Onboarding workshop",
  "Data migration project",
  "Seat expansion",
  "Consulting retainer",
  "Pilot programme",
];
/** Where each demo deal ends up, in turn: every stage, the open ones most often. */
const DEAL_OUTCOMES: readonly DealStage[] = [
  "lead",
  "qualified",
  "proposal",
  "won",
  "qualified",
  "lost",
  "proposal",
  "won",
];
const CALL_NOTES = [
  "Walked through the timeline; they want a start date before the quarter ends.",
  "Budget confirmed with their finance lead. Waiting on legal review.",
  "Asked for references from a customer of their size.",
];

/**
 * The growth pipeline of the demo: deals in every stage (won and lost ones closed
 * through the stage machine, so their events are real) and the emails, calls,
 * texts and meetings logged with the contacts, all in the past.
 */
async function seedPipeline(
  store: Store,
  clock: Clock,
  orgId: string,
  people: readonly Contact[],
  size: number,
): Promise<{ deals: number; communications: number }> {
  // Its own sequence, so the data seeded before it stays what it was.
  const random = prng(7);
  const dealService = createResourceService(deals, store, clock);
  const communicationService = createResourceService(communications, store, clock);
  const now = clock.nowMs();
  const hoursAgo = (hours: number) => new Date(now - hours * 3_600_000).toISOString();
  let logged = 0;
  const log = async (input: CommunicationCreate) => {
    await communicationService.create(orgId, input);
    logged++;
  };

  for (const [i, person] of people.entries()) {
    await log({
      contact_id: person.id,
      channel: "email",
      direction: "outbound",
      subject: `Introduction: Tessera × ${person.company ?? person.name}`,
      body: `Hi ${person.name.split(" ")[0]},\n\nThanks for your time at the conference. Could we set up a call next week?`,
      occurred_at: hoursAgo(24 * (30 + i)),
    });
  }

  const dealCount = 16 * size;
  for (let i = 0; i < dealCount; i++) {
    const person = people[i % people.length]!;
    const outcome = DEAL_OUTCOMES[i % DEAL_OUTCOMES.length]!;
    const open = outcome === "won" ? "proposal" : outcome === "lost" ? "qualified" : outcome;
    const title = `${DEAL_TITLES[i % DEAL_TITLES.length]!} — ${person.company ?? person.name}`;
    const deal = await dealService.create(orgId, {
      title,
      contact_id: person.id,
      value: String(500 * (1 + Math.floor(random() * 40))),
      currency: "EUR",
      stage: open,
      expected_close_date: isoDate(new Date(now + Math.round(random() * 90 - 20) * 86_400_000)),
    });
    if (outcome !== open) await dealService.update(orgId, deal.id, { stage: outcome });

    const touches = 1 + Math.floor(random() * 3);
    for (let n = 0; n < touches; n++) {
      const channel = (["email", "call", "meeting", "sms"] as const)[Math.floor(random() * 4)]!;
      const inbound = random() < 0.4;
      await log({
        contact_id: person.id,
        deal_id: deal.id,
        channel,
        direction: inbound ? "inbound" : "outbound",
        subject: channel === "email" ? `Re: ${title}` : channel === "meeting" ? `${title}: review` : null,
        body:
          channel === "sms"
            ? "Running ten minutes late, sorry!"
            : CALL_NOTES[Math.floor(random() * CALL_NOTES.length)]!,
        occurred_at: hoursAgo(1 + Math.floor(random() * 24 * 20)),
      });
    }
  }
  return { deals: dealCount, communications: logged };
}

const POSITIONS = [
  { position: "Backend engineer", skills: ["TypeScript", "PostgreSQL", "Node.js", "Distributed systems"] },
  { position: "Product designer", skills: ["Figma", "User research", "Prototyping", "Design systems"] },
  { position: "Account executive", skills: ["Negotiation", "Salesforce", "Discovery calls", "German"] },
  { position: "Data analyst", skills: ["SQL", "Python", "dbt", "Data visualisation"] },
];
const SOURCES = ["referral", "job board", "LinkedIn", "careers page", "agency", null] as const;
/** Where each demo candidate ends up, in turn: every status, early ones most often. */
const CANDIDATE_OUTCOMES: readonly CandidateStatus[] = [
  "applied",
  "screening",
  "interview",
  "offer",
  "hired",
  "rejected",
  "applied",
  "screening",
  "interview",
  "rejected",
];
const PIPELINE: readonly CandidateStatus[] = ["screening", "interview", "offer", "hired"];
const REVIEWERS = ["Hiring panel", "Priya Natarajan (tech lead)", "Marco Rossi (design lead)"];

/**
 * The talent engine's demo: candidates in every status (moved through the status
 * machine, so their events are real) with the skills they claim, those of
 * candidates past screening verified more often.
 */
async function seedTalent(
  store: Store,
  clock: Clock,
  orgId: string,
  size: number,
): Promise<{ candidates: number; skills: number }> {
  // Its own sequence, so the data seeded before it stays what it was.
  const random = prng(1906);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const candidateService = createResourceService(candidates, store, clock);
  const skillService = createResourceService(skills, store, clock);
  const levels: readonly SkillLevel[] = ["beginner", "intermediate", "advanced", "expert"];
  const count = 10 * size;
  let skillCount = 0;

  for (let i = 0; i < count; i++) {
    const first = pick(FIRST);
    const last = pick(LAST);
    const role = POSITIONS[i % POSITIONS.length]!;
    const outcome = CANDIDATE_OUTCOMES[i % CANDIDATE_OUTCOMES.length]!;
    // The schema is bypassed here, so the address is made plain ASCII (García → garcia).
    const local = `${first}.${last}.${i}`
      .normalize("NFD")
      .toLowerCase()
      .replace(/[^a-z0-9.]/g, "");
    const candidate = await candidateService.create(orgId, {
      name: `${first} ${last}`,
      email: `${local}@mail.example`,
      phone: random() < 0.7 ? `+44 7700 900${String(100 + i).slice(-3)}` : null,
      position: role.position,
      source: pick(SOURCES),
    });
    // Rejected candidates leave from a stage of their own; the others walk to their outcome.
    const stop = outcome === "rejected" ? Math.floor(random() * 4) : PIPELINE.indexOf(outcome) + 1;
    for (const status of PIPELINE.slice(0, stop))
      await candidateService.update(orgId, candidate.id, { status });
    if (outcome === "rejected") await candidateService.update(orgId, candidate.id, { status: "rejected" });

    const advanced = stop >= 2;
    const claimed = 2 + Math.floor(random() * 3);
    for (const name of role.skills.slice(0, claimed)) {
      const verified = random() < (advanced ? 0.7 : 0.15);
      await skillService.create(orgId, {
        candidate_id: candidate.id,
        name,
        level: pick(levels),
        status: verified ? "verified" : "claimed",
        verified_by: verified ? pick(REVIEWERS) : null,
      });
      skillCount++;
    }
  }
  return { candidates: count, skills: skillCount };
}
