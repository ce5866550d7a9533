import { z } from "zod";

/**
 * The host↔guest message set. A guest program defines
 * `globalThis.__tessera_dispatch(message: string): Promise<string>`; the host sends
 * a JSON `GuestMessage` and checks the JSON answer against `GuestReplySchema`
 * before anything of it reaches the host (STYLE.md, principle 2). Strings cross the
 * boundary, never references: nothing of the host is reachable from the guest.
 */

export const GUEST_ENTRY = "__tessera_dispatch";

export const GuestMessageSchema = z.object({
  kind: z.literal("request"),
  requestId: z.string(),
  method: z.string(),
  url: z.string(),
  headers: z.array(z.tuple([z.string(), z.string()])),
  /** Base64 of the body bytes; null when there is none. */
  body: z.string().nullable(),
});
export type GuestMessage = z.infer<typeof GuestMessageSchema>;

export const GuestReplySchema = z.object({
  status: z.number().int().min(200).max(599),
  headers: z.array(z.tuple([z.string(), z.string()])).max(1000),
  /** Base64 of the body bytes; null when there is none. */
  body: z.string().nullable(),
  /** `console.*` lines of this request, in order. */
  logs: z
    .array(z.object({ level: z.enum(["debug", "info", "log", "warn", "error"]), message: z.string() }))
    .max(10_000)
    .default([]),
});
export type GuestReply = z.infer<typeof GuestReplySchema>;
