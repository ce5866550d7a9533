import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../helpers/ports.ts";
import { createVenv, PYTHON, python3Version } from "../helpers/python.ts";
import { compareJson, compareText, jsonValues } from "./compare.ts";
import { codeBlocks, type CodeBlock, type OutputBlock } from "./markdown.ts";
import { openShell, type BlockResult, type ShellSession } from "./shell.ts";

/**
 * The docs are tested: every shell, TypeScript and Python block of README.md, docs/, examples/ and
 * the client libraries' READMEs runs, in order, in one bash session per page against a server the
 * page itself starts (`npm start` on a fresh data dir and a free port), with the placeholders the
 * page uses filled in (the key the server printed, the port); the output each block shows is
 * compared loosely (compare.ts). A block that is not meant to run says so
 * (`<!-- doctest: skip — why -->`, markdown.ts). A change that makes a page lie fails here.
 *
 * A TypeScript or Python block is a program of its own: written to a file and run from the page's
 * bash session (so what earlier blocks exported is in its environment), with TESSERA_BASE_URL and
 * TESSERA_API_KEY set to the page's server and key, as the client libraries read them.
 */
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const BLOCK_TIMEOUT_MS = 120_000;
/** The front page, every page of the manual and of the examples with a block to run, the clients' READMEs. */
const PAGES = [
  "README.md",
  ...[...markdownIn("docs"), ...markdownIn("examples")].filter((page) =>
    codeBlocks(read(page)).some((block) => !block.skip),
  ),
  "clients/typescript/README.md",
  "clients/python/README.md",
];
/** tsx's loader by path, so that a TypeScript block runs wherever the page's session has `cd`-ed to. */
const TSX = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
/**
 * `@tessera/client` in a TypeScript block is the client's sources: a stub package beside the block
 * re-exports clients/typescript/src/index.ts. The package as published (`npm pack`, its built dist/)
 * is tested by test/clients/typescript/package.test.ts.
 */
const CLIENT_TS = join(ROOT, "clients", "typescript", "src", "index.ts");
/** `import tessera` in a Python block is the client's sources (test/clients/python.test.ts tests the wheel). */
const CLIENT_PY = join(ROOT, "clients", "python", "src");

/**
 * Follows the `shard`-th (0-based) of `shards` shares of the pages: the pages are shared out among a
 * few test files (pages-N.test.ts) so that the test workers follow them side by side; each page
 * starts its own server, so no page waits for another.
 */
export function followPages(shard: number, shards: number): void {
  const pages = shareOut(PAGES, shards)[shard] ?? [];
  const python = pythonForDocs();
  afterAll(() => python.dispose());
  describe.each(pages)("%s, followed as written", (page) => followPage(page, python));
}

/**
 * The pages in `shards` shares that take about as long, so that no file is left running alone at
 * the end: the heaviest page first, each to the lightest share so far (longest processing time
 * first), each share in the pages' own order. A page weighs what it starts: its server (~30 s,
 * SERVER_WEIGHT commands' worth) and a process for each program block and each command of a shell
 * block that starts one (~4 s); a curl is next to nothing.
 */
export function shareOut(pages: readonly string[], shards: number): string[][] {
  const weighed = pages.map((page, index) => ({ page, index, weight: pageWeight(read(page)) }));
  const shares = Array.from({ length: shards }, () => ({ weight: 0, pages: [] as typeof weighed }));
  for (const page of [...weighed].sort((a, b) => b.weight - a.weight || a.index - b.index)) {
    const lightest = shares.reduce((min, share) => (share.weight < min.weight ? share : min));
    lightest.weight += page.weight;
    lightest.pages.push(page);
  }
  return shares.map((share) => share.pages.sort((a, b) => a.index - b.index).map(({ page }) => page));
}

const SERVER_WEIGHT = 8;
/** Commands that start a process of their own (node, a package manager, Deno, Python). */
const PROCESS = /\b(?:npm|npx|node|tsx|deno|python3?|pip)\b/g;

function pageWeight(markdown: string): number {
  let weight = SERVER_WEIGHT;
  for (const block of codeBlocks(markdown).filter((block) => !block.skip)) {
    weight += block.lang === "shell" ? ((block.replacement ?? block.code).match(PROCESS)?.length ?? 0) : 1;
  }
  return weight;
}

