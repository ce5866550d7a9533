import { MONTH_NAMES } from "./clock.ts";

/**
 * Cron expressions as node-cron reads them: five fields (minute hour day-of-month month
 * day-of-week) or six with seconds first; each field a comma list of `*`, `N`, `N-M`, each
 * optionally `/step`; months and weekdays also by name (`jan`, `mon`). Checked here so a
 * bad schedule stops the process at start with the variable's name (core imports no cron
 * library; test/core/cron.test.ts holds this to node-cron's own `validate`).
 *
 * @example
 *   cronProblem("0 * * * *"); // undefined
 *   cronProblem("0 25 * * *"); // "hour: 25 is outside 0-23"
 */

interface Field {
  name: string;
  min: number;
  max: number;
  names?: readonly string[];
}

const MONTHS = MONTH_NAMES.map((name) => name.slice(0, 3));
const WEEKDAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];
const FULL_MONTHS = MONTH_NAMES;
const FULL_WEEKDAYS = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"];

const FIELDS: readonly Field[] = [
  { name: "second", min: 0, max: 59 },
  { name: "minute", min: 0, max: 59 },
  { name: "hour", min: 0, max: 23 },
  { name: "day of month", min: 1, max: 31 },
  { name: "month", min: 1, max: 12, names: MONTHS },
  { name: "day of week", min: 0, max: 7, names: WEEKDAYS },
];

/** Why `expression` is not a cron expression, or undefined when it is one. */
export function cronProblem(expression: string): string | undefined {
  const parts = expression.trim().split(/\s+/);
  if (parts.length !== 5 && parts.length !== 6) {
    return "must have 5 fields (minute hour day-of-month month day-of-week) or 6 (seconds first)";
  }
  const fields = parts.length === 5 ? FIELDS.slice(1) : FIELDS;
  for (const [index, part] of parts.entries()) {
    const problem = fieldProblem(part, fields[index]!);
    if (problem) return `${fields[index]!.name}: ${problem}`;
  }
  return undefined;
}

function fieldProblem(part: string, field: Field): string | undefined {
  for (const item of part.split(",")) {
    const [range, step, ...rest] = item.split("/");
    if (rest.length > 0 || range === undefined) return `'${item}' is not a value, range or step`;
    if (step !== undefined && !/^[1-9]\d*$/.test(step)) return `step '${step}' must be a positive integer`;
    if (range === "*") continue;
    const bounds = range.split("-");
    if (bounds.length > 2) return `'${range}' is not a value or range`;
    const values = bounds.map((bound) => valueOf(bound, field));
    for (const [i, value] of values.entries()) {
      if (value === undefined) return `'${bounds[i]}' is not a value`;
      if (value < field.min || value > field.max) return `${value} is outside ${field.min}-${field.max}`;
    }
  }
  return undefined;
}

function valueOf(text: string, field: Field): number | undefined {
  if (/^\d+$/.test(text)) return Number(text);
  const lower = text.toLowerCase();
  if (field.names === MONTHS) {
    const index = Math.max(MONTHS.indexOf(lower), FULL_MONTHS.indexOf(lower));
    return index >= 0 ? index + 1 : undefined;
  }
  if (field.names === WEEKDAYS) {
    const index = Math.max(WEEKDAYS.indexOf(lower), FULL_WEEKDAYS.indexOf(lower));
    return index >= 0 ? index : undefined;
  }
  return undefined;
}
