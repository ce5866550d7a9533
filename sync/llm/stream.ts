import { z } from "zod";
import { malformed } from "./errors.ts";

export interface ChatToolCall {
  id: string;
  type: "function";
  /** `arguments` is the model's JSON text, unparsed: it may not be valid JSON. */
  function: { name: string; arguments: string };
}

/** What one model request produced. */
export interface ChatCompletion {
  content: string;
  toolCalls: ChatToolCall[];
  finishReason: string | null;
}

const ChunkSchema = z.object({
  choices: z.array(
    z.object({
      delta: z
        .object({
          content: z.string().nullish(),
          tool_calls: z
            .array(
              z.object({
                // Some servers leave `index` out when there is one call per chunk.
                index: z.number().int().nonnegative().optional(),
                id: z.string().nullish(),
                function: z.object({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
              }),
            )
            .nullish(),
        })
        .nullish(),
      finish_reason: z.string().nullish(),
    }),
  ),
});
type Chunk = z.infer<typeof ChunkSchema>;

/**
 * Reads a streamed chat completion: Server-Sent Events whose `data:` is a chunk, ending with
 * `data: [DONE]`. Text deltas go to `onDelta` as they arrive; a tool call's `id` and name come
 * once and its `arguments` in fragments, keyed by the call's `index`.
 */
export async function readCompletionStream(
  body: ReadableStream<Uint8Array> | null,
  onDelta: ((delta: string) => void) | undefined,
  apiKey: string | undefined,
): Promise<ChatCompletion> {
  if (!body) throw malformed("the stream has no body", "", apiKey);
  const state = createAccumulator();
  let done = false;
  for await (const data of sseData(body)) {
    if (data.trim() === "[DONE]") {
      done = true;
      break;
    }
    state.add(parseChunk(data, apiKey), onDelta);
  }
  // A stream cut short (no `[DONE]`, no finish reason) is not a whole answer.
  if (!done && state.finishReason === null) throw malformed("the stream ended early", "", apiKey);
  return state.result(apiKey);
}

function parseChunk(data: string, apiKey: string | undefined): Chunk {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    throw malformed("a stream event is not JSON", data, apiKey);
  }
  const parsed = ChunkSchema.safeParse(json);
  if (!parsed.success) throw malformed("a stream event is not a chat completion chunk", data, apiKey);
  return parsed.data;
}

interface PendingCall {
  id: string;
  name: string;
  arguments: string;
}

function createAccumulator() {
  let content = "";
  const calls = new Map<number, PendingCall>();
  const state = {
    finishReason: null as string | null,
    add(chunk: Chunk, onDelta: ((delta: string) => void) | undefined): void {
      const choice = chunk.choices[0];
      if (!choice) return; // a usage-only chunk
      const text = choice.delta?.content;
      if (text) {
        content += text;
        onDelta?.(text);
      }
      for (const [position, part] of (choice.delta?.tool_calls ?? []).entries()) {
        const index = part.index ?? position;
        const call = calls.get(index) ?? { id: "", name: "", arguments: "" };
        calls.set(index, call);
        if (part.id && !call.id) call.id = part.id;
        if (part.function?.name && !call.name) call.name = part.function.name;
        if (part.function?.arguments) call.arguments += part.function.arguments;
      }
      if (choice.finish_reason) state.finishReason = choice.finish_reason;
    },
    result(apiKey: string | undefined): ChatCompletion {
      const toolCalls: ChatToolCall[] = [...calls.entries()]
        .sort(([a], [b]) => a - b)
        .map(([index, call]) => {
          if (!call.name) throw malformed(`tool call ${index} has no name`, "", apiKey);
          const id = call.id || `call_${index}`;
          return { id, type: "function", function: { name: call.name, arguments: call.arguments } };
        });
      return { content, toolCalls, finishReason: state.finishReason };
    },
  };
  return state;
}

/**
 * The `data` of each event of an `text/event-stream` body (WHATWG HTML, "Server-sent events",
 * §9.2.6 "Interpreting an event stream"): lines end in CRLF, LF or CR; an empty line dispatches
 * the event; several `data:` lines join with LF; lines starting with `:` are comments.
 */
async function* sseData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let data: string[] = [];
  const line = (text: string): string | undefined => {
    if (text === "") {
      const event = data.length > 0 ? data.join("\n") : undefined;
      data = [];
      return event;
    }
    if (text.startsWith(":")) return undefined;
    const colon = text.indexOf(":");
    const field = colon < 0 ? text : text.slice(0, colon);
    const value = colon < 0 ? "" : text.slice(colon + 1).replace(/^ /, "");
    if (field === "data") data.push(value);
    return undefined;
  };
  try {
    for (;;) {
      const { value, done } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      // A CR at the very end waits for the next read: it may be the first half of a CRLF.
      const ending = done ? /\r\n|\r|\n/ : /\r\n|\n|\r(?!$)/;
      for (let match = ending.exec(buffer); match; match = ending.exec(buffer)) {
        const event = line(buffer.slice(0, match.index));
        buffer = buffer.slice(match.index + match[0].length);
        if (event !== undefined) yield event;
      }
      if (done) break;
    }
    // Be lenient with a last event that lacks its closing empty line.
    if (buffer !== "") line(buffer);
    const last = line("");
    if (last !== undefined) yield last;
  } finally {
    // Stopping early (at `[DONE]`, or on an error) releases the connection.
    await reader.cancel().catch(() => undefined);
  }
}
