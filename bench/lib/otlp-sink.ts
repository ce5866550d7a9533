import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A collector that keeps nothing: it takes OTLP/HTTP posts (`/v1/traces`), counts them and their
 * bytes, and answers 200 at once. Tracing on in `function-invoke` exports to it, so that what is
 * measured is the server's side of tracing (spans, batching, encoding, the POST), not a collector's.
 */
export interface OtlpSink {
  /** OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  received(): { posts: number; bytes: number };
  close(): Promise<void>;
}

export async function startOtlpSink(): Promise<OtlpSink> {
  let posts = 0;
  let bytes = 0;
  const server = createServer((req, res) => {
    req.on("data", (chunk: Buffer) => (bytes += chunk.byteLength));
    req.on("end", () => {
      posts++;
      res.writeHead(200, { "content-type": "application/x-protobuf", "content-length": "0" }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received: () => ({ posts, bytes }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
