import { z } from "zod";
import type { EventType } from "../engines/index.ts";

/**
 * A made-up `data` for an event kind, shaped as the real events of that kind are: every property
 * of the kind's object schema (`GET /v1/event_types`), from its `const`, `example`, `default` or
 * first `enum` value, else a plain value of its type. `POST /v1/functions/{id}/trigger` sends it
 * when the caller gives no data, as `stripe trigger` sends a fixture.
 *
 * @example
 *   sampleEventData(catalog.find((t) => t.type === "contact.created")!, now);
 *   // { object: { id: "con_3kTqZ9", object: "contact", name: "Ada Lovelace", email: "ada@example.com", … } }
 */
export function sampleEventData(eventType: EventType, now: Date): { object: Record<string, unknown> } {
  const schema = z.toJSONSchema(eventType.object, { unrepresentable: "any" }) as JsonSchema;
  return sampleData(schema, schema, now);
}

/**
 * The same sample from the JSON Schema of the event's envelope that `GET /v1/event_types` serves
 * (`eventJsonSchema`): what `tessera functions trigger --local` sends, away from the catalog's code.
 */
export function sampleEventDataFromSchema(envelope: unknown, now: Date): { object: Record<string, unknown> } {
  const root = (isRecord(envelope) ? envelope : {}) as JsonSchema;
  return sampleData(root, root.properties?.data?.properties?.object ?? {}, now);
}

function sampleData(root: JsonSchema, node: JsonSchema, now: Date): { object: Record<string, unknown> } {
  const object = sampleOf(root, node, "", 0, now.toISOString());
  return { object: isRecord(object) ? object : {} };
}

/** The part of JSON Schema (2020-12) a sample reads. */
interface JsonSchema {
  $ref?: string;
  $defs?: Record<string, JsonSchema>;
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  example?: unknown;
  examples?: unknown[];
  default?: unknown;
  format?: string;
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
}

/** Deeper than any object of the catalog: a recursive schema stops here. */
const MAX_DEPTH = 8;

function sampleOf(root: JsonSchema, node: JsonSchema, name: string, depth: number, now: string): unknown {
  if (depth > MAX_DEPTH) return null;
  const next = (child: JsonSchema, childName = name) => sampleOf(root, child, childName, depth + 1, now);
  if (node.$ref) return next(resolveRef(root, node.$ref));
  if ("const" in node) return node.const;
  if (node.example !== undefined) return node.example;
  if (node.examples?.length) return node.examples[0];
  if (node.default !== undefined) return node.default;
  if (node.enum?.length) return node.enum[0];
  const variants = node.anyOf ?? node.oneOf;
  if (variants?.length) return next(variants.find((variant) => variant.type !== "null") ?? variants[0]!);
  if (node.allOf?.length) return Object.assign({}, ...node.allOf.map((part) => next(part)));
  const types = Array.isArray(node.type) ? node.type : node.type ? [node.type] : [];
  // A nullable property gets a value: the sample shows what the field holds when it holds one.
  const type = types.find((t) => t !== "null") ?? types[0] ?? (node.properties ? "object" : undefined);
  switch (type) {
    case "object":
      return Object.fromEntries(
        Object.entries(node.properties ?? {}).map(([key, child]) => [key, next(child, key)]),
      );
    case "array":
      return node.items ? [next(node.items)] : [];
    case "string":
      return sampleString(node.format, name, now);
    case "integer":
    case "number":
      // Zero where the bounds allow it (an integer's bounds are often the safe-integer range).
      return Math.min(
        Math.max(0, node.minimum ?? 0, (node.exclusiveMinimum ?? -1) + 1),
        node.maximum ?? Number.POSITIVE_INFINITY,
      );
    case "boolean":
      return false;
    default:
      return null;
  }
}

/** A string a reader takes for what the property is: a timestamp for `*_at`, an address for `email`. */
function sampleString(format: string | undefined, name: string, now: string): string {
  if (format === "date-time" || name.endsWith("_at")) return now;
  if (format === "date" || name.endsWith("_date") || name === "date") return now.slice(0, 10);
  if (format === "email" || name.endsWith("email")) return "ada@example.com";
  if (format === "uri" || format === "url" || name.endsWith("url")) return "https://example.com/";
  if (name === "name") return "Ada Lovelace";
  if (name === "currency") return "usd";
  return "sample";
}

function resolveRef(root: JsonSchema, ref: string): JsonSchema {
  const name = /^#\/\$defs\/(.+)$/.exec(ref)?.[1];
  return (name && root.$defs?.[decodeURIComponent(name)]) || {};
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