function followPage(page: string, python: PythonForDocs): void {
  const blocks = codeBlocks(read(page));
  // Made when the page is followed, not when it is collected (a filtered run, `-t`, leaves none behind).
  let dataDir: string;
  // The TypeScript and Python blocks, as files; `@tessera/client` is a package in node_modules here.
  let programs: string;
  let shell: ShellSession;
  let port: number;
  const filled = new Map<string, string>();

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "tessera-doctest-"));
    programs = join(dataDir, "programs");
    mkdirSync(join(dataDir, "home"));
    writeClientStub(programs);
    port = await freePort();
    filled.set("127.0.0.1:8787", `127.0.0.1:${port}`);
    filled.set("localhost:8787", `localhost:${port}`);
    shell = openShell({ cwd: ROOT, env: pageEnv(dataDir, port) });
  });
  afterAll(async () => {
    await shell?.dispose();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const fill = (text: string) => {
    let out = text;
    for (const [placeholder, value] of filled) out = out.replaceAll(placeholder, value);
    return out;
  };

  /** A TypeScript or Python block, written to a file, run by a command line of the page's session. */
  const program = async (block: CodeBlock, code: string): Promise<string> => {
    const file = join(programs, `line-${block.line}.${block.lang === "python" ? "py" : "ts"}`);
    writeFileSync(file, `${code}\n`);
    const key = filled.get("sk_live_…");
    const env = [`TESSERA_BASE_URL=${quote(`http://127.0.0.1:${port}`)}`];
    if (key) env.push(`TESSERA_API_KEY=${quote(key)}`);
    if (block.lang === "typescript")
      return [
        ...env,
        quote(process.execPath),
        "--no-node-snapshot",
        "--import",
        quote(TSX),
        quote(file),
      ].join(" ");
    // No __pycache__ in clients/python/src.
    env.push(`PYTHONPATH=${quote(CLIENT_PY)}`, "PYTHONDONTWRITEBYTECODE=1");
    return [...env, quote(await python.python()), quote(file)].join(" ");
  };

  for (const block of blocks.filter((block) => !block.skip)) {
    it(
      `block at line ${block.line}`,
      async (context) => {
        if (block.lang === "python" && !(await python.available())) {
          if (process.env.CI)
            throw new Error(
              `${PYTHON} is missing: the docs' Python blocks cannot run (CI needs python3 with venv)`,
            );
          context.skip();
        }
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
        const command = block.lang === "shell" ? code : await program(block, code);
        const result = await shell.run(command, BLOCK_TIMEOUT_MS);
        const expected = block.exit ?? 0;
        expect(result.status, `exit status\n${result.stdout}\n${result.stderr}`).toBe(expected);
        expectOutputs(block, result, fill);
      },
      BLOCK_TIMEOUT_MS + 10_000,
    );
  }
}

/** The stub package `@tessera/client` in `dir`'s node_modules: the client's sources (CLIENT_TS). */
function writeClientStub(dir: string): void {
  const stub = join(dir, "node_modules", "@tessera", "client");
  mkdirSync(stub, { recursive: true });
  // The blocks are ES modules (top-level await), as in a project of `"type": "module"`.
  writeFileSync(join(dir, "package.json"), JSON.stringify({ private: true, type: "module" }));
  writeFileSync(
    join(stub, "package.json"),
    JSON.stringify({ name: "@tessera/client", type: "module", exports: "./index.ts" }),
  );
  const source = JSON.stringify(CLIENT_TS);
  writeFileSync(join(stub, "index.ts"), `export * from ${source};\nexport { default } from ${source};\n`);
}

interface PythonForDocs {
  /** Whether python3 is there (asked once). */
  available(): Promise<boolean>;
  /** A venv's python with httpx, made on first use: one per test file, for the pages it follows. */
  python(): Promise<string>;
  dispose(): void;
}

function pythonForDocs(): PythonForDocs {
  let version: Promise<string | null> | undefined;
  let venv: Promise<string> | undefined;
  let dir: string | undefined;
  return {
    async available() {
      version ??= python3Version().then((found) => {
        if (!found) console.warn(`skipping the docs' Python blocks: ${PYTHON} was not found`);
        return found;
      });
      return (await version) !== null;
    },
    python() {
      venv ??= (async () => {
        const started = Date.now();
        dir = mkdtempSync(join(tmpdir(), "tessera-doctest-python-"));
        const made = await createVenv(join(dir, "venv"));
        await made.install("pip install httpx", ["httpx"]);
        console.log(`docs test: a venv with httpx in ${((Date.now() - started) / 1000).toFixed(1)} s`);
        return made.python;
      })();
      return venv;
    },
    dispose() {
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

function quote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** Each output block shown after `block` holds against what it printed (json: its last JSON value). */
function expectOutputs(block: CodeBlock, result: BlockResult, fill: (text: string) => string): void {
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
