/**
 * The runnable parts of a Markdown page, in order: shell blocks to run, each with the
 * output blocks the page shows after it, and the directives written above them.
 *
 * A directive is an HTML comment on the line before a block (readers of the rendered page
 * do not see it): `<!-- doctest: skip — why -->` leaves a shell block unrun (say why),
 * `<!-- doctest: background until "TEXT" -->` starts it in the background and waits for TEXT
 * in its output, `<!-- doctest: run "COMMAND" -->` runs COMMAND in its place (the command a
 * test run can stand in for, such as `npm start` for `npm ci && npm start`), and
 * `<!-- doctest: exit N -->` says the block is meant to end with status N (an error shown), and
 * `<!-- doctest: not output -->` marks a json/text block that is not the output above it.
 */
export interface ShellBlock {
  /** 1-based line of the opening fence, for messages. */
  line: number;
  code: string;
  skip?: string;
  background?: string;
  /** What runs in the block's place (`run "…"`). */
  replacement?: string;
  /** The exit status the block ends with, when it is meant to fail (`exit N`). */
  exit?: number;
  /** The json and text blocks right after it (before any other prose heading or shell block). */
  outputs: OutputBlock[];
}

export interface OutputBlock {
  line: number;
  lang: "json" | "text";
  text: string;
}

const SHELL = new Set(["sh", "bash", "shell"]);
const FENCE = /^(\s*)```(\S*)\s*$/;
const DIRECTIVE = /^<!--\s*doctest:\s*(.*?)\s*-->\s*$/;

export function shellBlocks(markdown: string): ShellBlock[] {
  const lines = markdown.split("\n");
  const blocks: ShellBlock[] = [];
  let directive: string | undefined;
  let current: ShellBlock | undefined;
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
    const lang = fence[2]!;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^\s*```\s*$/.test(lines[i]!); i++) body.push(lines[i]!);
    const text = body.join("\n");
    if (SHELL.has(lang)) {
      current = { line: start + 1, code: text, outputs: [], ...parseDirective(directive, start + 1) };
      blocks.push(current);
    } else if ((lang === "json" || lang === "text") && current && directive !== "not output") {
      current.outputs.push({ line: start + 1, lang, text });
    }
    directive = undefined;
  }
  return blocks;
}

function parseDirective(
  directive: string | undefined,
  line: number,
): Pick<ShellBlock, "skip" | "background" | "replacement" | "exit"> {
  if (directive === undefined) return {};
  const skip = /^skip\b\s*(?:[—:-]\s*)?(.*)$/.exec(directive);
  if (skip) {
    if (!skip[1]) throw new Error(`line ${line}: a skipped block says why (doctest: skip — why)`);
    return { skip: skip[1] };
  }
  const result: Pick<ShellBlock, "background" | "replacement" | "exit"> = {};
  const run = /\brun "([^"]+)"/.exec(directive);
  if (run) result.replacement = run[1];
  const background = /\bbackground until "([^"]+)"/.exec(directive);
  if (background) result.background = background[1];
  const exit = /\bexit (\d+)/.exec(directive);
  if (exit) result.exit = Number(exit[1]);
  if (!run && !background && !exit) throw new Error(`line ${line}: unknown doctest directive '${directive}'`);
  return result;
}
