import { isAppError } from "../../core/errors.ts";
import type { GetResult } from "../tools/lookup.ts";
import { editDistance } from "../tools/lookup.ts";
import type { ResourceName } from "../tools/resources.ts";
import { str } from "./answers.ts";
import { Refusal, type PlanContext } from "./context.ts";
import { CUE_WORDS } from "./cues.ts";
import { fold, type Token } from "./normalize.ts";
import { STOPWORDS } from "./stopwords.ts";
import { VOCABULARY_WORDS } from "./vocabulary.ts";

/**
 * Names in a message: the runs of words left once every known word, date, id and amount is
 * taken out ("what is Ava Okafor's phone" leaves "Ava Okafor"), looked up with `get_record`,
 * which finds a name in any case, inside a longer one, or with a letter or two wrong. When
 * several runs are left, the record most of them point to wins ("the data migration deal
 * for Oakridge").
 */

export interface NameSpan {
  text: string;
  /** After "for/of/at/with…", capitalized or possessive: surely a name, so not finding it is news. */
  strong: boolean;
  start: number;
  end: number;
}

export interface Resolved {
  resource: ResourceName;
  record: Record<string, unknown>;
  /** Other records the words could mean, best first. */
  others: Array<Record<string, unknown>>;
  span: NameSpan;
  /** The name was written out in full (any case). */
  exact: boolean;
}

/** The field a name is read from, per resource (as get_record looks it up). */
export const NAME_FIELD: Record<ResourceName, string> = {
  invoices: "client",
  products: "name",
  payments: "reference",
  contacts: "name",
  deals: "title",
  communications: "subject",
  candidates: "name",
  skills: "name",
};

const KNOWN = new Set([...STOPWORDS, ...CUE_WORDS, ...VOCABULARY_WORDS]);
const PREPOSITIONS = new Set([
  "for",
  "from",
  "of",
  "at",
  "with",
  "by",
  "to",
  "about",
  "on",
  "named",
  "called",
]);
const DETERMINERS = new Set(["the", "a", "an", "our", "my", "their", "his", "her"]);

function known(token: Token, taken: Array<[number, number]>): boolean {
  if (taken.some(([a, b]) => token.start < b && token.end > a)) return true;
  if (/^\d+([.,]\d+)?$/.test(token.raw) || token.raw.length < 2) return true;
  return KNOWN.has(token.word) || KNOWN.has(token.stem) || KNOWN.has(fold(token.raw));
}

/** The runs of unknown words, longest first. `extra` spans are taken out too (a new email, a skill). */
export function nameSpans(ctx: PlanContext, extra: Array<[number, number]> = []): NameSpan[] {
  const { norm, entities, dates } = ctx.analysis;
  const taken = [...entities.spans, ...dates.spans, ...extra];
  const spans: NameSpan[] = [];
  let run: Token[] = [];
  const flush = (before: Token | undefined) => {
    if (run.length === 0) return;
    const first = run[0]!;
    const last = run[run.length - 1]!;
    const capitalized = run.some((token) => /^\p{Lu}/u.test(token.raw));
    const strong = capitalized || last.possessive || (before !== undefined && PREPOSITIONS.has(before.word));
    spans.push({ text: norm.text.slice(first.start, last.end), strong, start: first.start, end: last.end });
    run = [];
  };
  let before: Token | undefined;
  for (const token of norm.tokens) {
    // "Theo Novak 79's email": a number right after the words of a name is part of it.
    const numbered =
      run.length > 0 && /^\d+$/.test(token.raw) && !taken.some(([a, b]) => token.start < b && token.end > a);
    if (!numbered && known(token, taken)) {
      flush(before);
      // "for the Backend engineer role": the preposition before an article still counts.
      if (!(DETERMINERS.has(token.word) && before && PREPOSITIONS.has(before.word))) before = token;
      continue;
    }
    run.push(token);
    if (token.possessive) {
      flush(before);
      before = token;
    }
  }
  flush(before);
  return spans.sort((a, b) => b.text.length - a.text.length).slice(0, 4);
}

/** How near a record's name is to what was written, 0 (unrelated) to 1 (the same). */
function nearness(written: string, name: string): number {
  const a = fold(written);
  const b = fold(name);
  if (a === b) return 1;
  const words = b.split(/[\s—-]+/).filter(Boolean);
  if (words.includes(a)) return 0.95;
  if (b.includes(a)) return 0.9;
  const whole = 1 - editDistance(a, b) / Math.max(a.length, b.length);
  const word = Math.max(0, ...words.map((w) => 1 - editDistance(a, w) / Math.max(a.length, w.length)));
  return Math.max(whole, word * 0.85);
}

async function lookUp(
  ctx: PlanContext,
  resource: ResourceName,
  span: NameSpan,
): Promise<GetResult | undefined> {
  try {
    return await ctx.read<GetResult>("get_record", { resource, name: span.text });
  } catch (error) {
    if (isAppError(error) && (error.code === "not_found" || error.code === "validation_failed"))
      return undefined;
    throw error;
  }
}

/**
 * The record the message names, in whichever of `resources` it fits best ("Sofia Schmidt" is a
 * candidate, not the contact "Mia Schmidt" two letters away); on a tie, the earlier resource.
 * With `optional`, a resource the caller may not read is skipped instead of refusing the question.
 */
