import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../helpers/ports.ts";
import { compareJson, compareText, jsonValues } from "./compare.ts";
import { shellBlocks, type OutputBlock, type ShellBlock } from "./markdown.ts";
import { openShell, type BlockResult, type ShellSession } from "./shell.ts";

/**
 * The docs are tested: every shell block of README.md, docs/ and examples/ runs, in order, in
 * one bash session per page against a server the page itself starts (`npm start` on a fresh data dir
 * and a free port), with the placeholders the page uses filled in (the key the server printed,
 * the port); the output each block shows is compared loosely (compare.ts). A block that is not
 * meant to run says so (`<!-- doctest: skip — why -->`, markdown.ts). A change that makes a
 * page lie fails here.
 */
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const BLOCK_TIMEOUT_MS = 120_000;
/** The front page, then every page of the manual and of the examples with a block to run. */
const PAGES = [
  "README.md",
  ...[...markdownIn("docs"), ...markdownIn("examples")].filter((page) =>
    shellBlocks(read(page)).some((block) => !block.skip),
  ),
];

/**
 * Follows every `shards`-th page, from the `shard`-th (0-based): the pages are shared out among a few
 * test files (pages-N.test.ts) so that the test workers follow them side by side; each page starts
 * its own server, so no page waits for another.
 */
export function followPages(shard: number, shards: number): void {
  const pages = PAGES.filter((_, index) => index % shards === shard);
  describe.each(pages)("%s, followed as written", followPage);
}

function followPage(page: string): void {
  const blocks = shellBlocks(read(page));
  const dataDir = mkdtempSync(join(tmpdir(), "tessera-doctest-"));
  let shell: ShellSession;
  let port: number;
  const filled = new Map<string, string>();

  beforeAll(async () => {
    mkdirSync(join(dataDir, "home"));
    port = await freePort();
    filled.set("127.0.0.1:8787", `127.0.0.1:${port}`);
    filled.set("localhost:8787", `localhost:${port}`);
    shell = openShell({ cwd: ROOT, env: pageEnv(dataDir, port) });
  });
  afterAll(async () => {
    await shell?.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const fill = (text: string) => {
    let out = text;
    for (const [placeholder, value] of filled) out = out.replaceAll(placeholder, value);
    return out;
  };

  it.each(blocks.filter((block) => !block.skip).map((block) => [block.line, block] as const))(
    "block at line %i",
    async (_, block) => {
      const code = fill(block.replacement ?? block.code);
      if (block.background) {
        const output = await shell.background(code, block.background, BLOCK_TIMEOUT_MS, (printed) =>
          block.outputs.every(
            (shown) => compareOutput(shown, fill(shown.text), printed, printed).length === 0,
          ),
        );
        const key = /\bsk_live_[0-9A-Za-z]{32,}/.exec(output);
        if (key) filled.set("sk_live_…", key[0]);
        expectOutputs(block, { status: 0, stdout: output, stderr: "" }, fill);
        return;
      }
      const result = await shell.run(code, BLOCK_TIMEOUT_MS);
      const expected = block.exit ?? 0;
      expect(result.status, `exit status\n${result.stdout}\n${result.stderr}`).toBe(expected);
      expectOutputs(block, result, fill);
    },
    BLOCK_TIMEOUT_MS + 10_000,
  );
}

/** Each output block shown after `block` holds against what it printed (json: its last JSON value). */
function expectOutputs(block: ShellBlock, result: BlockResult, fill: (text: string) => string): void {
  // JSON is read from stdout (stderr holds progress meters and warnings); text from both.
  const printed = `${result.stdout}\n${result.stderr}`;
  for (const output of block.outputs) {
    const problems = compareOutput(output, fill(output.text), printed, result.stdout);
    expect(problems, `shown at line ${output.line}, printed:\n${printed.slice(0, 4000)}`).toEqual([]);
  }
}

function splitOnce(text: string, separator: RegExp): [string, string | undefined] {
  const match = separator.exec(text);
  return match ? [text.slice(0, match.index), text.slice(match.index + match[0].length)] : [text, undefined];
}

function compareOutput(output: OutputBlock, shown: string, printed: string, stdout: string): string[] {
  const json = jsonValues(stdout).length > 0 ? stdout : printed;
  if (output.lang === "text") {
    // An HTTP response (curl -i): its head as text, its body as JSON when it is JSON.
    const [head, body] = splitOnce(shown, /\n\s*\n/);
    if (!shown.startsWith("HTTP/") || !body || jsonValues(body).length !== 1)
      return compareText(shown, printed);
    return [...compareText(head, printed), ...compareJsonOutput(body, json)];
  }
  return compareJsonOutput(shown, json);
}

function compareJsonOutput(shown: string, printed: string): string[] {
  const values = jsonValues(printed);
  if (values.length === 0) return ["no JSON was printed"];
  const expected = jsonValues(shown);
  if (expected.length !== 1) return [`the page shows ${expected.length} JSON values; show one`];
  return compareJson(expected[0], values[values.length - 1]);
}

/** The environment a reader's terminal has, minus this test run's own settings. */
function pageEnv(dataDir: string, port: number): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^(TESSERA_|TEST_|DATABASE_URL|REDIS_URL|PORT$|HOST$|VITEST|NODE_OPTIONS)/.test(name)) continue;
    env[name] = value;
  }
  // HOME apart too: a page's own project (`~/tessera-functions`) is made there, not in the reader's.
  return {
    ...env,
    HOME: join(dataDir, "home"),
    TESSERA_DATA_DIR: join(dataDir, "tessera"),
    PORT: String(port),
    NO_COLOR: "1",
  };
}

function markdownIn(folder: string): string[] {
  try {
    return readdirSync(join(ROOT, folder), { recursive: true, encoding: "utf8" })
      .filter((name) => name.endsWith(".md"))
      .map((name) => join(folder, name))
      .sort();
  } catch {
    return [];
  }
}

function read(page: string): string {
  return readFileSync(join(ROOT, page), "utf8");
}
