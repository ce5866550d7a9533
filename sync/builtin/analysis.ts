import { editDistance } from "../tools/lookup.ts";
import { findDates, type DateFinding } from "./dates.ts";
import { findEntities, type Entities } from "./entities.ts";
import { CUE_WORDS } from "./cues.ts";
import { lowerSameLength, normalize, stem, type Normalized } from "./normalize.ts";
import { STOPWORDS } from "./stopwords.ts";
import type { Facet, Slots } from "./types.ts";
import { VOCABULARY_WORDS } from "./vocabulary.ts";

/**
 * One message read once: normalized, its dates and entities found, its words corrected towards
 * the planner's vocabulary where a letter or two is off ("invocies"), and the features the
 * intent rules score on. Only the user's message is ever analysed; text read from records is
 * shown, never interpreted.
 */

export interface Analysis {
  norm: Normalized;
  today: string;
  dates: DateFinding;
  entities: Entities;
  /** Lowercase words as written (after correction), and their stems. */
  words: Set<string>;
  stems: Set<string>;
  /** " word word … " and " stem stem … ", for phrase cues. */
  wordText: string;
  stemText: string;
  /** The original message's words, before filler was dropped: " what can you do ". */
  originalWords: string;
  features: Set<string>;
  facet?: Facet;
  /**
   * The command verb the message starts with ("mark", "void", "move"…), when it is one, or the
   * verb of a command said in passing, after news or a reason ("they signed today — move it to won").
   */
  verb?: string;
  /** Where that command said in passing starts in `norm.text`; absent when the message opens with it. */
  commandAt?: number;
}

/** Verbs that start a request to change something (writes.ts decides which change). */
export const COMMAND_VERBS: ReadonlySet<string> = new Set([
  "mark",
  "set",
  "flag",
  "void",
  "cancel",
  "annul",
  "invalidate",
  "record",
  "log",
  "register",
  "add",
  "create",
  "enter",
  "book",
  "move",
  "advance",
  "push",
  "progress",
  "bump",
  "put",
  "shift",
  "change",
  "update",
  "edit",
  "correct",
  "fix",
  "modify",
  "rename",
  "replace",
  "verify",
  "validate",
  "confirm",
  "approve",
  "reject",
  "decline",
  "hire",
  "offer",
  "invite",
  "schedule",
  "screen",
  "promote",
  "delete",
  "remove",
  "erase",
  "wipe",
  "drop",
  "purge",
  "destroy",
  "clear",
  "make",
  "close",
  "apply",
  "insert",
  "save",
  "archive",
  "send",
  "refund",
  "issue",
]);

const LEADING =
  /^(?:(?:and|then|also|now|ok|okay|so|just|yes|sure|great|good|alright|right|next|oh)\b[\s,]*)+/i;

/** What may come before a command inside a message: "…, so move it", "… - pls mark it paid". */
const CLAUSE_LEAD =
  /^(?:(?:and|then|also|now|ok|okay|so|just|but|pls|plz|please|kindly|you can|go ahead and|feel free to)\b[\s,]*)+/;
/** A clause break: punctuation (not the comma of "1,000"), a spaced dash, a bracket, or a conjunction. */
const BREAK = /(?:[;:!?()]|\.(?!\d)|(?<!\d),|,(?!\d)|\s-\s)\s*|\s(?:and|so|then|now|but)\s+/g;
/** Words that make a verb after them no order: "asked us to void it", "we should reject him". */
const NOT_ORDERED =
  /\b(?:to|not|never|will|would|should|could|can|must|may|might|shall|did|do|does|we|i|you|they|he|she|who|that|which|the|a|an|this|my|our|your|his|her|their)\s+$/;
/** A command verb used as a noun or an adjective ("offer accepted", "schedule is full"). */
const NOUN_USE = /^[\p{L}-]+\s+(?:is|was|are|were|has|had|looks|seems|[a-z]{3,}ed)\b/u;
/** Messages that ask, or only suppose ("if they pay, …"): a verb inside them is no order. */
const NOT_A_COMMAND = /^(?:what|which|who|whom|whose|how|when|where|why|any|if|unless|once|whenever)\b/;
/** …and those that open as a question and end as one ("did we mark it paid?"), not "has a new number: …, update it". */
const ASKED = /^(?:is|are|was|were|do|does|did|has|have|had|can|could|should|shall|will|would)\b.*\?\s*$/;

