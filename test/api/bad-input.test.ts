import { beforeAll, describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH } from "../../core/index.ts";
import { useTestApp, type TestOrg, type TestResponse } from "../helpers/app.ts";
import {
  countRows,
  prepareRefs,
  RESOURCE_CASES,
  type Body,
  type Refs,
  type ResourceCase,
} from "../helpers/resource-cases.ts";
import { storeKinds } from "../helpers/stores.ts";

/**
 * Hostile and mistaken input, per resource: every bad body is a 4xx naming the
 * field, the problem body leaks nothing of the server, and the store is left as
 * it was. Odd but valid text (SQL-looking, emoji) is stored exactly.
 */

/** Ids of objects in another organization, for reference checks. */
interface Foreign {
  candidateId: string;
  contactId: string;
  productId: string;
  invoiceId: string;
  dealId: string;
}

interface BadCase {
  title: string;
  /** Body fields: merged over a valid create body for POST, sent alone for PATCH. */
  fields: (foreign: Foreign) => Body;
  param: string;
  /** The field error's code, when it matters (e.g. `invalid_reference`). */
  errorCode?: string;
  /** Only for this method (default: both). */
  only?: "POST" | "PATCH";
}

const long = (n: number) => "x".repeat(n);
const manyKeys = (n: number, prefix = "k") =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, "v"]));

/** Bad values every resource refuses, built from its case entry. */
function commonBadCases(rc: ResourceCase): BadCase[] {
  const field = rc.search;
  return [
    { title: "an unknown field (strict schema)", fields: () => ({ colour: "red" }), param: "colour" },
    { title: "a read-only field (id)", fields: () => ({ id: `${rc.prefix}_x` }), param: "id" },
    {
      title: "a read-only field (created_at)",
      fields: () => ({ created_at: "2025-01-01T00:00:00Z" }),
      param: "created_at",
    },
    { title: `${field} of the wrong type`, fields: () => ({ [field]: 42 }), param: field },
    { title: `${field} as an object`, fields: () => ({ [field]: { $ne: "" } }), param: field },
    ...(rc.searchNullable
      ? []
      : [{ title: `${field} null`, fields: () => ({ [field]: null }), param: field }]),
    { title: `${field} blank`, fields: () => ({ [field]: "   " }), param: field },
    { title: `${field} over-long`, fields: () => ({ [field]: long(rc.searchMax + 1) }), param: field },
    { title: `${field} with a NUL character`, fields: () => ({ [field]: "a\u0000b" }), param: field },
    { title: `${field} with an unpaired surrogate`, fields: () => ({ [field]: "a\ud800b" }), param: field },
    { title: "metadata with a number value", fields: () => ({ metadata: { a: 1 } }), param: "metadata.a" },
    {
      title: "metadata with a nested object",
      fields: () => ({ metadata: { a: { b: "c" } } }),
      param: "metadata.a",
    },
    { title: "metadata with a null value", fields: () => ({ metadata: { a: null } }), param: "metadata.a" },
    { title: "metadata as an array", fields: () => ({ metadata: ["a"] }), param: "metadata" },
    { title: "metadata as a string", fields: () => ({ metadata: "a=b" }), param: "metadata" },
    { title: "metadata with 51 keys", fields: () => ({ metadata: manyKeys(51) }), param: "metadata" },
    {
      title: "metadata with a 41-character key",
      fields: () => ({ metadata: { [long(41)]: "v" } }),
      param: `metadata.${long(41)}`,
    },
    { title: "metadata with an empty key", fields: () => ({ metadata: { "": "v" } }), param: "metadata." },
    {
      title: "metadata with a 501-character value",
      fields: () => ({ metadata: { k: long(501) } }),
      param: "metadata.k",
    },
    {
      title: "metadata with a NUL in a value",
      fields: () => ({ metadata: { k: "a\u0000" } }),
      param: "metadata.k",
    },
    {
      title: "metadata with a NUL in a key",
      fields: () => ({ metadata: { "k\u0000": "v" } }),
      param: "metadata",
    },
    {
      title: "metadata with an unpaired surrogate",
      fields: () => ({ metadata: { k: "\udc00" } }),
      param: "metadata.k",
    },
    // Nesting, width and length: refused before any schema walks them (api/validate.ts).
    {
      title: `${field} nested ${MAX_JSON_DEPTH + 1} deep`,
      fields: () => ({ [field]: nest(MAX_JSON_DEPTH + 1) }),
      param: field,
      errorCode: "too_deep",
    },
    {
      title: `metadata nested ${MAX_JSON_DEPTH + 1} deep`,
      fields: () => ({ metadata: { k: nest(MAX_JSON_DEPTH) } }),
      param: "metadata",
      errorCode: "too_deep",
    },
    {
      title: "an unknown field nested 64 deep in an array",
      fields: () => ({ colour: nest(MAX_JSON_DEPTH) }),
      param: "colour",
    },
    ...["__proto__", "constructor", "prototype"].map((key): BadCase => ({
      title: `metadata with a ${key} key`,
      // Parsed, not a literal: `{ __proto__: … }` would set the prototype, not a key.
      fields: () => ({ metadata: JSON.parse(`{"${key}":"v"}`) as Body }),
      param: `metadata.${key}`,
    })),
    {
      title: "a __proto__ key at the top",
      fields: () => JSON.parse('{"__proto__":{"admin":true}}') as Body,
      param: "__proto__",
      errorCode: "reserved_key",
    },
    { title: "metadata with 10,000 keys", fields: () => ({ metadata: manyKeys(10_000) }), param: "metadata" },
    {
      title: "a 500,000-character metadata value",
      fields: () => ({ metadata: { k: long(500_000) } }),
      param: "metadata.k",
    },
    { title: `a 500,000-character ${field}`, fields: () => ({ [field]: long(500_000) }), param: field },
  ];
}

