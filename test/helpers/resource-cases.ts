import type { Store } from "../../store/index.ts";
import type { TestApp } from "./app.ts";

/**
 * One entry per REST resource, shared by the contract, bad-input and isolation
 * suites (Hono's router tests run one table over every router the same way).
 * Adding a resource to the API means adding one entry here; every suite then
 * covers it.
 */

export type Body = Record<string, unknown>;

/** Ids of the objects a create body refers to (e.g. `{ invoice_id }` for a payment). */
export type Refs = Record<string, string>;

/** Creates an object under /v1 as the organization being prepared; returns its id. */
export type CreateAs = (path: string, body: Body) => Promise<string>;

export interface ResourceCase {
  /** URL segment under /v1 and table name, e.g. `invoices`. */
  resource: string;
  /** `object` of the rendered instance. */
  object: string;
  /** Id prefix without the underscore. */
  prefix: string;
  /**
   * A valid create body; `n` makes it distinct and `word` lands in the `search`
   * field. The object it creates can be deleted by its owner (invoices: a draft).
   */
  create(n: number, word: string, refs: Refs): Body;
  /**
   * Creates, once per organization, the objects that create() bodies refer to,
   * so references stay inside the organization that uses them.
   */
  prepare?(createAs: CreateAs): Promise<Refs>;
  /** A valid patch and what the patched object then shows. */
  patch: { body: Body; expect: Body };
  /** A text field that `q` searches and that create() fills with `word`. */
  search: string;
  /** Longest accepted value of the `search` field. */
  searchMax: number;
  /** The `search` field accepts null (e.g. a payment's optional `reference`). */
  searchNullable?: boolean;
  /** Fields a create body must have. */
  required: string[];
  /** A whitelisted sort field and the body fields that give a sort rank (equal ranks tie). */
  sort: { field: string; body(rank: number): Body };
  /**
   * An enum or boolean filter: value → body fields that give an object that
   * value; whether a comma list is accepted; a value it refuses with 400.
   */
  filter: { param: string; values: Array<[string, Body]>; list: boolean; invalid: string };
}

const pad = (rank: number) => String(rank).padStart(3, "0");

/** Distinct emails for the candidates that skills refer to (emails are unique per organization). */
let skillHolders = 0;

