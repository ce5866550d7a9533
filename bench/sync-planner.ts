import { isoDate, silentLogger, systemClock } from "../core/index.ts";
import {
  createApiKey,
  createOrganization,
  createResourceServices,
  OPERATOR,
  refreshSnapshot,
  seedDemo,
} from "../engines/index.ts";
import { createBuiltinPlanner, createSyncService, type SyncCaller } from "../sync/index.ts";
import { createPgliteStore, migrate } from "../store/index.ts";
import { numberFlag, target, type Benchmark, type BenchOptions, type BenchResult } from "./lib/report.ts";
import { summarize } from "./lib/stats.ts";
import { growDemo } from "./lib/sync-seed.ts";

const SIZES = { full: { records: 10_000, rounds: 10 }, tiny: { records: 200, rounds: 1 } };

/**
 * SYNC's built-in planner answering an owner's everyday questions (and two commands, proposed,
 * never applied) through the whole service as `POST /v1/sync/chat` runs it (planner, tools,
 * the interaction and its actions stored), in process on the embedded store, with every
 * resource grown to `--records` rows (10,000 by default). There is no anchor: the target is
 * the (p50 < 20 ms, p99 < 100 ms on this machine).
 */
export const syncPlanner: Benchmark = {
  name: "sync-planner",
  summary: "ms per SYNC chat message (built-in planner) at 10,000 records per resource",
  async run(options: BenchOptions): Promise<BenchResult> {
    const size = options.tiny ? SIZES.tiny : SIZES.full;
    const records = numberFlag(options.flags, "records", size.records);
    const rounds = numberFlag(options.flags, "rounds", size.rounds);
    const store = await createPgliteStore();
    try {
      await migrate(store);
      const org = await createOrganization(store, { name: "bench-sync", plan: "enterprise" });
      const key = await createApiKey(store, org.id, { kind: "full_access", name: "bench" }, OPERATOR);
      const seedStarted = performance.now();
      await seedDemo(store, systemClock, org.id, 1);
      const counts = await growDemo(store, org.id, records);
      await refreshSnapshot(store, systemClock, org.id);
      options.log(
        `  seeded ${JSON.stringify(counts)} in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`,
      );
      const services = createResourceServices(store, systemClock);
      const sync = createSyncService({
        store,
        clock: systemClock,
        services,
        config: { llm: undefined, actionTtlMs: 900_000, maxMessageChars: 4_000, maxTurns: 1_000 },
        planner: createBuiltinPlanner(),
        log: silentLogger,
      });
      const caller: SyncCaller = {
        orgId: org.id,
        scopes: ["*"],
        credential: { type: "api_key", id: key.id },
      };
      const messages = await benchMessages(store, org.id);
      const samples: number[] = [];
      const perMessage = new Map<string, number[]>(messages.map((message) => [message, []]));
      const failed: string[] = [];
      for (let round = 0; round < rounds; round++) {
        for (const message of messages) {
          const started = performance.now();
          const interaction = await sync.chat(caller, { message });
          const elapsed = performance.now() - started;
          samples.push(elapsed);
          perMessage.get(message)!.push(elapsed);
          if ((interaction.status === "failed" || !interaction.understood) && round === 0)
            failed.push(message);
        }
      }
      const summary = summarize(samples);
      const byMessage = [...perMessage].map(([message, times]) => ({ message, ...summarize(times) }));
      for (const slow of [...byMessage].sort((a, b) => b.median - a.median).slice(0, 3)) {
        options.log(
          `  slowest: ${slow.median.toFixed(1)} ms median, ${slow.max.toFixed(1)} ms max: ${slow.message}`,
        );
      }
      return {
        name: "sync-planner",
        description: `${messages.length} messages × ${rounds} rounds, ${records.toLocaleString("en-US")} records per resource (PGlite)`,
        params: { records, rounds, messages: messages.length },
        rows: [
          {
            subject: "chat, built-in planner",
            unit: "ms",
            median: summary.median,
            p99: summary.p99,
            versusAnchor: "—",
          },
        ],
        targets: [
          target("sync chat p50 < 20 ms", summary.median, "<", 20, "ms"),
          target("sync chat p99 < 100 ms", summary.p99, "<", 100, "ms"),
          target("messages SYNC could not answer or did not understand", failed.length, "<=", 0, ""),
        ],
        details: { counts, summary, failed, byMessage },
      };
    } finally {
      await store.dispose();
    }
  },
};

/** Questions an owner asks, and two commands, naming records that exist in the seeded data. */
async function benchMessages(
  store: Awaited<ReturnType<typeof createPgliteStore>>,
  orgId: string,
): Promise<string[]> {
  const [invoice] = await store.query<{ number: string; client: string }>(
    "SELECT number, client FROM invoices WHERE org_id = $1 AND status IN ('open', 'overdue') ORDER BY created_at LIMIT 1",
    [orgId],
  );
  const [contact] = await store.query<{ name: string }>(
    "SELECT name FROM contacts WHERE org_id = $1 ORDER BY created_at LIMIT 1",
    [orgId],
  );
  return [
    "Which invoices are overdue?",
    "How much is owed in total, per currency?",
    "How many invoices fall due in the next 7 days?",
    `Show me invoice ${invoice!.number}`,
    `What has ${invoice!.client} been invoiced?`,
    "Who are our top 5 clients by revenue?",
    `What is ${contact!.name}'s email address?`,
    "How many contacts do we have?",
    "Show me the pipeline by stage",
    "How many deals did we win?",
    "How many candidates are in interview?",
    "Which skills were verified in the last 30 days?",
    `What was collected since ${isoDate(new Date(Date.now() - 30 * 86_400_000))}?`,
    "Give me the latest snapshot",
    // Structured questions (sync/builtin/query/): thresholds, superlatives, aggregates, windows, negation.
    "open invoices above 2,500",
    "the three largest open invoices",
    "average deal value",
    "median invoice amount",
    "what % of unpaid invoices are overdue",
    "invoices issued last month",
    "skills not verified yet",
    "deals under 5k still in play",
    `Mark ${invoice!.number} as paid`,
    "Create a contact Ada Lovelace, ada@example.com, at Analytical Engines",
  ];
}