export async function resolveName(
  ctx: PlanContext,
  resources: readonly ResourceName[],
  options: { spans?: NameSpan[]; optional?: boolean } = {},
): Promise<Resolved | undefined> {
  const spans = options.spans ?? nameSpans(ctx);
  if (spans.length === 0) return undefined;
  const found = await bestIn(ctx, resources, spans, options.optional === true);
  if (found || spans.every((span) => !span.text.includes(" "))) return found;
  // "python developers", "speak German": a name with a word around it; each word alone.
  return bestIn(ctx, resources, wordsOf(spans), options.optional === true);
}

function wordsOf(spans: readonly NameSpan[]): NameSpan[] {
  const words = spans.flatMap((span) =>
    [...span.text.matchAll(/[\p{L}\p{N}][\p{L}\p{N}.+#'-]*/gu)]
      .filter((match) => match[0].length >= 3)
      .map((match) => ({
        ...span,
        text: match[0],
        start: span.start + match.index,
        end: span.start + match.index + match[0].length,
      })),
  );
  return words.sort((a, b) => b.text.length - a.text.length).slice(0, 4);
}

async function bestIn(
  ctx: PlanContext,
  resources: readonly ResourceName[],
  spans: NameSpan[],
  optional: boolean,
): Promise<Resolved | undefined> {
  let best: (Resolved & { near: number }) | undefined;
  const refusals: Refusal[] = [];
  for (const resource of resources) {
    try {
      const found = await resolveIn(ctx, resource, spans);
      if (found && (!best || found.near > best.near)) best = found;
      if (best?.exact) break;
    } catch (error) {
      if (!(error instanceof Refusal) || !optional) throw error;
      refusals.push(error);
    }
  }
  // Nowhere to look at all: that is the answer, not "no such name".
  if (!best && refusals.length === resources.length) {
    throw new Refusal([...new Set(refusals.flatMap((refusal) => refusal.engines))], "read");
  }
  if (!best) return undefined;
  const { near: _near, ...resolved } = best;
  return resolved;
}

async function resolveIn(
  ctx: PlanContext,
  resource: ResourceName,
  spans: NameSpan[],
): Promise<(Resolved & { near: number }) | undefined> {
  const field = NAME_FIELD[resource];
  const votes = new Map<
    string,
    { record: Record<string, unknown>; hits: number; near: number; span: NameSpan }
  >();
  for (const span of spans) {
    const result = await lookUp(ctx, resource, span);
    if (!result) continue;
    for (const record of [result.record, ...(result.others ?? [])]) {
      const id = String(record.id);
      const near = nearness(span.text, str(record[field]));
      const vote = votes.get(id) ?? { record, hits: 0, near: 0, span };
      vote.hits += 1;
      if (near > vote.near) [vote.near, vote.span] = [near, span];
      votes.set(id, vote);
    }
  }
  const ranked = [...votes.values()].sort((a, b) => b.hits - a.hits || b.near - a.near);
  const best = ranked[0];
  if (!best) return undefined;
  const others = ranked.slice(1).filter((vote) => vote.hits === best.hits && vote.near >= best.near - 0.05);
  return {
    resource,
    record: best.record,
    others: others.map((vote) => vote.record),
    span: best.span,
    exact: best.near === 1,
    near: best.near,
  };
}

/**
 * Words that carry the news around a command said in passing ("they signed today — move it to
 * won", "not a fit, reject her", "passed the first call, put him in screening"): never a name
 * there, so "Amara Iyer passed" is looked up as "Amara Iyer".
 */
const NEWS_WORDS = new Set(
  `signed sign signing passed pass failed accepted accept agreed declined nailed aced bombed smashed
  great good bad fine excellent strong weak fit match impressed impressive loved liked enjoyed
  interviewed went did done got received recieved recived wired transferred sent paid pays collected
  came finally already just really also still again yesterday today tonight earlier new number
  changed moved joined became become married left quit heard told said says wants wanted met
  think thinks seems looks sure well perfect awesome nice cool unfortunately sadly happy excited
  ready keen interested news update updated record withdrew withdrawn application contract demo
  references test take-home round went gone wants wanted yes`.split(/\s+/),
);

/** The name runs of a message that gives a command in passing: `nameSpans` without the news words. */
export function passingSpans(ctx: PlanContext, extra: Array<[number, number]> = []): NameSpan[] {
  const news = ctx.analysis.norm.tokens
    .filter((token) => NEWS_WORDS.has(token.word) || NEWS_WORDS.has(token.stem))
    .map((token): [number, number] => [token.start, token.end]);
  return nameSpans(ctx, [...extra, ...news]);
}

/**
 * The words written are the record's name, or its words with a letter off in a longer one
 * ("Amara Iyer", "Kestrel", "Okafr"): not a stray word of the news that a lookup stretched to fit.
 */
export function namedOutright(resolved: Resolved): boolean {
  const name = fold(str(resolved.record[NAME_FIELD[resolved.resource]]));
  const written = fold(resolved.span.text);
  const words = name.split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  return written
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length >= 2)
    .every((word) =>
      words.some((other) => other === word || (word.length >= 4 && editDistance(word, other) <= 1)),
    );
}