export const RESOURCE_CASES: ResourceCase[] = [
  {
    resource: "invoices",
    object: "invoice",
    prefix: "inv",
    create: (n, word) => ({
      client: `${word} GmbH`,
      currency: "EUR",
      amount: 100 + n,
      due_date: "2025-06-30",
      status: "draft",
    }),
    patch: {
      body: { client: "Renamed AG", amount: "250.50", due_date: "2025-07-31" },
      expect: { client: "Renamed AG", amount: 250.5, due_date: "2025-07-31" },
    },
    search: "client",
    searchMax: 200,
    // `amount` too, unless line_items are given (test/api/bad-input.test.ts).
    required: ["client", "currency", "due_date"],
    sort: { field: "amount", body: (rank) => ({ amount: 10 + rank }) },
    filter: {
      param: "status",
      values: [
        ["draft", { status: "draft" }],
        ["open", { status: "open" }],
      ],
      list: true,
      invalid: "pending",
    },
  },
  {
    resource: "products",
    object: "product",
    prefix: "prod",
    create: (n, word) => ({ name: `${word} widget`, price: 10 + n, currency: "EUR" }),
    patch: {
      body: { name: "Renamed widget", price: 12.5, description: "Now with more widget" },
      expect: { name: "Renamed widget", price: 12.5, description: "Now with more widget" },
    },
    search: "name",
    searchMax: 200,
    required: ["name", "price", "currency"],
    sort: { field: "price", body: (rank) => ({ price: 5 + rank }) },
    filter: {
      param: "active",
      values: [
        ["true", { active: true }],
        ["false", { active: false }],
      ],
      list: false,
      invalid: "yes",
    },
  },
  {
    resource: "payments",
    object: "payment",
    prefix: "pay",
    // One open invoice, large enough that no test's payments settle it.
    prepare: async (createAs) => ({
      invoice_id: await createAs("/v1/invoices", {
        client: "Payer Ltd",
        currency: "EUR",
        amount: 1_000_000,
        due_date: "2099-12-31",
        status: "open",
      }),
    }),
    create: (n, word, refs) => ({
      invoice_id: refs.invoice_id,
      amount: 10 + n,
      method: "bank_transfer",
      reference: `${word} transfer ${n}`,
    }),
    patch: {
      body: { method: "card", reference: "Corrected reference" },
      expect: { method: "card", reference: "Corrected reference" },
    },
    search: "reference",
    searchMax: 200,
    searchNullable: true,
    required: ["invoice_id", "amount", "method"],
    sort: { field: "amount", body: (rank) => ({ amount: 5 + rank }) },
    filter: {
      param: "method",
      values: [
        ["card", { method: "card" }],
        ["cash", { method: "cash" }],
      ],
      list: true,
      invalid: "bitcoin",
    },
  },
  {
    resource: "contacts",
    object: "contact",
    prefix: "con",
    create: (n, word) => ({ name: `${word} Lovelace`, email: `person${n}@example.com` }),
    patch: {
      body: { company: "Analytical Engines Ltd", tags: ["vip", "early"] },
      expect: { company: "Analytical Engines Ltd", tags: ["vip", "early"] },
    },
    search: "name",
    searchMax: 200,
    required: ["name"],
    sort: { field: "email", body: (rank) => ({ email: `rank${pad(rank)}@example.com` }) },
    filter: {
      param: "lifecycle_stage",
      values: [
        ["lead", { lifecycle_stage: "lead" }],
        ["prospect", { lifecycle_stage: "prospect" }],
        ["customer", { lifecycle_stage: "customer" }],
      ],
      list: true,
      invalid: "vip",
    },
  },
  {
    resource: "candidates",
    object: "candidate",
    prefix: "cand",
    // `position` carries the word, so `name` is free to give the sort rank (`q` searches both, and email).
    create: (n, word) => ({
      name: `Grace Hopper ${n}`,
      email: `candidate${n}@example.com`,
      position: `${word} engineer`,
    }),
    patch: {
      body: { phone: "+44 20 7946 0001", source: "referral", status: "screening" },
      expect: { phone: "+44 20 7946 0001", source: "referral", status: "screening" },
    },
    search: "position",
    searchMax: 200,
    required: ["name", "email", "position"],
    sort: { field: "name", body: (rank) => ({ name: `Candidate ${pad(rank)}` }) },
    // A candidate is always created `applied`; test/api/candidates.test.ts filters the other statuses.
    filter: {
      param: "status",
      values: [["applied", { status: "applied" }]],
      list: true,
      invalid: "withdrawn",
    },
  },
  {
    resource: "skills",
    object: "skill",
    prefix: "skl",
    prepare: async (createAs) => ({
      candidate_id: await createAs("/v1/candidates", {
        name: "Skill Holder",
        email: `holder${++skillHolders}@example.com`,
        position: "Engineer",
      }),
    }),
    create: (n, word, refs) => ({ candidate_id: refs.candidate_id, name: `${word} TypeScript ${n}` }),
    patch: {
      body: { level: "expert", status: "verified", verified_by: "Ada Lovelace" },
      expect: { level: "expert", status: "verified", verified_by: "Ada Lovelace" },
    },
    search: "name",
    searchMax: 100,
    required: ["candidate_id", "name"],
    // verified_at is the creation time of a skill created verified, and fixtures are created in rank order.
    sort: { field: "verified_at", body: () => ({ status: "verified" }) },
    filter: {
      param: "level",
      values: [
        ["beginner", { level: "beginner" }],
        ["advanced", { level: "advanced" }],
        ["expert", { level: "expert" }],
      ],
      list: true,
      invalid: "guru",
    },
  },
  {
    resource: "deals",
    object: "deal",
    prefix: "deal",
    prepare: async (createAs) => ({
      contact_id: await createAs("/v1/contacts", { name: "Deal Contact", company: "Pipeline Ltd" }),
    }),
    create: (n, word, refs) => ({
      title: `${word} renewal`,
      contact_id: refs.contact_id,
      value: 1000 + n,
      currency: "EUR",
      expected_close_date: "2025-06-30",
    }),
    patch: {
      body: { title: "Renamed renewal", value: "2500.75", stage: "qualified", expected_close_date: null },
      expect: { title: "Renamed renewal", value: 2500.75, stage: "qualified", expected_close_date: null },
    },
    search: "title",
    searchMax: 200,
    required: ["title", "value", "currency"],
    sort: { field: "value", body: (rank) => ({ value: 50 + rank }) },
    filter: {
      param: "stage",
      values: [
        ["lead", { stage: "lead" }],
        ["qualified", { stage: "qualified" }],
        ["proposal", { stage: "proposal" }],
      ],
      list: true,
      invalid: "closed",
    },
  },
  {
    resource: "communications",
    object: "communication",
    prefix: "comm",
    prepare: async (createAs) => {
      const contactId = await createAs("/v1/contacts", { name: "Talked To", company: "Chatty Ltd" });
      const dealId = await createAs("/v1/deals", {
        title: "Talked-about deal",
        contact_id: contactId,
        value: 500,
        currency: "EUR",
      });
      return { contact_id: contactId, deal_id: dealId };
    },
    create: (n, word, refs) => ({
      contact_id: refs.contact_id,
      deal_id: refs.deal_id,
      channel: "email",
      direction: "outbound",
      subject: `${word} follow-up`,
      body: `Message number ${n}`,
      occurred_at: "2025-03-14T09:00:00Z",
    }),
    patch: {
      body: { subject: "Corrected subject", direction: "inbound", occurred_at: "2025-03-14T11:30:00+01:00" },
      expect: { subject: "Corrected subject", direction: "inbound", occurred_at: "2025-03-14T10:30:00Z" },
    },
    search: "subject",
    searchMax: 500,
    searchNullable: true,
    required: ["contact_id", "channel", "direction"],
    sort: { field: "occurred_at", body: (rank) => ({ occurred_at: `2025-03-0${rank + 1}T09:00:00Z` }) },
    filter: {
      param: "channel",
      values: [
        ["email", { channel: "email" }],
        ["call", { channel: "call" }],
        ["meeting", { channel: "meeting" }],
      ],
      list: true,
      invalid: "fax",
    },
  },
];

/** The refs `rc.create` needs for the organization whose key is `key`. */
export async function prepareRefs(rc: ResourceCase, t: Pick<TestApp, "request">, key: string): Promise<Refs> {
  if (!rc.prepare) return {};
  return rc.prepare(async (path, body) => {
    const created = await t.request("POST", path, { key, body });
    if (created.status !== 201) throw new Error(`preparing ${rc.resource}: ${path} → ${created.text}`);
    return String(created.body.id);
  });
}

/** Rows of `table` that belong to `orgId`. */
export async function countRows(store: Store, table: string, orgId: string): Promise<number> {
  const rows = await store.query<{ n: number }>(`SELECT count(*) AS n FROM ${table} WHERE org_id = $1`, [
    orgId,
  ]);
  return rows[0]!.n;
}

/** RFC 3339 in UTC with second precision, as every API timestamp is rendered. */
export const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
