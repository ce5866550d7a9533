import { Webhook } from "standardwebhooks";

/**
 * The Deno-compatibility table: each example under examples/functions/, how plain
 * Deno runs it, and the requests sent, in order, to it under Deno and under Tessera.
 * Paths are below `/v1/functions/<name>/invoke` on both sides, so the function sees
 * the same path; only the origin differs (normalized before comparing).
 */
export interface ParityRequest {
  /** Shown after the method and path, where the path alone does not say what is tested. */
  note?: string;
  method?: string;
  /** Below the invoke URL: "/hello/Ada?greeting=Hi", or "" for the invoke URL itself. */
  path: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Headers and body made at send time (signatures over the current time). */
  prepare?: () => { headers: Record<string, string>; body: string };
}

export interface ParityCase {
  name: string;
  /**
   * How plain Deno runs it: `serve` = `deno serve index.ts` (default export `{ fetch }`),
   * `run` = `deno run index.ts` (calls `Deno.serve`), `host` = `_shared/dev-host.ts`
   * (`export default function (req, ctx)` or the Tessera context).
   */
  deno: "serve" | "run" | "host";
  entry: string;
  /** Secrets: Deno's environment, and the function's secrets in Tessera. */
  secrets?: Record<string, string>;
  requests: ParityRequest[];
}

export const WEBHOOK_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const EVENT = JSON.stringify({
  type: "invoice.paid",
  timestamp: "2024-05-01T12:00:00Z",
  data: { id: "inv_1", object: "invoice", amount: 120.5 },
});

const PAID = JSON.stringify({
  id: "evt_paid1",
  type: "invoice.paid",
  timestamp: "2024-05-01T12:00:00Z",
  data: {
    object: {
      id: "inv_7",
      object: "invoice",
      number: "INV-000007",
      client: "Acme Corp",
      amount: 120.5,
      currency: "EUR",
    },
  },
});
const OTHER = JSON.stringify({ id: "evt_other", type: "contact.created", data: { object: { id: "con_1" } } });
const JSON_TYPE = { "content-type": "application/json" };

function signed(secret: string, id: string, body: string, at: Date = new Date()) {
  const signature = new Webhook(secret).sign(id, at, body);
  const timestamp = String(Math.floor(at.getTime() / 1000));
  return { "webhook-id": id, "webhook-timestamp": timestamp, "webhook-signature": signature };
}

const BOUNDARY = "----tessera-parity-7MA4YWxkTrZu0gW";
const MULTIPART = [
  `--${BOUNDARY}`,
  'Content-Disposition: form-data; name="title"',
  "",
  "Q1 report ✓",
  `--${BOUNDARY}`,
  'Content-Disposition: form-data; name="file"; filename="numbers.csv"',
  "Content-Type: text/csv",
  "",
  "a,b\n1,2",
  `--${BOUNDARY}--`,
  "",
].join("\r\n");

