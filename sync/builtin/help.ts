import type { PlanContext } from "./context.ts";
import type { Answer } from "./types.ts";

/**
 * What the built-in assistant says when it does not understand: that it did not, and what it
 * can do, with questions to copy. It never guesses a change from a message it did not follow.
 */

const EXAMPLES = [
  "**Finance**: “Which invoices are overdue?”, “What's due in the next 14 days?”, “How much is still owed?”, “Revenue last month”, “Show invoice INV-000030”, “Invoices of Acme Logistics”, “Top 5 clients this year”",
  "**Growth**: “What is Ava Okafor's email?”, “How many customers do we have?”, “Pipeline by stage”, “Which deals did we win?”, “Latest emails with Ava Okafor”",
  "**Talent**: “Candidates in interview”, “Hiring funnel”, “Tell me about Liam Moreau”, “Skills verified in the last 7 days”, “Who knows Python?”",
  "**Anything**: “Give me an overview” (the latest snapshot), “Find Kestrel”, “How many products do we have?”",
  "**Changes** (I prepare them, you approve): “Mark INV-000030 as paid”, “Void invoice 31”, “Record a payment of 300 EUR on INV-000030”, “Move the Kestrel deal to won”, “Move Ava Okafor to interview”, “Verify Ava's TypeScript skill”, “Change Ada's email to ada@example.com”, “Create a contact Ada Lovelace, ada@example.com, at Analytical Engines”",
];

export function capabilities(): string {
  return `I can answer questions about your invoices, payments, products, contacts, deals, communications, candidates and skills, and prepare changes for you to approve. For example:\n\n${EXAMPLES.map((line) => `- ${line}`).join("\n")}`;
}

export function help(ctx: PlanContext): Answer {
  const text = ctx.analysis.norm.original.trim();
  const asked = /\b(?:help|what can you do|what do you do|how does this work|examples?|who are you)\b/i.test(
    text,
  );
  const greeting = /^(?:hi|hello|hey|good (?:morning|afternoon|evening)|thanks|thank you)\b/i.test(text);
  const opening =
    asked || greeting
      ? "I'm SYNC's built-in assistant."
      : `I'm not sure what you mean by “${text.slice(0, 120)}”, so I haven't looked anything up or changed anything.`;
  const understood = asked || greeting;
  return {
    reply: `${opening} ${capabilities()}`,
    failed: !understood,
    ...(understood ? {} : { understood: false }),
  };
}
