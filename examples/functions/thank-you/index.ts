/**
 * thank-you: a function an event runs. Deployed with an event trigger
 * (`tessera functions deploy examples/functions/thank-you --event invoice.paid`), it is
 * sent every `invoice.paid` event as a POST whose body is the event, writes the thank-you
 * note to the finance engine's state once per invoice (a retried run does not thank twice),
 * and logs it. Handler style: `export default function (req, ctx)`.
 *
 *   POST …/invoke   {"type":"invoice.paid","data":{"object":{…invoice…}}}
 *
 * Under plain Deno, `_shared/dev-host.ts` supplies the context.
 */
import type { Context } from "tessera/types";

interface PaidEvent {
  id: string;
  type: string;
  data: { object: { id: string; number: string; client: string; amount: number; currency: string } };
}

export default async function (req: Request, ctx: Context): Promise<Response> {
  if (req.method !== "POST") {
    return Response.json(
      { error: "POST an invoice.paid event" },
      { status: 405, headers: { allow: "POST" } },
    );
  }
  const event = (await req.json()) as PaidEvent;
  // A trigger may subscribe to more kinds than this function handles: others are accepted and ignored.
  if (event.type !== "invoice.paid") return new Response(null, { status: 204 });
  const invoice = event.data.object;
  const key = `thank-you:${invoice.id}`;
  if ((await ctx.engines.finance.get(key)) !== null) {
    return Response.json({ invoice: invoice.number, thanked: false, reason: "already thanked" });
  }
  const amount = `${invoice.amount.toFixed(2)} ${invoice.currency}`;
  const note = `Dear ${invoice.client}, thank you for paying ${invoice.number} (${amount}).`;
  await ctx.engines.finance.set(key, { note, event: event.id });
  console.log(note);
  return Response.json({ invoice: invoice.number, thanked: true, note });
}