/** `depth` arrays around a 1: `nest(2)` is `[[1]]`. */
const nest = (depth: number): unknown => (depth === 0 ? 1 : [nest(depth - 1)]);

const AMOUNT_CASES = (param: string): BadCase[] => [
  { title: `${param} negative`, fields: () => ({ [param]: -1 }), param },
  { title: `${param} negative as a string`, fields: () => ({ [param]: "-0.01" }), param },
  { title: `${param} with 5 decimals`, fields: () => ({ [param]: "12.34567" }), param },
  { title: `${param} with float error (0.1 + 0.2)`, fields: () => ({ [param]: 0.1 + 0.2 }), param },
  { title: `${param} huge (12 integer digits)`, fields: () => ({ [param]: 123456789012 }), param },
  { title: `${param} huge (1e21)`, fields: () => ({ [param]: 1e21 }), param },
  { title: `${param} in exponent notation`, fields: () => ({ [param]: "1e3" }), param },
  { title: `${param} as words`, fields: () => ({ [param]: "ten" }), param },
  { title: `${param} as a boolean`, fields: () => ({ [param]: true }), param },
  { title: `${param} null`, fields: () => ({ [param]: null }), param },
];

const CURRENCY_CASES: BadCase[] = [
  { title: "currency in lowercase", fields: () => ({ currency: "eur" }), param: "currency" },
  { title: "currency of 4 letters", fields: () => ({ currency: "EURO" }), param: "currency" },
  { title: "currency as a number", fields: () => ({ currency: 978 }), param: "currency" },
  { title: "currency as a symbol", fields: () => ({ currency: "€" }), param: "currency" },
];

const DATE_CASES = (param: string): BadCase[] =>
  [
    "2024-02-30",
    "2023-02-29",
    "2025-04-31",
    "2025-13-01",
    "0000-01-01",
    "2025-3-1",
    "2025-03-01T00:00:00Z",
    "",
  ].map((value) => ({ title: `${param} '${value}'`, fields: () => ({ [param]: value }), param }));

/**
 * A reference to another object: another organization's and a missing one are 422
 * `invalid_reference`; a malformed id or one of another type fails the schema.
 */
