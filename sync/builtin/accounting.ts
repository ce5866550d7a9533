import { editDistance } from "../tools/lookup.ts";
import type { Analysis } from "./analysis.ts";
import { NUMBER_WORDS } from "./calendar.ts";
import { RULES } from "./cues.ts";
import { stem } from "./normalize.ts";
import { INTENT_RESOURCE } from "./query/index.ts";
import { DOUBT, NEUTRAL, SIGNIFICANT } from "./query/parse.ts";
import { RESOURCE_WORDS } from "./query/words.ts";
import { STOPWORDS } from "./stopwords.ts";
import {
  CANDIDATE_STATUS_WORDS,
  CHANNEL_WORDS,
  CURRENCY_WORDS,
  DEAL_STAGE_WORDS,
  DIRECTION_WORDS,
  findPhrases,
  INVOICE_STATUS_WORDS,
  LIFECYCLE_WORDS,
  SKILL_STATUS_WORDS,
} from "./vocabulary.ts";

/**
 * Accounting for every word: before a read answer leaves the planner, each word of the message that
 * carries meaning must be accounted for by that answer, or the answer is withheld as not understood.
 * The intents score a message by the cues it has and ignore the rest, so "who's best at python" could
 * come back as the top clients by revenue: confident, and an answer to another question. Here a word
 * is accounted for when it carries no meaning of its own (a function word, "show", "please"), when it
 * is a cue of the intent that answered (what made the planner choose it), or when the reply says it
 * back: its own word, the status, stage, channel or resource it stands for, the date window it is
 * in, the number or amount it is, or, for a name typed with a slip, a word of the reply one or two
 * edits away. A word that none of these covers ("python", "strongest", "vs", "missing") is what
 * the answer did not read.
 *
 * The test is deliberately one-sided: a reply that mentions a word may still have misread it, but a
 * reply that neither chose the answer for it nor says it back cannot have used it.
 */

/** Stopwords whose meaning an answer has to carry: bounds, ranks, order, negation, counts. */
const MEANINGFUL: ReadonlySet<string> = new Set([
  ...SIGNIFICANT,
  ...DOUBT,
  ...Object.keys(NUMBER_WORDS).filter((word) => word !== "a" && word !== "an"),
  "best",
  "worst",
  "bottom",
  "except",
  "none",
  "nobody",
  "nothing",
  "other",
  "others",
  "else",
  "again",
  "alone",
  "both",
  "either",
  "neither",
  "nor",
  "only",
  "same",
  "often",
  "why",
]);

/**
 * Words that carry no meaning in a question about this data, beyond the stopwords and the planner's
 * neutral words: greetings, hedges and the verbs of asking.
 */
const FILLER: ReadonlySet<string> = new Set([
  "quick",
  "question",
  "q",
  "wondering",
  "wonder",
  "curious",
  "remind",
  "guys",
  "mate",
  "folks",
  "team",
  "hmm",
  "um",
  "uh",
  "btw",
  "fyi",
  "thx",
  "ty",
  "ta",
  "again",
  "real",
  "quickly",
  "just",
  "actually",
  "basically",
  "can",
  "could",
  "would",
  "will",
  "should",
  "you",
  "u",
  "ur",
  "gimme",
  "lemme",
  "wanna",
  "gonna",
  "happen",
  "happens",
  "tally",
  "rundown",
  "breakdown",
  "overview",
  "summary",
  "forth",
  "marked",
  "whole",
  "entire",
  "broken",
  "split",
]);

/**
 * Words an intent answers without saying them back: the invoices falling due are the open ones, a
 * list "newest first" is the latest.
 */
const IMPLIED: Readonly<Record<string, readonly string[]>> = {
  due_soon: ["open", "unpaid", "outstanding"],
  overdue: ["open", "unpaid", "outstanding", "payment", "pay"],
  outstanding: ["open", "accounts", "per", "currency"],
  pipeline: ["open", "active", "value", "sales", "funnel"],
  contact_detail: ["work", "works", "working", "reach", "company", "employer", "contact", "details"],
  candidate_detail: ["details", "profile", "application"],
  communications: ["history", "log", "logged"],
  skills: ["developer", "engineer", "expert", "people", "person", "someone", "anyone", "who"],
};

/** A word of the message and the words a reply may say it with instead. */
const SAID_AS: Readonly<Record<string, readonly string[]>> = {
  left: ["owed", "remaining"],
  remaining: ["owed"],
  latest: ["newest", "recent"],
  last: ["newest", "latest"],
  recent: ["newest", "latest"],
  newest: ["latest", "recent"],
  oldest: ["earliest"],
};

