import { z } from "zod";
import { EventSchema, MetadataSchema, type ResourceDefinition } from "../engines/index.ts";
import { FunctionFilesSchema } from "./source-files.ts";

/**
 * The shapes of `/v1/functions` at the edge. What needs the operator's configuration
 * (limits' maxima, bundle size) is checked by the service in runtime/functions.ts.
 */

/** Lowercase letters, digits, `-` and `_`; `fn_…` is how ids look, so names never start with it. */
export const FUNCTION_NAME = /^(?!fn_)[a-z0-9][a-z0-9_-]{0,62}$/;
export const FunctionNameSchema = z
  .string()
  .regex(
    FUNCTION_NAME,
    "1-63 lowercase letters, digits, '-' or '_', starting with a letter or digit (not 'fn_')",
  );

export const FUNCTION_AUTH = ["key", "public"] as const;
export type FunctionAuth = (typeof FUNCTION_AUTH)[number];

export const FunctionLimitsSchema = z
  .object({
    memory_mb: z.number().int().min(8),
    cpu_time_ms: z.number().int().min(1),
    wall_time_ms: z.number().int().min(1),
  })
  .meta({ id: "FunctionLimits" });

export const MAX_TRIGGERS = 10;

/** An event subscription: every event of these kinds (or families, `invoice.*`) runs the function. */
export const EventTriggerSchema = z
  .object({
    type: z.literal("event"),
    events: z
      .array(z.string().min(1).max(100))
      .min(1)
      .max(50)
      .meta({ description: "Event kinds (GET /v1/event_types) or families like invoice.*" }),
  })
  .strict()
  .meta({ id: "FunctionEventTrigger" });

/** A cron schedule: five fields, minute resolution, in `timezone` (UTC by default). */
export const CronTriggerSchema = z
  .object({
    type: z.literal("cron"),
    schedule: z.string().min(1).max(100).meta({ example: "0 8 * * mon-fri" }),
    timezone: z.string().min(1).max(64).optional().meta({ description: "IANA name; default UTC" }),
  })
  .strict()
  .meta({ id: "FunctionCronTrigger" });

export const TriggerSchema = z.discriminatedUnion("type", [EventTriggerSchema, CronTriggerSchema]);
export type Trigger = z.infer<typeof TriggerSchema>;

/** Largest JSON Schema a function tool may declare (the model reads it with every message). */
export const MAX_TOOL_SCHEMA_BYTES = 16 * 1024;

/**
 * A function offered to SYNC as a tool: SYNC calls it with JSON arguments as a POST, acting as the
 * caller (read_only), or proposes the call for approval (anything else is a write).
 */
export const FunctionToolSchema = z
  .object({
    description: z.string().trim().min(1).max(1_000).meta({ description: "What it does, for the planner" }),
    parameters: z
      .record(z.string(), z.unknown())
      .refine((schema) => schema.type === "object", "must be a JSON Schema of type object")
      .refine(
        (schema) => JSON.stringify(schema).length <= MAX_TOOL_SCHEMA_BYTES,
        `must be at most ${MAX_TOOL_SCHEMA_BYTES} bytes as JSON`,
      )
      .meta({ description: "JSON Schema (type object) of the arguments it takes as its JSON body" }),
    read_only: z
      .boolean()
      .default(false)
      .meta({ description: "Changes nothing: SYNC may call it without approval" }),
  })
  .strict()
  .meta({ id: "FunctionTool" });
export type FunctionTool = z.infer<typeof FunctionToolSchema>;

export const FunctionDeploySchema = z
  .object({
    name: FunctionNameSchema,
    files: FunctionFilesSchema,
    entrypoint: z.string().min(1).max(512).optional(),
    auth: z.enum(FUNCTION_AUTH).optional(),
    limits: FunctionLimitsSchema.partial().strict().optional(),
    triggers: z
      .array(TriggerSchema)
      .max(MAX_TRIGGERS)
      .optional()
      .meta({ description: "Runs beyond HTTP (events, cron); left out, the serving deployment's are kept" }),
    tool: FunctionToolSchema.nullable().optional().meta({
      description:
        "Offer the function to SYNC as a tool; null removes it, left out keeps the serving deployment's",
    }),
    metadata: MetadataSchema.optional(),
  })
  .strict()
  .meta({ id: "FunctionDeploy" });
export type FunctionDeploy = z.infer<typeof FunctionDeploySchema>;