const REFERENCE_CASES = (
  param: string,
  ref: { prefix: string; foreign: (f: Foreign) => string; otherType: string; malformed?: string },
  only?: "POST" | "PATCH",
): BadCase[] =>
  [
    {
      title: `${param} of another organization`,
      fields: (f: Foreign) => ({ [param]: ref.foreign(f) }),
      param,
      errorCode: "invalid_reference",
    },
    {
      title: `${param} that does not exist`,
      fields: () => ({ [param]: `${ref.prefix}_doesnotexist000000000` }),
      param,
      errorCode: "invalid_reference",
    },
    { title: `${param} malformed`, fields: () => ({ [param]: ref.malformed ?? "'; --" }), param },
    { title: `${param} of another type`, fields: () => ({ [param]: ref.otherType }), param },
  ].map((c): BadCase => (only ? { ...c, only } : c));

/** Resource-specific bad values; one entry per resource, like RESOURCE_CASES. */
const BAD_CASES: Record<string, BadCase[]> = {
  invoices: [
    ...AMOUNT_CASES("amount"),
    ...CURRENCY_CASES,
    ...DATE_CASES("due_date"),
    {
      title: "no amount and no line_items",
      fields: () => ({ amount: undefined }),
      param: "amount",
      only: "POST",
    },
    { title: "status overdue (derived, never set)", fields: () => ({ status: "overdue" }), param: "status" },
    { title: "status paid at creation", fields: () => ({ status: "paid" }), param: "status", only: "POST" },
    { title: "an unknown status", fields: () => ({ status: "pending" }), param: "status" },
    { title: "days_overdue (read-only)", fields: () => ({ days_overdue: 3 }), param: "days_overdue" },
    ...REFERENCE_CASES("contact_id", { prefix: "con", foreign: (f) => f.contactId, otherType: "prod_abc" }),
    {
      title: "a line item's product of another organization",
      fields: (f) => ({
        amount: undefined,
        line_items: [{ product_id: f.productId, quantity: 1, unit_price: 5 }],
      }),
      param: "line_items[0].product_id",
      errorCode: "invalid_reference",
    },
    {
      title: "a line item with a negative quantity",
      fields: () => ({ amount: undefined, line_items: [{ quantity: -1, unit_price: 5 }] }),
      param: "line_items[0].quantity",
    },
    {
      title: "a line item with a 5-decimal unit_price",
      fields: () => ({ amount: undefined, line_items: [{ quantity: 1, unit_price: "1.23456" }] }),
      param: "line_items[0].unit_price",
    },
    {
      title: "a line item with an unknown field",
      fields: () => ({ amount: undefined, line_items: [{ quantity: 1, unit_price: 1, tax: 1 }] }),
      param: "line_items[0].tax",
    },
    {
      title: "line_items not an array",
      fields: () => ({ line_items: { quantity: 1 } }),
      param: "line_items",
    },
    {
      title: "251 line items",
      fields: () => ({
        amount: undefined,
        line_items: Array.from({ length: 251 }, () => ({ quantity: 1, unit_price: 1 })),
      }),
      param: "line_items",
    },
    {
      title: "an amount that disagrees with the line items",
      fields: () => ({ amount: 10, line_items: [{ quantity: 2, unit_price: 4 }] }),
      param: "amount",
      errorCode: "amount_mismatch",
    },
    { title: "a number with spaces", fields: () => ({ number: "INV 1" }), param: "number" },
    { title: "a 65-character number", fields: () => ({ number: long(65) }), param: "number" },
    {
      title: "a 2001-character description",
      fields: () => ({ description: long(2001) }),
      param: "description",
    },
  ],
  products: [
    ...AMOUNT_CASES("price"),
    ...CURRENCY_CASES,
    { title: "active as a string", fields: () => ({ active: "yes" }), param: "active" },
    { title: "active as a number", fields: () => ({ active: 1 }), param: "active" },
    { title: "sku with spaces", fields: () => ({ sku: "has space" }), param: "sku" },
    { title: "sku with SQL", fields: () => ({ sku: "x'; DROP TABLE products; --" }), param: "sku" },
    { title: "a 65-character sku", fields: () => ({ sku: long(65) }), param: "sku" },
    {
      title: "a 2001-character description",
      fields: () => ({ description: long(2001) }),
      param: "description",
    },
  ],
  payments: [
    ...AMOUNT_CASES("amount").map((c): BadCase => ({ ...c, only: "POST" })),
    { title: "amount zero", fields: () => ({ amount: 0 }), param: "amount", only: "POST" },
    {
      title: "an amount above the invoice's remaining balance",
      fields: () => ({ amount: 1_000_001 }),
      param: "amount",
      errorCode: "amount_exceeds_balance",
      only: "POST",
    },
    ...CURRENCY_CASES.map((c): BadCase => ({ ...c, only: "POST" })),
    {
      title: "a currency other than the invoice's",
      fields: () => ({ currency: "USD" }),
      param: "currency",
      errorCode: "currency_mismatch",
      only: "POST",
    },
    ...REFERENCE_CASES(
      "invoice_id",
      { prefix: "inv", foreign: (f) => f.invoiceId, otherType: "con_abc" },
      "POST",
    ),
    {
      title: "invoice_id changed (PATCH)",
      fields: () => ({ invoice_id: "inv_abc" }),
      param: "invoice_id",
      only: "PATCH",
    },
    { title: "amount changed (PATCH)", fields: () => ({ amount: 5 }), param: "amount", only: "PATCH" },
    { title: "an unknown method", fields: () => ({ method: "bitcoin" }), param: "method" },
    { title: "method null", fields: () => ({ method: null }), param: "method" },
    {
      title: "received_at without an offset",
      fields: () => ({ received_at: "2025-03-01T10:00:00" }),
      param: "received_at",
    },
    {
      title: "received_at an impossible date",
      fields: () => ({ received_at: "2025-02-30T10:00:00Z" }),
      param: "received_at",
    },
    { title: "received_at as a number", fields: () => ({ received_at: 1740823200 }), param: "received_at" },
  ],
  contacts: [
    { title: "a malformed email", fields: () => ({ email: "not-an-email" }), param: "email" },
    { title: "email as a number", fields: () => ({ email: 42 }), param: "email" },
    { title: "a phone of words", fields: () => ({ phone: "call me maybe" }), param: "phone" },
    { title: "tags as a string", fields: () => ({ tags: "vip" }), param: "tags" },
    { title: "a tag that is a number", fields: () => ({ tags: [1] }), param: "tags[0]" },
    { title: "an empty tag", fields: () => ({ tags: [""] }), param: "tags[0]" },
    { title: "a 51-character tag", fields: () => ({ tags: [long(51)] }), param: "tags[0]" },
    {
      title: "51 tags",
      fields: () => ({ tags: Array.from({ length: 51 }, (_, i) => `t${i}`) }),
      param: "tags",
    },
    {
      title: "an unknown lifecycle_stage",
      fields: () => ({ lifecycle_stage: "vip" }),
      param: "lifecycle_stage",
    },
    { title: "a 201-character company", fields: () => ({ company: long(201) }), param: "company" },
  ],
  candidates: [
    { title: "a malformed email", fields: () => ({ email: "not-an-email" }), param: "email" },
    { title: "email as a number", fields: () => ({ email: 42 }), param: "email" },
    { title: "email null", fields: () => ({ email: null }), param: "email" },
    { title: "a 255-character email", fields: () => ({ email: `${long(243)}@example.com` }), param: "email" },
    { title: "a phone of words", fields: () => ({ phone: "call me maybe" }), param: "phone" },
    { title: "a 201-character name", fields: () => ({ name: long(201) }), param: "name" },
    { title: "name null", fields: () => ({ name: null }), param: "name" },
    { title: "a 101-character source", fields: () => ({ source: long(101) }), param: "source" },
    { title: "a blank source", fields: () => ({ source: "  " }), param: "source" },
    { title: "an unknown status", fields: () => ({ status: "withdrawn" }), param: "status" },
    {
      title: "status screening at creation",
      fields: () => ({ status: "screening" }),
      param: "status",
      only: "POST",
    },
    { title: "status hired at creation", fields: () => ({ status: "hired" }), param: "status", only: "POST" },
    {
      title: "applied_at (read-only)",
      fields: () => ({ applied_at: "2025-01-01T00:00:00Z" }),
      param: "applied_at",
    },
    {
      title: "hired_at (read-only)",
      fields: () => ({ hired_at: "2025-01-01T00:00:00Z" }),
      param: "hired_at",
    },
  ],
  skills: [
    ...REFERENCE_CASES(
      "candidate_id",
      { prefix: "cand", foreign: (f) => f.candidateId, otherType: "con_abc" },
      "POST",
    ),
    {
      title: "candidate_id changed (PATCH)",
      fields: (f) => ({ candidate_id: f.candidateId }),
      param: "candidate_id",
      only: "PATCH",
    },
    { title: "an unknown level", fields: () => ({ level: "guru" }), param: "level" },
    { title: "level null", fields: () => ({ level: null }), param: "level" },
    { title: "an unknown status", fields: () => ({ status: "pending" }), param: "status" },
    {
      title: "verified_by on a claimed skill",
      fields: () => ({ verified_by: "Ada Lovelace" }),
      param: "verified_by",
      errorCode: "requires_verified",
    },
    {
      title: "a 201-character verified_by",
      fields: () => ({ status: "verified", verified_by: long(201) }),
      param: "verified_by",
    },
    {
      title: "verified_at (read-only)",
      fields: () => ({ verified_at: "2025-01-01T00:00:00Z" }),
      param: "verified_at",
    },
  ],
  deals: [
    ...AMOUNT_CASES("value"),
    ...CURRENCY_CASES,
    ...DATE_CASES("expected_close_date"),
    {
      title: "expected_close_date as a number",
      fields: () => ({ expected_close_date: 20250630 }),
      param: "expected_close_date",
    },
    { title: "an unknown stage", fields: () => ({ stage: "closed" }), param: "stage" },
    { title: "stage won at creation", fields: () => ({ stage: "won" }), param: "stage", only: "POST" },
    { title: "stage lost at creation", fields: () => ({ stage: "lost" }), param: "stage", only: "POST" },
    { title: "stage null", fields: () => ({ stage: null }), param: "stage" },
    {
      title: "closed_at (read-only)",
      fields: () => ({ closed_at: "2025-03-01T10:00:00Z" }),
      param: "closed_at",
    },
    ...REFERENCE_CASES("contact_id", { prefix: "con", foreign: (f) => f.contactId, otherType: "deal_abc" }),
  ],
  communications: [
    { title: "an unknown channel", fields: () => ({ channel: "fax" }), param: "channel" },
    { title: "channel null", fields: () => ({ channel: null }), param: "channel" },
    { title: "channel in uppercase", fields: () => ({ channel: "EMAIL" }), param: "channel" },
    { title: "an unknown direction", fields: () => ({ direction: "sideways" }), param: "direction" },
    { title: "direction null", fields: () => ({ direction: null }), param: "direction" },
    { title: "contact_id null", fields: () => ({ contact_id: null }), param: "contact_id" },
    ...REFERENCE_CASES("contact_id", { prefix: "con", foreign: (f) => f.contactId, otherType: "deal_abc" }),
    ...REFERENCE_CASES("deal_id", {
      prefix: "deal",
      foreign: (f) => f.dealId,
      otherType: "con_abc",
      malformed: "1 OR 1=1",
    }),
    ...[
      ["without an offset", "2025-03-01T10:00:00"],
      ["an impossible date", "2025-02-30T10:00:00Z"],
      ["a date only", "2025-03-01"],
      ["in year 0", "0000-01-01T00:00:00Z"],
      ["past year 9999 in UTC", "9999-12-31T23:00:00-05:00"],
      ["as words", "yesterday"],
    ].map(([what, value]): BadCase => ({
      title: `occurred_at ${what}`,
      fields: () => ({ occurred_at: value }),
      param: "occurred_at",
    })),
    { title: "occurred_at as a number", fields: () => ({ occurred_at: 1740823200 }), param: "occurred_at" },
    { title: "occurred_at null", fields: () => ({ occurred_at: null }), param: "occurred_at" },
    { title: "a 20001-character body", fields: () => ({ body: long(20_001) }), param: "body" },
    { title: "body as a number", fields: () => ({ body: 42 }), param: "body" },
  ],
};

