import { AppError, disposable, silentLogger, type Config, type Disposable } from "../core/index.ts";
import {
  createApiKey,
  createOrganization,
  findOrganization,
  listApiKeys,
  listOrganizations,
  OPERATOR,
  OPERATOR_ACTOR,
  seedDemo,
  inviteMember,
  InvitationSchema,
  passwordResetToken,
  type Invitation,
  type ApiKey,
  type ApiKeyCreate,
  type CreatedApiKey,
  type Organization,
  type OrganizationCreate,
  type SeedSummary,
} from "../engines/index.ts";
import { createServices, type Services } from "../services.ts";
import { assertSchemaKnown, migrate, openDataDir } from "../store/index.ts";

/**
 * Operator commands, direct on the store or through a running server. PGlite
 * admits one process, so while `serve` runs on the embedded data dir the CLI
 * sends its commands to the server's /admin/v1 with the data dir's token.
 */
export interface Operator extends Disposable {
  migrate(): Promise<{ applied: number[] }>;
  createOrg(input: OrganizationCreate): Promise<Organization>;
  listOrgs(): Promise<Organization[]>;
  createKey(org: string, input: ApiKeyCreate): Promise<CreatedApiKey>;
  listKeys(org: string): Promise<ApiKey[]>;
  revokeKey(org: string, id: string): Promise<ApiKey>;
  seedDemo(org: string, size: number): Promise<SeedSummary>;
  /** A one-time invitation link's token for `email` to join `org` as `role`. */
  inviteUser(org: string, invitation: Invitation): Promise<{ token: string }>;
  /** A one-time link's token to set a new password. */
  resetPassword(email: string): Promise<{ token: string }>;
  /** Where the dashboard is: the running server's URL, or the configured one. */
  dashboardUrl(): string;
}

/** `migrate: false` leaves pending migrations to the `migrate` command itself. */
export async function openOperator(config: Config, options: { migrate: boolean }): Promise<Operator> {
  if (!config.databaseUrl) {
    const dataDir = openDataDir(config.dataDir);
    const running = dataDir.runningServer();
    if (running) return remoteOperator(running.url, dataDir.adminToken());
  }
  // The secret is not used by these commands, but services are built whole, as the server builds them.
  const secret = config.secret ?? openDataDir(config.dataDir).secret();
  const services = await createServices({ config, log: silentLogger, secret });
  await assertSchemaKnown(services.store).catch(async (error: unknown) => {
    await services.dispose();
    throw error;
  });
  if (options.migrate) await migrate(services.store);
  return localOperator(services);
}

function localOperator(services: Services): Operator {
  const { store, clock } = services;
  const orgId = async (idOrName: string) => {
    const org = await findOrganization(store, idOrName);
    if (!org) throw new AppError("not_found", `No such organization: '${idOrName}'`);
    return org.id;
  };
  return disposable({
    migrate: async () => ({ applied: await migrate(store) }),
    createOrg: (input) => createOrganization(store, input),
    listOrgs: () => listOrganizations(store),
    createKey: async (org, input) => createApiKey(store, await orgId(org), input, OPERATOR),
    listKeys: async (org) => (await listApiKeys(store, await orgId(org), 1, 100)).data,
    // Running API nodes on the same database hear of it at commit (migration 0018), not after their TTL.
    revokeKey: async (org, id) => services.keys.revoke(await orgId(org), id, OPERATOR_ACTOR),
    seedDemo: async (org, size) => seedDemo(store, clock, await orgId(org), size),
    inviteUser: async (org, invitation) => ({
      token: await inviteMember(store, clock, await orgId(org), InvitationSchema.parse(invitation), OPERATOR),
    }),
    resetPassword: async (email) => ({ token: await passwordResetToken(store, clock, email) }),
    dashboardUrl: () => services.config.publicUrl ?? `http://${services.config.host}:${services.config.port}`,
    dispose: () => services.dispose(),
  });
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
  return disposable({
    migrate: () => Promise.resolve({ applied: [] }), // the running server applied them at start
    createOrg: (input) => call("POST", "/orgs", input),
    listOrgs: async () => (await call<{ data: Organization[] }>("GET", "/orgs")).data,
    createKey: (o, input) => call("POST", `/orgs/${org(o)}/keys`, input),
    listKeys: async (o) => (await call<{ data: ApiKey[] }>("GET", `/orgs/${org(o)}/keys`)).data,
    revokeKey: (o, id) => call("POST", `/orgs/${org(o)}/keys/${org(id)}/revoke`),
    seedDemo: (o, size) => call("POST", `/orgs/${org(o)}/seed`, { size }),
    inviteUser: (o, invitation) => call("POST", `/orgs/${org(o)}/invitations`, invitation),
    resetPassword: (email) => call("POST", "/password-resets", { email }),
    dashboardUrl: () => baseUrl,
    dispose: () => Promise.resolve(),
  });
}
