import { mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { Hono } from "hono";
import { z } from "zod";
import { AppError, safeEqual } from "../../core/index.ts";
import {
  ApiKeyCreateSchema,
  createApiKey,
  createOrganization,
  findOrganization,
  listApiKeys,
  listOrganizations,
  OPERATOR,
  OPERATOR_ACTOR,
  OrganizationCreateSchema,
  seedDemo,
  inviteMember,
  InvitationSchema,
  passwordResetToken,
} from "../../engines/index.ts";
import { backupFileName, writeBackup } from "../../store/index.ts";
import type { ApiDeps, AppEnv } from "../env.ts";
import { jsonBody } from "../middleware/json-body.ts";
import { parseBody } from "../validate.ts";

/**
 * Operator endpoints, used by the CLI while `serve` holds the embedded store
 * (PGlite admits one process). Authenticated by the token in the data dir, which
 * only someone with access to the server's files can read. Not part of /v1. The token's holder is
 * the operator (`OPERATOR`), whose grants the "may grant" rule allows whatever they are.
 */
export function adminRoutes(deps: ApiDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("*", async (c, next) => {
    const header = c.req.header("authorization") ?? "";
    const token = /^Bearer\s+(\S+)$/i.exec(header)?.[1];
    if (!deps.adminToken || !token || !safeEqual(token, deps.adminToken)) {
      throw new AppError("invalid_token", "Operator token required", {
        headers: { "WWW-Authenticate": 'Bearer realm="tessera-admin"' },
      });
    }
    await next();
  });
  app.use("*", jsonBody(deps.config.maxBodyBytes));

  const orgOrThrow = async (idOrName: string) => {
    const org = await findOrganization(deps.store, idOrName);
    if (!org) throw new AppError("not_found", `No such organization: '${idOrName}'`);
    return org;
  };

  app.get("/orgs", async (c) => c.json({ data: await listOrganizations(deps.store) }));
  app.post("/orgs/:org/invitations", async (c) => {
    const org = await orgOrThrow(c.req.param("org"));
    const invitation = parseBody(c, InvitationSchema);
    const token = await inviteMember(deps.store, deps.clock, org.id, invitation, OPERATOR);
    return c.json({ token }, 201);
  });
  app.post("/password-resets", async (c) => {
    const { email } = parseBody(c, z.object({ email: z.string().min(1).max(320) }).strict());
    return c.json({ token: await passwordResetToken(deps.store, deps.clock, email) }, 201);
  });
  app.post("/orgs", async (c) =>
    c.json(await createOrganization(deps.store, parseBody(c, OrganizationCreateSchema)), 201),
  );
  app.post("/orgs/:org/keys", async (c) => {
    const org = await orgOrThrow(c.req.param("org"));
    return c.json(await createApiKey(deps.store, org.id, parseBody(c, ApiKeyCreateSchema), OPERATOR), 201);
  });
  app.get("/orgs/:org/keys", async (c) => {
    const org = await orgOrThrow(c.req.param("org"));
    return c.json(await listApiKeys(deps.store, org.id, 1, 100));
  });
  app.post("/orgs/:org/keys/:id/revoke", async (c) => {
    const org = await orgOrThrow(c.req.param("org"));
    return c.json(await deps.keys.revoke(org.id, c.req.param("id"), OPERATOR_ACTOR));
  });
  app.post("/orgs/:org/seed", async (c) => {
    const org = await orgOrThrow(c.req.param("org"));
    const { size } = parseBody(c, z.object({ size: z.number().int().min(1).max(100).default(1) }));
    return c.json(await seedDemo(deps.store, deps.clock, org.id, size), 201);
  });
  // `tessera backup` while this server holds the embedded store: the archive, streamed as it is.
  app.post("/backups", async () => {
    const now = deps.clock.now();
    const name = backupFileName(now);
    const dir = await mkdtemp(join(tmpdir(), "tessera-backup-"));
    try {
      await writeBackup(deps.store, { path: join(dir, name), seal: deps.backupSeal, now });
      // Opened, then unlinked: the open file is read to its end and its space freed with it.
      const file = await open(join(dir, name));
      const stream = file.createReadStream();
      return new Response(Readable.toWeb(stream) as ReadableStream, {
        headers: {
          "content-type": "application/gzip",
          "content-disposition": `attachment; filename="${name}"`,
        },
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
  return app;
}
