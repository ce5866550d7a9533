import { z } from "zod";
import type { SyncLlmConfig } from "../../core/config.ts";
import type { Tool } from "../tools/types.ts";
import { toolJsonSchema } from "../tools/catalog.ts";
import { excerpt, LlmError, malformed } from "./errors.ts";
import { readCompletionStream, type ChatCompletion, type ChatToolCall } from "./stream.ts";

export type { ChatCompletion, ChatToolCall };

/** A message of a Chat Completions conversation: the subset SYNC sends. */
export type ChatMessage =
  | { role: "system" | "user"; content: string }
  | { role: "assistant"; content: string | null; tool_calls?: ChatToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

export interface ChatToolDefinition {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

export interface ChatRequest {
  messages: readonly ChatMessage[];
  tools: readonly ChatToolDefinition[];
  /** When given, the reply is asked for as a stream and each text delta is handed over as it arrives. */
  onDelta?: (delta: string) => void;
}

export interface ChatClient {
  complete(request: ChatRequest): Promise<ChatCompletion>;
}

/**
 * Tools as Chat Completions `tools`: the JSON Schema of what the model writes (zod's input
 * side, so defaulted fields are optional), without `$schema`, which some providers reject.
 */
export function toolDefinitions(tools: readonly Tool[]): ChatToolDefinition[] {
  return tools.map((tool) => ({
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: toolJsonSchema(tool) },
  }));
}

/**
 * A client for an OpenAI-compatible `POST {url}/chat/completions` (Ollama, llama.cpp, vLLM,
 * a hosted API) over `fetch`. Throws `LlmError` for every provider failure.
 *
 * @example
 *   const client = createChatClient(config.sync.llm);
 *   const { content, toolCalls } = await client.complete({ messages, tools, onDelta: write });
 */
export function createChatClient(llm: SyncLlmConfig, fetchImpl?: typeof fetch): ChatClient {
  const endpoint = `${llm.url.replace(/\/+$/, "")}/chat/completions`;
  const authorization: Record<string, string> = llm.apiKey ? { authorization: `Bearer ${llm.apiKey}` } : {};

  return {
    async complete({ messages, tools, onDelta }) {
      const body = {
        model: llm.model,
        messages,
        ...(tools.length > 0 ? { tools, tool_choice: "auto" } : {}),
        max_tokens: llm.maxTokens,
        ...(onDelta ? { stream: true } : {}),
      };
      try {
        const response = await (fetchImpl ?? fetch)(endpoint, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: onDelta ? "text/event-stream" : "application/json",
            ...authorization,
          },
          body: JSON.stringify(body),
          // One deadline for the whole exchange, body included: a stream that stalls times out too.
          signal: AbortSignal.timeout(llm.timeoutMs),
        });
        if (!response.ok) {
          const text = await response.text().catch(() => "");
          const summary = `the model provider answered HTTP ${response.status}`;
          throw new LlmError("http", summary, excerpt(text, llm.apiKey), { status: response.status });
        }
        return await readResponse(response, onDelta, llm.apiKey);
      } catch (error) {
        throw asLlmError(error, llm);
      }
    },
  };
}

function asLlmError(error: unknown, llm: SyncLlmConfig): LlmError {
  if (error instanceof LlmError) return error;
  const name = error instanceof Error ? error.name : "";
  if (name === "TimeoutError" || name === "AbortError") {
    return new LlmError("timeout", `the model provider did not answer within ${llm.timeoutMs} ms`, "", {
      cause: error,
    });
  }
  // undici's "fetch failed" keeps the reason (ECONNREFUSED, ENOTFOUND) on its cause.
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  const code = typeof cause?.code === "string" ? cause.code : error instanceof Error ? error.message : "";
  return new LlmError("network", "the model provider could not be reached", excerpt(code, llm.apiKey), {
    cause: error,
  });
}

async function readResponse(
  response: Response,
  onDelta: ((delta: string) => void) | undefined,
  apiKey: string | undefined,
): Promise<ChatCompletion> {
  const type = response.headers.get("content-type") ?? "";
  if (type.includes("text/event-stream")) return readCompletionStream(response.body, onDelta, apiKey);
  // A provider may answer a stream request with one JSON body: hand its text over as one delta.
  const completion = parseCompletion(await response.text(), apiKey);
  if (onDelta && completion.content) onDelta(completion.content);
  return completion;
}

const ToolCallSchema = z.object({
  id: z.string().nullish(),
  function: z.object({
    name: z.string().min(1),
    // Some servers send the arguments as an object rather than JSON text.
    arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).nullish(),
  }),
});

const CompletionSchema = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.string().nullish(),
          tool_calls: z.array(ToolCallSchema).nullish(),
        }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1),
});

/** Parses a non-streamed chat completion (its first choice). */
export function parseCompletion(text: string, apiKey: string | undefined): ChatCompletion {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw malformed("the response is not JSON", text, apiKey);
  }
  const parsed = CompletionSchema.safeParse(json);
  if (!parsed.success) throw malformed("the response is not a chat completion", text, apiKey);
  const choice = parsed.data.choices[0]!;
  return {
    content: choice.message.content ?? "",
    toolCalls: (choice.message.tool_calls ?? []).map((call, index) => ({
      id: call.id ?? `call_${index}`,
      type: "function",
      function: {
        name: call.function.name,
        arguments:
          typeof call.function.arguments === "string"
            ? call.function.arguments
            : JSON.stringify(call.function.arguments ?? {}),
      },
    })),
    finishReason: choice.finish_reason ?? null,
  };
}
