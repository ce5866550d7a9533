import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { Config } from "../core/index.ts";
import { ENGINE_OPS } from "../runtime/index.ts";
import { openDataDir } from "../store/index.ts";
import type { OutboundRequest, OutboundResponse } from "../sandbox/index.ts";
import { describeFailure, type ApiAnswer } from "./api-client.ts";
import { readSandboxKeys, SANDBOX_KEYS_FILE } from "./sandbox-keys.ts";

/**
 * What `tessera functions serve` gives a function from a Tessera server, over its REST API with
 * the developer's key: `ctx.user` (from `GET /v1/me`), `ctx.platform.fetch` (the API itself),
 * `ctx.engines` (`/v1/engines/<engine>/state`, the same store functions reach in-process) and
 * `ctx.snapshot` (`GET /v1/intelligence/snapshots/latest`).
 */
export interface RemoteContext {
  base: string;
  organizationId: string;
  organizationName: string;
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
    organizationName: organization.name,
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

/** The organization `functions serve` uses when `--org` names none. */
export const SANDBOX_ORG = "sandbox";

export interface ServeTargetOptions {
  base: string;
  /** The developer's key (`--key`/TESSERA_API_KEY): the data served with `--remote`. */
  key: string | undefined;
  /** `--remote`: the key's organization, its live data, as before the sandbox. */
  remote: boolean;
  /** `--org`: a local organization by id or name (created and seeded when a name is new). */
  org: string | undefined;
  config: Config;
}

/** The context to serve with and the one line saying whose data it is. */
export type ServeTarget = { remote: RemoteContext; says: string } | { refused: string };

/**
 * Which organization's data `functions serve` reaches. By default a local sandbox organization,
 * as `wrangler dev` uses local bindings and `supabase functions serve` a local stack: the server
 * running on this data dir makes `sandbox` once (demo data, `seedDemo`), mints it a key kept in
 * `$TESSERA_DATA_DIR/sandbox.json` (0600) and serves as that key. `--remote` serves the key's own
 * organization, its live data. A server that is not the one on this data dir cannot make a sandbox.
 */
export async function connectServeTarget(options: ServeTargetOptions): Promise<ServeTarget> {
  const { base, key } = options;
  if (options.remote) {
    if (options.org) return { refused: "--org picks a local organization; --remote serves the key's own" };
    if (!key) throw new Error("no API key: pass --key or set TESSERA_API_KEY");
    const remote = await connectRemote(base, key);
    const says = `serving against organization ${remote.organizationId} "${remote.organizationName}" at ${base} (LIVE data: writes are real)`;
    return { remote, says };
  }
  const dataDir = options.config.databaseUrl ? undefined : openDataDir(options.config.dataDir);
  const running = dataDir?.runningServer();
  if (!dataDir || !running || new URL(running.url).origin !== new URL(base).origin) {
    return {
      refused:
        `the sandbox organization needs a local Tessera on this data dir (run \`tessera serve\` here); ` +
        `pass --remote to use the key's organization's live data at ${base}, or --key of a sandbox organization with --remote`,
    };
  }
  // Only to name what is not touched; the sandbox does not need the developer's key.
  const keyOrg = key
    ? await connectRemote(base, key).then(
        (r) => r.organizationId,
        () => undefined,
      )
    : undefined;
  const { org, remote, made } = await sandboxContext(base, dataDir.path, options);
  const untouched = keyOrg && keyOrg !== org.id ? `; nothing reaches ${keyOrg}` : "";
  const says =
    keyOrg === org.id
      ? `serving against organization ${org.id} "${org.name}" (LIVE data: writes are real; it is the key's own)`
      : options.org && !made
        ? `serving against organization ${org.id} "${org.name}" (--org: its data${untouched})`
        : `serving against the sandbox organization "${org.name}" (${org.id}; demo data${untouched})`;
  return { remote, says };
}

/** The organization (found, or made and seeded) and a context as its key, minted once and kept. */
async function sandboxContext(
  base: string,
  dataDirPath: string,
  options: ServeTargetOptions,
): Promise<{ org: { id: string; name: string }; remote: RemoteContext; made: boolean }> {
  const { openOperator } = await import("./operator.ts");
  const operator = await openOperator(options.config, { migrate: false });
  try {
    const wanted = options.org ?? SANDBOX_ORG;
    let org = (await operator.listOrgs()).find((o) => o.id === wanted || o.name === wanted);
    const made = !org;
    if (!org) {
      if (wanted.startsWith("org_")) throw new Error(`no such organization: '${wanted}'`);
      org = await operator.createOrg({ name: wanted, plan: "free" });
      await operator.seedDemo(org.id, 1);
    }
    const file = join(dataDirPath, SANDBOX_KEYS_FILE);
    const kept = readSandboxKeys(file);
    const known = kept[org.id];
    const remote = known ? await connectRemote(base, known).catch(() => undefined) : undefined;
    if (remote) return { org, remote, made };
    const created = await operator.createKey(org.id, {
      kind: "full_access",
      name: "functions serve (local)",
    });
    kept[org.id] = created.secret;
    writeFileSync(file, JSON.stringify({ keys: kept }, null, 2) + "\n", { mode: 0o600 });
    chmodSync(file, 0o600);
    return { org, remote: await connectRemote(base, created.secret), made };
  } finally {
    await operator.dispose();
  }
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
