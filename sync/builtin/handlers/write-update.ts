import type { GetResult } from "../../tools/lookup.ts";
import type { ResourceName } from "../../tools/resources.ts";
import { str } from "../answers.ts";
import { labelOf } from "../../tools/resources.ts";
import type { PlanContext } from "../context.ts";
import { namedOutright, passingSpans, resolveName } from "../names.ts";
import type { Answer } from "../types.ts";
import { findPhrases, LIFECYCLE_WORDS } from "../vocabulary.ts";
import { ask, assertMayWrite, proposeAll, referenced } from "./proposals.ts";

/**
 * "Change Ada's email to ada@example.com", "set the phone of Liam Moreau to +44 …", "move Ava
 * Okafor to customer": one field of one record, proposed through `update_record`.
 */

interface FieldSpec {
  field: string;
  words: string;
  /** Where a record with this field is looked for, first match wins. */
  resources: readonly ResourceName[];
}

const FIELDS: readonly FieldSpec[] = [
  { field: "email", words: "e-?mail(?: address)?", resources: ["contacts", "candidates"] },
  {
    field: "phone",
    words: "(?:phone|mobile|cell|telephone)(?: number)?|number",
    resources: ["contacts", "candidates"],
  },
  { field: "company", words: "company|employer|organi[sz]ation", resources: ["contacts"] },
  { field: "lifecycle_stage", words: "lifecycle stage|lifecycle|stage", resources: ["contacts"] },
  { field: "position", words: "position|role|job title", resources: ["candidates"] },
  { field: "source", words: "source", resources: ["candidates"] },
  { field: "price", words: "price|unit price", resources: ["products"] },
  { field: "name", words: "full name|name", resources: ["contacts", "candidates", "products"] },
];
const VERBS = "change|update|set|edit|correct|fix|modify|replace|make";
const PRONOUN = /^(?:her|his|their|its|it|this|that|them|him|the contact|this contact|that contact)$/i;

interface Parsed {
  spec: FieldSpec;
  who: string;
  value: string;
}

