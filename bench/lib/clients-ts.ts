/**
 * `node --expose-gc --import tsx bench/lib/clients-ts.ts '<ClientBenchInput as JSON>'`: the
 * TypeScript half of the `clients` benchmark, in a process of its own so that its CPU time
 * (`process.cpuUsage()`, every thread) is the client's alone. Each round measures, one after
 * the other, taking turns pass by pass and block by block (every other turn in reverse order):
 *
 * - paging, `passes` times: every invoice of the organization, `per_page` at a time, through
 *   `for await (const invoice of client.invoices.list({ per_page }))`, against a loop of
 *   `fetch(…/v1/invoices?page=N&per_page=…)` + `response.json()` until `meta` says the last page;
 * - creating: `contacts` contacts one after the other (in `blocks` blocks), through
 *   `client.contacts.create()`, against `fetch` POSTs of the same bodies without and with an
 *   `Idempotency-Key` (the client sends one).
 *
 * Both read every item the same way (its id into a Set, checked for the count). A subject's round
 * is the sum of its passes or blocks. Prints one line of JSON: ClientBenchOutput.
 */
import { randomUUID } from "node:crypto";
import { Tessera } from "../../clients/typescript/src/index.ts";
import type { ClientBenchInput, ClientBenchOutput, SubjectName, SubjectRound } from "./client-figures.ts";
import { processCpuS, threadCpuS } from "./cpu.ts";
import { orderOfRound } from "./rounds.ts";
import { percentile } from "./stats.ts";

const input = JSON.parse(process.argv[2]!) as ClientBenchInput;
const gc = (globalThis as { gc?: () => void }).gc;
const client = new Tessera({ apiKey: input.key, baseURL: input.url });
const authorization = `Bearer ${input.key}`;

interface Pass {
  items: number;
  /** ms per request: a page fetched, parsed and read, or a contact created. */
  samples: number[];
}

interface InvoicePage {
  data: Array<{ id: string }>;
  meta: { total: number; page: number; per_page: number };
}

async function pageRaw(): Promise<Pass> {
  const ids = new Set<string>();
  const samples: number[] = [];
  let last = performance.now();
  for (let page = 1; ; page++) {
    const response = await fetch(`${input.url}/v1/invoices?page=${page}&per_page=${input.perPage}`, {
      headers: { authorization },
    });
    if (response.status !== 200)
      throw new Error(`GET /v1/invoices?page=${page} answered ${response.status}: ${await response.text()}`);
    const body = (await response.json()) as InvoicePage;
    const now = performance.now();
    samples.push(now - last);
    last = now;
    for (const invoice of body.data) ids.add(invoice.id);
    if (body.data.length === 0 || body.meta.page * body.meta.per_page >= body.meta.total) break;
  }
  return { items: checkedCount(ids, "raw fetch"), samples };
}

async function pageClient(): Promise<Pass> {
  const ids = new Set<string>();
  const samples: number[] = [];
  let last = performance.now();
  let read = 0;
  for await (const invoice of client.invoices.list({ per_page: input.perPage })) {
    // The first item of a page: the page has just been fetched and parsed.
    if (read++ % input.perPage === 0) {
      const now = performance.now();
      samples.push(now - last);
      last = now;
    }
    ids.add(invoice.id);
  }
  return { items: checkedCount(ids, "the client"), samples };
}

function checkedCount(ids: Set<string>, who: string): number {
  if (ids.size !== input.invoices)
    throw new Error(`${who} paged through ${ids.size} distinct invoices, not ${input.invoices}`);
  return ids.size;
}

/** The `n`th contact a subject makes in a round (or in the warm-up): a new email every time. */
function contactOf(subject: string, round: number | "warmup", n: number) {
  const id = `${input.tag}-${subject}-r${round}-${n}`;
  return { name: `Contact ${id}`, email: `${id}@bench.example` };
}

async function createRaw(
  round: number | "warmup",
  from: number,
  count: number,
  keyed: boolean,
): Promise<Pass> {
  const samples: number[] = [];
  for (let n = from; n < from + count; n++) {
    const body = contactOf(keyed ? "raw-key" : "raw", round, n);
    const started = performance.now();
    const headers: Record<string, string> = { authorization, "content-type": "application/json" };
    if (keyed) headers["idempotency-key"] = `bench-${randomUUID()}`;
    const response = await fetch(`${input.url}/v1/contacts`, {
      method: "POST",
      headers,
      body: JSON.stringify(body),
    });
    if (response.status !== 201)
      throw new Error(`POST /v1/contacts answered ${response.status}: ${await response.text()}`);
    const contact = (await response.json()) as { id: string; email: string };
    samples.push(performance.now() - started);
    if (contact.email !== body.email || !contact.id)
      throw new Error(`POST /v1/contacts answered ${contact.id}`);
  }
  return { items: count, samples };
}

