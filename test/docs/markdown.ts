/**
 * The runnable parts of a Markdown page, in order: shell, TypeScript (```ts, ```typescript) and
 * Python (```python) blocks to run, each with the output blocks the page shows after it, and the
 * directives written above them.
 *
 * A directive is an HTML comment on the line before a block (readers of the rendered page
 * do not see it): `<!-- doctest: skip — why -->` leaves a block unrun (say why),
 * `<!-- doctest: exit N -->` says the block is meant to end with status N (an error shown), and
 * `<!-- doctest: not output -->` marks a json/text block that is not the output above it. Shell
 * blocks only: `<!-- doctest: background until "TEXT" -->` starts one in the background and waits
 * for TEXT in its output, and `<!-- doctest: run "COMMAND" -->` runs COMMAND in its place (the
 * command a test run can stand in for, such as `npm start` for `npm ci && npm start`).
 */
export interface CodeBlock {
  /** 1-based line of the opening fence, for messages. */
  line: number;
  lang: Lang;
  code: string;
  skip?: string;
  background?: string;
  /** What runs in the block's place (`run "…"`). */
  replacement?: string;
  /** The exit status the block ends with, when it is meant to fail (`exit N`). */
  exit?: number;
  /** The json and text blocks right after it (before any heading or other block to run). */
  outputs: OutputBlock[];
}

export interface OutputBlock {
  line: number;
  lang: "json" | "text";
  text: string;
}

export type Lang = "shell" | "typescript" | "python";

const LANGS = new Map<string, Lang>([
  ["sh", "shell"],
  ["bash", "shell"],
  ["shell", "shell"],
  ["ts", "typescript"],
  ["typescript", "typescript"],
  ["python", "python"],
]);
const FENCE = /^(\s*)```(\S*)\s*$/;
const DIRECTIVE = /^<!--\s*doctest:\s*(.*?)\s*-->\s*$/;

export function codeBlocks(markdown: string): CodeBlock[] {
  const lines = markdown.split("\n");
  const blocks: CodeBlock[] = [];
  let directive: string | undefined;
  let current: CodeBlock | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const found = DIRECTIVE.exec(line);
    if (found) {
      directive = found[1];
      continue;
    }
    const fence = FENCE.exec(line);
    if (!fence) {
      if (/^#{1,6} /.test(line)) current = undefined;
      // A directive belongs to the block right below it (blank lines between are fine).
      if (line.trim() !== "") directive = undefined;
      continue;
    }
    const tag = fence[2]!;
    const lang = LANGS.get(tag);
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^\s*```\s*$/.test(lines[i]!); i++) body.push(lines[i]!);
    const text = body.join("\n");
    if (lang) {
      current = { line: start + 1, lang, code: text, outputs: [], ...parseDirective(directive, start + 1) };
      if (lang !== "shell" && (current.background !== undefined || current.replacement !== undefined))
        throw new Error(`line ${start + 1}: background and run "…" are for shell blocks`);
      blocks.push(current);
    } else if ((tag === "json" || tag === "text") && current && directive !== "not output") {
      current.outputs.push({ line: start + 1, lang: tag, text });
    }
    directive = undefined;
  }
  return blocks;
}

function parseDirective(
  directive: string | undefined,
  line: number,
): Pick<CodeBlock, "skip" | "background" | "replacement" | "exit"> {
  if (directive === undefined) return {};
  const skip = /^skip\b\s*(?:[—:-]\s*)?(.*)$/.exec(directive);
  if (skip) {
    if (!skip[1]) throw new Error(`line ${line}: a skipped block says why (doctest: skip — why)`);
    return { skip: skip[1] };
  }
  const result: Pick<CodeBlock, "background" | "replacement" | "exit"> = {};
  const run = /\brun "([^"]+)"/.exec(directive);
  if (run) result.replacement = run[1];
  const background = /\bbackground until "([^"]+)"/.exec(directive);
  if (background) result.background = background[1];
  const exit = /\bexit (\d+)/.exec(directive);
  if (exit) result.exit = Number(exit[1]);
  if (!run && !background && !exit) throw new Error(`line ${line}: unknown doctest directive '${directive}'`);
  return result;
}
