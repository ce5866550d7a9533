/**
 * A message made comparable: typographic quotes straightened, contractions expanded, polite
 * filler dropped ("could you please", "I'd like to know"), then cut into tokens that keep their
 * place in the text. Case is kept in `text` (names and emails are written as given) and folded in
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

/** A number as owners type it: "9600", "2,500", "$300", "€5k", "1.5k", "300 eur". */
const FIGURE = String.raw`[$€£]?\d[\d,.]*(?:\s?k)?(?:\s?(?:eur|usd|gbp|euros?|dollars?|bucks|quid))?`;

/**
 * Owners' ways of saying a bound, an exclusion or "them", rewritten to the one form the readers know:
 * "9600 or bigger" is "at least 9600", "leave out the dollar ones" is "excluding the dollar ones".
 * They belong to the language, not to one question: each serves every resource and field.
 */
const OPERATORS: ReadonlyArray<[RegExp, string]> = [
  // The number itself included: "9600 or bigger", "5k or more", "7+ units", "2,500 and up".
  [
    new RegExp(
      String.raw`(${FIGURE})\s+(?:or|and)\s+(?:more|bigger|higher|greater|larger|above|over|up|upwards|upward)\b`,
      "gi",
    ),
    "at least $1",
  ],
  [new RegExp(String.raw`(?<![\w.])(${FIGURE})\+(?!\w)`, "gi"), "at least $1"],
  [
    new RegExp(
      String.raw`(${FIGURE})\s+(?:or|and)\s+(?:less|fewer|lower|smaller|below|under|down|downwards|cheaper)\b`,
      "gi",
    ),
    "at most $1",
  ],
  // "anywhere from 5k up to 10k incl", "from 500 to 1,000": both ends included.
  [
    new RegExp(
      String.raw`\b(?:anywhere\s+)?(?:from\s+)(${FIGURE})\s+(?:up\s+)?(?:to|until|till|through|-)\s+(${FIGURE})(?:\s*,?\s*(?:including|inclusive|incl\b\.?|included))?`,
      "gi",
    ),
    "between $1 and $2",
  ],
  // Left out: "leave out the dollar ones", "leave helios out", "drafts and voids aside", "minus the voided ones".
  [/\b(?:leave|leaving|leaves|keep|keeping)\s+out\b/gi, "excluding"],
  [
    /\b(?:leave|leaving|keep|keeping)\s+((?:the\s+)?[\p{L}\d-]+(?:\s+[\p{L}\d-]+)?)\s+out\b/giu,
    "excluding $1",
  ],
  [/\b(?:put|set|putting|setting)\s+aside\b/gi, "excluding"],
  [/\b([\p{L}-]+(?:\s+(?:and|n|or|&)\s+[\p{L}-]+)?)\s+aside\b/giu, "excluding $1"],
  [/\bminus\s+(?=the\b|any\b|all\b)/gi, "excluding "],
  // What stands between an exclusion and what it excludes: "except the ones we turned down" is "except
  // turned down", "excluding the dollar ones" is "excluding dollar".
  [
    /\b(excluding|except(?:\s+for)?|other\s+than|besides|apart\s+from|but\s+not)\s+(?:the\s+|any\s+|all\s+)?(?:ones?\s+)?(?:(?:that|which|who)\s+(?:are|were|is|was|have\s+been|got|we)\s+|(?:we|they)\s+(?:have\s+)?)?/gi,
    "$1 ",
  ],
  [/\b(excluding|except|besides)\s+([\p{L}-]+)\s+ones\b/giu, "$1 $2"],
  // Narrowing the list before: "narrow to qualified", "filter it down to card payments", "limit to usd".
  [
    /\b(?:narrow|filter|limit|restrict|cut|trim|pare)(?:\s+(?:it|that|this|them|those|these|the list))?(?:\s+down)?\s+(?:to|by)\b/gi,
    "only",
  ],
  // "break down payments by method": the grouping ("by …") says it.
  // "break it down by method" splits the list before.
  [/\b(?:break|breaking|broke)\s+(it|that|them|those|these|this)\s+(?:down|out)\b/gi, "split $1"],
  [/\b(?:break|breaking|broke)\s+(?:down|out)\b\s*/gi, ""],
  // "signed off", "checked off", "vetted": a skill verified.
  [/\b(?:signed|checked)\s+off(?:\s+on)?\b|\bvetted\b/gi, "verified"],
  // "client interactions", "customer touchpoints": the conversations with them.
  [/\b(?:client|customer|contact)\s+(interactions?|touchpoints?|conversations?|communications?)\b/gi, "$1"],
  // "candidates who don't have typescript", "that do not list postgres": without it.
  [/\b(?:do|does|did)\s+not\s+(?:have|list)\s+(?:any\s+)?/gi, "without "],
  // "doesn't matter if won or not", "no matter what status", "regardless of stage": every status.
  [
    /\b(?:(?:it\s+)?(?:does\s+not|doesnt)\s+matter\s+(?:if|whether)\s+(?:it\s+is\s+|they\s+are\s+|it\s+was\s+)?[\p{L}-]+(?:\s+or\s+not)?|no\s+matter\s+(?:what|which)\s+(?:status|stage)(?:\s+(?:they|it)\s+(?:are|is|were|was)\s+in)?(?:\s+now)?|regardless\s+of\s+(?:the\s+)?(?:status|stage)|whatever\s+(?:the\s+)?(?:status|stage)|(?:any|every|all)\s+(?:status|stage)(?:es|s)?)\b/giu,
    "",
  ],
  // Comparisons said as prices: "cheaper than 1000", "pricier than 500".
  [/\b(?:cheaper|less\s+expensive|lower\s+priced)\s+than\b/gi, "under"],
  [/\b(?:pricier|dearer|more\s+expensive|higher\s+priced)\s+than\b/gi, "over"],
  // "worth the most", "the most valuable": the biggest; "worth the least": the smallest.
  [/\b(?:is|are)?\s*worth\s+the\s+most\b|\bthe\s+most\s+valuable\b|\bhighest[- ]value\b/gi, " the biggest"],
  [/\b(?:is|are)?\s*worth\s+the\s+least\b|\bthe\s+least\s+valuable\b|\blowest[- ]value\b/gi, " the smallest"],
  // "due the furthest out": the latest due.
  [/\b(?:is\s+)?due\s+(?:the\s+)?(?:furthest|farthest)(?:\s+out)?\b/gi, "with the latest due date"],
  // "month by month", "each month": per month.
  [/\b(?:month|week|quarter|year)\s+by\s+(month|week|quarter|year)\b/gi, "per $1"],
  [/\b(?:each|every)\s+(month|week|quarter|year)\b(?!\s+(?:of|in)\b)/gi, "per $1"],
  // "on the hook for": owes.
  [/\b(?:is|are)?\s*(?:still\s+)?on\s+the\s+hook\s+for\b/gi, " still owe"],
  // Asides with no bearing on the question: "the small stuff basically", "in the system", "i mean".
  [
    /\b(?:in|on)\s+(?:the|our)\s+(?:system|books|records)\b|\b(?:on\s+file|on\s+record)\b(?=\s*[?.!]?\s*$)|\bi\s+mean\b|\b(?:the\s+)?small\s+stuff\b/gi,
    "",
  ],
  [/\bppl\b/gi, "people"],
  [/\b(?:the\s+|our\s+)?price\s*list\b/gi, "products"],
  // "turned down for jobs", "hired for roles": the jobs are the candidates'.
  [
    /\b(turn(?:ed)?\s+down|reject(?:ed)?|hired?)\s+for\s+(?:the\s+)?(?:jobs?|roles?|positions?|openings?)\b/gi,
    "$1",
  ],
  // "have not had a single payment", "never got one payment": none.
  [
    /\b(?:have|has|had)\s+not\s+(?:had|got|gotten|received)\s+(?:a\s+single|any|one)\s+(?!(?:cent|penny|dime|thing)\b)/gi,
    "with no ",
  ],
  // "sitting in our pipeline the longest": the oldest.
  [
    /\b(?:has|have)\s+been\s+(?:sitting|waiting|stuck|hanging\s+around|around)\s+(?:in\s+(?:our|the)\s+pipeline\s+)?(?:the\s+)?longest\b/gi,
    "is the oldest",
  ],
  // "the skills people list", "skills candidates claim": the skills.
  [
    /\bskills\s+(?:that\s+)?(?:people|ppl|candidates|applicants|they|folks)\s+(?:list|claim|have|put\s+down)\b/gi,
    "skills",
  ],
  // "calls, emails etc": every kind of conversation.
  [
    /\b(?:calls?|e-?mails?|meetings?|texts?)(?:(?:\s*(?:,|and|&|\/)\s*|\s+)(?:calls?|e-?mails?|meetings?|texts?))+\s*,?\s*(?:etc\.?|and\s+so\s+on|and\s+stuff|and\s+whatnot)/gi,
    "communications",
  ],
  // "(the candidate)", "(the contact)": a clarifier the names already carry.
  [/\(\s*the\s+(?:candidate|candiate|applicant|contact|client|customer)\s*\)/gi, ""],
  // "still hanging around", "small fry": what is still there, said with a shrug.
  [/\b(?:still\s+)?hanging\s+around\b|\bsmall\s+fry\b/gi, ""],
  // "median not mean", "the balance, not the full amount": the first reading, the other ruled out.
  [
    /\b(median|average|mean|balance|owed|outstanding|total|amount|count),?\s+not\s+(?:the\s+)?(?:median|average|mean|balance|owed|outstanding|full\s+(?:amount|amt|total)|whole\s+(?:amount|amt)|total|amount|amt|count)\b/gi,
    "$1",
  ],
  // "candidate skills": the skills.
  [/\b(?:candidate|applicant)s?'?\s+skills\b/gi, "skills"],
  // "how many people applied": candidates.
  [
    /\b(?:people|ppl|folks|persons)\s+(?:who\s+|that\s+)?(?:have\s+)?(applied|apply|applying)\b/gi,
    "candidates $1",
  ],
  // "candidates with nothing verified": no verified skills.
  [/\b(?:have|has|with)\s+nothing\s+verified\b/gi, "with no verified skills"],
  // "invoices where we haven't received a single cent": no payment on them (a client who never paid is a
  // question about clients, not read here).
  [
    /(?<=\b(?:invoices?|invs?|bills?)\b.*)\b(?:not|never)\s+(?:yet\s+)?(?:received|got|gotten|been\s+paid|paid(?:\s+us)?)\s+(?:a\s+(?:single\s+)?(?:cent|penny|dime|thing)|anything|a\s+thing)\b/gi,
    "with no payments",
  ],
  // "by the end of this quarter": within it.
  [/\b(?:by|before|until|till)\s+(?:the\s+)?end\s+of\s+(?:this|the)\s+(month|quarter|year)\b/gi, "this $1"],
  // "across everything in the crm", "in our database": every record, which a question asks anyway.
  [
    /\b(?:across|of|over)\s+(?:everything|all\s+of\s+them|the\s+lot)\b|\b(?:in|on)\s+(?:the|our)\s+(?:crm|database|db)\b/gi,
    "",
  ],
  // "like emails calls everything": every kind of conversation.
  [
    /\b(?:like\s+)?(?:calls?|e-?mails?|meetings?|texts?)(?:(?:\s*(?:,|and|&|\/)\s*|\s+)(?:calls?|e-?mails?|meetings?|texts?))*(?:\s*,?\s*(?:and\s+)?)(?:everything|anything|all\s+of\s+it|whatever)\b/gi,
    "communications",
  ],
  // "em" is "them": "open invoices with 1k left on em", "did we hire any of em".
  [/(?<=\s)em\b/gi, "them"],
  // "payment-wise", "contacts wise": the noun is the resource.
  [/\b([\p{L}]{3,})[- ]wise\b/giu, "$1"],
  // "since new year", "since the new year's": this year so far.
  [/\bsince\s+(?:the\s+)?new\s+year(?:'?s)?(?:\s+day)?\b/gi, "this year so far"],
];

const MONTH_WORD =
  "jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?";
const MONTH_RUN = new RegExp(
  `\\b(?:${MONTH_WORD})(?:(?:\\s*,\\s*|\\s+|\\s*,?\\s*(?:and|&|\\/)\\s*)(?:${MONTH_WORD})\\b){2,}`,
  "gi",
);

/** "jan feb mar", "jan, feb and mar": three months or more in a row are one window, "jan to mar". */
function monthRuns(text: string): string {
  return text.replace(MONTH_RUN, (run) => {
    const months = run.match(new RegExp(`\\b(?:${MONTH_WORD})\\b`, "gi"))!;
    const index = months.map((month) => MONTH_ORDER.indexOf(month.slice(0, 3).toLowerCase()));
    const consecutive = index.every((month, i) => i === 0 || month === index[i - 1]! + 1);
    return consecutive ? `${months[0]} to ${months[months.length - 1]}` : run;
  });
}

const MONTH_ORDER = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

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
  for (const [pattern, replacement] of OPERATORS) text = text.replace(pattern, replacement);
  // "on avg how much is owed per unpaid invoice": with an average, "per invoice" is what it is over.
  if (/\b(?:avg|average|mean|typical(?:ly)?)\b/i.test(text))
    text = text.replace(
      /\bper\s+((?:[\p{L}-]+\s+)?(?:invoices?|deals?|payments?|candidates?|contacts?|products?|skills?))\b(?!\s+(?:stage|status|type|method|source|month|week|quarter|year|client|customer|contact|company|level|channel|currency|position|role|name)s?\b)/giu,
      "$1",
    );
  // "per month so far this year, per month" (from "each month … month by month"): said once.
  text = text.replace(/\b(per (month|week|quarter|year))\b(.*?)[\s,]*\bper \2\b/gi, "$1$3");
  text = monthRuns(text);
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