export const CASES: ParityCase[] = [
  {
    name: "hono-app",
    deno: "serve",
    entry: "index.ts",
    requests: [
      { path: "" },
      { path: "/hello/Ada?greeting=Hi" },
      { path: "/hello/J%C3%B6rg" },
      { path: "/contacts?q=ada" },
      { path: "/contacts/2" },
      { path: "/contacts/99" },
      {
        method: "POST",
        path: "/contacts",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "Grace Hopper", email: "grace@example.com" }),
      },
      { path: "/contacts/3" },
      {
        note: "malformed",
        method: "POST",
        path: "/contacts",
        headers: { "content-type": "application/json" },
        body: "{nope",
      },
      { path: "/boom" },
      { path: "/nowhere" },
    ],
  },
  {
    name: "webhook-receiver",
    deno: "run",
    entry: "index.ts",
    secrets: { WEBHOOK_SECRET },
    requests: [
      {
        note: "signed",
        method: "POST",
        path: "",
        prepare: () => ({ headers: signed(WEBHOOK_SECRET, "msg_1", EVENT), body: EVENT }),
      },
      {
        note: "body changed after signing",
        method: "POST",
        path: "",
        prepare: () => ({
          headers: signed(WEBHOOK_SECRET, "msg_2", EVENT),
          body: EVENT.replace("120.5", "1"),
        }),
      },
      {
        note: "signed 10 minutes ago",
        method: "POST",
        path: "",
        prepare: () => ({
          headers: signed(WEBHOOK_SECRET, "msg_3", EVENT, new Date(Date.now() - 10 * 60_000)),
          body: EVENT,
        }),
      },
      {
        note: "signed with another secret",
        method: "POST",
        path: "",
        prepare: () => ({
          headers: signed("whsec_" + btoa("another secret entirely"), "msg_4", EVENT),
          body: EVENT,
        }),
      },
      { note: "unsigned", method: "POST", path: "", body: EVENT },
      { path: "" },
    ],
  },
  {
    name: "streaming-report",
    deno: "serve",
    entry: "index.ts",
    requests: [{ path: "?months=4" }, { path: "?months=3&format=csv" }, { path: "?months=0" }],
  },
  {
    name: "request-bodies",
    deno: "serve",
    entry: "index.ts",
    requests: [
      {
        method: "POST",
        path: "/json",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ a: [1, 2, { b: null }], s: "ünïcode" }),
      },
      {
        method: "POST",
        path: "/form",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        note: "urlencoded",
        body: "name=Ada+Lovelace&tag=a&tag=b&empty=&enc=%E2%9C%93",
      },
      {
        method: "POST",
        path: "/form",
        headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
        body: MULTIPART,
        note: "multipart",
      },
      {
        method: "POST",
        path: "/binary",
        headers: { "content-type": "application/octet-stream" },
        body: Uint8Array.from({ length: 1000 }, (_, i) => (i * 7) % 256),
      },
      { method: "POST", path: "/text", headers: { "content-type": "text/plain" }, body: "Zoë ✓ 日本" },
      {
        note: "malformed",
        method: "POST",
        path: "/json",
        headers: { "content-type": "application/json" },
        body: "[1,",
      },
      { path: "/json" },
    ],
  },
  {
    name: "http-basics",
    deno: "run",
    entry: "index.ts",
    requests: [
      { path: "/query?tag=b&tag=a&q=caf%C3%A9+au+lait&z=1" },
      { path: "/headers", headers: { "x-custom": "yes", "content-type": "text/x-thing" } },
      { path: "/cookies", headers: { cookie: "a=1; theme=light%20mode; empty=" } },
      { path: "/status/201" },
      { path: "/status/204" },
      { path: "/status/418" },
      { path: "/status/503" },
      { path: "/status/99" },
      { path: "/redirect/302?to=/v1/somewhere?x=1" },
      { path: "/redirect/308?to=/next" },
      { path: "/redirect/302?to=//evil.example" },
      { method: "HEAD", path: "/methods" },
      { method: "DELETE", path: "/methods" },
      { path: "/nope" },
    ],
  },
  {
    name: "platform-apis",
    deno: "host",
    entry: "index.ts",
    requests: [
      { path: "/crypto" },
      { path: "/clone" },
      { path: "/abort" },
      { path: "/encoding" },
      { path: "/events" },
      { path: "/compression" },
      { path: "/nothing" },
    ],
  },
  {
    name: "static-files",
    // Its files are read from disk under Deno: the dev host runs with --allow-read.
    deno: "host",
    entry: "index.ts",
    requests: [
      { path: "/products" },
      { path: "/products/p2" },
      { path: "/products/p9" },
      { path: "/pixel.json" },
      { path: "/files" },
      { path: "/notes" },
      { path: "/missing" },
    ],
  },
  {
    name: "tsx-page",
    deno: "serve",
    entry: "index.tsx",
    requests: [{ path: "" }, { path: "?name=%3Cscript%3Ealert(1)%3C%2Fscript%3E" }],
  },
  {
    name: "overdue-reminder",
    deno: "host",
    entry: "index.ts",
    requests: [
      { path: "" },
      { method: "POST", path: "?client=acme" },
      { note: "reminds the rest", method: "POST", path: "" },
      { note: "nothing left to remind", method: "POST", path: "" },
      { path: "?client=globex" },
      { method: "PUT", path: "" },
    ],
  },
  {
    name: "thank-you",
    deno: "host",
    entry: "index.ts",
    requests: [
      { note: "an invoice.paid event", method: "POST", path: "", headers: JSON_TYPE, body: PAID },
      { note: "the same event again", method: "POST", path: "", headers: JSON_TYPE, body: PAID },
      { note: "another kind", method: "POST", path: "", headers: JSON_TYPE, body: OTHER },
      { path: "" },
    ],
  },
  {
    // The harness speaks HTTP only: the page, and Deno.upgradeWebSocket's TypeError for a plain
    // request (the socket itself: test/api/function-websocket.test.ts).
    name: "realtime-echo",
    deno: "run",
    entry: "index.ts",
    requests: [{ path: "" }, { path: "/plain" }],
  },
  {
    // Modules through deno.json's import map, and what authors write today: structuredClone,
    // EventTarget/AbortSignal order, import.meta, ES2023+ built-ins (core-js on Node 20), `using`,
    // compression streams, an HS256 JWT, Temporal.
    name: "modern-code",
    deno: "serve",
    entry: "index.ts",
    requests: [
      { path: "/clone" },
      { path: "/events" },
      { path: "/meta" },
      { path: "/builtins" },
      { path: "/compression" },
      { path: "/crypto" },
      { path: "/temporal" },
      { path: "/top-level" },
      { path: "/nothing" },
    ],
  },
];
