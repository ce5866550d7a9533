const INVOKE_PREFIX = /^\/v1\/functions\/[^/]+\/invoke(?=\/|$)/;

/** The request's path below Tessera's `/v1/functions/<name>/invoke`, or the whole path elsewhere. */
export function functionPath(url: string): string {
  return new URL(url).pathname.replace(INVOKE_PREFIX, "") || "/";
}
