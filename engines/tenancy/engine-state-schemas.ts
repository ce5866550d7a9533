import { z } from "zod";
import { ENGINES } from "../resource.ts";
import { jsonValueProblem, keyProblem, MAX_STATE_KEY_LENGTH } from "./engine-state-rules.ts";

/**
 * Engine state at the HTTP boundary: the key, the `PUT` body and the rendered entry,
 * for validation and for the OpenAPI document alike.
 */

/** A key: 1–512 characters (code points), no control characters, not `.` or `..`. */
export const EngineStateKeySchema = z
  .string()
  .superRefine((key, ctx) => {
    const problem = keyProblem(key, 1);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  })
  .meta({
    description: `1-${MAX_STATE_KEY_LENGTH} characters, no control characters; percent-encoded in the path (encodeURIComponent)`,
    example: "sync/cursor",
  });

/** Any JSON value whose compact serialization is at most 64 KiB of UTF-8. */
export const EngineStateValueSchema = z
  .unknown()
  .superRefine((value, ctx) => {
    if (value === undefined) {
      ctx.addIssue({ code: "custom", message: "is required: any JSON value, null included" });
      return;
    }
    const problem = jsonValueProblem(value);
    if (problem) ctx.addIssue({ code: "custom", message: problem.message, path: problem.path });
  })
  .meta({
    description: "Any JSON value (object, array, string, number, boolean, null), at most 64 KiB as JSON",
    example: { page: 3, synced_at: "2025-03-15T10:00:00Z" },
  });

export const EngineStatePutSchema = z
  .object({ value: EngineStateValueSchema })
  .strict()
  .meta({ id: "EngineStatePut" });
export type EngineStatePut = z.infer<typeof EngineStatePutSchema>;

/** One entry as the API renders it. */
export const EngineStateEntrySchema = z
  .object({
    object: z.literal("engine_state_entry"),
    engine: z.enum(ENGINES),
    key: z.string(),
    value: z.unknown().meta({ description: "The stored JSON value" }),
    version: z.number().int().meta({ description: "1 when created, + 1 on every write; the ETag" }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "EngineStateEntry" });
export type EngineStateEntryObject = z.infer<typeof EngineStateEntrySchema>;

/** A page of entries in key order; `next_cursor` is null on the last page. */
export const EngineStatePageSchema = z
  .object({
    data: z.array(EngineStateEntrySchema),
    meta: z.object({
      next_cursor: z.string().nullable().meta({ description: "Pass as `cursor` for the next page" }),
      limit: z.number().int(),
    }),
  })
  .meta({ id: "EngineStatePage" });
