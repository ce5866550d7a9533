import type { Analysis } from "./analysis.ts";
import { RULES } from "./cues.ts";
import type { ReadIntent } from "./rule.ts";

/**
 * Which question a message asks, scored rather than matched: each intent lists the cues that
 * point to it with a weight, and gates it on at least one cue of each `needs` group. Cues are
 * word stems ("invoice" matches "invoices"), phrases of stems ("past due"), raw words ("=emails",
 * the plural only), phrases of the message as written ("~what can you do", before filler was
 * dropped) and features of the analysis ("@invoice_ref", "@ahead", "@count"). Word order does
 * not matter, synonyms add up, and a cue that points elsewhere weighs negative.
 */

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
