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
  /** The command verb the message starts with ("mark", "void", "move"…), when it is one. */
  verb?: string;
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
    ...(first && COMMAND_VERBS.has(first) ? { verb: first } : {}),
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
