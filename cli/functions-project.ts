import { readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { z } from "zod";
import {
  FunctionLimitsSchema,
  FunctionNameSchema,
  MAX_TRIGGERS,
  stripJsonComments,
  type FunctionDeploy,
  type Trigger,
} from "../runtime/index.ts";

/**
 * The `tessera` section of a function folder's `deno.json`: what `tessera functions deploy DIR`
 * sends besides the files, kept next to the code as `wrangler.toml` keeps a Worker's triggers.
 * Deno ignores a key it does not know, so the file stays the function's Deno configuration.
 *
 * @example
 *   { "tessera": { "name": "welcome", "public": false, "limits": { "cpu_time_ms": 200 },
 *                  "events": ["contact.created"], "cron": ["0 8 * * mon-fri", { "schedule": "0 0 1 * *", "timezone": "Europe/Berlin" }] } }
 */
export const ProjectSectionSchema = z
  .object({
    name: FunctionNameSchema.optional(),
    /** true: anyone may invoke it (`auth: "public"`); false: an API key is needed (`auth: "key"`). */
    public: z.boolean().optional(),
    limits: FunctionLimitsSchema.partial().strict().optional(),
    /** Event kinds (`GET /v1/event_types`) or families (`invoice.*`) that run it. */
    events: z.array(z.string().min(1).max(100)).max(50).optional(),
    /** Five-field cron schedules, each in UTC or its own time zone. */
    cron: z
      .array(
        z.union([
          z.string().min(1).max(100),
          z
            .object({ schedule: z.string().min(1).max(100), timezone: z.string().min(1).max(64).optional() })
            .strict(),
        ]),
      )
      .max(MAX_TRIGGERS)
      .optional(),
  })
  .strict();
export type ProjectSection = z.infer<typeof ProjectSectionSchema>;

const CONFIG_FILES = ["deno.json", "deno.jsonc"];

/** A `tessera` section that is not as `ProjectSectionSchema` says: the message names the file and the key. */
export class ProjectError extends Error {}

/**
 * The folder's `tessera` section: `{}` when there is no deno.json, no section, or a deno.json that
 * is not JSON (the server refuses that one and says why). Throws `ProjectError` naming the first
 * bad key: `deno.json: tessera.limits.memory_mb: expected number, received string`.
 */
export function readProjectSection(dir: string): ProjectSection {
  const file = CONFIG_FILES.find((name) => readText(join(dir, name)) !== undefined);
  if (!file) return {};
  let config: unknown;
  try {
    config = JSON.parse(stripJsonComments(readText(join(dir, file))!));
  } catch {
    return {};
  }
  if (typeof config !== "object" || config === null || !("tessera" in config)) return {};
  const parsed = ProjectSectionSchema.safeParse(config.tessera);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const unknownKey = issue.code === "unrecognized_keys" ? issue.keys[0] : undefined;
  const path = [...issue.path, ...(unknownKey ? [unknownKey] : [])].reduce<string>(
    (at, key) => (typeof key === "number" ? `${at}[${key}]` : `${at}.${String(key)}`),
    "tessera",
  );
  const why =
    unknownKey !== undefined
      ? `unknown key (one of ${keysAt(issue.path).join(", ")})`
      : issue.code === "invalid_union"
        ? `expected a schedule ("0 8 * * *") or { "schedule": …, "timezone": … }`
        : issue.message.replace(/^Invalid input: /, "");
  throw new ProjectError(`${file}: ${path}: ${why}`);
}

/** The deploy flags that override the section. */
export interface DeployFlags {
  name?: string | undefined;
  public?: boolean | undefined;
  private?: boolean | undefined;
  entrypoint?: string | undefined;
  event?: string[] | undefined;
  cron?: string[] | undefined;
  timezone?: string | undefined;
  "no-triggers"?: boolean | undefined;
}

/**
 * A deploy's settings from the folder's section and the flags, the flags winning: `--name`,
 * `--public`/`--private`, `--event` (replaces the section's `events`), `--cron` (replaces its
 * `cron`), `--timezone` (every schedule's), `--no-triggers` (none at all). Triggers are left out,
 * keeping the serving deployment's, only when neither the section nor the flags name any kind.
 */
export function deploySettings(
  dir: string,
  section: ProjectSection,
  flags: DeployFlags,
): Omit<FunctionDeploy, "files"> {
  const isPublic = flags.public ? true : flags.private ? false : section.public;
  const triggers = triggersOf(section, flags);
  return {
    name: flags.name ?? section.name ?? basename(dir).toLowerCase(),
    ...(flags.entrypoint ? { entrypoint: flags.entrypoint } : {}),
    ...(isPublic !== undefined ? { auth: isPublic ? "public" : "key" } : {}),
    ...(section.limits ? { limits: section.limits } : {}),
    ...(triggers ? { triggers } : {}),
  };
}

function triggersOf(section: ProjectSection, flags: DeployFlags): Trigger[] | undefined {
  if (flags["no-triggers"]) return [];
  const flagEvents = (flags.event ?? [])
    .flatMap((list) => list.split(","))
    .map((type) => type.trim())
    .filter(Boolean);
  const events = flagEvents.length > 0 ? flagEvents : section.events;
  const crons = flags.cron?.length ? flags.cron : section.cron;
  if (events === undefined && crons === undefined) return undefined;
  const timezone = (own: string | undefined) => {
    const zone = flags.timezone ?? own;
    return zone ? { timezone: zone } : {};
  };
  return [
    ...(events?.length ? [{ type: "event" as const, events }] : []),
    ...(crons ?? []).map((entry) =>
      typeof entry === "string"
        ? { type: "cron" as const, schedule: entry, ...timezone(undefined) }
        : { type: "cron" as const, schedule: entry.schedule, ...timezone(entry.timezone) },
    ),
  ];
}

/** The keys the object at `path` of the section takes. */
function keysAt(path: readonly PropertyKey[]): string[] {
  if (path[0] === "limits") return Object.keys(FunctionLimitsSchema.shape);
  if (path[0] === "cron") return ["schedule", "timezone"];
  return Object.keys(ProjectSectionSchema.shape);
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}
