import { sharedPhrasing } from "./phrasing.ts";

/**
 * A message made comparable: typographic quotes straightened, contractions expanded, the ways of
 * speaking every question shares put in one form (phrasing.ts), polite filler dropped ("could you
 * please", "I'd like to know"), then cut into tokens that keep their place in the text. Case is kept in `text` (names and emails are written as given) and folded in
 * `lower`, which has the same length, so an offset found in one is valid in the other.
 */

export interface Token {
  /** As written, a possessive "'s" removed: "Ava's" → "Ava". */
  raw: string;
  /** Lowercase, accents removed. */
  word: string;
  /** `word` in the singular: "invoices" → "invoice", "companies" → "company". */
  stem: string;
  /** Written with a possessive "'s". */
  possessive: boolean;
  start: number;
  end: number;
}

export interface Normalized {
  /** What the user wrote. */
  original: string;
  /** Cleaned, filler removed, case kept. */
  text: string;
  /** `text` in lowercase, offset for offset. */
  lower: string;
  tokens: Token[];
  /** Asked as a question ("is…", "how many…", or ending in "?"). */
  question: boolean;
}

const CONTRACTIONS: ReadonlyArray<[RegExp, string]> = [
  [/\bwon['’]t\b/gi, "will not"],
  [/\bcan['’]t\b/gi, "cannot"],
  [/\bshan['’]t\b/gi, "shall not"],
  [/\b(\w+)n['’]t\b/gi, "$1 not"],
  [/\blet['’]s\b/gi, "let us"],
  [/\b(it|that|what|who|where|when|how|there|here|which)['’]s\b/gi, "$1 is"],
  [/\b(\w+)['’]re\b/gi, "$1 are"],
  [/\b(\w+)['’]ve\b/gi, "$1 have"],
  [/\b(\w+)['’]ll\b/gi, "$1 will"],
  [/\b(i|you|we|they|he|she|it)['’]d\b/gi, "$1 would"],
  [/\bi['’]m\b/gi, "i am"],
  // The apostrophe left out: "arent", "didnt", "dont" (not "wont": a word of its own too).
  [/\b(are|is|was|were|do|does|did|have|has|had|could|should|would)nt\b/gi, "$1 not"],
  [/\bcant\b/gi, "cannot"],
  // Texting shorthand: "btwn", "thru", "w liam", "leads n prospects", "comms".
  [/\b(?:btwn|betwn|betw|b\/w)\b/gi, "between"],
  [/\bthru\b/gi, "through"],
  [/\bw\/o\b/gi, "without"],
  [/\bw\/(?=\s|\w)/gi, "with "],
  [/(?<=\s)w(?=\s+\w)/gi, "with"],
  [/(?<=\s)n(?=\s+\w)/gi, "and"],
  [/\bcomms\b/gi, "communications"],
  [/\b(add|sum|total)\s+em\b/gi, "$1 them"],
  [/\b(\w+)-stage\b/gi, "$1 stage"],
  [/(?<=\s)r(?=\s+\w)/gi, "are"],
  [/\bpmts?\b/gi, "payments"],
  [/\blvl\b/gi, "level"],
  // "invs", "inv" (not "inv 30", an invoice's number): invoices.
  [/\binvs\b/gi, "invoices"],
  [/\binv\b(?!\s*[-#.]?\s*\d)/gi, "invoice"],
  [/\bmtgs\b/gi, "meetings"],
  [/\bmtg\b/gi, "meeting"],
  [/\bincl\b\.?/gi, "including"],
  [/\b(they|you)re\b/gi, "$1 are"],
  [/\b(we|they|you)ve\b/gi, "$1 have"],
  [/\bive\b(?=\s+(?:got|been|had|sent|seen|paid|done|never))/gi, "i have"],
  [/\bopps\b/gi, "opportunities"],
  [/\bopp\b/gi, "opportunity"],
  [/\bwks?\b/gi, "week"],
  // Owners' shorthand for amounts: "median payment amt", "a grand", "a million".
  [/\bamts?\b/gi, "amount"],
  [/\b(?:a|one) (?:grand|thousand)\b(?!\s+total)/gi, "1000"],
  [/\bhalf a million\b/gi, "500000"],
  [/\b(?:a|one) million\b/gi, "1000000"],
  // "from the 10th to the 20th of jan" → "from jan 10 to jan 20": the month said once is both's.
  [
    /\b(from|between)\s+(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)?\s+(to|and|until|till|through)\s+(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)?\s+of\s+(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b/gi,
    "$1 $5 $2 $3 $5 $4",
  ],
  // "feb 1st to 14th" → "from feb 1 to feb 14": the month said once is both's.
  [
    /\b(?:from\s+|between\s+)?(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\s+(\d{1,2})(?:st|nd|rd|th)?\s*(?:to|-|–|until|till|through)\s*(\d{1,2})(?:st|nd|rd|th)?\b(?!\s*(?:st|nd|rd|th)?\s*(?:of\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec))/gi,
    "from $1 $2 to $1 $3",
  ],
  // "is invoice 23 paid or not": the question is whether it is.
  [/\b(paid|overdue|open|verified|won|lost|hired|active|due)\s+or\s+not\b/gi, "$1"],
  // "the 1st of april" → "april 1"; "since the start of the month" → "this month so far".
  [
    /\b(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)?\s+of\s+(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b/gi,
    "$2 $1",
  ],
  [
    /\b(?:since|from)\s+the\s+(?:start|beginning)\s+of\s+(?:the\s+|this\s+)?(month|quarter|year)\b/gi,
    "this $1 so far",
  ],
  // The apostrophe left out: "whats the average", "whos next".
  [/\b(what|who|where|how|that)s\b(?=\s)/gi, "$1 is"],
  // Owners' abbreviations of time words: "last mnth", "this qtr", "2 wks".
  [/\b(?:mnth|mth)(s?)\b/gi, "month$1"],
  [/\bwk(s?)\b/gi, "week$1"],
  [/\byr(s?)\b/gi, "year$1"],
  [/\bqtr(s?)\b/gi, "quarter$1"],
  // "non-draft", "non-customer": the negation as a word of its own.
  [/\bnon-(?=\p{L})/giu, "non "],
];

/** Requests for a read phrased with a verb that could start a change ("make me a list of…"). */
const REWRITES: ReadonlyArray<[RegExp, string]> = [
  [
    /\b(?:make|give|get|prepare|send|build) me (?:a |an |the )?(list|summary|rundown|breakdown|overview|report)\b/gi,
    "$1",
  ],
  [/\b(?:send|email|text|mail) me\b/gi, "show me"],
];

/**
 * Filler, longest first: it carries no meaning for the question. "Tell me about X" keeps its
 * "about", which says X is what the question is on.
 */
const FILLER: readonly RegExp[] = [
  /\bwhat (?:can|could) you tell me about\b/gi,
  /\b(?:hey|hi|hello|yo|ok(?:ay)?|alright|so|right)\s*(?:there\s*)?(?:sync)?\s*[,!:]\s*/gi,
  /\b(?:could|can|would|will) you (?:please )?(?:kindly )?(?:tell me|let me know|give me|show me|find out|check)\b/gi,
  /\b(?:could|can|would|will) you\b/gi,
  /\b(?:i would|i'd|we would) like (?:you )?to (?:know|see|find out)\b/gi,
  /\b(?:i|we) (?:want|need|wish|would like|would love|am trying|are trying) (?:you )?to (?:know|see|find out|check)\b/gi,
  /\b(?:i|we) (?:want|need|wish|would like|would love|have) (?:you )?to\b/gi,
  /\b(?:let us|go ahead and|help me|please go ahead and)\b/gi,
  /\b(?:do you know|i wonder|i was wondering|any idea|quick question|real quick|if you can|if possible)\b/gi,
  /\b(?:let me know|tell me|show me|give me|get me|pull up|bring up)\b/gi,
  /\b(?:please|pls|plz|kindly|thanks|thank you|cheers)\b/gi,
  /\b(?:for me|right now|at the moment|currently|for now|as of today|as of now)\b/gi,
  // "Across the board", "all told": every record, which a question without a filter asks anyway.
  /\b(?:across the board|all told|all in all)\b/gi,
  // Chat asides: "quick q", "rn" (right now), "actually", "basically".
  /\b(?:quick q(?:uestion)?|rn|actually|basically|honestly)\b[:,]?/gi,
];

const QUESTION_START =
  /^(?:what|which|who|whom|whose|how|when|where|why|is|are|was|were|do|does|did|has|have|had|can|could|should|shall|will|would|any|about)\b/i;

/** Tokens: words, numbers, invoice numbers, emails, ISO dates; inner - . @ _ + ' kept. */
const TOKEN = /[\p{L}\p{N}](?:[\p{L}\p{N}]|[-.@_+'’&](?=[\p{L}\p{N}]))*/gu;

/**
 * The words a question turns on, which owners mistype ("invocies", "paymnet", "canidate"): a word
 * of five letters or more that is one edit (a letter added, dropped, changed, or two swapped) from
 * exactly one of them, and is no word of its own, is read as that word. Names are not touched: a
 * key word is never one edit from a word the planner knows.
 */
const KEY_WORDS = [
  "invoices",
  "invoice",
  "payments",
  "payment",
  "candidates",
  "candidate",
  "contacts",
  "communications",
  "products",
  "product",
  "skills",
  "overdue",
  "average",
  "median",
  "between",
  "percent",
  "percentage",
  "verified",
  "received",
  "outstanding",
  "customers",
  "applicants",
  "expected",
  "quarter",
  "largest",
  "biggest",
  "smallest",
  "highest",
  "lowest",
  "revenue",
  "pipeline",
  "catalogue",
];
const KEY_SET = new Set(KEY_WORDS);
/** Real words one edit from a key word: never corrected ("contract" is not "contact"). */
const REAL_WORDS = new Set([
  "contact",
  "contract",
  "contracts",
  "communication",
  "applicant",
  "customer",
  "skill",
  "produce",
  "products",
  "averages",
  "medians",
  "quarters",
  "receive",
  "receives",
  "percents",
  "invoiced",
]);

function corrected(word: string): string {
  const lower = word.toLowerCase();
  if (KEY_SET.has(lower) || REAL_WORDS.has(lower)) return word;
  let found: string | undefined;
  for (const key of KEY_WORDS) {
    if (Math.abs(key.length - lower.length) > 1 || !oneEdit(lower, key)) continue;
    if (found) return word;
    found = key;
  }
  return found ?? word;
}

/** Whether `a` becomes `b` by one insertion, deletion, substitution or swap of two neighbours. */
function oneEdit(a: string, b: string): boolean {
  if (a === b) return false;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  if (a.length === b.length) {
    if (a.slice(i + 1) === b.slice(i + 1)) return true;
    return a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
  }
  return a.length > b.length ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}

export function normalize(message: string): Normalized {
  let text = message
    .normalize("NFKC")
    .replace(/[‘’`´]/g, "'")
    .replace(/[“”«»„]/g, '"')
    .replace(/[–—]/g, " - ")
    .replace(/\s+/g, " ")
    .trim();
  for (const [pattern, replacement] of CONTRACTIONS) text = text.replace(pattern, replacement);
  text = sharedPhrasing(text);
  text = text.replace(/\p{L}{5,}/gu, corrected);
  const asked = /\?\s*$/.test(text);
  for (const [pattern, replacement] of REWRITES) text = text.replace(pattern, replacement);
  for (const pattern of FILLER) text = text.replace(pattern, " ");
  text = text
    .replace(/\s+([,.?!;:])/g, "$1")
    .replace(/^[\s,.;:!-]+/, "")
    .replace(/\s+/g, " ")
    .trim();
  const lower = lowerSameLength(text);
  const question = asked || QUESTION_START.test(text);
  return { original: message, text, lower, tokens: tokenize(text), question };
}

export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  for (const match of text.matchAll(TOKEN)) {
    const raw = match[0].replace(/'s$|'$/i, "");
    if (!raw) continue;
    const word = fold(raw);
    const possessive = raw.length < match[0].length;
    tokens.push({
      raw,
      word,
      stem: stem(word),
      possessive,
      start: match.index,
      end: match.index + raw.length,
    });
  }
  return tokens;
}

/** Lowercase without changing the length (a few letters lowercase to two code units). */
export function lowerSameLength(text: string): string {
  let out = "";
  for (const char of text) {
    const lowered = char.toLowerCase();
    out += lowered.length === char.length ? lowered : char;
  }
  return out;
}

/** Lowercase, accents removed: "García" → "garcia". */
export function fold(word: string): string {
  return word.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
}

const IRREGULAR: Readonly<Record<string, string>> = {
  people: "person",
  men: "man",
  women: "woman",
  children: "child",
  analytics: "analytics",
  logistics: "logistics",
  status: "status",
  business: "business",
  news: "news",
  sales: "sales",
  series: "series",
  this: "this",
  is: "is",
  was: "was",
  has: "has",
  does: "does",
  us: "us",
  always: "always",
  plus: "plus",
  bonus: "bonus",
  focus: "focus",
  address: "address",
  process: "process",
  kpis: "kpi",
};

/** A plural to its singular, by the common English endings; other words unchanged. */
export function stem(word: string): string {
  const irregular = IRREGULAR[word];
  if (irregular) return irregular;
  if (word.length <= 3 || /\d/.test(word)) return word;
  if (word.endsWith("ies") && word.length > 4) return `${word.slice(0, -3)}y`;
  if (/(?:ss|sh|ch|x|z)es$/.test(word)) return word.slice(0, -2);
  if (word.endsWith("ss") || word.endsWith("us") || word.endsWith("is")) return word;
  if (word.endsWith("s")) return word.slice(0, -1);
  return word;
}
