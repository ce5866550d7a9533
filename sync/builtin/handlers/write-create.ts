import type { ResourceName } from "../../tools/resources.ts";
import type { PlanContext } from "../context.ts";
import { resolveName } from "../names.ts";
import { STOPWORDS } from "../stopwords.ts";
import type { Answer } from "../types.ts";
import { ask, assertMayWrite, proposeAll } from "./proposals.ts";

/**
 * "Create a contact Ada Lovelace, ada@example.com, at Analytical Engines": the fields read from
 * the message as written (names keep their case), proposed through `create_record`, whose
 * schema check has the last word. A required field that is missing is asked for, not invented.
 */

type Fields = Record<string, unknown>;

const NOUNS: ReadonlyArray<[RegExp, ResourceName]> = [
  [/\b(?:candidates?|applicants?)\b/i, "candidates"],
  [/\b(?:products?|services?|skus?)\b/i, "products"],
  [/\b(?:deals?|opportunit(?:y|ies))\b/i, "deals"],
  [/\b(?:contacts?|persons?|people|clients?|customers?|leads?|prospects?)\b/i, "contacts"],
];
const NOUN_WORDS =
  "contact|person|client|customer|lead|prospect|candidate|applicant|product|service|deal|opportunity";
const STOP = String.raw`(?=\s*(?:,|;|\.\s|\.$|$|\(|\s(?:with|at|from|who|whose|for|as|and|priced|costing|worth|valued|email|e-mail|phone|via|sku|position|role)\b|\s\S+@))`;

function resourceOf(text: string): ResourceName | undefined {
  const found = NOUNS.map(([pattern, resource]) => ({ resource, at: text.search(pattern) })).filter(
    (hit) => hit.at >= 0,
  );
  return found.sort((a, b) => a.at - b.at)[0]?.resource;
}

/** The new record's name: quoted, after "named/called", after the noun, or before "as a contact". */
export function newName(ctx: PlanContext): string | undefined {
  const { commandAt } = ctx.analysis;
  // "met Jane Roe at the expo, add her as a contact": the command is read alone, "her" is the news's name.
  const text = ctx.analysis.norm.text.slice(commandAt ?? 0);
  const quoted = ctx.analysis.entities.quoted[0];
  if (quoted) return quoted;
  const named = writtenName(text);
  if (named && !PRONOUN.test(named)) return named;
  return commandAt !== undefined ? nameInNews(ctx) : named;
}

const PRONOUN = /^(?:her|him|them|they|she|he|it|this|that|this person|that person|this one|that one)$/i;

/** The first name-like run of the news before a command: two or three capitalized words, not the company. */
function nameInNews(ctx: PlanContext): string | undefined {
  const { norm, commandAt } = ctx.analysis;
  const news = norm.text.slice(0, commandAt);
  for (const match of news.matchAll(/(?<![\p{L}@.])\p{Lu}[\p{L}'-]+(?:\s+\p{Lu}[\p{L}'-]+){1,2}/gu)) {
    const before = news.slice(0, match.index);
    if (/\b(?:at|from|of)\s+$/i.test(before)) continue;
    const words = match[0].split(/\s+/);
    // "Met Jane Roe at the expo": the sentence's first word is capitalized for being first.
    while (words.length > 2 && (match.index === 0 || STOPWORDS.has(words[0]!.toLowerCase()))) words.shift();
    if (!STOPWORDS.has(words[0]!.toLowerCase())) return words.join(" ");
  }
  return undefined;
}

