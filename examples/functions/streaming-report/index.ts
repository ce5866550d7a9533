/**
 * streaming-report: a response streamed as it is produced. A `ReadableStream`
 * enqueues one NDJSON line (or CSV row, with `?format=csv`) per timer tick,
 * encoded with `TextEncoder`, so the client reads the first rows before the last
 * exist. Handler style: `export default { fetch }` (`deno serve`).
 *
 *   GET …?months=6&format=ndjson|csv
 */
const TICK_MS = 5;
const MAX_MONTHS = 24;

interface Row {
  month: string;
  invoices: number;
  revenue: string;
}

export default {
  fetch(req: Request): Response {
    const params = new URL(req.url).searchParams;
    const months = Number(params.get("months") ?? 6);
    const format = params.get("format") ?? "ndjson";
    if (
      !Number.isInteger(months) ||
      months < 1 ||
      months > MAX_MONTHS ||
      !["ndjson", "csv"].includes(format)
    ) {
      return Response.json(
        { error: `months must be 1-${MAX_MONTHS}, format ndjson or csv` },
        { status: 400 },
      );
    }
    const csv = format === "csv";
    return new Response(reportStream(months, csv), {
      headers: {
        "content-type": csv ? "text/csv; charset=utf-8" : "application/x-ndjson",
        "cache-control": "no-store",
      },
    });
  },
};

function reportStream(months: number, csv: boolean): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let month = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  return new ReadableStream({
    start(controller) {
      if (csv) controller.enqueue(encoder.encode("month,invoices,revenue\n"));
      const tick = () => {
        const row = rowFor(month++);
        controller.enqueue(
          encoder.encode(csv ? `${row.month},${row.invoices},${row.revenue}\n` : JSON.stringify(row) + "\n"),
        );
        if (month < months) timer = setTimeout(tick, TICK_MS);
        else controller.close();
      };
      timer = setTimeout(tick, TICK_MS);
    },
    cancel() {
      clearTimeout(timer);
    },
  });
}

/** Deterministic figures for month i from January 2024, so every run streams the same report. */
function rowFor(i: number): Row {
  const date = new Date(Date.UTC(2024, i, 1));
  const invoices = 40 + ((i * 17) % 23);
  const cents = invoices * (12_345 + i * 1_111);
  return { month: date.toISOString().slice(0, 7), invoices, revenue: (cents / 100).toFixed(2) };
}
