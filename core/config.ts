import { z } from "zod";
import { cronProblem } from "./cron.ts";
import { LOG_LEVELS } from "./log.ts";

/**
 * Configuration enters once: parsed from the environment here (the only reader of
 * `process.env`), frozen, then passed down.
 */

export const PLANS = ["free", "pro", "enterprise"] as const;
export type Plan = (typeof PLANS)[number];

const RateLimitSchema = z.object({
  limit: z.number().int().positive(),
  window_s: z.number().int().positive(),
});
export type RateLimit = z.infer<typeof RateLimitSchema>;

const DEFAULT_RATE_LIMITS: Record<Plan, RateLimit> = {
  free: { limit: 600, window_s: 60 },
  pro: { limit: 6_000, window_s: 60 },
  enterprise: { limit: 60_000, window_s: 60 },
};

const flag = z
  .enum(["0", "1", "true", "false", ""])
  .optional()
  .transform((value) => value === "1" || value === "true");

const int = (fallback: number, min = 0) => z.coerce.number().int().min(min).optional().default(fallback);

const jsonRateLimits = z
  .string()
  .optional()
  .transform((text, ctx) => {
    if (!text) return DEFAULT_RATE_LIMITS;
    try {
      const parsed = z.partialRecord(z.enum(PLANS), RateLimitSchema).parse(JSON.parse(text));
      return { ...DEFAULT_RATE_LIMITS, ...parsed };
    } catch {
      ctx.addIssue({
        code: "custom",
        message:
          'must be JSON like {"free":{"limit":600,"window_s":60}} (plans left out keep their defaults)',
      });
      return z.NEVER;
    }
  });

/** An unset variable and an empty one are the same (OpenTelemetry's rule for its OTEL_* variables). */
const unlessEmpty = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (typeof value === "string" && value.trim() === "" ? undefined : value), schema);

