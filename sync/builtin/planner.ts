import { isAppError } from "../../core/errors.ts";
import type { HistoryTurn, PlanOutcome, Planner, PlannerTurn } from "../planner.ts";
import { analyze, slotsOf, type Analysis } from "./analysis.ts";
import { createContext, Refusal, type Engine, type PlanContext } from "./context.ts";
import { asksAgain, followUp, mergedSlots, withoutEarlier } from "./follow-ups.ts";
import { candidates } from "./handlers/candidates.ts";
import { communications } from "./handlers/communications.ts";
import { contacts } from "./handlers/contacts.ts";
import { candidateDetail, contactDetail } from "./handlers/people.ts";
import { deals, pipeline } from "./handlers/deals.ts";
import { invoiceDetail, invoices, topClients } from "./handlers/invoices.ts";
import { dueSoon, outstanding, overdue } from "./handlers/invoices-due.ts";
import { products, search, snapshot } from "./handlers/overview.ts";
import { payments, revenue } from "./handlers/payments.ts";
import { lookup } from "./handlers/records.ts";
import { skills, skillsVerified } from "./handlers/skills.ts";
import { unaccounted } from "./accounting.ts";
import { help } from "./help.ts";
import { structuredAnswer } from "./query/index.ts";
import { classify } from "./intents.ts";
import { READ_INTENTS, type ReadIntent } from "./rule.ts";
import { MemorySchema, type Answer, type Memory } from "./types.ts";
import { detectWrite, runWrite, type WriteKind } from "./writes.ts";

/**
 * The built-in planner: no model, deterministic, English. A message is analysed once
 * (analysis.ts), a change is recognised first and only ever proposed (writes.ts), then a
 * follow-up on the last reply (follow-ups.ts), then the best-scoring question (intents.ts),
 * then a bare name; what is left gets the help text, never a guess.
 *
 * @example
 *   const planner = createBuiltinPlanner();
 *   const outcome = await planner.plan(turn); // { reply: "**7 overdue invoices**…", memory: {…} }
 */
export function createBuiltinPlanner(): Planner {
  return { kind: "builtin", plan };
}

type ReadHandler = (ctx: PlanContext) => Promise<Answer | null>;

const READ_HANDLERS: Record<ReadIntent, ReadHandler> = {
  overdue,
  due_soon: dueSoon,
  outstanding,
  revenue,
  invoices,
  invoice_detail: invoiceDetail,
  top_clients: topClients,
  contact_detail: contactDetail,
  contacts,
  pipeline,
  deals,
  communications,
  candidates,
  candidate_detail: candidateDetail,
  skills_verified: skillsVerified,
  skills,
  snapshot,
  search,
  products,
  payments,
  help: async (ctx) => help(ctx),
};

/** The asked-back write a short reply completes ("Which invoice?" → "INV-000030"). */
const ASKED: Record<string, WriteKind> = {
  mark_invoice_paid: "mark_paid",
  void_invoice: "void",
  record_payment: "record_payment",
  move_deal: "move_deal",
  set_candidate_status: "candidate_status",
  verify_skill: "verify_skill",
  create_record: "create",
  update_record: "update",
};

async function plan(turn: PlannerTurn): Promise<PlanOutcome> {
  const analysis = analyze(turn.message, turn.today);
  const memory = lastMemory(turn.history);
  const ctx = createContext(turn, analysis, slotsOf(analysis), memory);
  let answer: Answer;
  try {
    answer = await route(ctx);
  } catch (error) {
    answer = explain(error);
  }
  turn.emit(answer.reply);
  return {
    reply: answer.reply,
    ...(answer.failed ? { failed: true } : {}),
    // A reply that failed did not answer the question (a refusal for want of scope did understand it).
    ...(answer.understood === false || (answer.failed && !answer.refused) ? { understood: false } : {}),
    ...(answer.memory ? { memory: answer.memory } : {}),
  };
}

/** The last turn's memory, when this planner left it (a model's or a malformed one is ignored). */
function lastMemory(history: readonly HistoryTurn[]): Memory | undefined {
  const parsed = MemorySchema.safeParse(history[history.length - 1]?.memory);
  return parsed.success ? parsed.data : undefined;
}

const isRead = (intent: string): intent is ReadIntent => (READ_INTENTS as readonly string[]).includes(intent);

function hasSlots(analysis: Analysis): boolean {
  const { entities, dates } = analysis;
  return (
    dates.past !== undefined ||
    entities.currencies.length > 0 ||
    entities.invoiceStatuses.length > 0 ||
    entities.dealStages.length > 0 ||
    entities.candidateStatuses.length > 0 ||
    entities.lifecycleStages.length > 0
  );
}