export const FunctionSchema = z
  .object({
    id: z.string(),
    object: z.literal("function"),
    name: z.string(),
    auth: z.enum(FUNCTION_AUTH),
    version: z.number().int().describe("The deployment serving requests"),
    latest_version: z.number().int(),
    entrypoint: z.string(),
    limits: FunctionLimitsSchema,
    triggers: z.array(TriggerSchema),
    tool: FunctionToolSchema.nullable(),
    bundle_bytes: z.number().int(),
    invoke_path: z
      .string()
      .describe("Public functions may be invoked without a key at /v1/functions/{id}/invoke"),
    deployed_at: z.string(),
    metadata: z.record(z.string(), z.string()),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "Function" });
export type FunctionObject = z.infer<typeof FunctionSchema>;

export const DeploymentSchema = z
  .object({
    id: z.string(),
    object: z.literal("function_deployment"),
    function_id: z.string(),
    version: z.number().int(),
    active: z.boolean(),
    entrypoint: z.string(),
    auth: z.enum(FUNCTION_AUTH),
    limits: FunctionLimitsSchema,
    triggers: z.array(TriggerSchema),
    tool: FunctionToolSchema.nullable(),
    bundle_bytes: z.number().int(),
    sha256: z.string(),
    files: z.array(z.object({ path: z.string(), bytes: z.number().int() })),
    warnings: z.array(z.string()),
    created_at: z.string(),
  })
  .meta({ id: "FunctionDeployment" });
export type Deployment = z.infer<typeof DeploymentSchema>;

export const RollbackSchema = z
  .object({ version: z.number().int().min(1).optional() })
  .strict()
  .meta({ id: "FunctionRollback" });

/** `POST …/runs`: a cron run now, of the named schedule (optional when the function has one). */
export const RunStartSchema = z
  .object({ schedule: z.string().min(1).max(200).optional() })
  .strict()
  .meta({ id: "FunctionRunStart" });

/** `POST …/trigger`: an event to run the function with now, as its event trigger would. */
export const FunctionTriggerSchema = z
  .object({
    event_type: z
      .string()
      .min(1)
      .max(100)
      .meta({ example: "contact.created", description: "An event kind of GET /v1/event_types" }),
    data: EventSchema.shape.data.strict().optional().meta({
      description: "The event's `data` ({object, previous_attributes}); default: a sample of the kind",
    }),
  })
  .strict()
  .meta({ id: "FunctionTrigger" });
export type FunctionTrigger = z.infer<typeof FunctionTriggerSchema>;

/** What `POST …/trigger` ran: the event sent, and how the function answered it. */
export const FunctionTriggerRunSchema = z
  .object({
    object: z.literal("function_trigger_run"),
    function_id: z.string(),
    name: z.string(),
    // The event sent; it is not recorded, so GET /v1/events/{id} does not know it.
    event: EventSchema,
    subscribed: z.boolean().meta({
      description:
        "Whether the serving deployment's triggers name this kind: if not, a real one would not run it",
    }),
    status: z.enum(["succeeded", "failed"]).meta({ description: "succeeded: the function answered 2xx" }),
    version: z.number().int().meta({ description: "The deployment that ran" }),
    request_id: z
      .string()
      .meta({ description: "The invocation's request id: GET …/logs?request_id= shows its console lines" }),
    status_code: z.number().int().nullable(),
    error: z.string().nullable(),
    duration_ms: z.number().int(),
  })
  .meta({ id: "FunctionTriggerRun" });
export type FunctionTriggerRun = z.infer<typeof FunctionTriggerRunSchema>;

/** Environment-variable names, as Deno.env takes them. */
export const SECRET_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
export const MAX_SECRETS = 100;
export const MAX_SECRET_BYTES = 32 * 1024;

/** `PUT …/secrets`: set each named secret; `null` removes one. Names not mentioned are kept. */
export const SecretsUpdateSchema = z
  .record(
    z.string().regex(SECRET_NAME, "letters, digits and '_', not starting with a digit, at most 128"),
    z.string().max(MAX_SECRET_BYTES, `at most ${MAX_SECRET_BYTES} characters`).nullable(),
  )
  .refine((secrets) => Object.keys(secrets).length > 0, "name at least one secret")
  .meta({ id: "FunctionSecretsUpdate" });