/** Nothing of the server's insides: no stack frames, SQL, driver names or source paths. */
function expectNoLeak(response: TestResponse): void {
  // The request id is random letters: "req_…PzrsTaCK…" once matched /stack/i. It is ours, not a leak.
  const text = response.text.replace(/"request_id":"req_[A-Za-z0-9]+"/g, '"request_id":"req_"');
  expect(text).not.toMatch(/\n\s+at |\bat .+:\d+:\d+/);
  expect(text).not.toMatch(/\b(SELECT|INSERT INTO|UPDATE \w+ SET|DELETE FROM)\b/);
  expect(text).not.toMatch(/PostgresError|pglite|syntax error|violates|node_modules|\.ts\b|stack/i);
}

function expectProblem(
  response: TestResponse,
  status: number,
  code: string,
  param?: string,
  errorCode?: string,
) {
  expect(response.status, response.text).toBe(status);
  expect(response.headers.get("content-type")).toBe("application/problem+json");
  expect(response.body).toMatchObject({ status, code, request_id: expect.stringMatching(/^req_/) });
  if (param !== undefined) {
    const errors = response.body.errors as Array<{ param: string; code: string }>;
    expect(
      errors.map((e) => e.param),
      response.text,
    ).toContain(param);
    if (errorCode) expect(errors.find((e) => e.param === param)?.code).toBe(errorCode);
  }
  expectNoLeak(response);
  // Small whatever was sent: a long value is never echoed back.
  expect(response.text.length).toBeLessThan(16_384);
}