/** The detail intents' resources (a record's card): the intents' list in query/index.ts has the lists'. */
const DETAIL_RESOURCE: Readonly<Record<string, string>> = {
  invoice_detail: "invoices",
  contact_detail: "contacts",
  candidate_detail: "candidates",
  top_clients: "invoices",
};

/** The statuses a record's card shows. */
const CARD_STATUSES: Readonly<Record<string, ReadonlyArray<readonly [string, unknown]>>> = {
  invoice_detail: INVOICE_STATUS_WORDS,
  contact_detail: LIFECYCLE_WORDS,
  candidate_detail: CANDIDATE_STATUS_WORDS,
};

/** A bare name's card ("contacts:detail", records.ts) is read as its resource's detail intent. */
const CARD_INTENT: Readonly<Record<string, string>> = {
  "invoices:detail": "invoice_detail",
  "contacts:detail": "contact_detail",
  "candidates:detail": "candidate_detail",
};

/** The words of an intent's own cues (those that point to it), as words and stems. */
const INTENT_WORDS: ReadonlyMap<string, ReadonlySet<string>> = new Map(
  RULES.map((rule) => {
    const cues = [
      ...Object.entries(rule.cues)
        .filter(([, weight]) => weight > 0)
        .map(([cue]) => cue),
      ...rule.needs.flat(),
    ];
    const words = cues
      .filter((cue) => !/^[@~]/.test(cue))
      .flatMap((cue) => cue.replace(/^=/, "").split(/[\s-]+/))
      .filter(Boolean);
    words.push(...(IMPLIED[rule.intent] ?? []));
    // A record's card shows its status: "has Noah been interviewed yet" is answered by "Status: screening".
    for (const [phrase] of CARD_STATUSES[rule.intent] ?? []) words.push(...phrase.split(/[\s-]+/));
    const resource = INTENT_RESOURCE[rule.intent] ?? DETAIL_RESOURCE[rule.intent];
    for (const [phrase, of] of RESOURCE_WORDS) if (of === resource) words.push(...phrase.split(/[\s-]+/));
    return [rule.intent, new Set(words.flatMap((word) => [word, stem(word)]))];
  }),
);

/** Phrase tables whose words stand for a value a reply says ("late" → overdue, "bills" → invoices). */
const STANDS_FOR: ReadonlyArray<ReadonlyArray<readonly [string, string | readonly string[]]>> = [
  INVOICE_STATUS_WORDS,
  DEAL_STAGE_WORDS,
  LIFECYCLE_WORDS,
  CANDIDATE_STATUS_WORDS,
  SKILL_STATUS_WORDS,
  CHANNEL_WORDS,
  DIRECTION_WORDS,
  RESOURCE_WORDS,
  Object.entries(CURRENCY_WORDS),
];

/** A phrase table's value as a list: a status alone, or the statuses a word stands for. */
const valuesOf = (value: string | readonly string[]): readonly string[] =>
  typeof value === "string" ? [value] : value;

