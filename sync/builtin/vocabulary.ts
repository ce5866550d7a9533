import type { InvoiceStatus } from "../../engines/finance/invoices.ts";
import type { CommunicationChannel, CommunicationDirection } from "./types.ts";
import type { CandidateStatus } from "../../engines/talent/candidates.ts";
import type { DealStage } from "../../engines/growth/deals.ts";

/**
 * The words an owner uses for the data's statuses, stages and currencies, each mapped to the
 * values the REST API filters take. Phrases are lowercase and matched on word boundaries,
 * longest first, so "not paid" is found before "paid" and "closed won" before "won".
 */

export type LifecycleStage = "lead" | "prospect" | "customer" | "churned";

export const INVOICE_STATUS_WORDS: ReadonlyArray<[string, readonly InvoiceStatus[]]> = [
  ["not yet paid", ["open", "overdue"]],
  ["not paid", ["open", "overdue"]],
  ["unpaid", ["open", "overdue"]],
  ["outstanding", ["open", "overdue"]],
  ["unsettled", ["open", "overdue"]],
  ["past due", ["overdue"]],
  ["past-due", ["overdue"]],
  ["overdue", ["overdue"]],
  ["late", ["overdue"]],
  ["delinquent", ["overdue"]],
  ["open", ["open"]],
  ["fully paid", ["paid"]],
  ["paid", ["paid"]],
  ["settled", ["paid"]],
  ["cleared", ["paid"]],
  ["draft", ["draft"]],
  ["drafts", ["draft"]],
  ["unsent", ["draft"]],
  ["voided", ["void"]],
  ["void", ["void"]],
  ["voids", ["void"]],
  ["cancelled", ["void"]],
  ["canceled", ["void"]],
];

export const DEAL_STAGE_WORDS: ReadonlyArray<[string, readonly DealStage[]]> = [
  ["closed won", ["won"]],
  ["closed-won", ["won"]],
  ["closed lost", ["lost"]],
  ["closed-lost", ["lost"]],
  ["won", ["won"]],
  ["wins", ["won"]],
  ["win", ["won"]],
  ["lost", ["lost"]],
  ["losses", ["lost"]],
  ["lose", ["lost"]],
  ["dead", ["lost"]],
  // Closed is either way it ended: "deals we closed in feb".
  ["closed", ["won", "lost"]],
  ["no longer active", ["won", "lost"]],
  ["no longer open", ["won", "lost"]],
  ["proposal", ["proposal"]],
  ["proposals", ["proposal"]],
  ["quoted", ["proposal"]],
  ["qualified", ["qualified"]],
  ["leads", ["lead"]],
  ["lead", ["lead"]],
  ["open", ["lead", "qualified", "proposal"]],
  ["active", ["lead", "qualified", "proposal"]],
  ["in progress", ["lead", "qualified", "proposal"]],
  ["still alive", ["lead", "qualified", "proposal"]],
  ["alive", ["lead", "qualified", "proposal"]],
  ["live", ["lead", "qualified", "proposal"]],
];

export const LIFECYCLE_WORDS: ReadonlyArray<[string, readonly LifecycleStage[]]> = [
  ["former customers", ["churned"]],
  ["ex-customers", ["churned"]],
  ["churned", ["churned"]],
  ["churn", ["churned"]],
  ["leads", ["lead"]],
  ["lead", ["lead"]],
  ["prospects", ["prospect"]],
  ["prospect", ["prospect"]],
  ["customers", ["customer"]],
  ["customer", ["customer"]],
];

export const CANDIDATE_STATUS_WORDS: ReadonlyArray<[string, readonly CandidateStatus[]]> = [
  ["phone screen", ["screening"]],
  ["screening", ["screening"]],
  ["screened", ["screening"]],
  ["screen", ["screening"]],
  ["shortlisted", ["screening"]],
  ["interviewing", ["interview"]],
  ["interviews", ["interview"]],
  ["interview", ["interview"]],
  ["offers", ["offer"]],
  ["offered", ["offer"]],
  ["offer", ["offer"]],
  ["onboarded", ["hired"]],
  ["onboarding", ["hired"]],
  ["hired", ["hired"]],
  ["hire", ["hired"]],
  ["hires", ["hired"]],
  ["employed", ["hired"]],
  ["joined", ["hired"]],
  ["turned down", ["rejected"]],
  ["rejected", ["rejected"]],
  ["reject", ["rejected"]],
  ["rejections", ["rejected"]],
  ["declined", ["rejected"]],
  ["new applicants", ["applied"]],
  ["applied", ["applied"]],
  ["in progress", ["applied", "screening", "interview", "offer"]],
  ["active", ["applied", "screening", "interview", "offer"]],
];

