import type { Rule } from "./rule.ts";
import { FINANCE_RULES } from "./rules-finance.ts";
import { GROWTH_RULES } from "./rules-growth.ts";
import { TALENT_RULES } from "./rules-talent.ts";

/** Every rule of every engine, and the words their cues name. */

export const RULES: readonly Rule[] = [...FINANCE_RULES, ...GROWTH_RULES, ...TALENT_RULES];

/** Every word a cue names: the typo pass corrects towards them, and they are never names. */
export const CUE_WORDS: ReadonlySet<string> = new Set(
  RULES.flatMap((rule) => [...Object.keys(rule.cues), ...rule.needs.flat()])
    .filter((cue) => !/^[@~]/.test(cue))
    .flatMap((cue) => cue.replace(/^=/, "").split(" ")),
);
