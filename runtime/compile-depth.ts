/**
 * The compiler's first line against sources it cannot take: brackets nested past this are refused
 * before esbuild sees them (its parser recurses, and 7,000 `[` overflow its stack; compile-guard.ts
 * is the guarantee for the shapes without brackets). Code people write nests a few dozen deep.
 */
export const MAX_SOURCE_NESTING = 1_000;

/** Where nesting first goes past the limit: 1-based line, 0-based column (esbuild's convention). */
export interface DeepNesting {
  line: number;
  column: number;
  lineText: string;
}

/**
 * The first opening `(`, `[`, `{` or `${` past `maxDepth` levels in a JS/TS/JSON source, or
 * undefined. Strings, template text, comments and regular expression literals are skipped,
 * approximately (a `/` after a value is division; a string ends at its line's end), which is enough
 * for a bound this far from real code. One pass, no recursion.
 *
 * @example
 *   nestingPastLimit("f([[1]])", 2); // { line: 1, column: 3, lineText: "f([[1]])" }
 */
export function nestingPastLimit(source: string, maxDepth = MAX_SOURCE_NESTING): DeepNesting | undefined {
  const open: string[] = [];
  let line = 1;
  let lineStart = 0;
  let lastSignificant = "";
  for (let i = 0; i < source.length; i++) {
    const char = source[i]!;
    if (char === "\n") {
      line++;
      lineStart = i + 1;
      continue;
    }
    if (char === " " || char === "\t" || char === "\r") continue;
    const skipTo = skipped(source, i, lastSignificant, open);
    if (skipTo !== undefined) {
      for (let j = i; j < skipTo; j++) {
        if (source[j] === "\n") {
          line++;
          lineStart = j + 1;
        }
      }
      if (open.length > maxDepth) return at(source, line, lineStart, skipTo - 2);
      const comment = char === "/" && (source[i + 1] === "/" || source[i + 1] === "*");
      // What the skipped text ends with decides how a `/` after it reads: `${` opens code, a regex is a value.
      if (!comment) lastSignificant = char === "/" ? "x" : source[skipTo - 1]!;
      i = skipTo - 1;
      continue;
    }
    if (char === "(" || char === "[" || char === "{") {
      open.push(char);
      if (open.length > maxDepth) return at(source, line, lineStart, i);
    } else if (char === ")" || char === "]" || char === "}") {
      open.pop();
    }
    lastSignificant = char;
  }
  return undefined;
}

/**
 * When a string, comment, regular expression or template text starts at `i`: the index just past
 * it. A template's `${` pushes "`" on `open` (and counts as a level); the `}` that closes it resumes
 * the template text.
 */
function skipped(source: string, i: number, lastSignificant: string, open: string[]): number | undefined {
  const char = source[i]!;
  const next = source[i + 1];
  if (char === "/" && next === "/") return untilLineEnd(source, i);
  if (char === "/" && next === "*") {
    const end = source.indexOf("*/", i + 2);
    return end < 0 ? source.length : end + 2;
  }
  if (char === '"' || char === "'") return quoted(source, i + 1, char);
  if (char === "/" && !AFTER_VALUE.test(lastSignificant)) return regex(source, i + 1);
  if (char === "`") return template(source, i + 1, open);
  if (char === "}" && open.at(-1) === "`") {
    open.pop();
    return template(source, i + 1, open);
  }
  return undefined;
}

/** A `/` after one of these divides; after anything else it starts a regular expression. */
const AFTER_VALUE = /^[\w$)\]}`"'.]$/;

function untilLineEnd(source: string, i: number): number {
  const end = source.indexOf("\n", i);
  return end < 0 ? source.length : end;
}

function quoted(source: string, i: number, quote: string): number {
  for (; i < source.length; i++) {
    const char = source[i];
    if (char === "\\") i++;
    else if (char === quote) return i + 1;
    else if (char === "\n") return i;
  }
  return i;
}

function regex(source: string, i: number): number {
  let inClass = false;
  for (; i < source.length; i++) {
    const char = source[i];
    if (char === "\\") i++;
    else if (char === "\n") return i;
    else if (char === "[") inClass = true;
    else if (char === "]") inClass = false;
    else if (char === "/" && !inClass) return i + 1;
  }
  return i;
}

/** Template text from `i` up to its closing backtick, or through a `${` (pushed on `open`). */
function template(source: string, i: number, open: string[]): number {
  for (; i < source.length; i++) {
    const char = source[i];
    if (char === "\\") i++;
    else if (char === "`") return i + 1;
    else if (char === "$" && source[i + 1] === "{") {
      open.push("`");
      return i + 2;
    }
  }
  return i;
}

function at(source: string, line: number, lineStart: number, i: number): DeepNesting {
  const lineEnd = untilLineEnd(source, lineStart);
  return {
    line,
    column: i - lineStart,
    lineText: source.slice(lineStart, Math.min(lineEnd, lineStart + 200)),
  };
}
