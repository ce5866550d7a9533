import type { ClientOptions } from "./core/options.ts";
import { TesseraResources } from "./generated/resources.ts";
import { webhooks } from "./webhooks.ts";

/**
 * The Tessera API client: every operation of the API as a method, grouped by resource.
 *
 * @example
 *   import { Tessera } from "@tessera/client";
 *
 *   const client = new Tessera(); // TESSERA_API_KEY, TESSERA_BASE_URL
 *   const me = await client.me.retrieve();
 *   for await (const invoice of client.invoices.list({ status: "overdue" })) console.log(invoice.number);
 */
export class Tessera extends TesseraResources {
  /** Standard Webhooks verification, no client needed: `await Tessera.webhooks.verify(body, headers, secret)`. */
  static readonly webhooks = webhooks;
  /** The same as `Tessera.webhooks`. */
  readonly webhooks = webhooks;

  /** Options default from the environment: `TESSERA_API_KEY`, `TESSERA_BASE_URL`. */
  constructor(options: ClientOptions = {}) {
    super(options);
  }
}
