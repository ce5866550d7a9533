import type { Condition } from "../../tools/query.ts";
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

/** "fewer than 3", "at least 2": a bound on how many related records there are. */
const COUNTED =
  "(?:(?:with|having|(?:that|who|which)\\s+(?:have|has)|have|has)\\s+)?(less than|fewer than|under|below|more than|over|above|at least|at most|exactly)\\s+(\\d{1,3})\\s+";
const COUNT_OPS: Readonly<Record<string, Condition["op"]>> = {
  "less than": "lt",
  "fewer than": "lt",
  under: "lt",
  below: "lt",
  "more than": "gt",
  over: "gt",
  above: "gt",
  "at least": "gte",
  "at most": "lte",
  exactly: "eq",
};

/** "never contacted", "haven't talked to": contacts with no conversation at all. */
export const NEVER_TALKED =
  /\b(?:never|not|not yet|have not|has not|did not)\s+(?:yet\s+|been\s+|ever\s+)?(?:contacted|talked to|spoken to|spoke to|heard from|reached out to|been in touch with|got in touch with|gotten in touch with|in touch with)\b/;

/** The channel a word of contact says: "emailed", "phoned", "texts". */
const CHANNEL_WORDS: Readonly<Record<string, string>> = {
  emailed: "email",
  emails: "email",
  email: "email",
  called: "call",
  phoned: "call",
  rang: "call",
  texted: "sms",
  texts: "sms",
  text: "sms",
  sms: "sms",
};
/** A channel in a reply: several ("with no emails or calls"), one of them ("never sent us an email"). */
const CHANNEL_SAID: Readonly<Record<string, { many: string; one: string }>> = {
  email: { many: "emails", one: "an email" },
  call: { many: "calls", one: "a call" },
  sms: { many: "texts", one: "a text" },
};
const VERB = "(?:emailed|called|phoned|rang|texted)";
/** "never", "haven't yet", "have never been". */
const NEVER = "(?:never|not|not yet|have not|has not|did not)\\s+(?:yet\\s+|ever\\s+|once\\s+|been\\s+)?";

/** "never emailed", "haven't texted or called": no conversation on those channels (either way). */
export const NEVER_BY = new RegExp(`\\b${NEVER}(${VERB}(?:\\s*(?:,|or|and|nor)\\s*${VERB})*)\\b`);

/**
 * "never reached out to us themselves", "who has never sent us an email": nothing came in from them
 * (on that channel, when one is said).
 */
export const NEVER_FROM = new RegExp(
  `\\b${NEVER}(?:(?:sent|send)\\s+us(?:\\s+(?:an?\\s+|any\\s+)?(emails?|texts?|sms))?|(?:reached|reach)\\s+out(?:\\s+to\\s+us)?|(?:contacted|emailed|called|texted|phoned|rang)\\s+us|(?:got|get|gotten)\\s+in\\s+touch(?:\\s+with\\s+us)?)(?:\\s+themselves)?\\b`,
);

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
    const from = NEVER_FROM.exec(lower);
    if (from) {
      const word = /\b(emailed|called|texted|phoned|rang)\s+us\b/.exec(from[0])?.[1] ?? from[1];
      const channel = word ? CHANNEL_WORDS[word] : undefined;
      plan.where.push({
        field: "replies",
        op: "eq",
        value: 0,
        ...(channel ? { of: [{ field: "channel", op: "eq", value: channel }] } : {}),
      });
      plan.said.push(
        channel ? `who never sent us ${CHANNEL_SAID[channel]!.one}` : "who never got in touch themselves",
      );
      reading.take(from.index, from.index + from[0].length);
      plan.structured.push("join");
      return;
    }
    const by = NEVER_BY.exec(lower);
    if (by) {
      const channels = [
        ...new Set(
          by[1]!.split(/\s*(?:,|\bor\b|\band\b|\bnor\b)\s*/).map((verb) => CHANNEL_WORDS[verb.trim()]!),
        ),
      ];
      plan.where.push({
        field: "communications",
        op: "eq",
        value: 0,
        of: [{ field: "channel", op: "in", value: channels }],
      });
      const names = channels.map((channel) => CHANNEL_SAID[channel]!.many);
      plan.said.push(`with no ${names.join(" or ")} (in or out)`);
      reading.take(by.index, by.index + by[0].length);
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
    // "candidates with fewer than 3 skills", "contacts that have at least 2 deals": how many they have.
    const counted = new RegExp(`\\b${COUNTED}(${related.words})\\b`).exec(lower);
    if (counted) {
      const [, bound, number] = counted;
      plan.where.push({ field: related.field, op: COUNT_OPS[bound!]!, value: Number(number) });
      plan.said.push(
        `with ${bound} ${number} ${number === "1" ? related.label.replace(/s$/, "") : related.label}`,
      );
      reading.take(counted.index, counted.index + counted[0].length);
      plan.structured.push("join");
      return;
    }
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
