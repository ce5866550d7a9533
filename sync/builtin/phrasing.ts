/**
 * The ways of speaking every question shares, rewritten to the one form the readers know: a bound after
 * its number ("9600 or bigger" is "at least 9600"), a range ("anywhere from 5k up to 10k incl"), a
 * leaving-out ("leave out the dollar ones" is "excluding dollar"), months in a row ("jan feb mar" is "jan
 * to mar"), "em", "narrow to", "break down … by", asides ("small fry", "i mean"). Each belongs to the
 * language, not to one question: it serves every resource and field. `normalize.ts` runs it after the
 * contractions are expanded and before typos are corrected; the readers never see the owners' variants.
 */

/** A number as owners type it: "9600", "2,500", "$300", "€5k", "1.5k", "300 eur". */
const FIGURE = String.raw`[$€£]?\d[\d,.]*(?:\s?k)?(?:\s?(?:eur|usd|gbp|euros?|dollars?|bucks|quid))?`;

/**
 * Owners' ways of saying a bound, an exclusion or "them", rewritten to the one form the readers know:
 * "9600 or bigger" is "at least 9600", "leave out the dollar ones" is "excluding the dollar ones".
 * They belong to the language, not to one question: each serves every resource and field.
 */
const OPERATORS: ReadonlyArray<[RegExp, string]> = [
  // ", calls emails whatever all counts": every kind of conversation, which they already are.
  [
    /,?\s*\b(?:calls?|e-?mails?|meetings?|texts?)(?:[\s,/&]+(?:and\s+)?(?:calls?|e-?mails?|meetings?|texts?))*\s+(?:whatever|anything)(?:\s+all\s+counts?)?\b/gi,
    "",
  ],
  // "calls/emails/meetings": every kind of conversation.
  [
    /\b(?:calls?|e-?mails?|meetings?|texts?)(?:\s*\/\s*(?:calls?|e-?mails?|meetings?|texts?))+\b/gi,
    "communications",
  ],
  [/\bconvos?\b/gi, "conversations"],
  // "(calls emails meetings whatever)": a clarifier of the conversations already asked about.
  [/\(\s*(?:like\s+)?(?:calls?|e-?mails?|meetings?|texts?)[^)]*\)/gi, ""],
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
  [/\b(excluding|except|besides)\s+([\p{L}-]+)\s+ones?\b/giu, "$1 $2"],
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
    /\bskills\s+(?:that\s+)?(?:people|ppl|candidates|applicants|they|folks)\s+(?:list|listed|claim|claimed|have|put\s+down)\b/gi,
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
  [/,?\s*\b(?:still\s+)?hanging(?:\s+around)?\b|\bsmall\s+fry\b/gi, ""],
  // "median not mean", "the balance, not the full amount": the first reading, the other ruled out.
  [
    /\b(median|average|mean|balance|owed|outstanding|total|amount|count),?\s+not\s+(?:the\s+)?(?:median|average|mean|balance|owed|outstanding|full\s+(?:amount|amt|total)|whole\s+(?:amount|amt)|face\s+value|total|amount|amt|count)\b/gi,
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
  // "top 3 by how much is still owed": an order, not a question of how much.
  [
    /\bby\s+how\s+much\s+(?:(?:is|was|is\s+being|they|we\s+are|we're)\s+)?(?:still\s+)?(?:(?:owed|outstanding|left|remaining|unpaid)(?:\s+on\s+(?:them|it|each))?|(?:they|he|she)\s+(?:still\s+)?owes?)\b/gi,
    "by amount owed",
  ],
  [
    /\bby\s+how\s+(?:much|big|large)\s+(?:they|it|each\s+one)\s+(?:are|is|was|were)(?:\s+worth)?\b/gi,
    "by amount",
  ],
  // "which 3 owe us the most" after a list of invoices: the three with the most still owed.
  [
    /\bwhich\s+(\d{1,2}|one|two|three|four|five)\s+(?:still\s+)?owe\s+(?:us\s+)?(?:the\s+)?most\b/gi,
    "top $1 by amount owed",
  ],
  // "the priority-tagged ones", "vip tagged contacts": tagged with it.
  [
    /\b([\p{L}\d]+)(?:-tagged\b|\s+tagged(?=\s+(?:ones|contacts|people|folks|clients|customers)\b))/giu,
    "tagged $1",
  ],
  // Openers and remarks that ask nothing: "hey quick one,", "feels thin", "prob not worth chasing".
  [/\b(?:hey\s+|ok\s+|so\s+)?quick\s+(?:one|q|question)\b\s*[,:-]?/gi, ""],
  [/,?\s*\b(?:feels|seems|looks)\s+(?:thin|light|low|high|off|weird|odd)\b/gi, ""],
  [/\s+-\s+(?:prob(?:ably)?|maybe|likely)\s+(?:not\s+)?worth\s+[\p{L}\s]+(?=[?.!]*\s*$)/giu, ""],
  [/\bgimme\b/gi, "give me"],
  // "the balance left", "1k left on them", "still have more than 1k left": what is owed.
  [/\b(balance|amount|money)\s+(?:left|remaining)\b/gi, "$1"],
  [
    /\b(?:still\s+)?(?:have|has|with)\s+((?:more|less)\s+than\s+|over\s+|under\s+|at\s+least\s+)([$€£]?\d[\d,.]*\s?k?)\s+(?:left|remaining|outstanding)(?:\s+to\s+(?:pay|collect))?(?:\s+(?:on|against)\s+(?:them|it|each))?\b/gi,
    "owing $1$2",
  ],
  // "has been sittin there the longest": the oldest.
  [
    /\b(?:has|have)\s+been\s+(?:sitt?in'?g?|waiting|stuck|hanging\s+around|dragging\s+on)\s+(?:there\s+|around\s+|open\s+|unpaid\s+)?(?:the\s+)?longest\b/gi,
    "is the oldest",
  ],
  // "sitting at proposal", "stuck in qualified": in that stage.
  [/\b(?:sitt?in'?g?|stuck|parked)\s+(?:at|in)\s+(?:the\s+)?/gi, "in "],
  // "paid or unpaid doesnt matter", "won or lost, whatever": either.
  [
    /,?\s*\b[\p{L}-]+(?:\s+or|\s*[,/])?\s+[\p{L}-]+\s*,?\s*(?:(?:it\s+)?(?:does\s+not|doesnt)\s+matter|whatever|either\s+way|both)\b/giu,
    "",
  ],
  // "what's come in against inv 9": the payments on it.
  [
    /\b(?:what|how\s+much|anything)\s+(?:is\s+|has\s+|have\s+we\s+)?(?:come|came|got|gotten|received)\s+in\s+(?:against|on|for|towards?)\s+(?=inv|invoice|bill|#|no\b|number)/gi,
    "payments on ",
  ],
  // "(not counting drafts)": excluding them.
  [/\bnot\s+counting\s+(?:the\s+)?(?:([\p{L}-]+)\s+ones?\b)?/giu, "excluding $1"],
  // "the biggest single payment": one payment, as every record is.
  [/\b(biggest|largest|smallest|highest|lowest)\s+single\b/gi, "$1"],
  // "payments that landed this week": received.
  [/\b(?:that\s+)?(?:landed|hit\s+the\s+(?:bank|account))\b/gi, "received"],
  // "jan/feb/mar separately", "broken out": a row each, which "each month" already says.
  [/\s*,?\s*\b(?:separately|individually|broken\s+out)\b/gi, ""],
  // "ie them contacting us": a restatement of what was just said.
  [/\s*,?\s*\b(?:ie|i\.e\.)\s+[^?.!]*/gi, ""],
  // "deals we ended up losing": lost.
  [/\b(?:ended\s+up|end\s+up|wound\s+up)\s+losing\b/gi, "lost"],
  [/\b(?:ended\s+up|wound\s+up)\s+winning\b/gi, "won"],
  [/\b(?:ended\s+up|wound\s+up)\s+(hiring|rejecting)\b/gi, "$1"],
  [/\b(?:we\s+)?(?:ended\s+up|wound\s+up)\s+voiding\b/gi, "voided"],
  // "on their profile", "on file": where a candidate's details are kept, said of every one.
  [/\s*\bon\s+(?:their|there|his|her|the)\s+profiles?\b/gi, ""],
  // "our biggest client by total billed": the client billed the most.
  [
    /\b(?:who\s+is|whos|who's|which\s+is)?\s*(?:our\s+)?(?:biggest|top|largest|best)\s+(?:client|customer)\s+by\s+(?:total\s+)?(?:billed|billing|invoiced|invoicing)\b/gi,
    "which client have we billed the most",
  ],
  [/\bw\/o\b/gi, "without"],
  [/\bwithout\s+(?:a\s+)?single\b/gi, "without any"],
  // "didn't give us a phone number": without one.
  [
    /\b(?:did\s+not|have\s+not|has\s+not)\s+(?:give|given|provide|provided|leave|left|share|shared)\s+(?:us\s+)?(?:a|an|their|his|her)\s+(phone(?:\s+number)?|email(?:\s+address)?)/gi,
    "without a $1",
  ],
  // "have not had a single cent paid on them": nothing paid yet.
  [
    /\b(?:have|has)\s+not\s+(?:had|got|gotten|received)\s+(?:a\s+single|one|any)\s+(?:cent|penny|dime)\s+(?:paid|received)(?:\s+(?:on|against)\s+(?:them|it))?/gi,
    "with nothing paid",
  ],
  // "neither leads nor customers": not either.
  [/\bneither\s+([\p{L}-]+)\s+nor\s+/giu, "not $1 or "],
  // "candidates who aren't going for backend engineer": not that position.
  [/\bnot\s+(?:going|applying|applied|gunning|in\s+the\s+running)\s+for\s+(?:the\s+|a\s+)?/gi, "not "],
  // "meant to close": expected to.
  [/\b(?:meant|planned|projected|forecasted)\s+to\s+close\b/gi, "expected to close"],
  // Chat noises and remarks that ask nothing: "obvs", "lol", "smh", "ugh", "can't remember", "feel bad for them".
  [/\s*,?\s*\b(?:obvs|lol|lmao|smh|ugh|tbh|basically|actually)\b/gi, ""],
  [/\s*,?\s*\b(?:i\s+)?(?:can\s+not|cannot|cant)\s+remember\b/gi, ""],
  [/\s*,?\s*\b(?:atm|rn|right\s+now|at\s+the\s+moment)\b/gi, ""],
  [/\s*,?\s*\b(?:i\s+)?feel\s+bad\s+for\s+(?:them|him|her)\b/gi, ""],
  [/\s*,?\s*\b(?:i\s+)?(?:do\s+not|dont)\s+want\s+(?:anyone|anybody|them)\s+going\s+cold\b/gi, ""],
  [/\s*,?\s*\b(?:i\s+)?just\s+(?:want|need)\s+the\s+(?:number|count|figure|amounts?|totals?)\b/gi, ""],
  [/\bpayed\b/gi, "paid"],
  // "drafts voids everything", "every status": no status left out.
  [
    /\b(?:drafts?\s*,?\s*(?:and\s+)?voids?|voids?\s*,?\s*(?:and\s+)?drafts?)\s*,?\s*(?:and\s+)?(?:everything|all|the\s+lot)\b/gi,
    "of every status",
  ],
  // "don't count the voided one", "do not include drafts": excluding them.
  [/\b(?:do\s+not|dont|don't)\s+(?:count|include)\s+(?:the\s+|any\s+)?/gi, "excluding "],
  // "not paid on time": paid late.
  [/\b(?:(?:were|was|are|is)\s+)?not\s+paid\s+on\s+time\b/gi, "paid late"],
  // "bank transfers we got": payments by bank transfer.
  [
    /^(?!.*\bpayments?\b)(?!.*\b(?:excluding|except|other\s+than|besides|not|without)\s+(?:the\s+)?bank\s+transfers)(.*?)\bbank\s+transfers\b/gi,
    "$1payments by bank transfer",
  ],
  // "somewhere between 1k and 5k", "sometime in april": the range or the period itself.
  [/\b(?:somewhere|sometime|some\s+time|anywhere)\s+(?=between\b|in\b|around\b|from\b|during\b)/gi, ""],
  // "(what's left, not the full amt)": what is owed, which the words before already say.
  [
    /\(\s*(?:what\s+is|whats|what's)\s+left\s*,?\s*not\s+the\s+(?:full|whole)\s+(?:amount|amt|total)\s*\)/gi,
    "",
  ],
  [/\bbalances\b/gi, "balance"],
  // "the most days past due": the most overdue.
  [/\bmost\s+days\s+(?:past\s+due|overdue|late)\b/gi, "most overdue"],
  // "the invoices people still owe us on": unpaid.
  [
    /\b(?:that\s+)?(?:people|ppl|they|clients|customers)\s+still\s+owe\s+(?:us\s+)?(?:on|money\s+on)\b/gi,
    "unpaid",
  ],
  // "on avg how big are the invoices": their average amount.
  [
    /(?<=\b(?:avg|average|mean|on\s+avg|typical(?:ly)?)\b.*?)\bhow\s+(?:big|large)\s+(?:are|is|were|was)\s+/gi,
    "amount of ",
  ],
  // "paid some but not the whole thing", "partial payers": partly paid.
  [
    /\b(?:have|has|they\s+have)?\s*paid\s+some\s+(?:of\s+it\s+)?but\s+not\s+(?:(?:the\s+)?whole\s+(?:thing|amount|lot)|all(?:\s+of\s+it)?|in\s+full)\b/gi,
    " partly paid",
  ],
  // "invoices that haven't been sent out yet", "drafts we haven't sent": never issued.
  [
    /\b(?:have|has)\s+not\s+(?:yet\s+)?(?:gone\s+out|been\s+sent(?:\s+out)?|been\s+issued)(?:\s+yet)?/gi,
    "are draft",
  ],
  [
    /(?<=\bdrafts?\b.*?)\s*\b(?:that\s+)?we\s+(?:have\s+not|never)\s+(?:sent|issued)(?:\s+out)?(?:\s+yet)?/gi,
    "",
  ],
  [/\s*,?\s*\bpartial\s+payers\b/gi, ""],
  // "didn't make the cut": rejected.
  [/\b(?:did\s+not|didnt)\s+make\s+(?:the|it\s+past\s+the)\s+cut\b/gi, "were rejected"],
  // "doesn't matter what stage they're in": every stage.
  [
    /\s*,?\s*\b(?:it\s+)?(?:(?:does\s+not|doesnt)\s+matter|(?:i\s+)?(?:do\s+not|dont)\s+care)\s+(?:what|which)\s+(?:stage|status)(?:\s+(?:they\s+are|it\s+is|theyre)\s+(?:in|at))?\b/gi,
    "",
  ],
  // "hires so far this year", "did we hire anybody": hired candidates.
  [/\b(?:new\s+)?hires\b/gi, "hired candidates"],
  [
    /\b(?:did|have)\s+we\s+hired?\s+(?:anybody|anyone|someone|somebody|any\s+(?:one|candidates?|applicants?))\b/gi,
    "hired candidates",
  ],
  // "open deals that aren't just leads": not leads.
  [/\b((?:are|is|were|was)\s+)not\s+just\s+(?:the\s+)?/gi, "$1not "],
  // "meetings held last week", "calls that happened": the meetings.
  [/\b(meetings?|calls?)\s+(?:(?:that|which)\s+)?(?:held|had|happened|took\s+place)\b/gi, "$1"],
  // "total balance still owed": what is owed.
  [/\btotal\s+balance\b/gi, "total"],
  // "how often has ravi messaged us": how many times.
  // ("how often do clients pay late" is a share: aggregates.ts.)
  [/\bhow\s+often\b(?!.*\b(?:pay|pays|paid|paying|win|won|lose|lost|convert)\b)/gi, "how many times"],
  [/\bmessaged\s+us\b/gi, "sent us messages"],
  // "which of them did they partly pay": the partly paid ones.
  [
    /\b(?:did|have|has)\s+(?:they|we|he|she|it)\s+(?:partly|partially|part)\s+pa(?:y|id)\b/gi,
    "are partly paid",
  ],
  // "hit their due date", "reached the due date": due.
  [/\b(?:hit|hits|reach|reaches|reached)\s+(?:their|its|the)\s+due\s+dates?\b/gi, "due"],
  // "blew past their expected close date", "overran their close date": expected to close before today.
  [
    /\b(?:that\s+)?(?:blew|blown|went|gone|slipped|are|is)\s+past\s+(?:their|its|the)\s+(?:expected\s+)?close\s+dates?\b/gi,
    "expected to close before today",
  ],
  // "now only counting the paid ones": only the paid ones.
  [/\b(?:only\s+)?counting\s+(?:only\s+)?(?=the\b)/gi, "only "],
  // "advanced lvl or higher", "rated below advanced": a level bound.
  [/\blvl\b/gi, "level"],
  [
    /\b(?:rated|ranked)\s+(?:at\s+|as\s+)?(?=(?:below|under|above|over|lower|higher|less|more|better|worse|beginner|intermediate|advanced|expert)\b)/gi,
    "",
  ],
  // "— who from and how much" after a record asked for: its details, which its line shows.
  [
    /\s+-\s+(?:(?:who|whom)\s+(?:from|by)|from\s+whom?|how\s+much)(?:\s+and\s+(?:(?:who|whom)\s+(?:from|by)|from\s+whom?|how\s+much))?\s*[?.!]*$/gi,
    "",
  ],
  // "how much is left on it": what is owed.
  [
    /\bhow\s+much\s+(?:is\s+)?(?:still\s+)?(?:left|remaining)(?:\s+(?:to\s+pay\s+)?(?:on|against)\s+(?:it|them|that|those)\b|(?=\s*(?:[?.!,]|$)))/gi,
    "how much is owed",
  ],
  // "anything unpaid sitting between 6k and 10k": unpaid, between them.
  [/\bsitt?in'?g?\s+(?=between\b|over\b|under\b|above\b|below\b|at\s+(?:least|most)\b)/gi, ""],
  // A remark after the question: "? trying to figure out who to ring this arvo".
  [
    /\?\s*(?:i\s+am\s+|im\s+)?(?:trying|want|need|wanting)\s+to\s+(?:figure\s+out|work\s+out|decide|see|know|plan)\b[^?]*$/gi,
    "?",
  ],
  // "contacts we've been in touch with 5+ times": with that many conversations.
  [
    /\b(?:(?:we|we\s+have)\s+)?(?:been\s+in\s+touch\s+with|talked\s+to|spoken\s+(?:to|with)|contacted|had\s+contact\s+with)\s+((?:at\s+least|more\s+than|over|fewer\s+than|less\s+than|under)\s+\d{1,3})\s+times\b/gi,
    "with $1 communications",
  ],
  // "(the number of them not the $)", "by count not $": counted, not added up.
  [
    /\(\s*(?:the\s+)?(?:number|count|#)(?:\s+of\s+(?:them|invoices|deals))?\s*,?\s*not\s+(?:the\s+)?(?:\$|amount|money|value|total)\s*\)/gi,
    "",
  ],
  [/,?\s*\bby\s+(?:count|number)\s*,?\s*not\s+(?:the\s+)?(?:\$|amount|money|value|total)/gi, ""],
  // Remarks: "might just write em off honestly", "who's dragging their feet", "like them contacting us".
  [
    /\s*,?\s*\b(?:might|may|gonna|going\s+to|should)\s+(?:just\s+)?write\s+(?:them|em|it)\s+off\b(?:\s+honestly)?/gi,
    "",
  ],
  [/\s*,?\s*\b(?:who\s+is|whos|who's)\s+dragging\s+(?:their|his|her)\s+feet\b/gi, ""],
  [/\s*,?\s*\blike\s+them\s+(?:contacting|reaching(?:\s+out\s+to)?|emailing|calling|texting)\s+us\b/gi, ""],
  // "how much do people owe us altogether": in total.
  [/(?<=\bowed?\b.*?)\b(?:altogether|all\s+together)\b/gi, "in total"],
  // "how much do people owe us": what is owed.
  [
    /\bhow\s+much\s+(?:do|does)\s+(?:people|ppl|clients|customers|they|everyone|everybody)\s+owe(?:\s+us)?\b/gi,
    "how much is owed",
  ],
  // "jan and feb combined": one window.
  [
    new RegExp(
      String.raw`\b(${"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?"})\s+(?:and|&|\+)\s+(${"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?"})\s+(?:combined|together|put\s+together)\b`,
      "gi",
    ),
    "$1 to $2",
  ],
  // "deals that didn't go our way": lost; "went our way": won.
  [/\b(?:did\s+not|didnt)\s+go\s+our\s+way\b/gi, "were lost"],
  [/\bwent\s+our\s+way\b/gi, "were won"],
  // "candidates we passed on": rejected.
  [/\b(?:we\s+)?passed\s+on\b/gi, "rejected"],
  // "anyone in contacts": the contacts.
  [/\b(?:anyone|anybody|everyone)\s+in\s+(?:our\s+|the\s+)?contacts\b/gi, "contacts"],
  // "part paid but not fully": partly paid.
  [
    /\b(partly|partially|part)([- ]?)paid\s+but\s+not\s+(?:fully|in\s+full|all|completely)(?:\s+paid)?\b/gi,
    "$1$2paid",
  ],
  // "should've closed by now but haven't": expected to close before today.
  [
    /\b(?:that\s+)?(?:should\s+have|shouldve|should've|were\s+supposed\s+to\s+have|were\s+meant\s+to\s+have)\s+closed(?:\s+by\s+now)?(?:\s+but\s+(?:have\s+not|havent|did\s+not|didnt))?\b/gi,
    "expected to close before today",
  ],
  // "who's late paying us": the overdue invoices.
  [
    /\b(?:who\s+is|whos|who's|who\s+are)\s+late\s+(?:paying|with\s+(?:their\s+)?payments?)(?:\s+us)?\b/gi,
    "overdue invoices",
  ],
  // "which one costs the most": the most expensive.
  [/\bcosts?\s+the\s+most\b/gi, "is the most expensive"],
  [/\bcosts?\s+the\s+least\b/gi, "is the cheapest"],
  // "which 3 have been overdue the longest": the most overdue.
  [
    /\b(?:have|has)\s+been\s+(?:overdue|late|outstanding|unpaid)\s+(?:the\s+)?longest\b/gi,
    "are the most overdue",
  ],
  // ", which ones": the list, which every question of records shows.
  [/\s*,?\s*(?:-\s*)?\bwhich\s+ones\s*\??\s*$/gi, ""],
  // "skip the voided ones", "skipping drafts": excluding them.
  [/\bskip(?:ping)?\s+(?:the\s+|any\s+)?([\p{L}-]+)(?:\s+ones?)?\b/giu, "excluding $1"],
  // "who've we been in contact with": in touch.
  [/\bin\s+contact\s+with\b/gi, "in touch with"],
  // "how much is riverbend still into us for": what they owe.
  [/\bhow\s+much\s+is\s+(.+?)\s+(?:still\s+)?into\s+us\s+for\b/gi, "how much does $1 still owe us"],
  // "- what are they worth all together": their total value.
  [
    /\s*-?\s*\bwhat\s+(?:are|is)\s+(?:they|it|those|that|these)\s+worth(?:\s+(?:all\s+together|altogether|in\s+total|combined|together))?\s*\??\s*$/gi,
    " total value",
  ],
  // "all the open deals added up": in total.
  [/\b(?:added|summed|totted)\s+up\b/gi, "in total"],
  [/\bvalu\b/gi, "value"],
  [/\bactualy\b/gi, ""],
  // Remarks after a comma: "trying to plan april", "like nothing inbound from them ever", "not even part of it".
  [
    /,\s*(?:i\s+am\s+|im\s+)?trying\s+to\s+(?:plan|figure\s+out|work\s+out|sort\s+out|get\s+ahead\s+of)\b[^?]*$/gi,
    "",
  ],
  [/,\s*like\s+nothing\s+[^?]*$/gi, ""],
  [/,?\s*\bnot\s+even\s+(?:part|some|a\s+bit)\s+of\s+it\b/gi, ""],
  // "applicants we said no to": rejected.
  [/\b(?:we\s+)?(?:said|say)\s+no\s+to\b/gi, "rejected"],
  // "haven't paid a single thing": nothing paid.
  [
    /\b(?:have|has)\s+not\s+paid\s+(?:a\s+single\s+(?:thing|cent|penny)|anything)(?:\s+(?:on|of)\s+(?:them|it))?/gi,
    "with nothing paid",
  ],
  // "what invoices have we sent juniper health": its invoices.
  [
    /\b(invoices|invs|bills)\s+(?:have|did)\s+we\s+(?:sent|send|issued|issue|billed|raised)\s+(?:to\s+)?/gi,
    "$1 for ",
  ],
  // "have we invoiced the most": billed.
  [/\binvoiced\s+the\s+most\b/gi, "billed the most"],
  // A remark after the question: "? thinking of sending a few stern emails today".
  [
    /\?\s*(?:i\s+am\s+|im\s+|i'm\s+|we\s+are\s+|were\s+)?(?:thinking|planning|going|gonna|want|wanting|need|trying|might|hoping)\b[^?]*$/gi,
    "?",
  ],
  // "… or was it all this month", "… or is it all new people": the other way it could be, not a second question.
  [/\s+or\s+(?:was|is|are|were)\s+(?:it|they)\s+all\s+[^?]*/gi, ""],
  // "by card vs by bank transfer": each method's own.
  [
    /\b(?:by\s+)?(card|cash|cheque|check|bank\s+transfer|direct\s+debit|wire)s?\s+(?:vs\.?|versus|compared\s+(?:to|with))\s+(?:by\s+)?(card|cash|cheque|check|bank\s+transfer|direct\s+debit|wire)s?\b/gi,
    "by $1 or $2 per method",
  ],
  // "what does that come to": their total.
  [/\bwhat\s+(?:does|do)\s+(?:that|it|this|they|those)\s+come\s+to\b/gi, "how much do they add up to"],
  [/\bshld\b/gi, "should"],
  // "close by apr 10 at the latest": the bound itself, not the latest one.
  [/\s*,?\s*\bat\s+the\s+(?:latest|earliest)\b/gi, ""],
  // "the grand total people owe us": what is owed.
  [
    /(?<=\b(?:total|much|sum|amount)\s+)(?:people|ppl|clients|customers|everyone|they)\s+(?:still\s+)?owe(?:\s+us)?\b/gi,
    "owed",
  ],
  [/\b(?:supposed|meant|due|going|set)\s+to\s+land\b/gi, "expected to close"],
  [/\bgrand\s+total\b/gi, "total"],
  // "total money in year to date": what came in (not "the money in overdue invoices").
  [
    /\bmoney\s+in\b(?=\s*(?:[?.!]*$|this\b|last\b|year\b|ytd\b|so\s+far\b|since\b|today\b|yesterday\b))/gi,
    "payments received",
  ],
  [/\bflagged\s+(?:as\s+)?/gi, "tagged "],
  [/,?\s*(?:all\s+of\s+them\s+)?incl(?:uding|\.)?\s+the\s+(?:dead|lost|closed|old)\s+ones\b/gi, ""],
  // "on or before apr 10", "no later than the 10th": up to that day, itself included.
  [
    /\b(?:on\s+or\s+before|no\s+later\s+than|not\s+later\s+than)\s+(?=(?:the\s+)?\d|(?:the\s+)?[a-z]{3})/gi,
    "by ",
  ],
  [
    /\b(?:on\s+or\s+after|no\s+earlier\s+than|not\s+before)\s+(?=(?:the\s+)?\d|(?:the\s+)?[a-z]{3})/gi,
    "since ",
  ],
  // "from today on", "from now onwards": what is still to come, which "next" already says.
  [
    /(?<=\b(?:next|soonest|upcoming|coming|first)\b.*?)\s*\b(?:from|starting)\s+(?:today|now)(?:\s+(?:on|onwards?|forward))?\b/gi,
    "",
  ],
  // "the next deal to close", "next open deal expected to close": the one closing soonest.
  [
    /\bnext\s+((?:open\s+)?(?:deals?|opps?|opportunit(?:y|ies)))\s+(?:(?:that|which)\s+is\s+|thats\s+)?(?:(?:expected|set|due|going|slated|scheduled|supposed)\s+)?to\s+close\b/gi,
    "$1 expected to close soonest",
  ],
  // "added to the crm", "entered into the system": made.
  [
    /\b(?:(?:did|have)\s+we\s+|we\s+)?(?:add|added|enter|entered|put|log|logged|created)\s+(?:to|in|into|on)\s+(?:the|our)\s+(?:crm|system|database|db|books|pipeline)\b/gi,
    "created",
  ],
  // "if you count drafts too", "drafts included": every invoice, the drafts among them.
  [
    /\b(?:if\s+(?:you|u|we)\s+count|counting|including|incl\.?|with)\s+(?:the\s+)?drafts?(?:\s+(?:too|as\s+well|also))?\b|\bdrafts?\s+(?:included|too|as\s+well)\b/gi,
    "of every status",
  ],
  // "this months invoices", "last weeks deals": the period's, apostrophe left out.
  [/\b(this|last|next)\s+(week|month|quarter|year)s\b(?=\s+\p{L})/giu, "$1 $2's"],
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

/** `text` with the shared ways of speaking rewritten (see the file's comment). */
export function sharedPhrasing(message: string): string {
  let text = message;
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
  return text;
}
