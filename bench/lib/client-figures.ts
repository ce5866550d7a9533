/**
 * What the `clients` benchmark asks each language's runner (clients-ts.ts, clients_bench.py) to
 * do, and the figures a runner prints back as one line of JSON.
 */

/** The runner's argument, as JSON. */
export interface ClientBenchInput {
  /** The server's origin, and a full-access key of the seeded organization. */
  url: string;
  key: string;
  /** `TESSERA_METRICS_TOKEN` of the server: round trips are counted from its `/metrics`. */
  metricsToken: string;
  /** The server's pid, whose CPU is read from /proc around each subject (Linux). */
  serverPid: number;
  /** Invoices in the organization: every paging pass must see each exactly once. */
  invoices: number;
  perPage: number;
  /** Passes through every invoice each paging subject makes in each round. */
  passes: number;
  /** Contacts each create subject makes in each round, one after the other. */
  contacts: number;
  /**
   * A round's contacts are made in this many blocks, and its passes one by one, the subjects taking
   * turns block by block (every other turn in reverse order): a burst of load on this shared machine
   * then falls on every subject alike instead of on whichever was running.
   */
  blocks: number;
  /** Contacts each create subject makes once, untimed, before the rounds. */
  warmupContacts: number;
  rounds: number;
  /** Put into every email: `<tag>-<subject>-r<round>-<n>@bench.example`, unique per run and runner. */
  tag: string;
}

/** The subjects, each measured once a round; `raw+key` is raw with an `Idempotency-Key`, as the clients send. */
export const SUBJECTS = [
  "paging/raw",
  "paging/client",
  "creating/raw",
  "creating/raw+key",
  "creating/client",
] as const;
export type SubjectName = (typeof SUBJECTS)[number];

/** One subject in one round: its passes or blocks summed. */
export interface SubjectRound {
  subject: SubjectName;
  round: number;
  /** Passes (paging) or blocks (creating) summed here. */
  blocks: number;
  /** Requests the server counted for the subject (its `/metrics`): round trips, retries included. */
  requests: number;
  /** Invoices read, or contacts created. */
  items: number;
  wallMs: number;
  /** The runner process's CPU (all threads: user + system) over the subject. */
  cpuMs: number;
  /** The server's CPU over the subject, whole process and main thread; null off Linux. */
  serverCpuMs: number | null;
  serverMainMs: number | null;
  /** Per request, over the round: a page (fetch, parse, every item read) or a create (send, parse). */
  medianMs: number;
  p99Ms: number;
}

export interface ClientBenchOutput {
  /** `node v20.…` or `Python 3.11.7, httpx 0.28.1`. */
  runtime: string;
  rounds: SubjectRound[];
}
