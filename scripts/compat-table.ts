/**
 * Issue 18's compatibility table: runs one probe (test/sandbox/compat-probe.ts) in a Tessera
 * isolate, in Deno (the npm package `deno`) and in workerd (the npm package `workerd`, started
 * as the benchmarks start it), and prints the Markdown tables of sandbox/README.md's
 * "Compatibility (measured)" section. Offline: Deno gets its own DENO_DIR and a registry that
 * refuses connections; workerd serves on loopback.
 *
 *   node --no-node-snapshot --import tsx scripts/compat-table.ts
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startWorkerd } from "../bench/lib/workerd-server.ts";
import { compileFunction } from "../runtime/index.ts";
import { createSandbox, setProcessV8Flags } from "../sandbox/index.ts";
import { DENO_BIN, denoEnv, denoMissing } from "../test/helpers/deno.ts";
import {
  PROBE_DENO,
  PROBE_WORKER,
  TESSERA_REFUSALS,
  probeIsolate,
  type ProbeInput,
  type ProbeResult,
} from "../test/sandbox/compat-probe.ts";

const WORKERD_BIN = fileURLToPath(new URL("../node_modules/.bin/workerd", import.meta.url));

/** Families of `Deno` members, for grouping the ones Tessera lacks into one line each. */
const FAMILIES: Array<[family: string, test: RegExp]> = [
  ["KV", /^(openKv|Kv|KvU64|KvListIterator|AtomicOperation)$/],
  ["FFI", /^(dlopen|Unsafe\w+)$/],
  ["subprocess", /^(Command|ChildProcess|kill|run|Process|spawn|spawnAndWait|spawnAndWaitSync)$/],
  [
    "network",
    /^(connect\w*|listen\w*|startTls|resolveDns|networkInterfaces|createHttpClient|HttpClient|serveHttp|Quic\w+|upgradeWebTransport)$/,
  ],
  [
    "file system (handles, links, modes, temp files, watching)",
    /^(chmod|chown|create|open|FsFile|File|link|symlink|readLink|truncate|utime|umask|makeTemp\w*|watchFs|FsWatcher|fsync|fdatasync|flock|funlock|ftruncate|futime|fstat|seek|SeekMode|chdir)(Sync)?$/,
  ],
  ["standard streams and terminal", /^(stdin|stdout|stderr|isatty|consoleSize|noColor|setRaw)$/],
  [
    "process and OS",
    /^(args|pid|ppid|execPath|mainModule|hostname|osRelease|osUptime|loadavg|systemMemoryInfo|memoryUsage|gid|uid|cpuUsage|addSignalListener|removeSignalListener|exitCode|refTimer|unrefTimer)$/,
  ],
  ["permissions", /^(permissions|Permissions|PermissionStatus)$/],
  ["testing and benchmarking", /^(test|bench)$/],
];

function familyOf(name: string): string {
  return FAMILIES.find(([, test]) => test.test(name))?.[0] ?? "tooling and internals";
}

async function probeTessera(input: ProbeInput): Promise<ProbeResult> {
  setProcessV8Flags();
  const sandbox = createSandbox({ maxIsolates: 2, memoryBudgetMb: 512, idleTimeoutMs: 60_000 });
  try {
    const { code } = await compileFunction({ "index.ts": PROBE_WORKER }, "index.ts", {
      maxBundleBytes: 10 * 1024 * 1024,
    });
    const host = await sandbox.createHost({
      program: { code, filename: "index.js" },
      limits: { memoryLimitMb: 128, cpuTimeLimitMs: 5_000, wallTimeLimitMs: 30_000 },
      env: {},
    });
    try {
      return await probeIsolate(host, input);
    } finally {
      await host.dispose();
    }
  } finally {
    await sandbox.dispose();
  }
}