/** A reply's words, lower case, with their stems. */
function replyWords(reply: string): Set<string> {
  const words = new Set<string>();
  for (const match of reply.toLowerCase().matchAll(/[\p{L}]+(?:['’-][\p{L}]+)*/gu)) {
    const word = match[0];
    words.add(word);
    words.add(stem(word));
    for (const part of word.split(/[-'’]/)) words.add(stem(part));
  }
  return words;
}

/** The numbers a reply shows, grouping removed: "10,000.00 EUR" → 10000, "Top 5" → 5. */
function replyNumbers(reply: string): Set<number> {
  const numbers = new Set<number>();
  for (const match of reply.matchAll(/\d[\d,]*(?:\.\d+)?/g)) numbers.add(Number(match[0].replace(/,/g, "")));
  return numbers;
}

/** Words of a ranking from the top, which a numbered list says by its order ("1. Larkspur Foods"). */
const RANKED_FROM_TOP = new Set(["most", "top", "highest", "biggest", "largest", "best"]);
const NUMBERED = /^\s*1\.\s/m;

/** Words of time that a reply bounded in time accounts for ("collected lately": the last 30 days). */
const TIME_WORDS = new Set([
  "lately",
  "recently",
  "recent",
  "latest",
  "newest",
  "last",
  "past",
  "since",
  "ago",
]);

/**
 * Whether a reply bounds its answer in time: a range ("2026-03-01 to 2026-03-31"), a day or month it
 * is on or in, a period ("the last 30 days", "this month"). The dates of the records it lists do not.
 */
const DATED =
  /\d{4}-\d{2}-\d{2} to \d{4}-\d{2}-\d{2}|\b(?:in|on|from|since|during|after|before|until) (?:january|february|march|april|may|june|july|august|september|october|november|december|q[1-4]|\d{4}-\d{2}-\d{2})|\b(?:last|past|next|this) (?:\d+ )?(?:days?|weeks?|months?|quarters?|years?)\b|\b(?:today|yesterday|tomorrow)\b/i;

const within = (start: number, end: number, spans: ReadonlyArray<readonly [number, number]>) =>
  spans.some(([a, b]) => start >= a && end <= b);

/** The value a number token is, in digits or words ("3", "three", "10k"), or undefined. */
function numberOf(word: string): number | undefined {
  // "a" and "an" count in "a few", "an hour ago" (dates.ts), never as a number of their own.
  if (word === "a" || word === "an") return undefined;
  if (word in NUMBER_WORDS) return NUMBER_WORDS[word];
  const match = /^(\d+(?:\.\d+)?)(k)?$/.exec(word.replace(/,/g, ""));
  if (!match) return undefined;
  return Number(match[1]) * (match[2] ? 1000 : 1);
}

/**
 * The words of `analysis`'s message that `reply`, answered by `intent` (a read intent's name, or
 * another source's), does not account for, as written; empty when every word is read.
 */
export function unaccounted(analysis: Analysis, answer: string, intent?: string): string[] {
  const { norm, dates, entities } = analysis;
  // Text in quotes is the data's (a subject, a note) or the message's own words said back: neither reads them.
  // "newest first" orders a list: it does not say "first" back ("our first meeting with Mia" is the oldest).
  const reply = answer
    .replace(/“[^”]*”/g, " ")
    .replace(/\b(newest|oldest|latest|earliest|largest|smallest|biggest|most|top|least) first\b/gi, "$1");
  const said = replyWords(reply);
  const numbers = replyNumbers(reply);
  const cues = (intent && INTENT_WORDS.get(CARD_INTENT[intent] ?? intent)) || new Set<string>();
  const dated = DATED.test(reply);
  // Status, stage, channel, resource and currency words: each phrase found, and whether the reply says its value.
  const found = STANDS_FOR.flatMap((table) => findPhrases(norm.lower, table));
  const vocabulary = found.map(({ start, end }): [number, number] => [start, end]);
  const standsFor = found
    .filter(({ value }) =>
      valuesOf(value).some((one) => said.has(one.toLowerCase()) || said.has(stem(one.toLowerCase()))),
    )
    .map(({ start, end }): [number, number] => [start, end]);
  const replyList = [...said].filter((word) => word.length >= 4);
  const missing: string[] = [];
  for (const token of norm.tokens) {
    const { word, start, end } = token;
    const root = token.stem;
    if (NEUTRAL.has(word) && !MEANINGFUL.has(word)) continue;
    if (FILLER.has(word)) continue;
    if (within(start, end, dates.spans)) {
      if (!dated) missing.push(word);
      continue;
    }
    const value = numberOf(word);
    if (value !== undefined) {
      if (!numbers.has(value)) missing.push(word);
      continue;
    }
    if (within(start, end, entities.spans)) {
      const raw = norm.lower.slice(start, end);
      if (!reply.toLowerCase().includes(raw) && !/\d/.test(raw)) missing.push(word);
      continue;
    }
    const meaningful = MEANINGFUL.has(word) || within(start, end, vocabulary) || !STOPWORDS.has(word);
    if (!meaningful) continue;
    if (cues.has(word) || cues.has(root)) continue;
    if (said.has(word) || said.has(root) || SAID_AS[word]?.some((other) => said.has(other))) continue;
    if (RANKED_FROM_TOP.has(word) && NUMBERED.test(reply)) continue;
    if (TIME_WORDS.has(word) && dated) continue;
    if (within(start, end, standsFor)) continue;
    // A name with a slip of the keyboard ("okafr"): the reply has the record's name as spelt.
    // Only a word that could be a name: "most" is not a slip of "lost".
    if (
      word.length >= 4 &&
      !MEANINGFUL.has(word) &&
      !STOPWORDS.has(word) &&
      !within(start, end, vocabulary)
    ) {
      const budget = word.length >= 7 ? 2 : 1;
      if (replyList.some((other) => editDistance(word, other) <= budget)) continue;
    }
    missing.push(norm.text.slice(start, end));
  }
  return [...new Set(missing)];
}
