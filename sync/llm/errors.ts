import { AppError } from "../../core/errors.ts";

export type LlmFailure = "network" | "timeout" | "http" | "malformed";

/**
 * The model provider failed: unreachable, too slow, a non-2xx status, or a response that is
 * not a chat completion. `summary` is short and safe to show a user; `message` adds detail
 * (an excerpt of the body) for logs. Neither ever holds the API key.
 */
export class LlmError extends AppError<"unavailable"> {
  readonly failure: LlmFailure;
  readonly status: number | undefined;
  readonly summary: string;

  constructor(
    failure: LlmFailure,
    summary: string,
    detail = "",
    options: { status?: number; cause?: unknown } = {},
  ) {
    super("unavailable", detail ? `${summary}: ${detail}` : summary, { cause: options.cause });
    this.name = "LlmError";
    this.failure = failure;
    this.status = options.status;
    this.summary = summary;
  }
}

const EXCERPT_CHARS = 200;

/** A short, one-line, key-free excerpt of a provider's body for an error message. */
export function excerpt(text: string, apiKey: string | undefined): string {
  const scrubbed = apiKey ? text.split(apiKey).join("[redacted]") : text;
  const line = scrubbed.replace(/\s+/g, " ").trim();
  return line.length > EXCERPT_CHARS ? `${line.slice(0, EXCERPT_CHARS)}…` : line;
}

export function malformed(what: string, body: string, apiKey: string | undefined): LlmError {
  const detail = body ? `${what}: ${excerpt(body, apiKey)}` : what;
  return new LlmError("malformed", "the model provider sent a malformed response", detail);
}