function probeDeno(): { version: string; result: ProbeResult } {
  const missing = denoMissing();
  if (missing) throw new Error(missing);
  const dir = mkdtempSync(join(tmpdir(), "tessera-compat-deno-"));
  try {
    writeFileSync(join(dir, "probe.js"), PROBE_DENO);
    // No permission flags: the probe needs none, and none of its checks touch the network.
    const run = spawnSync(DENO_BIN, ["run", "--no-prompt", join(dir, "probe.js")], {
      cwd: dir,
      env: denoEnv(join(dir, "deno-dir")),
      encoding: "utf8",
      timeout: 60_000,
    });
    if (run.status !== 0) throw new Error(`deno failed (${run.status}): ${run.stderr}`);
    const version = /deno (\S+)/.exec(spawnSync(DENO_BIN, ["--version"], { encoding: "utf8" }).stdout)?.[1];
    return {
      version: version ?? "?",
      result: JSON.parse(run.stdout.trim().split("\n").pop()!) as ProbeResult,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * workerd with startWorkerd's config: the compatibility date is the installed workerd's
 * release date (its `--version`), no compatibility flags, so no `nodejs_compat`.
 */
async function probeWorkerd(input: ProbeInput): Promise<{ date: string; result: ProbeResult }> {
  const date = /\d{4}-\d{2}-\d{2}/.exec(execFileSync(WORKERD_BIN, ["--version"], { encoding: "utf8" }))?.[0];
  const server = await startWorkerd(PROBE_WORKER);
  try {
    const response = await fetch(server.url, { method: "POST", body: JSON.stringify(input) });
    if (!response.ok) throw new Error(`workerd answered ${response.status}: ${await response.text()}`);
    return { date: date ?? "?", result: (await response.json()) as ProbeResult };
  } finally {
    await server.stop();
  }
}

const code = (name: string) => `\`${name}\``;
/** A verdict as a cell: an error's class and a WebAssembly function's own prefix dropped for width. */
const cell = (verdict: string | undefined) =>
  (verdict ?? "?").replace(/^fails: (\w*Error: )?(WebAssembly\.\w+\(\): )?/, "fails: ").replace(/\|/g, "\\|");

function row(cells: string[]): string {
  return `| ${cells.join(" | ")} |`;
}

function table(header: string[], rows: string[][]): string {
  return [row(header), row(header.map(() => "---")), ...rows.map(row)].join("\n");
}

const count = (result: ProbeResult) => Object.values(result.wintertc).filter((v) => v === "yes").length;

function wintertcTable(
  tessera: ProbeResult,
  deno: ProbeResult,
  workerd: ProbeResult,
  denoVersion: string,
  date: string,
): string {
  const names = Object.keys(tessera.wintertc);
  const rows = names.map((name) => [
    code(name),
    cell(tessera.wintertc[name]),
    cell(deno.wintertc[name]),
    cell(workerd.wintertc[name]),
  ]);
  const total = names.length;
  rows.push([`**${total} names**`, `**${count(tessera)}**`, `**${count(deno)}**`, `**${count(workerd)}**`]);
  return table(["name", "Tessera", `Deno ${denoVersion}`, `workerd ${date}`], rows);
}

/**
 * Members Tessera has (or refuses) one row each; the ones it lacks, one row per family in the
 * table and their names in a list below it (compat.test.ts reads both).
 */
function denoTable(tessera: ProbeResult, deno: ProbeResult, denoVersion: string): string {
  const names = Object.keys(deno.deno);
  const present = names.filter((name) => tessera.deno[name] !== "no");
  const families = new Map<string, string[]>();
  for (const name of names.filter((n) => tessera.deno[n] === "no"))
    families.set(familyOf(name), [...(families.get(familyOf(name)) ?? []), name]);
  const sorted = [...families].sort(([a], [b]) => a.localeCompare(b));
  const rows = present.map((name) => [code(name), cell(tessera.deno[name]), cell(deno.deno[name])]);
  for (const [family, members] of sorted) rows.push([`${family} (${members.length}, below)`, "no", "yes"]);
  const has = present.filter((name) => tessera.deno[name] === "yes").length;
  const refused = present.length - has;
  rows.push([`**${names.length} members**`, `**${has}** (+${refused} refused)`, `**${names.length}**`]);
  const list = sorted.map(([family, members]) => `- ${family}: ${members.map(code).join(", ")}`);
  return `${table(["`Deno.` member", "Tessera", `Deno ${denoVersion}`], rows)}\n\nNot in Tessera:\n\n${list.join("\n")}`;
}

const { version: denoVersion, result: deno } = probeDeno();
const denoNames = Object.keys(deno.deno);
const tessera = await probeTessera({ denoNames, refusals: TESSERA_REFUSALS });
const { date, result: workerd } = await probeWorkerd({ denoNames });
const extra = Object.keys(workerd.deno).filter((name) => workerd.deno[name] !== "no");
if (extra.length > 0) throw new Error(`workerd has a Deno global with ${extra.join(", ")}`);

console.log(`Measured ${new Date().toISOString().slice(0, 10)}: Deno ${denoVersion}, workerd ${date}.\n`);
console.log(wintertcTable(tessera, deno, workerd, denoVersion, date));
console.log();
console.log(denoTable(tessera, deno, denoVersion));