async function route(ctx: PlanContext): Promise<Answer> {
  const { analysis, memory, turn } = ctx;
  const ranked = classify(analysis);
  const asked = memory?.intent.startsWith("ask:") ? ASKED[memory.intent.slice(4)] : undefined;
  // A short reply to a question asked back completes the change, unless it is a question of its own.
  const answersAsked =
    analysis.entities.ordinal !== undefined ||
    analysis.entities.invoiceRefs.length > 0 ||
    (ranked[0]?.score ?? 0) < 4;
  if (asked && !analysis.verb && analysis.norm.tokens.length <= 8 && answersAsked) {
    const before = turn.history[turn.history.length - 1]!.message;
    const combined = analyze(`${before} — ${turn.message}`, turn.today);
    return runWrite(asked, { ...ctx, analysis: combined, slots: slotsOf(combined) });
  }
  const write = detectWrite(analysis);
  if (write) return runWrite(write, ctx);
  const structured = await structuredAnswer(ctx);
  if (structured) return structured;
  return read(ctx, ranked);
}

/** A read question: a follow-up on the last reply, the best-scoring intent, a bare name, or the help. */
async function read(ctx: PlanContext, ranked: ReturnType<typeof classify>): Promise<Answer> {
  const { analysis, memory } = ctx;
  const followed = memory ? await followUp(ctx) : null;
  if (followed) return followed;
  const again = memory && isRead(memory.intent) ? memory.intent : undefined;
  const best = ranked[0];
  if (again && asksAgain(ctx) && (!best || best.intent === again || best.score < 3.5)) {
    return rerun(ctx, again, memory!);
  }
  for (const { intent } of ranked) {
    const answer = await READ_HANDLERS[intent](ctx);
    if (answer) return intent === "help" ? answer : accounted(ctx, answer);
  }
  if (again && hasSlots(analysis)) return rerun(ctx, again, memory!);
  const found = await lookup(ctx);
  if (found) return accounted(ctx, found);
  return withoutEarlier(ctx) ?? help(ctx);
}

/** Words that point at the records of the reply before. */
const POINTS_BACK =
  /\b(?:of (?:them|those|these)|those ones|these ones|which ones|the ones|those|these|them|they)\b/;
/** The same, when no reply came before: "they" and "them" may be the message's own clients or people. */
const POINTS_AT_NOTHING = /\b(?:of (?:them|those|these)|those ones|these ones|those|these)\b/;

/**
 * An intent's answer (or a bare name's), if it accounts for every word of the message that carries meaning (accounting.ts);
 * otherwise the words it did not read, said back, and no answer: a reply to a different question
 * is worse than none.
 */
function accounted(ctx: PlanContext, answer: Answer): Answer {
  if (answer.understood === false || answer.failed) return answer;
  const missing = unaccounted(ctx.analysis, answer.reply, answer.memory?.intent);
  // The intents answer afresh: "them" is not theirs to read, whether a list came before ("what skills do
  // they have" is not every skill) or none did ("which of them are still active").
  const pointer = (ctx.memory ? POINTS_BACK : POINTS_AT_NOTHING).exec(ctx.analysis.norm.lower)?.[0];
  if (pointer) missing.unshift(pointer);
  if (missing.length === 0) return answer;
  const words = missing.map((word) => `“${word}”`);
  const list = words.length === 1 ? words[0]! : `${words.slice(0, -1).join(", ")} and ${words.at(-1)!}`;
  return {
    reply: `I didn't understand ${list} in that, so I haven't answered rather than guess at a different question. Try saying it another way, for example “open invoices over 2,500” or “deals won last month”.`,
    // No memory: a follow-up must not refine a list this turn did not make, nor the one before it.
    understood: false,
  };
}

async function rerun(ctx: PlanContext, intent: ReadIntent, memory: Memory): Promise<Answer> {
  const again = { ...ctx, slots: mergedSlots(memory, ctx.analysis), followUp: true };
  return (await READ_HANDLERS[intent](again)) ?? help(ctx);
}

const ENGINE_DATA: Record<Engine, string> = {
  finance: "finance data (invoices, products and payments)",
  growth: "growth data (contacts, deals and communications)",
  talent: "talent data (candidates and skills)",
};

function listed(words: readonly string[]): string {
  return words.length <= 1
    ? (words[0] ?? "")
    : `${words.slice(0, -1).join(", ")} and ${words[words.length - 1]!}`;
}

/** A missing scope, said as such: never as "there is no data". */
export function refusalReply(refusal: Refusal): string {
  const engines = refusal.engines.length > 0 ? refusal.engines : (["finance", "growth", "talent"] as const);
  const data = listed(engines.map((engine) => ENGINE_DATA[engine]));
  const scopes = `${listed(engines.map((engine) => `\`${engine}:${refusal.access}\``))} scope${engines.length > 1 ? "s" : ""}`;
  return refusal.access === "read"
    ? `This API key cannot read ${data}, so I can't answer that. It would need the ${scopes}.`
    : `This API key cannot change ${data}, so I have not proposed anything. That needs the ${scopes}.`;
}

function explain(error: unknown): Answer {
  if (error instanceof Refusal) return { reply: refusalReply(error), failed: true, refused: true };
  if (isAppError(error) && error.code === "not_found") {
    return { reply: `I couldn't find that: ${error.message}.`, failed: true, understood: false };
  }
  if (
    isAppError(error) &&
    ["validation_failed", "invalid_state_transition", "conflict"].includes(error.code)
  ) {
    return { reply: `I can't do that: ${error.message}.`, failed: true };
  }
  throw error;
}
