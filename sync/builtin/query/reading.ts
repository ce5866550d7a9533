import type { Condition } from "../../tools/query.ts";
import type { ResourceName } from "../../tools/resources.ts";
import type { Analysis } from "../analysis.ts";
import { findPhrases } from "../vocabulary.ts";

/**
 * What every reader of a message shares: the plan they fill in (`QueryPlan`) and the message
 * itself (`Reading`), on which each reader takes the span of every word it accounts for. The
 * readers (amounts.ts, orders.ts, filters.ts, aggregates.ts, windows.ts) build on this file;
 * parse.ts runs them in turn.
 */

/** A stretch of the message, `[start, end)` in its lowercase text. */
export type Span = [number, number];

/** A message read as one structured question: `parseQuery` (parse.ts) makes it, answer.ts answers it. */
export interface QueryPlan {
  resource: ResourceName;
  /** The message names the resource itself (not taken from the list before). */
  named: boolean;
  /** Named only by a status word ("who did we turn down"): the intents know most of those. */
  byStatus: boolean;
  where: Condition[];
  /** What each condition is, in words, in the order the reply says them. */
  said: string[];
  /** Status words ("open", "unpaid"): said before the noun. */
  adjectives: string[];
  aggregate?: { fn: "count" | "sum" | "avg" | "min" | "max" | "median"; field?: string };
  ratio?: { where: Condition[]; said: string; of: string };
  /** A field or `month:<date field>`. */
  groupBy?: string;
  groupSaid?: string;
  order?: { field: string; descending: boolean; said: string };
  /** Groups ranked by their value: "who owes us the most" is the first group. */
  rank?: { descending: boolean; limit: number; said: string };
  limit?: number;
  /** Records skipped first: "the 2nd largest" is one record after the largest. */
  offset?: number;
  /** What makes this more than a plain list: why the query layer, not the intents, answers it. */
  structured: string[];
  /** Runs of words that may be a name (a client, a contact, a deal), to look up. */
  names: Array<{ text: string; start: number; end: number; negated?: boolean }>;
  /** Words that matter and that no part of the plan accounts for. */
  leftover: string[];
  /** Something was left over that changes the question: no reader, not even the intents', may answer it. */
  doubtful?: boolean;
}

/** The message being read: each reader takes the spans of the words it accounts for. */
export interface Reading {
  analysis: Analysis;
  /** The conditions of the list a follow-up refines: "what about last month?" after won deals is about closing. */
  context: readonly Condition[];
  /** Nouns of another resource than the plan's, where they are. */
  other: Array<{ phrase: string; start: number; end: number }>;
  lower: string;
  taken: Span[];
  take(start: number, end: number): void;
}

/** The phrases of `table` in the message, outside the spans already taken. */
export function phrases<V>(reading: Reading, table: ReadonlyArray<readonly [string, V]>) {
  return findPhrases(reading.lower, table).filter(
    ({ start, end }) => !reading.taken.some(([a, b]) => start < b && end > a),
  );
}
