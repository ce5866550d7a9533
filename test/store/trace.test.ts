import { AsyncLocalStorage } from "node:async_hooks";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  installTracer,
  randomBase62,
  type SpanAttributes,
  type SpanOptions,
  type TraceSpan,
  type Tracer,
} from "../../core/index.ts";
import { createOrganization, recordEvents } from "../../engines/index.ts";
import type { Store } from "../../store/index.ts";
import { statementSummary } from "../../store/trace.ts";
import { storeKinds } from "../helpers/stores.ts";

/**
 * Store queries as spans (store/trace.ts), on each store kind, under a tracer that keeps what it
 * is asked to record (the facade of core/trace.ts, without the SDK).
 */

class KeptSpan implements TraceSpan {
  attributes: Record<string, unknown> = {};
  failed: unknown = undefined;
  ended: number | undefined;
  readonly traceparent: string;
  constructor(
    readonly name: string,
    readonly options: SpanOptions,
    readonly recording: boolean,
  ) {
    this.traceparent = `00-${"a".repeat(32)}-${randomHex(16)}-${recording ? "01" : "00"}`;
    Object.assign(this.attributes, options.attributes);
  }
  set(attributes: SpanAttributes) {
    Object.assign(this.attributes, attributes);
  }
  rename() {}
  fail(error: unknown) {
    this.failed = error;
  }
  end(endTime?: number) {
    this.ended = endTime ?? performance.now();
  }
}

function keepingTracer(queryMinMs: number) {
  const active = new AsyncLocalStorage<TraceSpan>();
  const spans: KeptSpan[] = [];
  const tracer: Tracer = {
    queryMinMs,
    start(name, options = {}) {
      const span = new KeptSpan(name, options, true);
      spans.push(span);
      return span;
    },
    within: (span, fn) => active.run(span, fn),
    active: () => active.getStore(),
  };
  return { tracer, spans };
}

describe.each(storeKinds())("store queries as spans on $name", (kind) => {
  let store: Store;
  let orgId: string;
  beforeAll(async () => {
    store = await kind.open();
    orgId = (await createOrganization(store, { name: `test-${randomBase62(10)}`, plan: "free" })).id;
  });
  afterAll(() => store?.dispose());
  afterEach(() => installTracer(undefined));

  it("records a query within a sampled trace as its child, named by statement, without its text or parameters", async () => {
    const { tracer, spans } = keepingTracer(0);
    installTracer(tracer);
    const parent = new KeptSpan("request", {}, true);
    await tracer.within(parent, () =>
      store.query("SELECT id FROM organizations WHERE name = $1", ["p_secret_parameter"]),
    );
    expect(spans).toHaveLength(1);
    const [query] = spans;
    expect(query!.name).toBe("SELECT organizations");
    expect(query!.options).toMatchObject({ kind: "client", parent });
    expect(query!.attributes).toEqual({
      "db.system.name": "postgresql",
      "db.operation.name": "SELECT",
      "db.collection.name": "organizations",
      "db.query.summary": "SELECT organizations",
    });
    expect(query!.options.startTime).toBeLessThanOrEqual(query!.ended!);
  });

  it("records nothing outside a trace, or in a trace the sampler left out", async () => {
    const { tracer, spans } = keepingTracer(0);
    installTracer(tracer);
    await store.query("SELECT 1");
    await tracer.within(new KeptSpan("unsampled", {}, false), () => store.query("SELECT 1"));
    expect(spans).toEqual([]);
  });

  it("leaves out a query faster than TESSERA_TRACE_QUERY_MIN_MS, but never a failed one", async () => {
    const { tracer, spans } = keepingTracer(60_000);
    installTracer(tracer);
    const parent = new KeptSpan("request", {}, true);
    await tracer.within(parent, async () => {
      await store.query("SELECT 1");
      await expect(store.query("SELECT * FROM no_such_table")).rejects.toThrow();
    });
    expect(spans.map((span) => span.name)).toEqual(["SELECT no_such_table"]);
    expect(spans[0]!.failed).toBeDefined();
  });

  it("stamps the events a sampled trace's transaction records with its traceparent (migration 0024)", async () => {
    const { tracer } = keepingTracer(0);
    const record = () =>
      store.transaction((tx) =>
        recordEvents(tx, orgId, new Date(), [{ type: "contact.created", object: { id: "con_1" } }]),
      );
    const [untraced] = await record();
    installTracer(tracer);
    const parent = new KeptSpan("request", {}, true);
    const [traced] = await tracer.within(parent, record);
    const [unsampled] = await tracer.within(new KeptSpan("unsampled", {}, false), record);
    // Outside the transaction, the session's setting reads '' again: no stamp leaks to the next.
    const [after] = await tracer.within(parent, () =>
      recordEvents(store, orgId, new Date(), [{ type: "contact.created", object: { id: "con_2" } }]),
    );
    const stamps = await store.query<{ id: string; traceparent: string | null }>(
      "SELECT id, traceparent FROM events WHERE id = ANY($1::text[])",
      [[untraced, traced, unsampled, after]],
    );
    const stampOf = (id: string | undefined) => stamps.find((row) => row.id === id)?.traceparent;
    expect(stampOf(traced)).toBe(parent.traceparent);
    expect(stampOf(untraced)).toBeNull();
    expect(stampOf(unsampled)).toBeNull();
    expect(stampOf(after)).toBeNull();
  });
});

describe("statementSummary", () => {
  it("names a statement by its operation and table, a WITH by its first write", () => {
    expect(statementSummary("SELECT * FROM invoices WHERE org_id = $1").text).toBe("SELECT invoices");
    expect(statementSummary("  -- why\n  update api_keys SET last_used_at = $1").text).toBe(
      "UPDATE api_keys",
    );
    expect(statementSummary("DELETE FROM events WHERE created_at < $1").text).toBe("DELETE events");
    expect(
      statementSummary(
        "WITH new AS (INSERT INTO contacts (id) VALUES ($1) RETURNING *) INSERT INTO events SELECT 1",
      ).text,
    ).toBe("INSERT contacts");
    expect(
      statementSummary(
        "WITH due AS (SELECT id FROM webhook_deliveries FOR UPDATE SKIP LOCKED) UPDATE webhook_deliveries d SET locked_until = $1 FROM due",
      ).text,
    ).toBe("UPDATE webhook_deliveries");
    expect(statementSummary("SELECT pg_advisory_xact_lock($1)").text).toBe("SELECT");
  });
});

function randomHex(length: number): string {
  return Array.from({ length }, () => "0123456789abcdef"[Math.floor(Math.random() * 16)]).join("");
}
