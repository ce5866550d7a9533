import type { Clock } from "../core/index.ts";
import { isoDate } from "../core/index.ts";
import type { Store } from "../store/index.ts";
import { createResourceService } from "./resource.ts";
import { invoices, type InvoiceCreate } from "./finance/invoices.ts";
import { products } from "./finance/products.ts";
import { contacts } from "./growth/contacts.ts";

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
}

/**
 * Fills an organization with realistic demo data through the same services the
 * API uses: contacts at real-looking companies, a product catalogue, and invoices
 * in every state, some of them overdue relative to today.
 */
export async function seedDemo(store: Store, clock: Clock, orgId: string, size = 1): Promise<SeedSummary> {
  const random = prng(42);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const contactService = createResourceService(contacts, store, clock);
  const productService = createResourceService(products, store, clock);
  const invoiceService = createResourceService(invoices, store, clock);

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

  const today = clock.now().getTime();
  const day = 86_400_000;
  let invoiceCount = 0;
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
    const roll = random();
    if (input.status === "open" && roll < 0.35)
      await invoiceService.update(orgId, invoice.id, { status: "paid" });
    else if (roll > 0.95) await invoiceService.update(orgId, invoice.id, { status: "void" });
  }
  return { contacts: createdContacts.length, products: createdProducts.length, invoices: invoiceCount };
}