/** Verbs that give an order with nothing after them. */
const BARE = new Set([
  "update",
  "record",
  "log",
  "reject",
  "decline",
  "hire",
  "void",
  "cancel",
  "fix",
  "correct",
  "change",
  "edit",
  "verify",
  "confirm",
  "approve",
]);
const ORDINAL_WORD =
  "first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|1st|2nd|3rd|[4-9]th|10th|last";
/** A place in the last list, said in the command, or anywhere as "the first one", "the second invoice". */
const PLACE = new RegExp(`\\b(?:${ORDINAL_WORD})\\b|(?:\\bnumber|\\bno\\.|\\bitem|#)\\s*\\d`);
const LISTED = new RegExp(
  `\\b(?:${ORDINAL_WORD})\\s+(?:one|invoice|contact|deal|candidate|item|record|entry|result|person|client|payment|skill|product)\\b`,
);

/** The verb of `clause` when it opens with a command verb used as one. */
function verbOf(clause: string, text: string): string | undefined {
  const first = /^[\p{L}-]+/u.exec(clause)?.[0];
  if (!first || !COMMAND_VERBS.has(first)) return undefined;
  const rest = clause.slice(first.length);
  // "offer accepted": a participle after the verb, written in lowercase ("move Ted" is a name).
  const noun = NOUN_USE.test(clause) && !/^\s+\p{Lu}/u.test(text.slice(first.length));
  // A verb alone ends a message only as an order: "…, pls update", "…, reject".
  const alone = !/\S/.test(rest) && !BARE.has(first);
  // "statuses: screen, offer, hire": a word in a list.
  const listed = /^\s*[,;:]/.test(rest);
  return noun || alone || listed ? undefined : first;
}

/**
 * The command a message gives after news or a reason ("not a fit, reject her", "paid yesterday,
 * mark it paid"): the first clause that opens with a command verb, or a command verb right before
 * "it", "her", "them"… A question, a supposition ("if they pay, …") or reported speech ("she asked
 * us to void it") gives none.
 */
function commandInPassing(text: string, lower: string): { verb: string; at: number } | undefined {
  if (NOT_A_COMMAND.test(lower) || ASKED.test(lower)) return undefined;
  const starts: number[] = [];
  for (const match of lower.matchAll(BREAK)) starts.push(match.index + match[0].length);
  for (const match of lower.matchAll(
    /(?<=\s)[\p{L}-]+(?=\s+(?:it|her|him|them|that|this|those|these|his|their)\b)/gu,
  )) {
    if (!NOT_ORDERED.test(lower.slice(0, match.index))) starts.push(match.index);
  }
  for (const start of [...new Set(starts)].sort((a, b) => a - b)) {
    if (start <= 0 || start >= lower.length) continue;
    const lead = CLAUSE_LEAD.exec(lower.slice(start))?.[0].length ?? 0;
    const verb = verbOf(lower.slice(start + lead), text.slice(start + lead));
    if (verb) return { verb, at: start + lead };
  }
  return undefined;
}

/** Words at least 5 letters long, a letter (two from 8 letters) off a cue word, read as that word. */
function correct(word: string, capitalizedInside: boolean): string {
  if (word.length < 5 || capitalizedInside || CUE_WORDS.has(word) || STOPWORDS.has(word)) return word;
  if (VOCABULARY_WORDS.has(word)) return word;
  if (/\d/.test(word)) return word;
  const budget = word.length >= 8 ? 2 : 1;
  let best: string | undefined;
  let bestDistance = budget + 1;
  for (const cue of CUE_WORDS) {
    // A typo keeps the first letter; "research" is not "search".
    if (Math.abs(cue.length - word.length) > budget || cue[0] !== word[0]) continue;
    const distance = editDistance(word, cue);
    if (distance < bestDistance) [best, bestDistance] = [cue, distance];
  }
  return best ?? word;
}

function facetOf(lower: string): Facet | undefined {
  if (/\b(?:how many|number of|count|total number|tally)\b/.test(lower)) return "count";
  if (/\b(?:how much|total|sum|add(?:s|ed)? up|worth|value|amount|owe|owed|owing)\b/.test(lower))
    return "sum";
  if (/\b(?:list|show|which|what are|display|see|view|who|names?)\b/.test(lower)) return "list";
  return undefined;
}

