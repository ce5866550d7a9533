import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { randomBase62 } from "../core/index.ts";
import { createApiKey, OPERATOR } from "../engines/index.ts";
import { createPgliteStore, migrate } from "../store/index.ts";
import {
  SUBJECTS,
  type ClientBenchInput,
  type ClientBenchOutput,
  type SubjectName,
  type SubjectRound,
} from "./lib/client-figures.ts";
import { machineCpuS, processCpuS, statCpuS } from "./lib/cpu.ts";
import { startEmbeddedTessera } from "./lib/embedded-server.ts";
import { runForJson } from "./lib/processes.ts";
import { createPythonVenv } from "./lib/python-venv.ts";
import {
  numberFlag,
  target,
  type Benchmark,
  type BenchOptions,
  type BenchResult,
  type ResultRow,
  type Target,
} from "./lib/report.ts";
import { seedInvoiceOrg } from "./lib/seed.ts";

const TS_RUNNER = fileURLToPath(new URL("./lib/clients-ts.ts", import.meta.url));
const PY_RUNNER = fileURLToPath(new URL("./lib/clients_bench.py", import.meta.url));

const SIZES = {
  full: { invoices: 10_000, contacts: 1_000, rounds: 3, passes: 5, blocks: 5, warmupContacts: 50 },
  tiny: { invoices: 200, contacts: 20, rounds: 3, passes: 1, blocks: 1, warmupContacts: 5 },
};
/** The API's largest page; the same for the clients and the raw loops. */
const PER_PAGE = 100;
/** `page * per_page` above 10,000 is a 400 (docs/api.md, "Lists"): no list pages deeper. */
const MAX_INVOICES = 10_000;
const MIN_RATIO = 0.9;

interface Language {
  /** `TypeScript` or `Python`. */
  name: string;
  /** What the client is measured against: `raw fetch` or `raw httpx`. */
  raw: string;
  output: ClientBenchOutput;
  /** Cores the machine's other processes kept busy meanwhile (not the server, runner or harness). */
  othersCores: number | undefined;
}

/**
 * The two client libraries against the same requests made by hand, in the same run, on one
 * real server (`tessera serve --role api` on the embedded store, a fresh data dir seeded with
 * `--invoices` invoices, rate limits that never refuse): paging through every invoice 100 at a
 * time, and creating `--contacts` contacts one after the other. The TypeScript client
 * (clients/typescript, `Tessera`) runs against `fetch`, the Python one (clients/python,
 * `tessera.Tessera`) against `httpx.Client`, each language in a process of its own
 * (bench/lib/clients-ts.ts, bench/lib/clients_bench.py) whose CPU is the client's. Subjects
 * take turns pass by pass and block by block of creates, every other turn reversed; each keeps
 * its best of `--rounds`. A client's ratio is raw time ÷
 * client time (≥ 0.9: what a client adds is parsing and objects, not round trips, which the
 * server's `/metrics` counts). A third create subject, raw with an `Idempotency-Key` as both
 * clients send, tells the key's cost on the server from the client's own.
 */
