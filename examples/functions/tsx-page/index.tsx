/**
 * tsx-page: server-rendered HTML from TSX, over several modules. deno.json sets
 * `"jsx": "react-jsx"` with `jsxImportSource` pointing (through the import map) at a
 * 60-line runtime in `jsx/` that renders to an escaped string: no framework.
 * Handler style: `export default { fetch }`.
 *
 *   GET …?name=<anything>   a page greeting `name`, HTML-escaped
 */
import { renderToString } from "./jsx/jsx-runtime.ts";
import { Layout } from "./components/layout.tsx";
import { InvoiceTable, type InvoiceRow } from "./components/invoice-table.tsx";

const INVOICES: InvoiceRow[] = [
  { number: "INV-1001", client: "Acme & Sons", amount: 1200.1, overdue: true },
  { number: "INV-1002", client: "Globex <EU>", amount: 340.2, overdue: false },
];

export default {
  fetch(req: Request): Response {
    const name = new URL(req.url).searchParams.get("name") ?? "world";
    const html = renderToString(
      <Layout title="Invoices">
        <p class="greeting">Hello, {name}!</p>
        <InvoiceTable rows={INVOICES} />
        <>
          <footer data-count={INVOICES.length}>{INVOICES.length} invoices</footer>
        </>
      </Layout>,
    );
    return new Response("<!doctype html>" + html, {
      headers: { "content-type": "text/html; charset=utf-8" },
    });
  },
};
