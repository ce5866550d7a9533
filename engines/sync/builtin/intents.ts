import type { Analysis } from "./analysis.ts";
import { FINANCE_RULES } from "./rules-finance.ts";
import { GROWTH_RULES } from "./rules-growth.ts";
import { TALENT_RULES } from "./rules-talent.ts";

/**
 * Which question a message asks, scored rather than matched: each intent lists the cues that
 * point to it with a weight, and gates it on at least one cue of each `needs` group. Cues are
 * word stems ("invoice" matches "invoices"), phrases of stems ("past due"), raw words ("=emails",
 * the plural only), phrases of the message as written ("~what can you do", before filler was
 * dropped) and features of the analysis ("@invoice_ref", "@ahead", "@count"). Word order does
 * not matter, synonyms add up, and a cue that points elsewhere weighs negative.
 */

export const READ_INTENTS = [
  "overdue",
  "due_soon",
  "outstanding",
  "revenue",
  "invoices",
  "invoice_detail",
  "top_clients",
  "contact_detail",
  "contacts",
  "pipeline",
  "deals",
  "communications",
  "candidates",
  "candidate_detail",
  "skills_verified",
  "skills",
  "snapshot",
  "search",
  "products",
  "payments",
  "help",
] as const;
export type ReadIntent = (typeof READ_INTENTS)[number];

export interface Rule {
  intent: ReadIntent;
  /** Every group must have a cue present. */
  needs: readonly (readonly string[])[];
  cues: Readonly<Record<string, number>>;
}

const RULES: readonly Rule[] = [...FINANCE_RULES, ...GROWTH_RULES, ...TALENT_RULES];

/** Every word a cue names: the typo pass corrects towards them, and they are never names. */
export const CUE_WORDS: ReadonlySet<string> = new Set(
  RULES.flatMap((rule) => [...Object.keys(rule.cues), ...rule.needs.flat()])
    .filter((cue) => !/^[@~]/.test(cue))
    .flatMap((cue) => cue.replace(/^=/, "").split(" ")),
);

export function hasCue(analysis: Analysis, cue: string): boolean {
  if (cue.startsWith("@")) return analysis.features.has(cue);
  if (cue.startsWith("=")) return analysis.words.has(cue.slice(1));
  if (cue.startsWith("~")) return ` ${analysis.originalWords} `.includes(` ${cue.slice(1)} `);
  if (cue.includes(" ")) {
    return analysis.stemText.includes(` ${cue} `) || analysis.wordText.includes(` ${cue} `);
  }
  return analysis.stems.has(cue) || analysis.words.has(cue);
}

export interface Scored {
  intent: ReadIntent;
  score: number;
}

/** Intents whose gates hold, best first; a weak match (under 2.5) is no match. */
export function classify(analysis: Analysis): Scored[] {
  const scored: Scored[] = [];
  for (const rule of RULES) {
    if (!rule.needs.every((group) => group.some((cue) => hasCue(analysis, cue)))) continue;
    let score = 0;
    for (const [cue, weight] of Object.entries(rule.cues)) if (hasCue(analysis, cue)) score += weight;
    if (score >= 2.5) scored.push({ intent: rule.intent, score });
  }
  return scored.sort((a, b) => b.score - a.score);
}
