import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { IsolateHost, SandboxLimits } from "../../sandbox/index.ts";
import { PROBE_WORKER, TESSERA_REFUSALS, probeIsolate, type ProbeResult } from "./compat-probe.ts";
import { hostFor } from "./helpers.ts";

/**
 * Tessera's column of sandbox/README.md's "Compatibility (measured)" tables, held to what the
 * probe (compat-probe.ts, the one scripts/compat-table.ts runs in Tessera, Deno and workerd)
 * measures in an isolate now. A name the README marks "yes" must work; a name it marks
 * otherwise must not, or the table is stale: rerun the script and paste its tables.
 */
const README = readFileSync(new URL("../../sandbox/README.md", import.meta.url), "utf8");

const SECTION = README.split(/^## /m).find((part) => part.startsWith("Compatibility (measured)")) ?? "";

/** A table of the section, by its header: each row's first cell and its Tessera (second) cell. */
function readmeTable(header: RegExp): Array<{ first: string; tessera: string }> {
  const lines = SECTION.split("\n");
  const start = lines.findIndex((line) => header.test(line));
  if (start < 0) return [];
  const rows: Array<{ first: string; tessera: string }> = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith("|")) break;
    const cells = line
      .slice(1, -1)
      .split(/(?<!\\)\|/)
      .map((c) => c.trim());
    rows.push({ first: cells[0]!, tessera: cells[1]! });
  }
  return rows;
}

/** Backticked names in a cell or a line. */
const namesIn = (text: string) => [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
/** A row about one name (`AbortSignal.any`), not a family's or the totals'. */
const oneName = (row: { first: string }) => /^`[^`]+`$/.test(row.first);

const WINTERTC = new Map(
  readmeTable(/^\| name +\| Tessera/)
    .filter(oneName)
    .map((row) => [namesIn(row.first)[0]!, row.tessera]),
);
/** Members with a row of their own, and those in the "Not in Tessera" list (`- family: \`a\`, …`). */
const DENO = new Map([
  ...readmeTable(/^\| `Deno\.` member +\| Tessera/)
    .filter(oneName)
    .map((row) => [namesIn(row.first)[0]!, row.tessera] as const),
  ...SECTION.split("\n")
    .filter((line) => line.startsWith("- "))
    .flatMap((line) => namesIn(line).map((name) => [name, "no"] as const)),
]);

const LIMITS: SandboxLimits = { memoryLimitMb: 128, cpuTimeLimitMs: 5_000, wallTimeLimitMs: 20_000 };
/** The Node.js line the README's table was measured on (scripts/compat-table.ts run by hand). */
const TABLE_NODE_MAJOR = 20;

let host: IsolateHost;
let measured: ProbeResult;
beforeAll(async () => {
  host = await hostFor(PROBE_WORKER, LIMITS);
  measured = await probeIsolate(host, { denoNames: [...DENO.keys()], refusals: TESSERA_REFUSALS });
});
afterAll(() => host.dispose());

describe("the README's compatibility table, Tessera's column", () => {
  it("lists every WinterTC name the probe checks, and nothing else", () => {
    expect(SECTION, 'sandbox/README.md has no "## Compatibility (measured)" section').not.toBe("");
    expect([...WINTERTC.keys()].sort()).toEqual(Object.keys(measured.wintertc).sort());
  });

  it("has every WinterTC name it marks yes working in an isolate, and none it marks otherwise", () => {
    // The table is measured on Node.js 20 (isolated-vm 5's V8). A newer line's V8 may have more
    // (WebAssembly.JSTag on Node 24), never less: there only the names marked yes are held to it.
    const measuredLine = Number(process.versions.node.split(".")[0]) === TABLE_NODE_MAJOR;
    const wrong = [...WINTERTC].flatMap(([name, claimed]) => {
      const now = measured.wintertc[name] ?? "not probed";
      if (claimed === "yes")
        return now === "yes" ? [] : [`${name}: README says yes, the isolate says ${now}`];
      return now === "yes" && measuredLine
        ? [`${name}: README says ${claimed}, yet it works: regenerate the table`]
        : [];
    });
    expect(wrong).toEqual([]);
  });

  it("has the Deno members it lists as it says: there, refusing (NotCapable, NotSupported), or absent", () => {
    expect(DENO.size).toBeGreaterThan(100);
    const wrong = [...DENO]
      .filter(([name, claimed]) => measured.deno[name] !== claimed)
      .map(
        ([name, claimed]) => `Deno.${name}: README says ${claimed}, the isolate says ${measured.deno[name]}`,
      );
    expect(wrong).toEqual([]);
  });
});