export const SecretSchema = z
  .object({ object: z.literal("function_secret"), name: z.string(), updated_at: z.string() })
  .meta({ id: "FunctionSecret" });
export type SecretInfo = z.infer<typeof SecretSchema>;

/** What `function.secrets_updated` carries: which names changed, never a value. */
export const FunctionSecretsChangeSchema = z
  .object({
    id: z.string().describe("The function's id (`fn_…`)"),
    object: z.literal("function_secrets"),
    name: z.string().describe("The function's name"),
    set: z.array(z.string()).describe("Names of the secrets set (added, or given a new value)"),
    removed: z.array(z.string()).describe("Names of the secrets removed"),
    secrets: z.array(z.string()).describe("Every secret name the function holds now"),
  })
  .meta({ id: "FunctionSecretsChange" });
export type FunctionSecretsChange = z.infer<typeof FunctionSecretsChangeSchema>;

export const LOG_LEVELS = ["debug", "info", "log", "warn", "error"] as const;
export type FunctionLogLevel = (typeof LOG_LEVELS)[number];

export const FunctionLogSchema = z
  .object({
    id: z.string(),
    object: z.literal("function_log"),
    request_id: z.string(),
    version: z.number().int(),
    level: z.enum(LOG_LEVELS),
    message: z.string(),
    timestamp: z.string(),
  })
  .meta({ id: "FunctionLog" });
export type FunctionLog = z.infer<typeof FunctionLogSchema>;

export const RUN_TRIGGERS = ["event", "cron"] as const;
export const RUN_STATUSES = ["pending", "running", "succeeded", "failed"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export const FunctionRunSchema = z
  .object({
    id: z.string().meta({ example: "frun_9b1d…" }),
    object: z.literal("function_run"),
    function_id: z.string(),
    trigger: z.enum(RUN_TRIGGERS),
    event_id: z.string().nullable(),
    event_type: z.string().nullable(),
    schedule: z.string().nullable(),
    scheduled_for: z.string().nullable().meta({
      description: "A cron run: the minute it fell due, or the moment it was started by POST …/runs",
    }),
    status: z.enum(RUN_STATUSES),
    attempts: z.number().int(),
    max_attempts: z.number().int(),
    next_attempt_at: z.string().nullable(),
    version: z.number().int().nullable().meta({ description: "The deployment of the last attempt" }),
    request_id: z
      .string()
      .nullable()
      .meta({ description: "The last attempt's request id: GET …/logs?request_id= shows its console lines" }),
    last_status_code: z.number().int().nullable(),
    last_error: z.string().nullable(),
    duration_ms: z.number().int().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "FunctionRun" });
export type FunctionRun = z.infer<typeof FunctionRunSchema>;

const FUNCTION_ID = /^fn_[0-9A-Za-z]{1,64}$/;

/** Whether `ref` can name a function: a name (`FUNCTION_NAME`) or an id (`fn_…`). */
export function isFunctionRef(ref: string): boolean {
  return FUNCTION_NAME.test(ref) || FUNCTION_ID.test(ref);
}

/** The filters and sorts of the lists under `/v1/functions`, for `parseListQuery`. */
type ListDefinition = Pick<ResourceDefinition<unknown, unknown, unknown>, "filters" | "sorts">;

/** `GET /v1/functions`: sorted by `created_at` or `name`; `q` matches the name. */
export const FUNCTION_LIST = {
  filters: {},
  sorts: { created_at: "created_at", name: "name" },
} as const satisfies ListDefinition;

/** `GET /v1/functions/{name}/deployments`: newest first by default. */
export const DEPLOYMENT_LIST = {
  filters: {},
  sorts: { version: "version", created_at: "created_at" },
} as const satisfies ListDefinition;

/** `GET /v1/functions/{name}/runs`: newest first; `status` and `trigger` filters. */
export const RUN_LIST = {
  filters: {
    status: { kind: "enum", values: RUN_STATUSES },
    trigger: { kind: "enum", values: RUN_TRIGGERS },
  },
  sorts: { created_at: "created_at" },
} as const satisfies ListDefinition;

/** `GET /v1/functions/{name}/logs`: newest first; `level` and `request_id` filters. */
export const LOG_LIST = {
  filters: {
    level: { kind: "enum", values: LOG_LEVELS },
    request_id: { kind: "equals" },
  },
  sorts: { created_at: "created_at" },
} as const satisfies ListDefinition;