const httpUrl = z
  .string()
  .url()
  .refine((url) => /^https?:\/\//.test(url), "must be an http(s) URL");

/** OpenTelemetry's booleans: `true` in any case is true, anything else false. */
const otelBoolean = z
  .string()
  .optional()
  .transform((value) => value?.trim().toLowerCase() === "true");

export const TRACE_SAMPLERS = [
  "always_on",
  "always_off",
  "traceidratio",
  "parentbased_always_on",
  "parentbased_always_off",
  "parentbased_traceidratio",
] as const;
export type TraceSamplerName = (typeof TRACE_SAMPLERS)[number];

/** OTLP over HTTP in either encoding: the SDK's two exporters (gRPC would need a third, and HTTP/2). */
const otlpProtocol = unlessEmpty(
  z
    .enum(["http/protobuf", "http/json"], {
      error: "must be http/protobuf or http/json (OTLP over gRPC is not supported: use OTLP/HTTP, port 4318)",
    })
    .optional(),
);

const cronSchedule = (fallback: string) =>
  z
    .string()
    .optional()
    .transform((text, ctx) => {
      const expression = text?.trim() || fallback;
      const problem = cronProblem(expression);
      if (problem === undefined) return expression;
      ctx.addIssue({ code: "custom", message: `must be a cron expression like "${fallback}": ${problem}` });
      return z.NEVER;
    });

export const EnvSchema = z
  .object({
    PORT: int(8787, 0).pipe(z.number().max(65535)),
    HOST: z.string().min(1).default("127.0.0.1"),
    TESSERA_DATA_DIR: z.string().min(1).default("./.tessera"),
    DATABASE_URL: z.string().url().optional(),
    REDIS_URL: z.string().url().optional(),
    TESSERA_PUBLIC_URL: z
      .string()
      .url()
      .refine((url) => /^https?:\/\//.test(url), "must be an http(s) URL")
      .optional(),
    TESSERA_FUNCTIONS_URL: z
      .string()
      .url()
      .refine((url) => /^https?:\/\//.test(url), "must be an http(s) URL")
      .refine(isOrigin, "must be an origin, like https://functions.example.com (no path, query or user)")
      .optional(),
    TESSERA_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
    TESSERA_METRICS_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
    TESSERA_METRICS_HOST: z.string().min(1).default("127.0.0.1"),
    TESSERA_METRICS_PORT: unlessEmpty(z.coerce.number().int().min(0).max(65535).optional()),
    OTEL_SDK_DISABLED: otelBoolean,
    OTEL_EXPORTER_OTLP_ENDPOINT: unlessEmpty(httpUrl.optional()),
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: unlessEmpty(httpUrl.optional()),
    OTEL_EXPORTER_OTLP_PROTOCOL: otlpProtocol,
    OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: otlpProtocol,
    OTEL_SERVICE_NAME: unlessEmpty(z.string().default("tessera")),
    OTEL_TRACES_SAMPLER: unlessEmpty(
      z.preprocess(
        (value) => (typeof value === "string" ? value.trim().toLowerCase() : value),
        z.enum(TRACE_SAMPLERS).default("parentbased_always_on"),
      ),
    ),
    OTEL_TRACES_SAMPLER_ARG: unlessEmpty(z.string().optional()),
    TESSERA_TRACE_QUERY_MIN_MS: z.coerce.number().min(0).optional().default(1),
    LOG_LEVEL: z.enum(LOG_LEVELS).default("info"),
    TESSERA_MAX_BODY_BYTES: int(1_048_576, 1),
    TESSERA_RATE_LIMITS: jsonRateLimits,
    TESSERA_KEY_CACHE_TTL_MS: int(10_000),
    TESSERA_IDEMPOTENCY_TTL_HOURS: int(24, 1),
    TESSERA_EVENT_RETENTION_DAYS: int(30, 1),
    TESSERA_DB_POOL_SIZE: int(10, 1),
    TESSERA_LIST_CACHE_MB: int(64),
    TESSERA_ALLOW_PRIVATE_TARGETS: flag,
    TESSERA_ALLOW_HTTP_TARGETS: flag,
    TESSERA_WEBHOOK_TIMEOUT_MS: int(15_000, 1),
    TESSERA_WEBHOOK_DISABLE_AFTER_DAYS: int(5, 1),
    TESSERA_WEBHOOK_CONCURRENCY: int(64, 1),
    TESSERA_SHUTDOWN_GRACE_MS: int(10_000),
    TESSERA_FUNCTION_MEMORY_MB: int(128, 8),
    TESSERA_FUNCTION_MAX_MEMORY_MB: int(512, 8),
    TESSERA_FUNCTION_CPU_TIME_MS: int(50, 1),
    TESSERA_FUNCTION_MAX_CPU_TIME_MS: int(5_000, 1),
    TESSERA_FUNCTION_WALL_TIME_MS: int(30_000, 1),
    TESSERA_FUNCTION_MAX_WALL_TIME_MS: int(300_000, 1),
    TESSERA_FUNCTION_MAX_UPLOAD_BYTES: int(25 * 1024 * 1024, 1),
    TESSERA_FUNCTION_MAX_BUNDLE_BYTES: int(10 * 1024 * 1024, 1),
    TESSERA_FUNCTION_MAX_FILES_BYTES: int(10 * 1024 * 1024, 0),
    TESSERA_FUNCTION_MAX_REQUEST_BYTES: int(10 * 1024 * 1024, 1),
    TESSERA_FUNCTION_MAX_RESPONSE_BYTES: int(50 * 1024 * 1024, 1),
    TESSERA_FUNCTION_MAX_SUBREQUESTS: int(50, 0),
    TESSERA_FUNCTION_LOG_RETENTION_DAYS: int(7, 1),
    TESSERA_FUNCTION_MAX_ISOLATES: int(1_000, 1),
    TESSERA_FUNCTION_MEMORY_BUDGET_MB: int(3_072, 8),
    TESSERA_FUNCTION_IDLE_TIMEOUT_MS: int(300_000, 1_000),
    TESSERA_FUNCTION_RUN_CONCURRENCY: int(8, 1),
    // The bridge's own bound on one message is 16 MiB (sandbox/protocol.ts).
    TESSERA_FUNCTION_WS_MAX_MESSAGE_BYTES: int(1_048_576, 1).pipe(z.number().max(16 * 1024 * 1024)),
    TESSERA_FUNCTION_WS_MAX_LIFETIME_MS: int(3_600_000),
    TESSERA_FUNCTION_WS_MAX_CONNECTIONS: int(1_000),
    // The scheduler's tick history is kept 7 days: a missed instant further back cannot be known.
    TESSERA_FUNCTION_CRON_CATCHUP_HOURS: z.coerce.number().int().min(0).max(168).optional().default(24),
    TESSERA_ENGINE_STATE_MAX_ENTRIES: int(100_000, 1),
    TESSERA_SNAPSHOT_SCHEDULE: cronSchedule("0 * * * *"),
    TESSERA_BACKUP_CRON: z
      .string()
      .optional()
      .transform((text, ctx) => {
        const expression = text?.trim();
        if (!expression) return undefined;
        const problem = cronProblem(expression);
        if (problem === undefined) return expression;
        ctx.addIssue({ code: "custom", message: `must be a cron expression like "0 3 * * *": ${problem}` });
        return z.NEVER;
      }),
    TESSERA_BACKUP_DIR: z.string().min(1).optional(),
    TESSERA_BACKUP_KEEP: int(7, 1),
    TESSERA_SNAPSHOT_RETENTION_DAYS: int(90, 1),
    TESSERA_SYNC_LLM_URL: z
      .string()
      .url()
      .refine((url) => /^https?:\/\//.test(url), "must be an http(s) URL")
      .optional(),
    TESSERA_SYNC_LLM_MODEL: z.string().min(1).optional(),
    TESSERA_SYNC_LLM_API_KEY: z.string().min(1).optional(),
    TESSERA_SYNC_LLM_TIMEOUT_MS: int(30_000, 1),
    TESSERA_SYNC_LLM_MAX_STEPS: int(8, 1),
    TESSERA_SYNC_LLM_MAX_TOKENS: int(1_024, 16),
    TESSERA_SYNC_ACTION_TTL_MS: int(15 * 60_000, 1_000),
    TESSERA_SYNC_MAX_MESSAGE_CHARS: int(4_000, 1),
    TESSERA_SYNC_MAX_TURNS: int(50, 1),
  })
  .refine(
    (env) =>
      env.TESSERA_FUNCTION_MEMORY_MB <= env.TESSERA_FUNCTION_MAX_MEMORY_MB &&
      env.TESSERA_FUNCTION_CPU_TIME_MS <= env.TESSERA_FUNCTION_MAX_CPU_TIME_MS &&
      env.TESSERA_FUNCTION_WALL_TIME_MS <= env.TESSERA_FUNCTION_MAX_WALL_TIME_MS,
    {
      message: "each function limit's default must not exceed its maximum (TESSERA_FUNCTION_MAX_*)",
      path: ["TESSERA_FUNCTION_MEMORY_MB"],
    },
  )
  .refine((env) => !env.TESSERA_SYNC_LLM_URL || env.TESSERA_SYNC_LLM_MODEL, {
    message: "TESSERA_SYNC_LLM_MODEL is required when TESSERA_SYNC_LLM_URL is set",
    path: ["TESSERA_SYNC_LLM_MODEL"],
  })
  .refine((env) => !env.DATABASE_URL || env.TESSERA_SECRET, {
    message: "TESSERA_SECRET is required when DATABASE_URL is set",
    path: ["TESSERA_SECRET"],
  })
  .refine((env) => !env.TESSERA_FUNCTIONS_URL || !isMainOrigin(env.TESSERA_FUNCTIONS_URL, env), {
    message: "must be an origin other than the dashboard's (TESSERA_PUBLIC_URL, or HOST:PORT)",
    path: ["TESSERA_FUNCTIONS_URL"],
  })
  .refine((env) => !takenPort(env.TESSERA_METRICS_PORT, env), {
    message: "must be a port of its own, not PORT's nor TESSERA_FUNCTIONS_URL's",
    path: ["TESSERA_METRICS_PORT"],
  })
  .refine(
    (env) =>
      env.TESSERA_METRICS_PORT === undefined ||
      env.TESSERA_METRICS_TOKEN ||
      isLoopbackHost(env.TESSERA_METRICS_HOST),
    {
      message:
        "/metrics on a listener of its own answers without a token on loopback only: set TESSERA_METRICS_TOKEN to listen on another interface",
      path: ["TESSERA_METRICS_HOST"],
    },
  )
  .refine((env) => samplerRatio(env.OTEL_TRACES_SAMPLER, env.OTEL_TRACES_SAMPLER_ARG) !== undefined, {
    message: "must be a number from 0 to 1 (the share of traces kept) for a traceidratio sampler",
    path: ["OTEL_TRACES_SAMPLER_ARG"],
  });

/** Whether `port` (TESSERA_METRICS_PORT) is one the API or the functions origin listens on already. */
function takenPort(
  port: number | undefined,
  env: { PORT: number; TESSERA_FUNCTIONS_URL?: string | undefined },
): boolean {
  if (port === undefined || port === 0) return false;
  if (port === env.PORT) return true;
  const functions = env.TESSERA_FUNCTIONS_URL;
  return functions !== undefined && URL.canParse(functions) && listenPortOf(new URL(functions)) === port;
}

/** Loopback names and addresses: what only this machine reaches. */
function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  return bare === "localhost" || bare === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}

/** The share of traces a ratio sampler keeps (1 for the others); undefined when the argument is no ratio. */
function samplerRatio(sampler: TraceSamplerName, arg: string | undefined): number | undefined {
  if (!sampler.endsWith("traceidratio") || arg === undefined) return 1;
  const ratio = Number(arg);
  return Number.isFinite(ratio) && ratio >= 0 && ratio <= 1 ? ratio : undefined;
}

/**
 * Traces are on when an OTLP endpoint is set and OTEL_SDK_DISABLED is not `true`
 * (the OpenTelemetry SDK's own rules, docs/tracing.md). A traces endpoint is used as it is;
 * the general one gets `/v1/traces` (OTLP/HTTP's path for traces).
 */
function tracingOf(e: z.infer<typeof EnvSchema>): TracingConfig | undefined {
  const general = e.OTEL_EXPORTER_OTLP_ENDPOINT;
  const url = e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? (general && `${general.replace(/\/+$/, "")}/v1/traces`);
  if (!url || e.OTEL_SDK_DISABLED) return undefined;
  return Object.freeze({
    url,
    protocol: e.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? e.OTEL_EXPORTER_OTLP_PROTOCOL ?? "http/protobuf",
    serviceName: e.OTEL_SERVICE_NAME,
    sampler: Object.freeze({
      name: e.OTEL_TRACES_SAMPLER,
      ratio: samplerRatio(e.OTEL_TRACES_SAMPLER, e.OTEL_TRACES_SAMPLER_ARG) ?? 1,
    }),
    queryMinMs: e.TESSERA_TRACE_QUERY_MIN_MS,
  });
}

/** Whether a URL is an origin and nothing more: a path of `/` at most, no query, fragment or user. */
function isOrigin(text: string): boolean {
  if (!URL.canParse(text)) return true; // `.url()` says what is wrong with it
  const url = new URL(text);
  return url.pathname === "/" && !url.search && !url.hash && !url.username && !url.password;
}

/** Whether the functions origin would be the dashboard's own: the very thing it exists to keep apart. */
function isMainOrigin(
  text: string,
  env: { TESSERA_PUBLIC_URL?: string | undefined; HOST: string; PORT: number },
) {
  if (!URL.canParse(text)) return false;
  const url = new URL(text);
  const main =
    env.TESSERA_PUBLIC_URL && URL.canParse(env.TESSERA_PUBLIC_URL) && new URL(env.TESSERA_PUBLIC_URL);
  if (main && main.origin === url.origin) return true;
  return url.hostname === env.HOST && listenPortOf(url) === env.PORT;
}

function listenPortOf(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
}

/**
 * Where function invocations are served apart from the dashboard (TESSERA_FUNCTIONS_URL). A URL
 * naming a port other than PORT gets a listener of its own there; otherwise the main listener
 * tells its requests by their `Host` (a proxy sends the functions host to the same upstream).
 */
function functionsOriginOf(text: string | undefined, port: number): FunctionsOrigin | undefined {
  if (!text) return undefined;
  const url = new URL(text);
  const own = url.port && Number(url.port) !== port ? Number(url.port) : undefined;
  return Object.freeze({ url: url.origin, host: url.host, port: own });
}

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly databaseUrl: string | undefined;
  readonly redisUrl: string | undefined;
  /** How clients reach this service (behind a proxy, or on 0.0.0.0): the origin function trigger runs see. */
  readonly publicUrl: string | undefined;
  /**
   * The origin function invocations are served from, apart from the dashboard's cookies and pages
   * (TESSERA_FUNCTIONS_URL); undefined: the main origin serves them (sandboxed: api/invocation/headers.ts).
   */
  readonly functionsOrigin: FunctionsOrigin | undefined;
  /** Key for secrets at rest; in embedded mode generated into the data dir when absent. */
  readonly secret: string | undefined;
  readonly logLevel: (typeof LOG_LEVELS)[number];
  /** Bearer token `GET /metrics` asks for (the operator token of the data dir works too). */
  readonly metricsToken: string | undefined;
  /**
   * `/metrics` on a listener of its own (TESSERA_METRICS_PORT, on TESSERA_METRICS_HOST), and not on
   * the API's port; undefined: on the API's port.
   */
  readonly metricsListener: MetricsListener | undefined;
  /** OpenTelemetry traces (docs/tracing.md); undefined: off, and the SDK is never loaded. */
  readonly tracing: TracingConfig | undefined;
  readonly maxBodyBytes: number;
  readonly rateLimits: Readonly<Record<Plan, RateLimit>>;
  readonly keyCacheTtlMs: number;
  readonly idempotencyTtlHours: number;
  /** Events older than this are purged (GET /v1/events is the catch-up window). */
  readonly eventRetentionDays: number;
  readonly dbPoolSize: number;
  /** Memory for cached list pages (engines/list-cache.ts); 0 reads every list from the store. */
  readonly listCacheBytes: number;
  /** Webhook targets may be loopback/private/link-local/CGNAT/metadata addresses (development). */
  readonly allowPrivateTargets: boolean;
  /** Webhook targets may be plain `http:` URLs (development); otherwise `https:` only. */
  readonly allowHttpTargets: boolean;
  /** One webhook attempt's deadline: connect, send, response and body. */
  readonly webhookTimeoutMs: number;
  /** An endpoint failing without a break for longer than this is disabled. */
  readonly webhookDisableAfterDays: number;
  /** Webhook sends in flight per worker process. */
  readonly webhookConcurrency: number;
  readonly shutdownGraceMs: number;
  /** Engine state entries one organization may hold, over every engine. */
  readonly engineStateMaxEntries: number;
  /** node-cron expression on which every organization's intelligence snapshot is refreshed. */
  readonly snapshotSchedule: string;
  /** Snapshots older than this are purged (an organization's latest is always kept). */
  readonly snapshotRetentionDays: number;
  readonly functions: FunctionConfig;
  readonly sync: SyncConfig;
  /** Where backups go, and the schedule on which the worker writes them (when TESSERA_BACKUP_CRON is set). */
  readonly backups: BackupConfig;
}

/** `tessera backup`'s default folder, and the worker's schedule (one node per tick). */
export interface BackupConfig {
  /** node-cron expression; undefined: no scheduled backups. */
  readonly schedule: string | undefined;
  /** Where archives go (default `$TESSERA_DATA_DIR/backups`). */
  readonly dir: string;
  /** How many of the newest archives in `dir` are kept; older ones are deleted after each backup. */
  readonly keep: number;
}

/** Where `/metrics` listens when it has a listener of its own. */
export interface MetricsListener {
  /** TESSERA_METRICS_HOST: loopback (127.0.0.1) unless said; another interface needs TESSERA_METRICS_TOKEN. */
  readonly host: string;
  /** TESSERA_METRICS_PORT (0: any free port, printed at start). */
  readonly port: number;
}

/** OpenTelemetry traces, from the standard OTEL_* variables (docs/tracing.md). */
export interface TracingConfig {
  /** Where spans are posted (OTLP/HTTP): OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, or OTEL_EXPORTER_OTLP_ENDPOINT + `/v1/traces`. */
  readonly url: string;
  /** OTEL_EXPORTER_OTLP_TRACES_PROTOCOL or OTEL_EXPORTER_OTLP_PROTOCOL; `http/protobuf` unless said. */
  readonly protocol: "http/protobuf" | "http/json";
  /** OTEL_SERVICE_NAME (`tessera` unless said). */
  readonly serviceName: string;
  /** OTEL_TRACES_SAMPLER and its ratio (OTEL_TRACES_SAMPLER_ARG; 1 unless said). */
  readonly sampler: { readonly name: TraceSamplerName; readonly ratio: number };
  /**
   * A store query within a sampled trace gets a span when it takes this long or fails
   * (TESSERA_TRACE_QUERY_MIN_MS, default 1; 0: every query).
   */
  readonly queryMinMs: number;
}

/** The functions origin (TESSERA_FUNCTIONS_URL): a host of its own, or a port of its own. */
export interface FunctionsOrigin {
  /** The origin, e.g. `https://functions.example.com`: the URLs of functions start with it. */
  readonly url: string;
  /** The `Host` its requests carry (lowercase; with the port unless it is the scheme's default). */
  readonly host: string;
  /** The port `serve` listens on for it too (on HOST), when the URL names one other than PORT. */
  readonly port: number | undefined;
}

/** SYNC, the agent: its limits, and the model it may use (none by default: the built-in planner). */
export interface SyncConfig {
  /** An OpenAI-compatible Chat Completions endpoint (Ollama, llama.cpp, vLLM, a hosted API), or none. */
  readonly llm: SyncLlmConfig | undefined;
  /** A proposed action not approved within this long is `expired`. */
  readonly actionTtlMs: number;
  /** Longest message `POST /v1/sync/chat` takes (longer: 413). */
  readonly maxMessageChars: number;
  /** Turns one conversation may hold; a longer one is refused (start a new conversation). */
  readonly maxTurns: number;
}

export interface SyncLlmConfig {
  /** Base URL, e.g. `http://127.0.0.1:11434/v1`; the client posts to `{url}/chat/completions`. */
  readonly url: string;
  readonly model: string;
  /** Sent as `Authorization: Bearer …`; never logged. */
  readonly apiKey: string | undefined;
  /** One model request's deadline. */
  readonly timeoutMs: number;
  /** Model round trips (tool calls) per message. */
  readonly maxSteps: number;
  /** `max_tokens` per model request. */
  readonly maxTokens: number;
}

/** Edge functions' limits (defaults a deploy gets, maxima it may ask for) and the isolate pool. */
export interface FunctionConfig {
  readonly defaultLimits: FunctionLimits;
  readonly maxLimits: FunctionLimits;
  /** Largest deploy request body (the uploaded files as JSON). */
  readonly maxUploadBytes: number;
  readonly maxBundleBytes: number;
  /** The files kept with a deployment for the function to read (`Deno.readFile`), in total. */
  readonly maxFilesBytes: number;
  readonly maxRequestBytes: number;
  readonly maxResponseBytes: number;
  /** Outbound `fetch` and `ctx.platform.fetch` calls one invocation may make. */
  readonly maxSubrequests: number;
  readonly logRetentionDays: number;
  readonly maxIsolates: number;
  readonly memoryBudgetMb: number;
  readonly idleTimeoutMs: number;
  /** Trigger runs (events, cron) one worker process runs at once. */
  readonly runConcurrency: number;
  /** Largest WebSocket message, either way (a larger one from a client closes its socket with 1009). */
  readonly wsMaxMessageBytes: number;
  /**
   * How long an accepted WebSocket may stay open (then it closes with 1001); 0: the function's
   * wall-time limit bounds it, as any request (see `SocketUpgrade.lifetimeMs`).
   */
  readonly wsMaxLifetimeMs: number;
  /** WebSockets one function may hold open on one node; past it an upgrade is refused (429). 0: none. */
  readonly wsMaxConnections: number;
  /**
   * After the scheduler missed minutes (no node was running it), each cron schedule's latest
   * instant missed within this many hours is run once at its next tick; 0 runs none.
   */
  readonly cronCatchUpHours: number;
}

export interface FunctionLimits {
  readonly memory_mb: number;
  readonly cpu_time_ms: number;
  readonly wall_time_ms: number;
}

export class ConfigError extends Error {
  constructor(readonly issues: string[]) {
    super(`invalid configuration:\n  ${issues.join("\n  ")}`);
    this.name = "ConfigError";
  }
}

/** Parse an environment (default: `process.env`) into a frozen Config. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const result = EnvSchema.safeParse(env);
  if (!result.success) {
    throw new ConfigError(result.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`));
  }
  const e = result.data;
  return Object.freeze({
    port: e.PORT,
    host: e.HOST,
    dataDir: e.TESSERA_DATA_DIR,
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    publicUrl: e.TESSERA_PUBLIC_URL?.replace(/\/+$/, ""),
    functionsOrigin: functionsOriginOf(e.TESSERA_FUNCTIONS_URL, e.PORT),
    secret: e.TESSERA_SECRET,
    logLevel: e.LOG_LEVEL,
    metricsToken: e.TESSERA_METRICS_TOKEN,
    metricsListener:
      e.TESSERA_METRICS_PORT === undefined
        ? undefined
        : Object.freeze({ host: e.TESSERA_METRICS_HOST, port: e.TESSERA_METRICS_PORT }),
    tracing: tracingOf(e),
    maxBodyBytes: e.TESSERA_MAX_BODY_BYTES,
    rateLimits: Object.freeze(e.TESSERA_RATE_LIMITS),
    keyCacheTtlMs: e.TESSERA_KEY_CACHE_TTL_MS,
    listCacheBytes: e.TESSERA_LIST_CACHE_MB * 1024 * 1024,
    idempotencyTtlHours: e.TESSERA_IDEMPOTENCY_TTL_HOURS,
    eventRetentionDays: e.TESSERA_EVENT_RETENTION_DAYS,
    dbPoolSize: e.TESSERA_DB_POOL_SIZE,
    allowPrivateTargets: e.TESSERA_ALLOW_PRIVATE_TARGETS,
    allowHttpTargets: e.TESSERA_ALLOW_HTTP_TARGETS,
    webhookTimeoutMs: e.TESSERA_WEBHOOK_TIMEOUT_MS,
    webhookDisableAfterDays: e.TESSERA_WEBHOOK_DISABLE_AFTER_DAYS,
    webhookConcurrency: e.TESSERA_WEBHOOK_CONCURRENCY,
    shutdownGraceMs: e.TESSERA_SHUTDOWN_GRACE_MS,
    snapshotSchedule: e.TESSERA_SNAPSHOT_SCHEDULE,
    snapshotRetentionDays: e.TESSERA_SNAPSHOT_RETENTION_DAYS,
    engineStateMaxEntries: e.TESSERA_ENGINE_STATE_MAX_ENTRIES,
    backups: Object.freeze({
      schedule: e.TESSERA_BACKUP_CRON,
      dir: e.TESSERA_BACKUP_DIR ?? `${e.TESSERA_DATA_DIR.replace(/\/+$/, "")}/backups`,
      keep: e.TESSERA_BACKUP_KEEP,
    }),
    functions: Object.freeze({
      defaultLimits: Object.freeze({
        memory_mb: e.TESSERA_FUNCTION_MEMORY_MB,
        cpu_time_ms: e.TESSERA_FUNCTION_CPU_TIME_MS,
        wall_time_ms: e.TESSERA_FUNCTION_WALL_TIME_MS,
      }),
      maxLimits: Object.freeze({
        memory_mb: e.TESSERA_FUNCTION_MAX_MEMORY_MB,
        cpu_time_ms: e.TESSERA_FUNCTION_MAX_CPU_TIME_MS,
        wall_time_ms: e.TESSERA_FUNCTION_MAX_WALL_TIME_MS,
      }),
      maxUploadBytes: e.TESSERA_FUNCTION_MAX_UPLOAD_BYTES,
      maxBundleBytes: e.TESSERA_FUNCTION_MAX_BUNDLE_BYTES,
      maxFilesBytes: e.TESSERA_FUNCTION_MAX_FILES_BYTES,
      maxRequestBytes: e.TESSERA_FUNCTION_MAX_REQUEST_BYTES,
      maxResponseBytes: e.TESSERA_FUNCTION_MAX_RESPONSE_BYTES,
      maxSubrequests: e.TESSERA_FUNCTION_MAX_SUBREQUESTS,
      logRetentionDays: e.TESSERA_FUNCTION_LOG_RETENTION_DAYS,
      maxIsolates: e.TESSERA_FUNCTION_MAX_ISOLATES,
      memoryBudgetMb: e.TESSERA_FUNCTION_MEMORY_BUDGET_MB,
      idleTimeoutMs: e.TESSERA_FUNCTION_IDLE_TIMEOUT_MS,
      runConcurrency: e.TESSERA_FUNCTION_RUN_CONCURRENCY,
      wsMaxMessageBytes: e.TESSERA_FUNCTION_WS_MAX_MESSAGE_BYTES,
      wsMaxLifetimeMs: e.TESSERA_FUNCTION_WS_MAX_LIFETIME_MS,
      wsMaxConnections: e.TESSERA_FUNCTION_WS_MAX_CONNECTIONS,
      cronCatchUpHours: e.TESSERA_FUNCTION_CRON_CATCHUP_HOURS,
    }),
    sync: Object.freeze({
      llm:
        e.TESSERA_SYNC_LLM_URL && e.TESSERA_SYNC_LLM_MODEL
          ? Object.freeze({
              url: e.TESSERA_SYNC_LLM_URL.replace(/\/+$/, ""),
              model: e.TESSERA_SYNC_LLM_MODEL,
              apiKey: e.TESSERA_SYNC_LLM_API_KEY,
              timeoutMs: e.TESSERA_SYNC_LLM_TIMEOUT_MS,
              maxSteps: e.TESSERA_SYNC_LLM_MAX_STEPS,
              maxTokens: e.TESSERA_SYNC_LLM_MAX_TOKENS,
            })
          : undefined,
      actionTtlMs: e.TESSERA_SYNC_ACTION_TTL_MS,
      maxMessageChars: e.TESSERA_SYNC_MAX_MESSAGE_CHARS,
      maxTurns: e.TESSERA_SYNC_MAX_TURNS,
    }),
  });
}