describe.each(storeKinds())("bad input on $name", (kind) => {
  let org: TestOrg;
  const foreign: Foreign = { candidateId: "", contactId: "", productId: "", invoiceId: "", dealId: "" };

  const t = useTestApp(kind);

  beforeAll(async () => {
    t.clock.set("2025-03-15T10:00:00Z");
    org = await t.newOrg();
    const other = await t.newOrg();
    const candidate = await t.request("POST", "/v1/candidates", {
      key: other.key,
      body: { name: "Not yours", email: "not.yours@example.com", position: "Engineer" },
    });
    foreign.candidateId = candidate.body.id;
    const contact = await t.request("POST", "/v1/contacts", { key: other.key, body: { name: "Not yours" } });
    const product = await t.request("POST", "/v1/products", {
      key: other.key,
      body: { name: "Not yours", price: 1, currency: "EUR" },
    });
    const invoice = await t.request("POST", "/v1/invoices", {
      key: other.key,
      body: { client: "Not yours", amount: 100, currency: "EUR", due_date: "2099-12-31", status: "open" },
    });
    foreign.contactId = contact.body.id;
    foreign.productId = product.body.id;
    foreign.invoiceId = invoice.body.id;
    const deal = await t.request("POST", "/v1/deals", {
      key: other.key,
      body: { title: "Not yours", value: 1, currency: "EUR", contact_id: contact.body.id },
    });
    foreign.dealId = deal.body.id;
  });

  describe.each(RESOURCE_CASES)("$resource", (rc: ResourceCase) => {
    const base = `/v1/${rc.resource}`;
    const cases = [...commonBadCases(rc), ...(BAD_CASES[rc.resource] ?? [])];
    const count = () => countRows(t.store, rc.resource, org.id);
    let target: { id: string };
    let serial = 0;
    let refs: Refs;
    const validBody = () => rc.create(1000 + serial++, "Valid", refs);

    beforeAll(async () => {
      refs = await prepareRefs(rc, t, org.key);
      const created = await t.request("POST", base, {
        key: org.key,
        body: { ...rc.create(0, "Target", refs), metadata: { seed: "1" } },
      });
      expect(created.status, created.text).toBe(201);
      target = { id: created.body.id };
    });

    const readTarget = async () => (await t.request("GET", `${base}/${target.id}`, { key: org.key })).text;

    it.each(cases.filter((c) => c.only !== "PATCH"))("POST refuses $title with 422", async (bad) => {
      const before = await count();
      const body = { ...validBody(), ...bad.fields(foreign) };
      const response = await t.request("POST", base, { key: org.key, body });
      expectProblem(response, 422, "validation_failed", bad.param, bad.errorCode);
      expect(await count()).toBe(before);
    });

    it.each(cases.filter((c) => c.only !== "POST"))("PATCH refuses $title with 422", async (bad) => {
      const [before, snapshot] = [await count(), await readTarget()];
      const fields = Object.fromEntries(
        Object.entries(bad.fields(foreign)).filter(([, v]) => v !== undefined),
      );
      const response = await t.request("PATCH", `${base}/${target.id}`, { key: org.key, body: fields });
      expectProblem(response, 422, "validation_failed", bad.param, bad.errorCode);
      expect(await count()).toBe(before);
      expect(await readTarget()).toBe(snapshot);
    });

    it("POST refuses an empty body, naming every required field", async () => {
      const response = await t.request("POST", base, { key: org.key, body: {} });
      expectProblem(response, 422, "validation_failed");
      const params = (response.body.errors as Array<{ param: string }>).map((e) => e.param);
      expect(params).toEqual(expect.arrayContaining(rc.required));
    });

    it.each(RESOURCE_CASES.find((c) => c.resource === rc.resource)!.required)(
      "POST refuses a body without %s",
      async (field) => {
        const before = await count();
        const body = { ...validBody() };
        delete body[field];
        const response = await t.request("POST", base, { key: org.key, body });
        expectProblem(response, 422, "validation_failed", field);
        expect(await count()).toBe(before);
      },
    );

    it.each([
      ["a JSON array", "[]"],
      ["a JSON array of objects", JSON.stringify([{ name: "x" }])],
      ["a JSON string", JSON.stringify("hello")],
      ["a JSON number", "42"],
      ["JSON null", "null"],
      ["JSON true", "true"],
    ])("POST and PATCH refuse %s as the body with 422", async (_, raw) => {
      const [before, snapshot] = [await count(), await readTarget()];
      const headers = { "content-type": "application/json" };
      expectProblem(await t.request("POST", base, { key: org.key, raw, headers }), 422, "validation_failed");
      const patch = await t.request("PATCH", `${base}/${target.id}`, { key: org.key, raw, headers });
      expectProblem(patch, 422, "validation_failed");
      expect(await count()).toBe(before);
      expect(await readTarget()).toBe(snapshot);
    });

    it("refuses malformed JSON with 400 and a non-JSON content type with 415", async () => {
      const before = await count();
      const malformed = await t.request("POST", base, {
        key: org.key,
        raw: '{"name": "x",',
        headers: { "content-type": "application/json" },
      });
      expectProblem(malformed, 400, "invalid_request", "body");
      const plain = await t.request("POST", base, {
        key: org.key,
        raw: JSON.stringify(validBody()),
        headers: { "content-type": "text/plain" },
      });
      expectProblem(plain, 415, "unsupported_media_type");
      expect(await count()).toBe(before);
    });

    it("PATCH refuses metadata that would exceed 50 keys once merged", async () => {
      const snapshot = await readTarget();
      const response = await t.request("PATCH", `${base}/${target.id}`, {
        key: org.key,
        body: { metadata: manyKeys(50, "extra") },
      });
      expectProblem(response, 422, "validation_failed", "metadata");
      expect(await readTarget()).toBe(snapshot);
    });

    it("accepts exactly 50 metadata keys", async () => {
      const created = await t.request("POST", base, {
        key: org.key,
        body: { ...validBody(), metadata: manyKeys(50) },
      });
      expect(created.status, created.text).toBe(201);
      expect(Object.keys(created.body.metadata)).toHaveLength(50);
    });

    it("stores SQL-looking text verbatim as plain text, and the table stays", async () => {
      const sql = `'; DROP TABLE ${rc.resource}; --`;
      const created = await t.request("POST", base, {
        key: org.key,
        body: { ...validBody(), [rc.search]: sql, metadata: { note: "1' OR '1'='1", "'); --": "x" } },
      });
      expect(created.status, created.text).toBe(201);
      expect(created.body[rc.search]).toBe(sql);
      expect(created.body.metadata).toEqual({ note: "1' OR '1'='1", "'); --": "x" });
      const [row] = await t.store.query(`SELECT ${rc.search} AS value FROM ${rc.resource} WHERE id = $1`, [
        created.body.id,
      ]);
      expect(row!.value).toBe(sql);
      const found = await t.request("GET", `${base}?q=${encodeURIComponent(sql)}`, { key: org.key });
      expect(found.status).toBe(200);
      expect(found.body.data.map((o: { id: string }) => o.id)).toEqual([created.body.id]);
      expect(await count()).toBeGreaterThan(0);
    });

    it("answers SQL-looking query parameters with 200 or 400, never 500", async () => {
      const injections = [
        `sort=${encodeURIComponent(`${rc.sort.field}; DROP TABLE ${rc.resource}`)}`,
        `sort=${encodeURIComponent("id DESC, (SELECT 1)")}`,
        `${rc.filter.param}=${encodeURIComponent("' OR 1=1 --")}`,
        `q=${encodeURIComponent("') OR 1=1 --")}`,
        `created_after=${encodeURIComponent("2025-01-01' OR '1'='1")}`,
        `q=%00`,
        `${rc.filter.param}=%00`,
        `created_after=0000-01-01`,
        `created_before=${encodeURIComponent("9999-12-31T23:00:00-05:00")}`,
      ];
      for (const query of injections) {
        const response = await t.request("GET", `${base}?${query}`, { key: org.key });
        expect([200, 400], `${query}: ${response.text}`).toContain(response.status);
        expectNoLeak(response);
      }
      expect(await count()).toBeGreaterThan(0);
    });

    it("round-trips emoji and other unicode exactly, and finds it with q", async () => {
      const text = "Zoë Ünïcödé — 日本語 🚀 👩🏽‍💻 עברית\u200bx";
      const created = await t.request("POST", base, {
        key: org.key,
        body: { ...validBody(), [rc.search]: text, metadata: { ключ: "值 🚀", "🔑": "e\u0301" } },
      });
      expect(created.status, created.text).toBe(201);
      const got = await t.request("GET", `${base}/${created.body.id}`, { key: org.key });
      expect(got.body[rc.search]).toBe(text);
      expect(got.body.metadata).toEqual({ ключ: "值 🚀", "🔑": "e\u0301" });
      const found = await t.request("GET", `${base}?q=${encodeURIComponent("👩🏽‍💻")}`, { key: org.key });
      expect(found.body.data.map((o: { id: string }) => o.id)).toContain(created.body.id);
    });

    it("answers 404 to an unknown id on GET, PATCH and DELETE", async () => {
      const unknown = `${rc.prefix}_${"0".repeat(24)}`;
      for (const method of ["GET", "PATCH", "DELETE"]) {
        const response = await t.request(method, `${base}/${unknown}`, {
          key: org.key,
          body: method === "PATCH" ? rc.patch.body : undefined,
        });
        expectProblem(response, 404, "not_found");
      }
    });

    it.each([
      ["a NUL byte", "%00"],
      ["a prefixed NUL byte", `${rc.prefix}_%00`],
      ["SQL", encodeURIComponent(`${rc.prefix}_1' OR '1'='1`)],
      ["a broken percent escape", "%E0%A4%A"],
      ["an emoji", encodeURIComponent("🚀")],
      ["an encoded slash", `..%2F..%2Fapi_keys`],
      ["3000 characters", long(3000)],
      ["another resource's prefix", "key_abc"],
    ])("answers 404, not 500, to a malformed id in the path (%s)", async (_, id) => {
      for (const method of ["GET", "PATCH", "DELETE"]) {
        const response = await t.request(method, `${base}/${id}`, {
          key: org.key,
          body: method === "PATCH" ? rc.patch.body : undefined,
        });
        expectProblem(response, 404, "not_found");
      }
    });
  });
});
