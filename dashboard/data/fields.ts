import { z } from "zod";
import { RESERVED_KEYS } from "../../engines/index.ts";
import type { Form } from "../parts.ts";

/**
 * A resource's create and update forms are derived from its zod schemas (through their JSON
 * Schema, the same one the OpenAPI document shows), so a new resource has forms without dashboard
 * code. A form holds text; this module turns a record into that text and the text into the body
 * the API would take, leaving every judgement of the values to the schema and the service.
 */

export type FieldKind =
  | "text"
  | "long"
  | "email"
  | "decimal"
  | "number"
  | "date"
  | "instant"
  | "choice"
  | "boolean"
  | "list"
  | "rows"
  | "metadata"
  | "json";

export interface FormField {
  name: string;
  kind: FieldKind;
  required: boolean;
  nullable: boolean;
  choices?: readonly string[];
  /** The id prefix of the resource this field names (`con` for `contact_id`): offered as a choice of records. */
  refPrefix?: string;
  /** A list of objects (invoice line items): its columns, one row of inputs per item. */
  columns?: FormField[];
  hint?: string;
}

/** A form's text, by input name (`client`, `line_items[0].quantity`). */
export type Values = Record<string, string>;

interface JsonSchema {
  type?: string | string[];
  enum?: string[];
  anyOf?: JsonSchema[];
  format?: string;
  pattern?: string;
  maxLength?: number;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: unknown;
  description?: string;
}

const DATE_PATTERN = "^\\d{4}-\\d{2}-\\d{2}$";
/** `idOf("con")` in engines/fields.ts: `^con_[0-9A-Za-z]{1,64}$`. */
const ID_PATTERN = /^\^([a-z]+)_\[0-9A-Za-z\]/;
/** Longer text than this gets a text area. */
const SHORT_TEXT = 500;

/** The fields of a body schema, in the schema's order; `omit` leaves some to other controls. */
export function formFields(schema: z.ZodType, omit: ReadonlySet<string> = new Set()): FormField[] {
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonSchema;
  return fieldsOf(json).filter((field) => !omit.has(field.name));
}

function fieldsOf(object: JsonSchema): FormField[] {
  const required = new Set(object.required ?? []);
  return Object.entries(object.properties ?? {}).map(([name, property]) => {
    const variants = property.anyOf ?? [property];
    const value = variants.find((variant) => variant.type !== "null") ?? {};
    return {
      name,
      required: required.has(name),
      nullable: variants.some((variant) => variant.type === "null"),
      ...kindOf(value),
      ...((value.description ?? property.description)
        ? { hint: value.description ?? property.description }
        : {}),
    };
  });
}

function kindOf(schema: JsonSchema): Pick<FormField, "kind" | "choices" | "refPrefix" | "columns"> {
  if (schema.enum) return { kind: "choice", choices: schema.enum };
  const types = [schema.type ?? []].flat();
  if (types.includes("boolean")) return { kind: "boolean" };
  // AmountSchema takes a number or a decimal string: sent as typed, it stays exact.
  if (types.includes("number") && types.includes("string")) return { kind: "decimal" };
  if (types.includes("number") || types.includes("integer")) return { kind: "number" };
  if (types.includes("array")) {
    if (schema.items?.type === "object") return { kind: "rows", columns: fieldsOf(schema.items) };
    return schema.items?.type === "string" ? { kind: "list" } : { kind: "json" };
  }
  if (types.includes("object")) {
    const values = schema.additionalProperties as JsonSchema | undefined;
    return values?.type === "string" && !schema.properties ? { kind: "metadata" } : { kind: "json" };
  }
  if (!types.includes("string")) return { kind: "json" };
  if (schema.format === "date-time") return { kind: "instant" };
  if (schema.format === "email") return { kind: "email" };
  if (schema.pattern === DATE_PATTERN) return { kind: "date" };
  const ref = ID_PATTERN.exec(schema.pattern ?? "");
  if (ref) return { kind: "text", refPrefix: ref[1]! };
  const long = schema.pattern === undefined && (schema.maxLength ?? Infinity) > SHORT_TEXT;
  return { kind: long ? "long" : "text" };
}

/** A record's values as the form's text (to edit it). */
export function valuesOf(fields: readonly FormField[], item: Record<string, unknown>): Values {
  const values: Values = {};
  for (const field of fields) {
    const value = item[field.name];
    if (field.kind !== "rows") {
      values[field.name] = textOf(field, value);
      continue;
    }
    for (const [index, row] of (Array.isArray(value)
      ? (value as Array<Record<string, unknown>>)
      : []
    ).entries()) {
      for (const column of field.columns ?? []) {
        values[cellName(field, index, column)] = textOf(column, row[column.name]);
      }
    }
  }
  return values;
}

function textOf(field: FormField, value: unknown): string {
  if (value === null || value === undefined) return "";
  switch (field.kind) {
    case "list":
      return (value as unknown[]).join(", ");
    case "metadata":
      return Object.entries(value as Record<string, string>)
        .map(([key, text]) => `${key}=${text}`)
        .join("\n");
    case "boolean":
      return value ? "true" : "false";
    default:
      return typeof value === "string" ? value : JSON.stringify(value, null, 2);
  }
}

export const cellName = (field: FormField, index: number, column: FormField): string =>
  `${field.name}[${index}].${column.name}`;