export const clients: Benchmark = {
  name: "clients",
  summary:
    "the TypeScript and Python clients paging 10,000 invoices and creating contacts vs raw fetch/httpx",
  async run(options: BenchOptions): Promise<BenchResult> {
    const size = options.tiny ? SIZES.tiny : SIZES.full;
    const invoices = Math.round(numberFlag(options.flags, "invoices", size.invoices));
    const contacts = Math.round(numberFlag(options.flags, "contacts", size.contacts));
    const rounds = Math.round(numberFlag(options.flags, "rounds", size.rounds));
    const passes = Math.round(numberFlag(options.flags, "passes", size.passes));
    const blocks = Math.min(contacts, Math.round(numberFlag(options.flags, "blocks", size.blocks)));
    if (invoices > MAX_INVOICES)
      throw new Error(`--invoices is at most ${MAX_INVOICES}: no list pages deeper (page × per_page)`);
    const scratch = mkdtempSync(join(tmpdir(), "tessera-bench-clients-"));
    const cleanups: Array<() => Promise<void>> = [
      async () => rmSync(scratch, { recursive: true, force: true }),
    ];
    const loadavg1Before = loadavg()[0]!;
    try {
      // Before anything is measured: pip must not run beside a measurement.
      const venv = await createPythonVenv(["httpx"], options.log);
      let pythonMissing: string | undefined;
      if ("missing" in venv) {
        pythonMissing = venv.missing;
        if (process.env.CI && process.env.CI !== "false" && process.env.CI !== "0")
          throw new Error(
            `the Python client cannot be measured: ${pythonMissing} (CI needs python3, venv, pip)`,
          );
        options.log(`  Python rows skipped: ${pythonMissing}`);
      } else cleanups.unshift(venv.dispose);

      const dataDir = join(scratch, "data");
      const seeded = await seedEmbedded(dataDir, invoices, options.log);
      const metricsToken = randomBase62(32);
      const server = await startEmbeddedTessera(dataDir, { TESSERA_METRICS_TOKEN: metricsToken });
      cleanups.unshift(server.stop);
      await expectTotal(server.url, seeded.key, "invoices", invoices);

      const runId = Date.now().toString(36);
      const input = (tag: string): string =>
        JSON.stringify({
          url: server.url,
          key: seeded.key,
          metricsToken,
          serverPid: server.pid,
          invoices,
          perPage: PER_PAGE,
          passes,
          contacts,
          blocks,
          warmupContacts: size.warmupContacts,
          rounds,
          tag: `${tag}-${runId}`,
        } satisfies ClientBenchInput);
      const languages: Language[] = [];
      const plan = `${rounds} round(s) of ${passes} pass(es) through ${invoices} invoices and ${contacts} creates in ${blocks} block(s), a subject`;
      options.log(`  TypeScript: ${plan}`);
      const ts = await othersLoad(server.pid, () =>
        runForJson<ClientBenchOutput>([
          process.execPath,
          "--expose-gc",
          "--import",
          "tsx",
          TS_RUNNER,
          input("ts"),
        ]),
      );
      logRounds(ts.output, ts.othersCores, options.log);
      languages.push({ name: "TypeScript", raw: "raw fetch", ...ts });
      if (!("missing" in venv)) {
        options.log(`  Python: ${plan}`);
        const py = await othersLoad(server.pid, () =>
          runForJson<ClientBenchOutput>([venv.python, PY_RUNNER, input("py")]),
        );
        logRounds(py.output, py.othersCores, options.log);
        languages.push({ name: "Python", raw: "raw httpx", ...py });
      }
      // Every create answered 201 and landed once: warm-ups and rounds, three subjects a language.
      const created = languages.length * 3 * (size.warmupContacts + rounds * contacts);
      await expectTotal(server.url, seeded.key, "contacts", created);

      const machineLoad: Record<string, number> = { loadavg1Before, loadavg1After: loadavg()[0]! };
      for (const language of languages)
        if (language.othersCores !== undefined)
          machineLoad[`othersCores${language.name}`] = language.othersCores;
      options.log(
        `  machine: ${cpus().length} cores, load average ${loadavg1Before.toFixed(2)} → ${machineLoad.loadavg1After!.toFixed(2)}`,
      );
      const params = { invoices, perPage: PER_PAGE, passes, contacts, blocks, rounds };
      return result(languages, pythonMissing, params, machineLoad);
    } finally {
      for (const cleanup of cleanups) await cleanup().catch((error: unknown) => options.log(String(error)));
    }
  },
};

/**
 * A fresh embedded store in `dataDir` holding one organization with `invoices` invoices (the
 * list-overdue seed, set-based SQL) and a full-access key, written before the server opens it:
 * PGlite is one process's at a time.
 */
async function seedEmbedded(dataDir: string, invoices: number, log: (line: string) => void) {
  const store = await createPgliteStore({ dataDir: join(dataDir, "pg") });
  try {
    await migrate(store);
    const seed = await seedInvoiceOrg(store, invoices, log);
    const key = await createApiKey(store, seed.orgId, { kind: "full_access", name: "bench" }, OPERATOR);
    log(`  seeded ${invoices.toLocaleString("en-US")} invoices in ${(seed.seedMs / 1000).toFixed(1)} s`);
    return { orgId: seed.orgId, key: key.secret };
  } finally {
    await store.dispose();
  }
}

