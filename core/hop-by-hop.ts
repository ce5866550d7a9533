/**
 * Hop-by-hop header fields (RFC 9110 §7.6.1, plus the `Keep-Alive` and `Proxy-Connection`
 * that HTTP/1.0 peers still send): they describe one connection, so they are neither handed
 * to a function with its request nor taken from its response.
 */
export const HOP_BY_HOP_HEADERS: ReadonlySet<string> = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "te",
  "transfer-encoding",
  "upgrade",
]);