function parse(text: string): Parsed | undefined {
  const clean = text.replace(/[.!?]+$/, "").trim();
  for (const spec of FIELDS) {
    const patterns = [
      new RegExp(
        `^(?:${VERBS})\\s+(?:the\\s+)?(.+?)(?:'s)?\\s+(?:${spec.words})\\s+(?:to|=|:|with|as|into|is)\\s+(.+)$`,
        "i",
      ),
      new RegExp(
        `^(?:${VERBS})\\s+(?:the\\s+)?(?:${spec.words})\\s+(?:of|for|on)\\s+(.+?)\\s+(?:to|=|:|as|into)\\s+(.+)$`,
        "i",
      ),
    ];
    for (const pattern of patterns) {
      const match = pattern.exec(clean);
      if (match) return { spec, who: match[1]!.trim(), value: match[2]!.trim().replace(/^["']|["']$/g, "") };
    }
  }
  const renamed = /^rename\s+(.+?)\s+(?:to|as)\s+(.+)$/i.exec(clean);
  if (renamed)
    return { spec: FIELDS.find((spec) => spec.field === "name")!, who: renamed[1]!, value: renamed[2]! };
  const staged = new RegExp(
    `^(?:${VERBS}|move|mark|turn)\\s+(.+?)\\s+(?:to|as|into)\\s+(?:a\\s+|an\\s+)?(lead|prospect|customer|churned)s?\\b`,
    "i",
  ).exec(clean);
  if (staged)
    return {
      spec: FIELDS.find((spec) => spec.field === "lifecycle_stage")!,
      who: staged[1]!,
      value: staged[2]!,
    };
  return undefined;
}

/** The value as the field takes it, or what is wrong with it. */
function valueOf(ctx: PlanContext, parsed: Parsed): unknown {
  const { entities } = ctx.analysis;
  switch (parsed.spec.field) {
    case "email":
      return (
        entities.emails.find((email) => parsed.value.includes(email)) ??
        new Error("that is not an email address")
      );
    case "lifecycle_stage": {
      const stage = findPhrases(parsed.value.toLowerCase(), LIFECYCLE_WORDS)[0]?.value[0];
      return stage ?? new Error("the lifecycle stage is one of lead, prospect, customer or churned");
    }
    case "price": {
      const amount =
        entities.amounts.find((found) => found.start >= ctx.analysis.norm.text.indexOf(parsed.value)) ??
        entities.amounts[0];
      const bare = entities.numbers[entities.numbers.length - 1];
      if (amount) return amount.amount;
      return bare ? bare.text : new Error("that is not a price");
    }
    default:
      return parsed.value;
  }
}

async function target(ctx: PlanContext, parsed: Parsed) {
  if (PRONOUN.test(parsed.who)) {
    for (const resource of parsed.spec.resources) {
      const pointed = referenced(ctx, resource);
      if (pointed?.length === 1) return { resource, id: pointed[0]!.id, label: pointed[0]!.label, others: 0 };
    }
    return undefined;
  }
  const span = {
    text: parsed.who.replace(/^(?:the\s+)?(?:contact|candidate|product)\s+/i, ""),
    strong: true,
    start: 0,
    end: 0,
  };
  const resolved = await resolveName(ctx, parsed.spec.resources, { spans: [span], optional: true });
  if (!resolved) return undefined;
  const { resource, record } = resolved;
  return {
    resource,
    id: String(record.id),
    label: labelOf(resource, record),
    others: resolved.exact ? 0 : resolved.others.length,
  };
}

/** Where a company is told in news: "now works at X", "moved to X", "joined X". */
const COMPANY =
  /\b(?:now works (?:at|for)|works (?:at|for)|working (?:at|for)|moved to|joined|switched to|is now (?:at|with)|new (?:company|employer)(?: is)?:?)\s+(.+?)(?=\s*(?:,|;|\.\s|\.$|$|\s-\s|\s(?:and|so|now|as|update|change|pls|please)\b))/i;
const CHANGED_STAGE =
  /\b(?:became|becomes|is now|now|turned into|converted to|converted into)\s+(?:a\s+|an\s+)?(lead|prospect|customer|churned)\b/;

/** The fields news gives ("has a new phone number: +44 …", "now works at X", "became a customer"). */
function toldFields(ctx: PlanContext, parsed: Parsed | undefined): Record<string, unknown> {
  const { entities, norm } = ctx.analysis;
  const command = norm.lower.slice(ctx.analysis.commandAt ?? 0);
  const fields: Record<string, unknown> = {};
  if (parsed) {
    const value = valueOf(ctx, parsed);
    if (!(value instanceof Error)) fields[parsed.spec.field] = value;
  }
  if (entities.emails[0] && fields.email === undefined) fields.email = entities.emails[0];
  if (entities.phones[0] && fields.phone === undefined) fields.phone = entities.phones[0];
  const company = COMPANY.exec(norm.text)?.[1]?.trim();
  if (company && !/@/.test(company) && fields.company === undefined) fields.company = company;
  const stage = findPhrases(command, LIFECYCLE_WORDS)[0]?.value[0] ?? CHANGED_STAGE.exec(norm.lower)?.[1];
  if (stage && fields.lifecycle_stage === undefined) fields.lifecycle_stage = stage;
  return fields;
}

interface Target {
  resource: ResourceName;
  id: string;
  label: string;
}

/**
 * Whom news is about: a record named in the message ("Theo Novak has a new phone number"), which
 * beats the memory, or "it", "her" from the last reply. A name that fits several records, or a
 * contact and a candidate alike, is asked about.
 */
async function toldTarget(
  ctx: PlanContext,
  resources: readonly ResourceName[],
): Promise<Target | "ambiguous" | undefined> {
  const spans = passingSpans(ctx);
  const found: Array<Target & { exact: boolean; length: number; several: boolean }> = [];
  for (const resource of spans.length > 0 ? resources : []) {
    const resolved = await resolveName(ctx, [resource], { spans, optional: true });
    if (!resolved || !namedOutright(resolved)) continue;
    found.push({
      resource,
      id: String(resolved.record.id),
      label: labelOf(resource, resolved.record),
      exact: resolved.exact,
      length: resolved.span.text.length,
      several: resolved.others.length > 0 && !resolved.exact,
    });
  }
  // The fullest match wins: "Theo Novak" the contact, not the candidate "Amara Novak" by one word.
  const rank = (one: (typeof found)[number]) => (one.exact ? 1000 : 0) + one.length;
  const best = Math.max(0, ...found.map(rank));
  const top = found.filter((one) => rank(one) === best);
  const focus = ctx.memory?.focus;
  if (top.length > 1) return top.find((one) => one.id === focus?.id) ?? "ambiguous";
  if (top[0]) return top[0].several ? "ambiguous" : top[0];
  for (const resource of resources) {
    const pointed = referenced(ctx, resource);
    if (pointed?.length === 1) return { resource, id: pointed[0]!.id, label: pointed[0]!.label };
  }
  return undefined;
}

/** "Theo Novak has a new phone number: +44 …, update it": the fields the news gives, for the record it names. */
async function updateTold(ctx: PlanContext, parsed: Parsed | undefined): Promise<Answer | undefined> {
  const fields = toldFields(ctx, parsed);
  const names = Object.keys(fields);
  if (names.length === 0) return undefined;
  const resources = FIELDS.filter((spec) => names.includes(spec.field))
    .map((spec) => spec.resources)
    .reduce<readonly ResourceName[]>(
      (all, some) => all.filter((resource) => some.includes(resource)),
      ["contacts", "candidates", "products"],
    );
  if (resources.length === 0) return undefined;
  assertMayWrite(ctx, "update_record", { resource: resources[0] });
  const what = names.map((name) => name.replace(/_/g, " ")).join(" and ");
  const record = await toldTarget(ctx, resources);
  if (record === "ambiguous")
    return ask(
      ctx,
      `That name fits more than one record; whose ${what} should I change? Give the full name.`,
      "update_record",
    );
  if (!record)
    return ask(
      ctx,
      `Whose ${what} should I change? Give the full name, for example “update Theo Novak's ${what}”.`,
      "update_record",
    );
  const { record: current } = await ctx.read<GetResult>("get_record", {
    resource: record.resource,
    id: record.id,
  });
  const changed = Object.fromEntries(
    Object.entries(fields).filter(([field, value]) => str(current[field]) !== str(value)),
  );
  if (Object.keys(changed).length === 0)
    return { reply: `${record.label} already has that ${what}; nothing to change.`, failed: true };
  const args = { resource: record.resource, id: record.id, fields: changed };
  return proposeAll(ctx, [{ tool: "update_record", args, label: record.label }], "update_record");
}

export async function updateRecord(ctx: PlanContext): Promise<Answer> {
  const { norm, commandAt } = ctx.analysis;
  // A command said in passing is parsed alone ("update his phone to …"); its values may sit in the news.
  const parsed = parse(norm.text.slice(commandAt ?? 0));
  if (!parsed || (commandAt !== undefined && PRONOUN.test(parsed.who))) {
    const told = await updateTold(ctx, parsed);
    if (told) return told;
  }
  if (!parsed) {
    return ask(
      ctx,
      "What should I change? For example “change Ada's email to ada@example.com” or “set Liam Moreau's phone to +44 20 7946 0000”.",
      "update_record",
    );
  }
  assertMayWrite(ctx, "update_record", { resource: parsed.spec.resources[0] });
  const value = valueOf(ctx, parsed);
  if (value instanceof Error)
    return { reply: `I can't prepare that change: ${value.message}.`, failed: true };
  const record = await target(ctx, parsed);
  if (!record)
    return ask(
      ctx,
      `I couldn't find “${parsed.who}”. Which record should I change? Give the full name.`,
      "update_record",
    );
  if (record.others > 0) {
    return ask(
      ctx,
      `“${parsed.who}” fits more than one record; give the full name so I change the right one.`,
      "update_record",
    );
  }
  const { record: current } = await ctx.read<GetResult>("get_record", {
    resource: record.resource,
    id: record.id,
  });
  if (str(current[parsed.spec.field]) === str(value)) {
    return {
      reply: `${record.label} already has ${parsed.spec.field.replace(/_/g, " ")} ${str(value)}; nothing to change.`,
      failed: true,
    };
  }
  const args = { resource: record.resource, id: record.id, fields: { [parsed.spec.field]: value } };
  return proposeAll(ctx, [{ tool: "update_record", args, label: record.label }], "update_record");
}