/** The list's `meta.total` is `expected`: nothing fast and wrong (a lost create, a missing seed). */
async function expectTotal(url: string, key: string, resource: string, expected: number): Promise<void> {
  const response = await fetch(`${url}/v1/${resource}?per_page=1`, {
    headers: { authorization: `Bearer ${key}` },
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET /v1/${resource} answered ${response.status}: ${text}`);
  const total = (JSON.parse(text) as { meta: { total: number } }).meta.total;
  if (total !== expected) throw new Error(`${resource}: the server holds ${total}, expected ${expected}`);
}

/**
 * Runs a language's runner, and reads how busy the rest of the machine kept its cores meanwhile:
 * the machine's busy time less the server's, the runner's (a child of this process, in its
 * `cutime`/`cstime` once waited for) and this process's own. Linux; undefined elsewhere.
 */
async function othersLoad(
  serverPid: number,
  run: () => Promise<ClientBenchOutput>,
): Promise<{ output: ClientBenchOutput; othersCores: number | undefined }> {
  const ours = () => {
    const server = processCpuS(serverPid);
    const self = statCpuS("/proc/self/stat");
    const children = childrenCpuS();
    return server === undefined || self === undefined || children === undefined
      ? undefined
      : server + self + children;
  };
  const before = { machine: machineCpuS(), ours: ours(), at: performance.now() };
  const output = await run();
  const after = { machine: machineCpuS(), ours: ours(), at: performance.now() };
  if (!before.machine || !after.machine || before.ours === undefined || after.ours === undefined)
    return { output, othersCores: undefined };
  const others = after.machine.busy - before.machine.busy - (after.ours - before.ours);
  return { output, othersCores: Math.max(0, others / ((after.at - before.at) / 1000)) };
}

/** CPU seconds of this process's children that have been waited for: cutime + cstime of /proc/self/stat. */
function childrenCpuS(): number | undefined {
  try {
    const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return undefined;
  }
}

const perRequestUs = (ms: number | null, requests: number) =>
  ms === null ? undefined : (ms * 1000) / requests;

function logRounds(
  output: ClientBenchOutput,
  othersCores: number | undefined,
  log: (line: string) => void,
): void {
  const others =
    othersCores === undefined ? "" : `; other processes kept ${othersCores.toFixed(2)} cores busy`;
  log(`    ${output.runtime}${others}`);
  for (const r of output.rounds) {
    const server = perRequestUs(r.serverCpuMs, r.requests);
    log(
      `    round ${r.round + 1} ${r.subject.padEnd(16)} ${r.wallMs.toFixed(0).padStart(6)} ms, ` +
        `${r.requests} requests, ${((r.wallMs * 1000) / r.requests).toFixed(0)} µs/req; ` +
        `client CPU ${((r.cpuMs * 1000) / r.requests).toFixed(0)} µs/req` +
        (server === undefined ? "" : `, server CPU ${server.toFixed(0)} µs/req`),
    );
  }
}

/** A subject's figures over its rounds: the fastest round, and the lowest CPU per request of any. */
interface Best {
  subject: SubjectName;
  fastest: SubjectRound;
  wallMs: number;
  requests: number;
  msPerRequest: number;
  clientCpuUsPerRequest: number;
  serverCpuUsPerRequest: number | undefined;
  serverMainUsPerRequest: number | undefined;
  rounds: number;
}

function best(output: ClientBenchOutput, subject: SubjectName): Best {
  const rounds = output.rounds.filter((r) => r.subject === subject);
  if (rounds.length === 0) throw new Error(`no round of ${subject}`);
  const fastest = rounds.reduce((a, b) => (b.wallMs < a.wallMs ? b : a));
  return {
    subject,
    fastest,
    wallMs: fastest.wallMs,
    requests: fastest.requests,
    msPerRequest: fastest.wallMs / fastest.requests,
    clientCpuUsPerRequest: Math.min(...rounds.map((r) => (r.cpuMs * 1000) / r.requests)),
    // /proc counts in 10 ms ticks: under 100 ms (at --tiny size), a reading says little.
    serverCpuUsPerRequest:
      (fastest.serverCpuMs ?? 0) < 100 ? undefined : perRequestUs(fastest.serverCpuMs, fastest.requests),
    serverMainUsPerRequest:
      (fastest.serverCpuMs ?? 0) < 100 ? undefined : perRequestUs(fastest.serverMainMs, fastest.requests),
    rounds: rounds.length,
  };
}

function row(label: string, figures: Best, versusAnchor: string): ResultRow {
  return {
    subject: `${label} (client CPU ${figures.clientCpuUsPerRequest.toFixed(0)} µs/req)`,
    unit: "ms",
    median: figures.fastest.medianMs,
    p99: figures.fastest.p99Ms,
    reqPerSec: figures.requests / (figures.wallMs / 1000),
    versusAnchor,
    ...(figures.serverCpuUsPerRequest === undefined
      ? {}
      : {
          serverCpuUs: {
            process: figures.serverCpuUsPerRequest,
            mainThread: figures.serverMainUsPerRequest ?? NaN,
          },
        }),
  };
}

function result(
  languages: Language[],
  pythonMissing: string | undefined,
  params: {
    invoices: number;
    perPage: number;
    passes: number;
    contacts: number;
    blocks: number;
    rounds: number;
  },
  machineLoad: Record<string, number>,
): BenchResult {
  const rows: ResultRow[] = [];
  const targets: Target[] = [];
  const details: Record<string, unknown> = { machineLoad };
  for (const language of languages) {
    const figures = Object.fromEntries(
      SUBJECTS.map((subject) => [subject, best(language.output, subject)]),
    ) as Record<SubjectName, Best>;
    const ratio = (anchor: SubjectName, subject: SubjectName) =>
      figures[anchor].wallMs / figures[subject].wallMs;
    const paging = ratio("paging/raw", "paging/client");
    const creating = ratio("creating/raw", "creating/client");
    const keyed = ratio("creating/raw", "creating/raw+key");
    const client = `${language.name} client`;
    rows.push(
      row(`${client}: paging`, figures["paging/client"], `${paging.toFixed(2)}× raw time`),
      row(`anchor: ${language.raw}, paging`, figures["paging/raw"], "1.00×"),
      row(
        `${client}: creating`,
        figures["creating/client"],
        `${creating.toFixed(2)}× raw time (${ratio("creating/raw+key", "creating/client").toFixed(2)}× with key)`,
      ),
      row(`anchor: ${language.raw}, creating`, figures["creating/raw"], "1.00×"),
      row(
        `${language.raw} + Idempotency-Key, creating`,
        figures["creating/raw+key"],
        `${keyed.toFixed(2)}× raw time`,
      ),
    );
    // Round trips, as the server counted them: per page or per create, the client's over raw's.
    const trips = Math.max(
      figures["paging/client"].requests / figures["paging/raw"].requests,
      figures["creating/client"].requests / figures["creating/raw"].requests,
    );
    targets.push(
      target(`${client} ≥ ${MIN_RATIO}× ${language.raw} (paging)`, paging, ">=", MIN_RATIO, "×"),
      target(`${client} ≥ ${MIN_RATIO}× ${language.raw} (creating)`, creating, ">=", MIN_RATIO, "×"),
      // The same request by hand: what the client itself adds to a create, the key's server cost apart.
      target(
        `${client} ≥ ${MIN_RATIO}× ${language.raw} + Idempotency-Key (creating)`,
        ratio("creating/raw+key", "creating/client"),
        ">=",
        MIN_RATIO,
        "×",
      ),
      target(`${client} sends no more requests than ${language.raw}`, trips, "<=", 1, "×"),
    );
    details[language.name] = {
      runtime: language.output.runtime,
      ratios: {
        paging,
        creating,
        rawWithIdempotencyKey: keyed,
        creatingAgainstRawWithKey: ratio("creating/raw+key", "creating/client"),
      },
      best: figures,
      rounds: language.output.rounds,
    };
  }
  if (pythonMissing !== undefined) {
    rows.push({ subject: `Python rows skipped: ${pythonMissing}`, unit: "ms", median: NaN, p99: NaN });
    details.pythonSkipped = pythonMissing;
  }
  return {
    name: "clients",
    description:
      `paging ${params.invoices.toLocaleString("en-US")} invoices (${params.perPage} a page, ${params.passes}× a round) ` +
      `and creating ${params.contacts.toLocaleString("en-US")} contacts a round, best of ${params.rounds}, embedded store`,
    params,
    rows,
    targets,
    details,
  };
}