async function createClient(round: number | "warmup", from: number, count: number): Promise<Pass> {
  const samples: number[] = [];
  for (let n = from; n < from + count; n++) {
    const body = contactOf("client", round, n);
    const started = performance.now();
    const contact = await client.contacts.create(body);
    samples.push(performance.now() - started);
    if (contact.email !== body.email || !contact.id)
      throw new Error(`contacts.create answered ${contact.id}`);
  }
  return { items: count, samples };
}

/** One pass (paging) or one block of creates: round, index of the first contact, contacts. */
const RUNS: Record<SubjectName, (round: number | "warmup", from: number, count: number) => Promise<Pass>> = {
  "paging/raw": () => pageRaw(),
  "paging/client": () => pageClient(),
  "creating/raw": (round, from, count) => createRaw(round, from, count, false),
  "creating/raw+key": (round, from, count) => createRaw(round, from, count, true),
  "creating/client": (round, from, count) => createClient(round, from, count),
};

/** Requests the server has answered so far, `/metrics` itself left out. */
async function serverRequests(): Promise<number> {
  const response = await fetch(`${input.url}/metrics`, {
    headers: { authorization: `Bearer ${input.metricsToken}` },
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET /metrics answered ${response.status}: ${text}`);
  let total = 0;
  for (const line of text.split("\n")) {
    if (!line.startsWith("tessera_http_requests_total{") || line.includes('route="/metrics"')) continue;
    total += Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return total;
}

function serverCpu(): { process: number | undefined; main: number | undefined } {
  return { process: processCpuS(input.serverPid), main: threadCpuS(input.serverPid, input.serverPid) };
}

/** A subject's round so far: its blocks summed, their samples kept for the percentiles. */
interface Sum {
  figures: SubjectRound;
  samples: number[];
}

/** One pass or block of `subject`, added to its round's sum. */
async function measure(sum: Sum, from: number, count: number): Promise<void> {
  const { subject, round } = sum.figures;
  gc?.();
  const requestsBefore = await serverRequests();
  const serverBefore = serverCpu();
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const pass = await RUNS[subject](round, from, count);
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const serverAfter = serverCpu();
  const requests = (await serverRequests()) - requestsBefore;
  const add = (sofar: number | null, after: number | undefined, before: number | undefined) =>
    sofar === null || after === undefined || before === undefined ? null : sofar + (after - before) * 1000;
  const f = sum.figures;
  f.blocks++;
  f.requests += requests;
  f.items += pass.items;
  f.wallMs += wallMs;
  f.cpuMs += (cpu.user + cpu.system) / 1000;
  f.serverCpuMs = add(f.serverCpuMs, serverAfter.process, serverBefore.process);
  f.serverMainMs = add(f.serverMainMs, serverAfter.main, serverBefore.main);
  sum.samples.push(...pass.samples);
}

function newSum(subject: SubjectName, round: number): Sum {
  const figures: SubjectRound = {
    subject,
    round,
    blocks: 0,
    requests: 0,
    items: 0,
    wallMs: 0,
    cpuMs: 0,
    serverCpuMs: 0,
    serverMainMs: 0,
    medianMs: NaN,
    p99Ms: NaN,
  };
  return { figures, samples: [] };
}

// Untimed: JIT, the connection, the server's list cache and idempotency table, alike for all.
for (const subject of Object.keys(RUNS) as SubjectName[])
  await RUNS[subject]("warmup", 0, input.warmupContacts);

const rounds: SubjectRound[] = [];
const paging: SubjectName[] = ["paging/raw", "paging/client"];
const creating: SubjectName[] = ["creating/raw", "creating/raw+key", "creating/client"];
for (let round = 0; round < input.rounds; round++) {
  const sums = new Map<SubjectName, Sum>([...paging, ...creating].map((s) => [s, newSum(s, round)]));
  // Turns (a pass, a block) alternate in order, counted on across rounds.
  for (let pass = 0; pass < input.passes; pass++) {
    for (const subject of orderOfRound(paging, round * input.passes + pass))
      await measure(sums.get(subject)!, 0, 0);
  }
  for (let block = 0; block < input.blocks; block++) {
    const from = Math.floor((block * input.contacts) / input.blocks);
    const to = Math.floor(((block + 1) * input.contacts) / input.blocks);
    for (const subject of orderOfRound(creating, round * input.blocks + block))
      await measure(sums.get(subject)!, from, to - from);
  }
  for (const { figures, samples } of sums.values()) {
    const sorted = Float64Array.from(samples).sort();
    rounds.push({ ...figures, medianMs: percentile(sorted, 50), p99Ms: percentile(sorted, 99) });
  }
}
const output: ClientBenchOutput = { runtime: `node ${process.version}`, rounds };
process.stdout.write(JSON.stringify(output) + "\n");