export const SKILL_STATUS_WORDS: ReadonlyArray<[string, "verified" | "claimed"]> = [
  ["unverified", "claimed"],
  ["not verified", "claimed"],
  ["self-reported", "claimed"],
  ["claimed", "claimed"],
  ["verified", "verified"],
  ["validated", "verified"],
  ["confirmed", "verified"],
];

export const CHANNEL_WORDS: ReadonlyArray<[string, CommunicationChannel]> = [
  ["phone calls", "call"],
  ["calls", "call"],
  ["call", "call"],
  ["emails", "email"],
  ["e-mails", "email"],
  ["meetings", "meeting"],
  ["meeting", "meeting"],
  ["text messages", "sms"],
  ["texts", "sms"],
  ["sms", "sms"],
];

export const DIRECTION_WORDS: ReadonlyArray<[string, CommunicationDirection]> = [
  ["inbound", "inbound"],
  ["incoming", "inbound"],
  ["outbound", "outbound"],
  ["outgoing", "outbound"],
];

/** Currency words and symbols → ISO 4217 (codes themselves are matched as three letters). */
export const CURRENCY_WORDS: Readonly<Record<string, string>> = {
  "€": "EUR",
  euro: "EUR",
  euros: "EUR",
  $: "USD",
  dollar: "USD",
  dollars: "USD",
  bucks: "USD",
  "£": "GBP",
  pound: "GBP",
  pounds: "GBP",
  sterling: "GBP",
  quid: "GBP",
  "¥": "JPY",
  yen: "JPY",
  franc: "CHF",
  francs: "CHF",
};

/** ISO codes recognised as a currency even without an amount ("invoices in USD"). */
export const CURRENCY_CODES = [
  "EUR",
  "USD",
  "GBP",
  "CHF",
  "JPY",
  "CAD",
  "AUD",
  "NZD",
  "SEK",
  "NOK",
  "DKK",
  "PLN",
  "CZK",
  "INR",
  "BRL",
  "MXN",
  "ZAR",
  "SGD",
  "HKD",
  "CNY",
] as const;

/** Every word of the tables above: never a name, never "corrected" into another word. */
export const VOCABULARY_WORDS: ReadonlySet<string> = new Set(
  [
    INVOICE_STATUS_WORDS,
    DEAL_STAGE_WORDS,
    LIFECYCLE_WORDS,
    CANDIDATE_STATUS_WORDS,
    SKILL_STATUS_WORDS,
    CHANNEL_WORDS,
    DIRECTION_WORDS,
  ].flatMap((table) => table.flatMap(([phrase]) => phrase.split(/[\s-]+/))),
);

/** Finds every phrase of `table` in `lower` (word-bounded), longest first, each span once. */
export function findPhrases<V>(
  lower: string,
  table: ReadonlyArray<readonly [string, V]>,
): Array<{ phrase: string; value: V; start: number; end: number }> {
  const taken: Array<[number, number]> = [];
  const found: Array<{ phrase: string; value: V; start: number; end: number }> = [];
  const sorted = [...table].sort((a, b) => b[0].length - a[0].length);
  for (const [phrase, value] of sorted) {
    const pattern = new RegExp(`(?<![\\p{L}\\p{N}-])${escapeRegExp(phrase)}(?![\\p{L}\\p{N}-])`, "gu");
    for (const match of lower.matchAll(pattern)) {
      const start = match.index;
      const end = start + phrase.length;
      if (taken.some(([a, b]) => start < b && end > a)) continue;
      taken.push([start, end]);
      found.push({ phrase, value, start, end });
    }
  }
  return found.sort((a, b) => a.start - b.start);
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
