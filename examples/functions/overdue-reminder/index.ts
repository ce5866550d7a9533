/**
 * overdue-reminder: the Tessera context at work. Lists the organization's overdue
 * invoices through `ctx.platform.fetch` (the REST API, as the caller), remembers in
 * the finance engine's state which ones were already reminded, and answers with a
 * JSON summary. Handler style: `export default function (req, ctx)`.
 *
 *   GET  …/invoke          what a run would do (changes nothing)
 *   POST …/invoke          remind every overdue invoice not reminded before
 *   GET  …/invoke?client=X the same, for clients whose name contains X
 *
 * Under plain Deno, `_shared/dev-host.ts` supplies the context from dev-fixtures.json.
 */
import type { Api, Context } from "tessera/types";

const STATE_PREFIX = "overdue-reminder:";

export default async function (req: Request, ctx: Context): Promise<Response> {
  if (req.method !== "GET" && req.method !== "POST") {
    return Response.json({ error: "use GET or POST" }, { status: 405, headers: { allow: "GET, POST" } });
  }
  const listed = await ctx.platform.fetch("/v1/invoices?status=overdue&per_page=100&sort=due_date");
  if (!listed.ok) {
    return Response.json({ error: `listing invoices failed with ${listed.status}` }, { status: 502 });
  }
  const client = new URL(req.url).searchParams.get("client")?.toLowerCase();
  // Typed by the API's OpenAPI document: `data` is Api.Invoice[] (sdk/README.md, "ctx.platform").
  const overdue = (await listed.json()).data.filter(
    (invoice) => !client || invoice.client.toLowerCase().includes(client),
  );

  const remind = req.method === "POST";
  const reminded: string[] = [];
  const alreadyReminded: string[] = [];
  for (const invoice of overdue) {
    const key = STATE_PREFIX + invoice.number;
    if ((await ctx.engines.finance.get(key)) !== null) {
      alreadyReminded.push(invoice.number);
      continue;
    }
    reminded.push(invoice.number);
    if (remind) await ctx.engines.finance.set(key, { client: invoice.client, due_date: invoice.due_date });
  }
  if (remind && reminded.length > 0) {
    // Logged after the response is sent: the caller does not wait for bookkeeping.
    ctx.waitUntil(Promise.resolve().then(() => console.log(`reminded ${reminded.join(", ")}`)));
  }

  return Response.json({
    dry_run: !remind,
    overdue: overdue.length,
    [remind ? "reminded" : "would_remind"]: reminded,
    already_reminded: alreadyReminded,
    outstanding: totalsByCurrency(overdue),
    oldest_due_date: overdue.map((invoice) => invoice.due_date).sort()[0] ?? null,
  });
}

/** Sums in integer cents, so 0.1 + 0.2 stays 0.30. */
function totalsByCurrency(invoices: Api.Invoice[]): Record<string, string> {
  const cents = new Map<string, number>();
  for (const { currency, amount } of invoices) {
    cents.set(currency, (cents.get(currency) ?? 0) + Math.round(amount * 100));
  }
  return Object.fromEntries(
    [...cents]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([currency, total]) => [currency, (total / 100).toFixed(2)]),
  );
}
