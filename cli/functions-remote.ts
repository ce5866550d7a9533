import { z } from "zod";
import { ENGINE_OPS } from "../runtime/index.ts";
import type { OutboundRequest, OutboundResponse } from "../sandbox/index.ts";
import { describeFailure, type ApiAnswer } from "./api-client.ts";

/**
 * What `tessera functions serve` gives a function from a Tessera server, over its REST API with
 * the developer's key: `ctx.user` (from `GET /v1/me`), `ctx.platform.fetch` (the API itself),
 * `ctx.engines` (`/v1/engines/<engine>/state`, the same store functions reach in-process) and
 * `ctx.snapshot` (`GET /v1/intelligence/snapshots/latest`).
 */
export interface RemoteContext {
  base: string;
  organizationId: string;
  /** `ctx.user`, as the runtime builds it for this key (runtime/invoke.ts, `callerOf`). */
  user: Record<string, unknown>;
  platformFetch(request: OutboundRequest): Promise<OutboundResponse>;
  /** The engine ops of the guest (`engines.get|set|delete|list`), answered as the runtime answers them. */
  call(op: string, args: unknown): Promise<unknown>;
  /** The latest snapshot or null, read again at most every 10 s. */
  latestSnapshot(): Promise<unknown>;
}

const SNAPSHOT_TTL_MS = 10_000;
/** The REST list's page limit; a function may ask for up to 1000, it gets at most this many a page here. */
const REST_LIST_LIMIT = 100;

const MeSchema = z.object({
  organization: z.object({ id: z.string(), name: z.string() }),
  credential: z.looseObject({ type: z.string(), scopes: z.array(z.string()) }),
});

/** Asks the server who the key is; throws with the server's problem when it refuses. */
export async function connectRemote(base: string, key: string): Promise<RemoteContext> {
  const send = async (method: string, path: string, body?: unknown): Promise<ApiAnswer> => {
    const response = await fetch(new URL(path, base), {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, headers: response.headers, text: await response.text() };
  };
  const me = await send("GET", "/v1/me");
  if (me.status !== 200) throw new Error(`${base} refused the key: ${describeFailure(me)}`);
  const { organization, credential } = MeSchema.parse(JSON.parse(me.text));
  const user = callerOf(credential, organization);
  let snapshot: { value: unknown; at: number } | undefined;

  const expect = (answer: ApiAnswer, ok: number[], what: string): ApiAnswer => {
    if (ok.includes(answer.status)) return answer;
    throw new Error(`${what}: ${describeFailure(answer)}`);
  };

  return {
    base,
    organizationId: organization.id,
    user,
    async platformFetch(request) {
      const url = new URL(request.url, base);
      if (url.origin !== new URL(base).origin || !url.pathname.startsWith("/v1/"))
        throw new Error("platform.fetch takes a path of the API, such as /v1/invoices");
      const headers = new Headers(request.headers);
      if (!headers.has("authorization")) headers.set("authorization", `Bearer ${key}`);
      const hasBody = request.body && request.method !== "GET" && request.method !== "HEAD";
      const response = await fetch(url, {
        method: request.method,
        headers,
        redirect: "manual",
        ...(hasBody ? { body: request.body } : {}),
      });
      return {
        status: response.status,
        statusText: response.statusText,
        headers: [...response.headers],
        body: new Uint8Array(await response.arrayBuffer()),
        url: url.toString(),
      };
    },
    async call(op, args) {
      const schema = ENGINE_OPS[op as keyof typeof ENGINE_OPS];
      if (!schema) throw new Error(`unknown operation '${op}'`);
      const parsed = schema.safeParse(args);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new Error(`${op}: ${issue?.path.join(".") || "args"} ${issue?.message}`);
      }
      const input = parsed.data as {
        engine: string;
        key?: string;
        value?: unknown;
        prefix?: string;
        cursor?: string | null;
        limit?: number;
      };
      const entry = `/v1/engines/${input.engine}/state/${encodeURIComponent(input.key ?? "")}`;
      switch (op) {
        case "engines.get": {
          const answer = expect(await send("GET", entry), [200, 404], op);
          return answer.status === 404 ? null : (JSON.parse(answer.text) as { value: unknown }).value;
        }
        case "engines.set":
          expect(
            await send("PUT", entry, { value: input.value === undefined ? null : input.value }),
            [200, 201],
            op,
          );
          return null;
        case "engines.delete":
          return expect(await send("DELETE", entry), [204, 404], op).status === 204;
        default: {
          const query = new URLSearchParams({ limit: String(Math.min(input.limit ?? 100, REST_LIST_LIMIT)) });
          if (input.prefix !== undefined) query.set("prefix", input.prefix);
          if (input.cursor) query.set("cursor", input.cursor);
          const answer = expect(
            await send("GET", `/v1/engines/${input.engine}/state?${query.toString()}`),
            [200],
            op,
          );
          const page = JSON.parse(answer.text) as {
            data: Array<{ key: string; value: unknown }>;
            meta: { next_cursor: string | null };
          };
          return {
            entries: page.data.map(({ key, value }) => ({ key, value })),
            cursor: page.meta.next_cursor,
          };
        }
      }
    },
    async latestSnapshot() {
      if (snapshot && Date.now() - snapshot.at < SNAPSHOT_TTL_MS) return snapshot.value;
      const answer = await send("GET", "/v1/intelligence/snapshots/latest");
      const value = answer.status === 200 ? (JSON.parse(answer.text) as unknown) : null;
      snapshot = { value, at: Date.now() };
      return value;
    },
  };
}

/** `ctx.user` from `/v1/me`: the shape the runtime gives the same credential. */
function callerOf(
  credential: { type: string; scopes: string[]; [k: string]: unknown },
  organization: { id: string; name: string },
): Record<string, unknown> {
  const where = {
    organization_id: organization.id,
    organization: organization.name,
    scopes: credential.scopes,
  };
  const { type, scopes: _scopes, ...rest } = credential;
  if (type === "api_key") return { type, key_id: rest.id, kind: rest.kind, ...where };
  return { type, ...rest, ...where };
}