function writtenName(text: string): string | undefined {
  const patterns = [
    new RegExp(String.raw`\b(?:named|called)\s+(.+?)${STOP}`, "i"),
    new RegExp(
      String.raw`^(?:\w+\s+)(?:a\s+|an\s+|the\s+)?(?:new\s+)?(.+?)\s+as\s+(?:a\s+|an\s+|the\s+)?(?:new\s+)?(?:${NOUN_WORDS})\b`,
      "i",
    ),
    new RegExp(String.raw`\b(?:${NOUN_WORDS})\s*[:-]?\s+(?:for\s+)?(.+?)${STOP}`, "i"),
  ];
  for (const pattern of patterns) {
    const name = pattern
      .exec(text)?.[1]
      ?.split(/\s+(?:at|from|with|of)\s+|,/)[0]
      ?.trim()
      .replace(/^[-:]\s*/, "")
      .replace(/^["']|["']$/g, "");
    if (
      name &&
      !/@/.test(name) &&
      /\p{L}/u.test(name) &&
      !new RegExp(`^(?:${NOUN_WORDS})s?$`, "i").test(name)
    )
      return name;
  }
  return undefined;
}

const after = (ctx: PlanContext, lead: string) =>
  new RegExp(String.raw`\b(?:${lead})\s*:?\s+(.+?)${STOP}`, "i").exec(ctx.analysis.norm.text)?.[1]?.trim();

function contactFields(ctx: PlanContext, name: string): Fields {
  const { entities } = ctx.analysis;
  const company = after(ctx, "works at|working at|works for|company(?: is)?|employer|at|from");
  const stage = entities.lifecycleStages[0];
  return {
    name,
    ...(entities.emails[0] ? { email: entities.emails[0] } : {}),
    ...(entities.phones[0] ? { phone: entities.phones[0] } : {}),
    ...(company ? { company } : {}),
    ...(stage ? { lifecycle_stage: stage } : {}),
  };
}

function candidateFields(ctx: PlanContext, name: string): Fields | string {
  const { entities, norm } = ctx.analysis;
  const position =
    /\b(?:for|as)\s+(?:the\s+|a\s+|an\s+)?(.+?)\s+(?:role|position|job|opening)\b/i.exec(norm.text)?.[1] ??
    after(ctx, "position|role|applying for|applied for");
  const source = after(ctx, "via|through|source(?: is)?|referred by|found on");
  const missing = [entities.emails[0] ? "" : "an email", position ? "" : "the position"].filter(Boolean);
  if (missing.length > 0)
    return `To add ${name} as a candidate I need ${missing.join(" and ")}, e.g. “add candidate ${name}, ${name.split(" ")[0]!.toLowerCase()}@example.com, for the Backend engineer role”.`;
  return {
    name,
    email: entities.emails[0],
    position: position!.trim(),
    ...(entities.phones[0] ? { phone: entities.phones[0] } : {}),
    ...(source ? { source } : {}),
  };
}

function productFields(ctx: PlanContext, name: string): Fields | string {
  const amount = ctx.analysis.entities.amounts[0];
  if (!amount?.currency)
    return `What does ${name} cost, and in which currency? For example “add a product ${name} at 150 EUR”.`;
  const sku = /\bsku\s*:?\s*([A-Za-z0-9._-]{1,64})/i.exec(ctx.analysis.norm.text)?.[1];
  return { name, price: amount.amount, currency: amount.currency, ...(sku ? { sku } : {}) };
}

async function dealFields(ctx: PlanContext, title: string): Promise<Fields | string> {
  const amount = ctx.analysis.entities.amounts[0];
  if (!amount?.currency)
    return `What is the deal “${title}” worth, and in which currency? For example “create a deal ${title} worth 5,000 EUR”.`;
  const who = after(ctx, "with|for");
  const contact = who
    ? await resolveName(ctx, ["contacts"], { spans: [{ text: who, strong: true, start: 0, end: 0 }] })
    : undefined;
  const stage = ctx.analysis.entities.dealStages.find((value) =>
    ["lead", "qualified", "proposal"].includes(value),
  );
  const close = ctx.slots.future?.range.to;
  return {
    title,
    value: amount.amount,
    currency: amount.currency,
    ...(contact ? { contact_id: String(contact.record.id) } : {}),
    ...(stage ? { stage } : {}),
    ...(close && /\bclos/i.test(ctx.analysis.norm.text) ? { expected_close_date: close } : {}),
  };
}

export async function createRecord(ctx: PlanContext): Promise<Answer> {
  const { text, lower } = ctx.analysis.norm;
  const resource = resourceOf(text) ?? (ctx.analysis.entities.emails.length > 0 ? "contacts" : undefined);
  if (/\binvoices?\b/.test(lower) || /\bpayments?\b/.test(lower) || !resource) {
    return ask(
      ctx,
      "I can prepare new contacts, candidates, products and deals. Say which, with its details, e.g. “create a contact Ada Lovelace, ada@example.com, at Analytical Engines”.",
      "create_record",
    );
  }
  assertMayWrite(ctx, "create_record", { resource });
  const name = newName(ctx);
  if (!name)
    return ask(
      ctx,
      `What is the new ${resource.replace(/s$/, "")} called? For example “create a contact Ada Lovelace, ada@example.com”.`,
      "create_record",
    );
  const fields =
    resource === "contacts"
      ? contactFields(ctx, name)
      : resource === "candidates"
        ? candidateFields(ctx, name)
        : resource === "products"
          ? productFields(ctx, name)
          : await dealFields(ctx, name);
  if (typeof fields === "string") return ask(ctx, fields, "create_record");
  return proposeAll(
    ctx,
    [{ tool: "create_record", args: { resource, fields }, label: name }],
    "create_record",
  );
}