/** The fields' text from a posted form (other names, like `_csrf`, are left behind). */
export function postedValues(fields: readonly FormField[], form: Form): Values {
  const values: Values = {};
  const first = (name: string) => [form[name] ?? ""].flat()[0] ?? "";
  for (const field of fields) {
    if (field.kind !== "rows") {
      values[field.name] = first(field.name);
      continue;
    }
    for (const name of Object.keys(form)) {
      if (name.startsWith(`${field.name}[`)) values[name] = first(name);
    }
  }
  return compactRows(fields, values);
}

/** The number of rows a form's values hold for a rows field. */
export function rowCount(field: FormField, values: Values): number {
  const prefix = `${field.name}[`;
  let count = 0;
  for (const name of Object.keys(values)) {
    if (!name.startsWith(prefix)) continue;
    const index = Number(/^\[(\d{1,4})\]\./.exec(name.slice(field.name.length))?.[1]);
    if (Number.isInteger(index)) count = Math.max(count, index + 1);
  }
  return count;
}

/**
 * Rows renumbered without the blank ones: the body's `line_items[1]` is then the form's row 2, so
 * an error the API names by index shows beside the row it is about.
 */
function compactRows(fields: readonly FormField[], values: Values): Values {
  const compacted: Values = { ...values };
  for (const field of fields.filter((candidate) => candidate.kind === "rows")) {
    const columns = field.columns ?? [];
    const rows = Array.from({ length: rowCount(field, values) }, (_, index) =>
      columns.map((column) => values[cellName(field, index, column)] ?? ""),
    ).filter((cells) => cells.some((cell) => cell.trim() !== ""));
    for (const name of Object.keys(compacted)) if (name.startsWith(`${field.name}[`)) delete compacted[name];
    for (const [index, cells] of rows.entries()) {
      for (const [position, column] of columns.entries()) {
        compacted[cellName(field, index, column)] = cells[position]!;
      }
    }
  }
  return compacted;
}

/** The fields whose text differs between two versions of a form (an edit sends only these). */
export function changedFields(fields: readonly FormField[], before: Values, after: Values): FormField[] {
  const belongs = (field: FormField, name: string) =>
    name === field.name || (field.kind === "rows" && name.startsWith(`${field.name}[`));
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  return fields.filter((field) =>
    [...names].some((name) => belongs(field, name) && (before[name] ?? "") !== (after[name] ?? "")),
  );
}

/**
 * The body the API would take from the form's text. A blank field is left out of a create (the
 * schema's default applies) and cleared in an edit (null where the schema allows it). Text that
 * cannot be read as the field's shape (metadata lines, JSON) is an error at that field; all else
 * is the schema's to judge.
 */
export function bodyOf(
  fields: readonly FormField[],
  values: Values,
  mode: "create" | "update",
): { body: Record<string, unknown>; errors: Record<string, string> } {
  const body: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const field of fields) {
    if (field.kind === "rows") {
      const rows = rowsOf(field, values, errors);
      if (rows.length > 0 || mode === "update") body[field.name] = rows;
      continue;
    }
    const text = values[field.name] ?? "";
    if (text.trim() === "") {
      if (mode === "update" && field.kind !== "boolean") body[field.name] = blankOf(field);
      continue;
    }
    const read = readText(field, text);
    if ("error" in read) errors[field.name] = read.error;
    else body[field.name] = read.value;
  }
  return { body, errors };
}

function rowsOf(
  field: FormField,
  values: Values,
  errors: Record<string, string>,
): Array<Record<string, unknown>> {
  return Array.from({ length: rowCount(field, values) }, (_, index) => {
    const row: Record<string, unknown> = {};
    for (const column of field.columns ?? []) {
      const name = cellName(field, index, column);
      const text = values[name] ?? "";
      if (text.trim() === "") continue;
      const read = readText(column, text);
      if ("error" in read) errors[name] = read.error;
      else row[column.name] = read.value;
    }
    return row;
  });
}

/** What a cleared field of an edit sends: null where allowed, else the empty value the schema judges. */
function blankOf(field: FormField): unknown {
  if (field.nullable) return null;
  if (field.kind === "list") return [];
  if (field.kind === "metadata") return {};
  return "";
}

function readText(field: FormField, text: string): { value: unknown } | { error: string } {
  switch (field.kind) {
    case "decimal":
      return { value: text.trim() };
    case "number":
      return { value: Number.isFinite(Number(text)) ? Number(text) : text };
    case "boolean":
      return { value: text === "true" };
    case "list":
      return {
        value: text
          .split(",")
          .map((entry) => entry.trim())
          .filter(Boolean),
      };
    case "metadata":
      return metadataOf(text);
    case "json":
      try {
        return { value: JSON.parse(text) as unknown };
      } catch {
        return { error: "must be JSON" };
      }
    default:
      return { value: text };
  }
}

/** `key=value` lines (blank lines skipped) as a string map. */
function metadataOf(text: string): { value: Record<string, string> } | { error: string } {
  const value: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === "") continue;
    const at = line.indexOf("=");
    if (at < 1) return { error: `each line is key=value; '${line.slice(0, 40)}' is not` };
    const key = line.slice(0, at).trim();
    // Assigned, `__proto__` would set the map's prototype and vanish: refused as the API refuses it.
    if (RESERVED_KEYS.has(key)) return { error: `a key must not be __proto__, constructor or prototype` };
    value[key] = line.slice(at + 1).trim();
  }
  return { value };
}
