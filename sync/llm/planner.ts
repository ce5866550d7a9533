import type { SyncLlmConfig } from "../../core/config.ts";
import { isAppError } from "../../core/errors.ts";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../../core/json-depth.ts";
import type { PlanOutcome, Planner, PlannerTurn, ProposedAction } from "../planner.ts";
import { createChatClient, toolDefinitions, type ChatClient, type ChatToolCall } from "./client.ts";
import { LlmError } from "./errors.ts";
import { openingMessages, proposalsNote } from "./prompt.ts";

export interface LlmPlannerOptions {
  llm: SyncLlmConfig;
  /** Answers instead when the model provider fails (the built-in planner). */
  fallback: Planner;
  /** Defaults to the global `fetch`. */
  fetch?: typeof fetch;
}

/** What one turn has produced so far: kept outside the loop so a failure can see it. */
interface TurnState {
  /** The reply as streamed so far: each model step's text, separated by a blank line. */
  text: string;
  proposed: ProposedAction[];
}

/**
 * The planner that lets a model (an OpenAI-compatible Chat Completions endpoint) choose the
 * tools: read tools run through `turn.call`, write tools are only proposed through
 * `turn.propose`. When the provider fails, the fallback planner answers and the outcome says why.
 *
 * @example
 *   const planner = config.sync.llm
 *     ? createLlmPlanner({ llm: config.sync.llm, fallback: builtin })
 *     : builtin;
 */
export function createLlmPlanner(options: LlmPlannerOptions): Planner {
  const client = createChatClient(options.llm, options.fetch);
  return {
    kind: "llm",
    async plan(turn) {
      const state: TurnState = { text: "", proposed: [] };
      try {
        return await converse(client, options.llm, turn, state);
      } catch (error) {
        if (!(error instanceof LlmError)) throw error;
        return recover(options.fallback, turn, state, error);
      }
    },
  };
}

async function converse(
  client: ChatClient,
  llm: SyncLlmConfig,
  turn: PlannerTurn,
  state: TurnState,
): Promise<PlanOutcome> {
  const messages = openingMessages(turn);
  const tools = toolDefinitions(turn.tools);
  for (let step = 1; step <= llm.maxSteps; step++) {
    const completion = await client.complete({ messages, tools, onDelta: stepWriter(turn, state) });
    if (completion.toolCalls.length === 0) return finish(llm, turn, state);
    // The last step's calls are not run: no round trip is left to tell the model their results.
    if (step === llm.maxSteps) break;
    messages.push({
      role: "assistant",
      content: completion.content || null,
      tool_calls: completion.toolCalls,
    });
    for (const call of completion.toolCalls) {
      messages.push({ role: "tool", tool_call_id: call.id, content: await runToolCall(turn, call, state) });
    }
  }
  const note = `I reached the step limit (${llm.maxSteps} model calls) before finishing, so this answer is incomplete.`;
  append(turn, state, `${note}${proposalsNote(state.proposed)}`);
  return { reply: state.text, failed: true, model: llm.model };
}

/** Streams one step's text, a blank line apart from the steps before it. */
function stepWriter(turn: PlannerTurn, state: TurnState): (delta: string) => void {
  let started = false;
  return (delta) => {
    if (!started && state.text !== "") write(turn, state, "\n\n");
    started = true;
    write(turn, state, delta);
  };
}

function write(turn: PlannerTurn, state: TurnState, text: string): void {
  state.text += text;
  turn.emit(text);
}

/** Adds a paragraph of our own to the reply. */
function append(turn: PlannerTurn, state: TurnState, paragraph: string): void {
  write(turn, state, state.text === "" ? paragraph : `\n\n${paragraph}`);
}

function finish(llm: SyncLlmConfig, turn: PlannerTurn, state: TurnState): PlanOutcome {
  if (state.text.trim() === "") {
    // Nothing to show: a broken answer, unless changes were proposed (those must not be proposed twice).
    if (state.proposed.length === 0) throw new LlmError("malformed", "the model returned an empty answer");
    append(turn, state, proposalsNote(state.proposed).trim());
  }
  return { reply: state.text, model: llm.model };
}

/**
 * Runs one tool call and returns the tool message's content. An `AppError` (bad arguments, a
 * missing scope, an unknown record) goes back to the model, which can correct itself.
 */
async function runToolCall(turn: PlannerTurn, call: ChatToolCall, state: TurnState): Promise<string> {
  const name = call.function.name;
  const tool = [...turn.tools, ...turn.refusedTools].find((candidate) => candidate.name === name);
  if (!tool) {
    const known = turn.tools.map((candidate) => candidate.name).join(", ");
    return JSON.stringify({ error: "not_found", message: `There is no tool '${name}'. Tools: ${known}.` });
  }
  let args: unknown;
  try {
    args = call.function.arguments.trim() === "" ? {} : JSON.parse(call.function.arguments);
  } catch {
    return JSON.stringify({ error: "invalid_request", message: "The arguments are not valid JSON." });
  }
  // The tools stringify and store them: nesting past the limit would overflow those walks.
  if (nestsDeeperThan(args)) {
    const message = `The arguments nest arrays and objects deeper than ${MAX_JSON_DEPTH} levels.`;
    return JSON.stringify({ error: "invalid_request", message });
  }
  try {
    if (tool.access === "read") return JSON.stringify((await turn.call(name, args)).result);
    const action = await turn.propose(name, args);
    state.proposed.push(action);
    return JSON.stringify({
      proposed: true,
      action_id: action.id,
      preview: action.preview,
      note: "waiting for the user's approval; not done yet",
    });
  } catch (error) {
    if (!isAppError(error)) throw error;
    const errors = error.errors.length > 0 ? { errors: error.errors } : {};
    return JSON.stringify({ error: error.code, message: error.message, ...errors });
  }
}

/**
 * The provider failed. The fallback planner answers, after a one-line note, unless the model
 * already proposed changes this turn: a second planner could propose them again.
 */
async function recover(
  fallback: Planner,
  turn: PlannerTurn,
  state: TurnState,
  error: LlmError,
): Promise<PlanOutcome> {
  if (state.proposed.length > 0) {
    append(turn, state, `The model became unavailable (${error.summary}) before it finished.`);
    write(turn, state, proposalsNote(state.proposed));
    return { reply: state.text, failed: true };
  }
  const note = `_The model was unavailable (${error.summary}), so the built-in assistant answered._`;
  turn.emit(`${state.text === "" ? "" : "\n\n"}${note}\n\n`);
  const { model: _model, ...outcome } = await fallback.plan(turn);
  return { ...outcome, reply: `${note}\n\n${outcome.reply}`, fallback: error.summary };
}
