import { broadcastKeyRevoked } from "../api/index.ts";
import { AppError, systemClock, type Config } from "../core/index.ts";
import {
  createApiKey,
  createOrganization,
  findOrganization,
  listApiKeys,
  listOrganizations,
  revokeApiKey,
  seedDemo,
  type ApiKey,
  type ApiKeyCreate,
  type CreatedApiKey,
  type Organization,
  type OrganizationCreate,
  type SeedSummary,
} from "../engines/index.ts";
import { migrate, openDataDir, openStore, type Store } from "../store/index.ts";

/**
 * Operator commands, direct on the store or through a running server. PGlite
 * admits one process, so while `serve` runs on the embedded data dir the CLI
 * sends its commands to the server's /admin/v1 with the data dir's token.
 */
export interface Operator {
  migrate(): Promise<{ applied: number[] }>;
  createOrg(input: OrganizationCreate): Promise<Organization>;
  listOrgs(): Promise<Organization[]>;
  createKey(org: string, input: ApiKeyCreate): Promise<CreatedApiKey>;
  listKeys(org: string): Promise<ApiKey[]>;
  revokeKey(org: string, id: string): Promise<ApiKey>;
  seedDemo(org: string, size: number): Promise<SeedSummary>;
  dispose(): Promise<void>;
}

/** `migrate: false` leaves pending migrations to the `migrate` command itself. */
export async function openOperator(config: Config, options: { migrate: boolean }): Promise<Operator> {
  if (!config.databaseUrl) {
    const dataDir = openDataDir(config.dataDir);
    const running = dataDir.runningServer();
    if (running) return remoteOperator(running.url, dataDir.adminToken());
  }
  const store = await openStore(config);
  if (options.migrate) await migrate(store);
  return localOperator(store, config);
}

function localOperator(store: Store, config: Config): Operator {
  const orgId = async (idOrName: string) => {
    const org = await findOrganization(store, idOrName);
    if (!org) throw new AppError("not_found", `No such organization: '${idOrName}'`);
    return org.id;
  };
  return {
    migrate: async () => ({ applied: await migrate(store) }),
    createOrg: (input) => createOrganization(store, input),
    listOrgs: () => listOrganizations(store),
    createKey: async (org, input) => createApiKey(store, await orgId(org), input),
    listKeys: async (org) => (await listApiKeys(store, await orgId(org), 1, 100)).data,
    revokeKey: async (org, id) => {
      const key = await revokeApiKey(store, await orgId(org), id, systemClock);
      // Running API nodes cache keys; tell them now rather than after their cache TTL.
      if (config.redisUrl) await broadcastKeyRevoked(config.redisUrl, key.id);
      return key;
    },
    seedDemo: async (org, size) => seedDemo(store, systemClock, await orgId(org), size),
    dispose: () => store.dispose(),
  };
}

function remoteOperator(baseUrl: string, token: string): Operator {
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${baseUrl}/admin/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const payload = (await response.json()) as T & { detail?: string };
    if (!response.ok) throw new Error(payload.detail ?? `server answered ${response.status}`);
    return payload;
  };
  const org = encodeURIComponent;
  return {
    migrate: () => Promise.resolve({ applied: [] }), // the running server applied them at start
    createOrg: (input) => call("POST", "/orgs", input),
    listOrgs: async () => (await call<{ data: Organization[] }>("GET", "/orgs")).data,
    createKey: (o, input) => call("POST", `/orgs/${org(o)}/keys`, input),
    listKeys: async (o) => (await call<{ data: ApiKey[] }>("GET", `/orgs/${org(o)}/keys`)).data,
    revokeKey: (o, id) => call("POST", `/orgs/${org(o)}/keys/${org(id)}/revoke`),
    seedDemo: (o, size) => call("POST", `/orgs/${org(o)}/seed`, { size }),
    dispose: () => Promise.resolve(),
  };
}