function featuresOf(analysis: Omit<Analysis, "features">): Set<string> {
  const { entities: e, dates, today } = analysis;
  const features = new Set<string>();
  const add = (name: string, when: boolean) => when && features.add(name);
  add("@invoice_ref", e.invoiceRefs.length > 0);
  add("@amount", e.amounts.length > 0);
  add("@email", e.emails.length > 0);
  add("@phone", e.phones.length > 0);
  add("@period", dates.past !== undefined);
  add("@past", dates.past !== undefined && !dates.past.ahead && dates.past.range.from <= today);
  add("@ahead", dates.future !== undefined && (dates.future.ahead === true || dates.future.range.to > today));
  add(`@${analysis.facet}`, analysis.facet !== undefined);
  add("@ordinal", e.ordinal !== undefined);
  add("@limit", e.limit !== undefined);
  add("@question", analysis.norm.question);
  add("@inv_status", e.invoiceStatuses.length > 0);
  add("@deal_stage", e.dealStages.length > 0);
  add("@lifecycle", e.lifecycleStages.length > 0);
  add("@cand_status", e.candidateStatuses.length > 0);
  add("@skill_status", e.skillStatuses.length > 0);
  add("@channel", e.channels.length > 0);
  add("@currency", e.currencies.length > 0);
  return features;
}

export function analyze(message: string, today: string): Analysis {
  const norm = normalize(message);
  for (const token of norm.tokens) {
    const inside = token.start > 0 && /^\p{Lu}/u.test(token.raw);
    const corrected = correct(token.word, inside);
    if (corrected !== token.word) {
      token.word = corrected;
      token.stem = stem(corrected);
    }
  }
  const dates = findDates(norm.lower, today);
  const entities = findEntities(norm.text, norm.lower, dates.spans);
  const words = norm.tokens.map((token) => token.word);
  const stems = norm.tokens.map((token) => token.stem);
  const lead = norm.lower.replace(LEADING, "");
  const first = /^[\p{L}-]+/u.exec(lead)?.[0];
  const opening = first && COMMAND_VERBS.has(first) ? first : undefined;
  // A message that opens with a verb used as a noun ("offer accepted, hire him") may give its order later.
  const passing =
    !opening || !verbOf(lead, norm.text.slice(norm.text.length - lead.length))
      ? commandInPassing(norm.text, norm.lower)
      : undefined;
  // "passed the first call, put him in screening": a place in a list is the command's, not the news's.
  const place = PLACE.test(norm.lower.slice(passing?.at ?? 0)) || LISTED.test(norm.lower);
  if (passing && entities.ordinal !== undefined && !place) delete entities.ordinal;
  const base: Omit<Analysis, "features"> = {
    norm,
    today,
    dates,
    entities,
    words: new Set(words),
    stems: new Set(stems),
    wordText: ` ${words.join(" ")} `,
    stemText: ` ${stems.join(" ")} `,
    originalWords: lowerSameLength(message)
      .replace(/[‘’`]/g, "'")
      .replace(/[^\p{L}\p{N}'\s]/gu, " ")
      .replace(/\s+/g, " ")
      .trim(),
    facet: facetOf(norm.lower),
    ...(passing ? { verb: passing.verb, commandAt: passing.at } : opening ? { verb: opening } : {}),
  };
  return { ...base, features: featuresOf(base) };
}

/** The slots a message fills by itself (names are resolved later, by the handler that needs one). */
export function slotsOf(analysis: Analysis): Slots {
  const { entities: e, dates } = analysis;
  return {
    ...(dates.past ? { past: dates.past } : {}),
    ...(dates.future ? { future: dates.future } : {}),
    ...(e.currencies.length === 1 ? { currency: e.currencies[0] } : {}),
    invoiceStatuses: e.invoiceStatuses,
    dealStages: e.dealStages,
    lifecycleStages: e.lifecycleStages,
    candidateStatuses: e.candidateStatuses,
    skillStatuses: e.skillStatuses,
    channels: e.channels,
    directions: e.directions,
    ...(e.limit !== undefined ? { limit: e.limit } : {}),
    ...(analysis.facet ? { facet: analysis.facet } : {}),
  };
}
