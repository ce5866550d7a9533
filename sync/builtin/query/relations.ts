import type { ResourceName } from "../../tools/resources.ts";
import type { QueryPlan, Reading } from "./reading.ts";

/**
 * What a record has of another resource, counted (the `query_records` fields that count related
 * records: a contact's conversations, a candidate's verified skills, an invoice's payments):
 * "contacts with no communications", "candidates without any verified skills", "which candidate
 * has the most verified skills", "contacts we've never contacted".
 */

interface Related {
  /** The words that name the related records, as an alternation. */
  words: string;
  field: string;
  /** How the reply names them. */
  label: string;
}

const RELATED: Partial<Record<ResourceName, readonly Related[]>> = {
  contacts: [
    {
      words: "communications?|conversations?|messages?|touchpoints?|interactions?",
      field: "communications",
      label: "conversations",
    },
    { words: "deals?|opportunit(?:y|ies)|opps", field: "deals", label: "deals" },
  ],
  candidates: [
    { words: "verified skills?", field: "verified_skills", label: "verified skills" },
    { words: "skills?", field: "skills", label: "skills" },
  ],
  invoices: [{ words: "payments?", field: "payments", label: "payments" }],
};

const NONE =
  "(?:with\\s+no|without(?:\\s+any)?|with\\s+zero|no|zero|(?:that|who|which)\\s+(?:have|has)\\s+no|(?:do|does)\\s+not\\s+have(?:\\s+any)?|lacking|missing)\\s+(?:a\\s+|an\\s+|any\\s+)?";
const SOME = "(?:with|having|(?:that|who|which)\\s+(?:have|has))\\s+(?:a\\s+|an\\s+|any\\s+|some\\s+)?";
const MOST = "(?:the\\s+)?(most|fewest|least)\\s+";

/** "never contacted", "haven't talked to": contacts with no conversation at all. */
export const NEVER_TALKED =
  /\b(?:never|not|not yet|have not|has not|did not)\s+(?:yet\s+|been\s+|ever\s+)?(?:contacted|talked to|spoken to|spoke to|heard from|reached out to|emailed|called)\b/;

/** "which of those have deals" after a list of contacts: the other resource is what they have. */
export function relatedNoun(resource: ResourceName, lower: string): boolean {
  return (RELATED[resource] ?? []).some((related) => new RegExp(`\\b(?:${related.words})\\b`).test(lower));
}

/** Conditions and orders on the records a record has. */
export function relations(reading: Reading, plan: QueryPlan): void {
  const lower = reading.lower;
  if (plan.resource === "contacts") {
    // "never replied", "haven't heard back from": nothing came in from them.
    const silent =
      /\b(?:never|not|not yet|have not|has not|did not)\s+(?:yet\s+|ever\s+)?(?:replied|responded|answered|written back|got back to us|gotten back to us|heard back)\b/.exec(
        lower,
      );
    if (silent) {
      plan.where.push({ field: "replies", op: "eq", value: 0 });
      plan.said.push("who never replied");
      reading.take(silent.index, silent.index + silent[0].length);
      plan.structured.push("join");
      return;
    }
    // "contacts we haven't had a meeting with", "never met".
    const unmet =
      /\b(?:(?:have|has|did) not|never)\s+(?:yet\s+)?(?:had\s+(?:a\s+|any\s+)?meetings?|met)\b|\b(?:no|without(?:\s+a|\s+any)?)\s+meetings?\b/.exec(
        lower,
      );
    if (unmet) {
      plan.where.push({ field: "meetings", op: "eq", value: 0 });
      plan.said.push("never met");
      reading.take(unmet.index, unmet.index + unmet[0].length);
      plan.structured.push("join");
      return;
    }
    const never = NEVER_TALKED.exec(lower);
    if (never) {
      plan.where.push({ field: "communications", op: "eq", value: 0 });
      plan.said.push("never contacted");
      reading.take(never.index, never.index + never[0].length);
      plan.structured.push("join");
      return;
    }
  }
  for (const related of RELATED[plan.resource] ?? []) {
    const none = new RegExp(`\\b${NONE}(${related.words})\\b`).exec(lower);
    const most = new RegExp(`\\b${MOST}(${related.words})\\b`).exec(lower);
    const some = new RegExp(`\\b${SOME}(${related.words})\\b`).exec(lower);
    const match = none ?? most ?? some;
    if (!match) continue;
    if (match === none) {
      plan.where.push({ field: related.field, op: "eq", value: 0 });
      plan.said.push(`with no ${related.label}`);
    } else if (match === most) {
      const descending = most[1] === "most";
      plan.order = { field: related.field, descending, said: `${most[1]} ${related.label}` };
      plan.limit ??= 1;
    } else {
      plan.where.push({ field: related.field, op: "gt", value: 0 });
      plan.said.push(`with ${related.label}`);
    }
    reading.take(match.index, match.index + match[0].length);
    plan.structured.push("join");
    return;
  }
}
