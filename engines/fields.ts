import { z } from "zod";
import { decimalPlaces, isDecimal, normalizeDecimal } from "../core/index.ts";

/**
 * Field schemas every resource shares. Amounts and dates are strict: a lowercase
 * currency, a negative amount, or `2024-02-30` is refused, never coerced.
 */

export const MAX_METADATA_KEYS = 50;

/**
 * Keys a string map from a client may not have: `__proto__` sets an object's prototype when
 * assigned (so it would be dropped, or worse), and `constructor` and `prototype` are what
 * prototype-pollution gadgets in a consumer's merge or lookup (`obj[key]`) go through.
 */
export const RESERVED_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

/** Stripe-style metadata: up to 50 string keys (≤ 40 chars) with string values (≤ 500). */
export const MetadataSchema = z
  .record(z.string().min(1).max(40), z.string().max(500))
  .superRefine((metadata, ctx) => {
    // `""` still removes one stored before these keys were refused (a PATCH's convention).
    for (const key of RESERVED_KEYS) {
      if (Object.hasOwn(metadata, key) && metadata[key] !== "") {
        ctx.addIssue({
          code: "custom",
          path: [key],
          message: "must not be __proto__, constructor or prototype",
        });
      }
    }
  })
  .refine((value) => Object.keys(value).length <= MAX_METADATA_KEYS, {
    message: `at most ${MAX_METADATA_KEYS} keys`,
  })
  .meta({ description: "Your own key-value pairs (string values)." });

export const CurrencySchema = z
  .string()
  .regex(/^[A-Z]{3}$/, "must be an ISO 4217 code in uppercase, e.g. EUR")
  .meta({ example: "EUR" });

/**
 * A non-negative money amount below 10^11 with at most 4 decimal places, as a JSON number or a
 * decimal string; normalized to a canonical decimal string for `numeric` storage.
 */
export const AmountSchema = z
  .union([z.number(), z.string()])
  .transform((value, ctx) => {
    const text = typeof value === "number" ? numberToDecimal(value) : value.trim();
    if (text === undefined || !isDecimal(text)) {
      ctx.addIssue({ code: "custom", message: "must be a decimal number" });
      return z.NEVER;
    }
    if (text.startsWith("-")) {
      ctx.addIssue({ code: "custom", message: "must not be negative" });
      return z.NEVER;
    }
    if (decimalPlaces(text) > 4) {
      ctx.addIssue({ code: "custom", message: "must have at most 4 decimal places" });
      return z.NEVER;
    }
    // 11 integer + 4 fractional digits stay within a double's 15 exact digits, so
    // the JSON number rendered back is the stored decimal, exactly.
    if (text.replace(/\..*/, "").replace(/^0+/, "").length > 11) {
      ctx.addIssue({ code: "custom", message: "is too large" });
      return z.NEVER;
    }
    return normalizeDecimal(text);
  })
  .meta({ description: "Decimal amount, e.g. 1250.5", example: 1250.5 });

function numberToDecimal(value: number): string | undefined {
  if (!Number.isFinite(value)) return undefined;
  // Shortest round-trip form; exponent notation is refused by isDecimal.
  return String(value);
}

/** A real calendar date `YYYY-MM-DD` from 0001-01-01 (rejects `2024-02-30`). */
export const DateSchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, "must be a date YYYY-MM-DD")
  .refine(isRealDate, "is not a real calendar date")
  .meta({ example: "2025-03-31" });

export function isRealDate(value: string): boolean {
  const date = new Date(`${value}T00:00:00Z`);
  // PostgreSQL's calendar has no year 0 (1 BC precedes AD 1): `0000-…` would fail in the store.
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value && value >= "0001";
}

/** The instants `timestamptz` stores and renders as RFC 3339: years 0001 to 9999 in UTC. */
export const EARLIEST_INSTANT_MS = Date.parse("0001-01-01T00:00:00Z");
export const LATEST_INSTANT_MS = Date.parse("9999-12-31T23:59:59.999Z");

/**
 * An RFC 3339 timestamp with offset; stored as `timestamptz`. An offset can carry a
 * valid-looking time into year 0 or 10000 in UTC, which the store refuses: refused here.
 */
export const TimestampSchema = z.iso
  .datetime({ offset: true })
  .refine((value) => {
    const ms = Date.parse(value);
    return ms >= EARLIEST_INSTANT_MS && ms <= LATEST_INSTANT_MS;
  }, "must be from year 0001 to 9999 in UTC")
  .meta({ example: "2025-03-31T09:30:00Z" });

export const EmailSchema = z.email().max(254);

/** Short free text: trimmed, non-empty, bounded. */
export const text = (max = 200) => z.string().trim().min(1).max(max);

/** Ids of another resource, checked for existence in the caller's organization. */
export const idOf = (prefix: string) =>
  z.string().regex(new RegExp(`^${prefix}_[0-9A-Za-z]{1,64}$`), `must be an id starting with ${prefix}_`);
