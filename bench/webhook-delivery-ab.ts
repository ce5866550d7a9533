import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createPostgresStore, migrate } from "../store/index.ts";
import { numberFlag, target, type BenchOptions, type BenchResult, type ResultRow } from "./lib/report.ts";
import { orderOfRound } from "./lib/rounds.ts";
import { summarize } from "./lib/stats.ts";
import { describeCost, drain, endpointFor, startReceiver, type DeliveryCost } from "./lib/webhook-drain.ts";

/**
 * `webhook-delivery --baseline=<checkout>`: one worker process of this tree and one of
 * another checkout (the tree before a change: `git worktree add /tmp/base HEAD`, with
 * `node_modules` linked in) drain the same backlog in turns, `--rounds` times each, in the
 * order of `orderOfRound` (so a machine that drifts drifts on both alike). What compares is
 * each round's pair, never two runs. `--cpu-prof=<dir>` profiles this tree's workers,
 * `--this-env=NAME:value,…` sets their environment (an A/B of a setting on one tree).
 */

type Tree = "this tree" | "baseline";

export async function runAgainstBaseline(
  options: BenchOptions,
  databaseUrl: string,
  deliveries: number,
): Promise<BenchResult> {
  const rounds = numberFlag(options.flags, "rounds", 3);
  const bins: Record<Tree, string> = {
    "this tree": fileURLToPath(new URL("../bin/tessera.js", import.meta.url)),
    baseline: join(resolve(options.flags.baseline!), "bin/tessera.js"),
  };
  const profileDir = options.flags["cpu-prof"];
  // `--this-env=NAME:value,NAME:value`: settings for this tree's workers only (trying a knob).
  const thisEnv = Object.fromEntries(
    (options.flags["this-env"] ?? "")
      .split(",")
      .filter(Boolean)
      .map((pair) => [pair.slice(0, pair.indexOf(":")), pair.slice(pair.indexOf(":") + 1)]),
  );
  const store = createPostgresStore({ url: databaseUrl, poolSize: 4 });
  const receiver = await startReceiver();
  const measured: Record<Tree, Array<{ rate: number; cost: DeliveryCost }>> = {
    "this tree": [],
    baseline: [],
  };
  try {
    await migrate(store);
    await store.query("UPDATE webhook_deliveries SET status = 'failed' WHERE status = 'pending'");
    const orgId = await endpointFor(store, receiver.url);
    for (let round = 0; round < rounds; round++) {
      for (const tree of orderOfRound(["this tree", "baseline"] as const, round)) {
        const drained = await drain({
          store,
          databaseUrl,
          orgId,
          receiver,
          deliveries,
          processes: 1,
          bin: bins[tree],
          env: tree === "this tree" ? thisEnv : {},
          nodeArgs: tree === "this tree" && profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [],
        });
        measured[tree].push(drained);
        options.log(`  round ${round + 1}, ${tree}: ${Math.round(drained.rate).toLocaleString("en-US")}/s`);
        options.log(describeCost(drained.cost));
      }
    }
  } finally {
    await store.dispose();
    await receiver.close();
  }
  return abResult(measured, { deliveries, rounds, baseline: options.flags.baseline });
}

function abResult(
  measured: Record<Tree, Array<{ rate: number; cost: DeliveryCost }>>,
  params: { deliveries: number; rounds: number; baseline: string | undefined },
): BenchResult {
  const rate = (tree: Tree) => summarize(measured[tree].map((m) => m.rate)).median;
  const cpu = (tree: Tree) => summarize(measured[tree].map((m) => m.cost.workerCpuUs)).median;
  const main = (tree: Tree) => summarize(measured[tree].map((m) => m.cost.workerMainThreadUs)).median;
  const ratios = measured["this tree"].map((m, i) => m.rate / measured.baseline[i]!.rate);
  const row = (tree: Tree): ResultRow => ({
    subject: `1 worker process, ${tree} (median of ${params.rounds})`,
    unit: "ms",
    median: 1000 / rate(tree),
    p99: 1000 / rate(tree),
    reqPerSec: rate(tree),
    versusAnchor: tree === "this tree" ? `${(rate(tree) / rate("baseline")).toFixed(2)}× baseline` : "1.00×",
    serverCpuUs: { process: cpu(tree), mainThread: main(tree) },
  });
  return {
    name: "webhook-delivery",
    description: `${params.deliveries.toLocaleString("en-US")} deliveries drained by one worker, this tree and --baseline in turns, ${params.rounds} rounds`,
    params,
    rows: [row("this tree"), row("baseline")],
    targets: [target("deliveries/s, 1 process ≥ 5,000", rate("this tree"), ">=", 5000, "/s")],
    details: { rounds: measured, ratiosByRound: ratios },
  };
}
