import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One span as a test reads it, decoded from OTLP/HTTP's JSON encoding (ids in hex). */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Empty for a trace's root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's numbers: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  links: Array<{ traceId: string; spanId: string }>;
  /** 2: failed. */
  status: number;
}

/**
 * A local OTLP/HTTP receiver, as a collector would be: `POST /v1/traces` with the JSON encoding
 * (`OTEL_EXPORTER_OTLP_PROTOCOL=http/json`) is decoded into spans; any other body (protobuf) is
 * kept as bytes. Every body is kept whole too, to search for what must never be in it.
 */
export interface OtlpReceiver {
  /** The base URL: OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  spans: ReceivedSpan[];
  /** Every request body as text, and its content type. */
  bodies: Array<{ contentType: string; path: string; text: string }>;
  /** Resolves with the first span `match` accepts, waiting for it to arrive. */
  waitForSpan(match: (span: ReceivedSpan) => boolean, timeoutMs?: number): Promise<ReceivedSpan>;
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const waiters = new Set<() => void>();
  const receiver: OtlpReceiver = {
    url: "",
    spans: [],
    bodies: [],
    waitForSpan(match, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = receiver.spans.find(match);
          if (!found) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no such span among ${receiver.spans.map((s) => s.name).join(", ")}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const contentType = req.headers["content-type"] ?? "";
      receiver.bodies.push({ contentType, path: req.url ?? "/", text: body.toString("latin1") });
      if (contentType.startsWith("application/json")) receiver.spans.push(...decode(body.toString("utf8")));
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
      for (const waiter of [...waiters]) waiter();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return receiver;
}

interface JsonAttribute {
  key: string;
  value: { stringValue?: string; intValue?: number | string; boolValue?: boolean; doubleValue?: number };
}

interface JsonSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: JsonAttribute[];
  links?: Array<{ traceId: string; spanId: string }>;
  status?: { code?: number };
}

function decode(text: string): ReceivedSpan[] {
  const request = JSON.parse(text) as {
    resourceSpans: Array<{ scopeSpans: Array<{ spans: JsonSpan[] }> }>;
  };
  return request.resourceSpans.flatMap((resource) =>
    resource.scopeSpans.flatMap((scope) =>
      scope.spans.map((span) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId ?? "",
        name: span.name,
        kind: span.kind,
        attributes: Object.fromEntries((span.attributes ?? []).map((a) => [a.key, valueOf(a.value)])),
        links: (span.links ?? []).map((link) => ({ traceId: link.traceId, spanId: link.spanId })),
        status: span.status?.code ?? 0,
      })),
    ),
  );
}

function valueOf(value: JsonAttribute["value"]): string | number | boolean {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  return value.boolValue ?? "";
}
