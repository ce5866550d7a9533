/**
 * Shown output against real output, loosely: what a page promises, not what changes from run
 * to run. Ids, timestamps, keys and counts differ every run; the shape and the words do not.
 *
 * JSON: every key shown is there, with the same JSON type; `"…": "…"` stands for keys left
 * out, `{ "…": "…" }` in an array for elements left out, and a string with `…` in it for any
 * string. The values of the keys that name a state or a kind (`PROMISED`) must be equal.
 * Text: every shown line stands, in order, among the real lines, where `…` matches anything
 * and ids, numbers and timestamps match any id, number and timestamp.
 */
const PROMISED = new Set([
  "object",
  "status",
  "code",
  "type",
  "title",
  "kind",
  "currency",
  "stage",
  "level",
  "channel",
  "lifecycle_stage",
  "plan",
  "name",
  "param",
]);
const ELLIPSIS = "…";

/** Problems found, each naming the path in the shown value; empty when it holds. */
export function compareJson(shown: unknown, actual: unknown, path = "$"): string[] {
  if (typeof shown === "string" && shown.includes(ELLIPSIS)) {
    return typeof actual === "string" ? [] : [`${path}: a string is shown, got ${kind(actual)}`];
  }
  if (kind(shown) !== kind(actual)) return [`${path}: ${kind(shown)} is shown, got ${kind(actual)}`];
  if (Array.isArray(shown)) {
    const items = shown.filter((item) => !isElided(item));
    const problems: string[] = [];
    const real = actual as unknown[];
    if (real.length < items.length) problems.push(`${path}: ${items.length} items shown, got ${real.length}`);
    items.forEach((item, i) => {
      if (i < real.length) problems.push(...compareJson(item, real[i], `${path}[${i}]`));
    });
    return problems;
  }
  if (shown !== null && typeof shown === "object") {
    const real = actual as Record<string, unknown>;
    const problems: string[] = [];
    for (const [key, value] of Object.entries(shown)) {
      if (key === ELLIPSIS) continue;
      if (!(key in real)) {
        problems.push(`${path}.${key}: shown, missing`);
        continue;
      }
      if (PROMISED.has(key) && typeof value === "string" && !value.includes(ELLIPSIS)) {
        if (real[key] !== value)
          problems.push(`${path}.${key}: "${value}" is shown, got ${JSON.stringify(real[key])}`);
        continue;
      }
      problems.push(...compareJson(value, real[key], `${path}.${key}`));
    }
    return problems;
  }
  return [];
}

function isElided(value: unknown): boolean {
  return (
    value !== null &&
    typeof value === "object" &&
    !Array.isArray(value) &&
    Object.keys(value).length === 1 &&
    ELLIPSIS in value
  );
}

function kind(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

/**
 * Every JSON value in `text`, one after another (curl prints them without separators); lines
 * that are not JSON (a CLI's own words, HTTP headers) are passed over.
 */
export function jsonValues(text: string): unknown[] {
  const values: unknown[] = [];
  let rest = text.trim();
  while (rest) {
    const end = endOfValue(rest);
    let parsed = false;
    if (end > 0) {
      try {
        values.push(JSON.parse(rest.slice(0, end)));
        parsed = true;
      } catch {
        parsed = false;
      }
    }
    const newline = rest.indexOf("\n");
    rest = parsed ? rest.slice(end).trim() : newline < 0 ? "" : rest.slice(newline + 1).trim();
  }
  return values;
}

/** Where the JSON value at the start of `text` ends (-1: not JSON). */
function endOfValue(text: string): number {
  if (text[0] !== "{" && text[0] !== "[") {
    const token = /^("(?:[^"\\]|\\.)*"|-?\d[\d.eE+-]*|true|false|null)/.exec(text);
    return token ? token[0].length : -1;
  }
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{" || c === "[") depth++;
    else if ((c === "}" || c === "]") && --depth === 0) return i + 1;
  }
  return -1;
}

/** An id or a secret: a lowercase prefix, `_`, then letters and digits (base64: `+`, `/`, `=` too). */
const ID = /\b[a-z]+(?:_[a-z]+)*_[A-Za-z0-9+/]{6,}={0,2}(?![A-Za-z0-9])/g;
const TIMESTAMP = /\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?Z?)?/g;
const NUMBER = /\d+(?:\.\d+)?/g;

/** An id the page shortened (`req_…`): any id of that kind. */
const SHORT_ID = /\b[a-z]+(?:_[a-z]+)*_…/g;

/** A line made loose: ids, timestamps and numbers as placeholders, `…` as a wildcard. */
function loose(line: string): string {
  return line
    .trim()
    .replace(TIMESTAMP, "\u0001")
    .replace(SHORT_ID, "\u0002…")
    .replace(ID, "\u0002")
    .replace(NUMBER, "\u0003");
}

function linePattern(shown: string): RegExp {
  const parts = loose(shown)
    .split(ELLIPSIS)
    .map((part) =>
      part
        .replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
        .replaceAll("\u0001", "\\u0001")
        .replaceAll("\u0002", "\\u0002")
        .replaceAll("\u0003", "\\u0003"),
    );
  return new RegExp(`^${parts.join(".*")}$`);
}

/** Shown text lines that do not stand, in order, among the actual ones. */
export function compareText(shown: string, actual: string): string[] {
  const real = actual.split("\n").map(loose);
  let from = 0;
  const problems: string[] = [];
  for (const line of shown.split("\n")) {
    if (line.trim() === "" || line.trim() === ELLIPSIS) continue;
    const pattern = linePattern(line);
    const at = real.findIndex((candidate, i) => i >= from && pattern.test(candidate));
    if (at < 0) problems.push(`not in the output: ${line.trim()}`);
    else from = at + 1;
  }
  return problems;
}
