import { AppError, type Clock, type SecretBox } from "../core/index.ts";
import { recordEvents, type Actor } from "../engines/index.ts";
import type { Queryable, Store } from "../store/index.ts";
import {
  bumpSecretsRevision,
  deleteSecret,
  requireFunction,
  selectSecrets,
  upsertSecret,
} from "./function-queries.ts";
import {
  MAX_SECRETS,
  type FunctionObject,
  type FunctionSecretsChange,
  type SecretInfo,
} from "./function-schemas.ts";

/**
 * Secrets: sealed at rest (core/secret-box.ts), shown by name only. Every change bumps the
 * function's secrets revision, so no warm isolate serves a stale `Deno.env`, and records
 * `function.secrets_updated` by its actor, with the names changed and never a value.
 */

export interface FunctionSecrets {
  secrets(orgId: string, ref: string): Promise<SecretInfo[]>;
  setSecrets(
    orgId: string,
    ref: string,
    updates: Record<string, string | null>,
    actor: Actor,
  ): Promise<SecretInfo[]>;
  deleteSecret(orgId: string, ref: string, name: string, actor: Actor): Promise<void>;
}

export interface SecretDeps {
  store: Store;
  clock: Clock;
  box: SecretBox;
  changed(orgId: string, functionId: string): void;
}

export function createFunctionSecrets(deps: SecretDeps): FunctionSecrets {
  const { store, clock, box } = deps;
  return {
    async secrets(orgId, ref) {
      const fn = await requireFunction(store, orgId, ref);
      return selectSecrets(store, orgId, fn.id);
    },

    async setSecrets(orgId, ref, updates, actor) {
      const result = await store.transaction(async (tx) => {
        const fn = await requireFunction(tx, orgId, ref, true);
        const now = clock.now();
        const change = { set: [] as string[], removed: [] as string[] };
        for (const [name, value] of Object.entries(updates)) {
          if (value === null) {
            if (await deleteSecret(tx, orgId, fn.id, name)) change.removed.push(name);
          } else {
            await upsertSecret(tx, { orgId, functionId: fn.id, name, sealed: box.seal(value), now });
            change.set.push(name);
          }
        }
        await bumpSecretsRevision(tx, orgId, fn.id, now);
        const secrets = await selectSecrets(tx, orgId, fn.id);
        if (secrets.length > MAX_SECRETS) {
          const message = `a function holds at most ${MAX_SECRETS} secrets`;
          throw new AppError("validation_failed", message, {
            errors: [{ param: "body", code: "too_many", message }],
          });
        }
        await recordSecretsChange(tx, { orgId, fn, change, secrets, actor, now });
        return { functionId: fn.id, secrets };
      });
      deps.changed(orgId, result.functionId);
      return result.secrets;
    },

    async deleteSecret(orgId, ref, name, actor) {
      const functionId = await store.transaction(async (tx) => {
        const fn = await requireFunction(tx, orgId, ref, true);
        if (!(await deleteSecret(tx, orgId, fn.id, name))) {
          throw new AppError("not_found", `Function '${fn.name}' has no secret '${name}'`);
        }
        const now = clock.now();
        await bumpSecretsRevision(tx, orgId, fn.id, now);
        const secrets = await selectSecrets(tx, orgId, fn.id);
        const change = { set: [], removed: [name] };
        await recordSecretsChange(tx, { orgId, fn, change, secrets, actor, now });
        return fn.id;
      });
      deps.changed(orgId, functionId);
    },
  };
}

/** `function.secrets_updated`, when a name was set or removed: names, never a value. */
async function recordSecretsChange(
  tx: Queryable,
  write: {
    orgId: string;
    fn: FunctionObject;
    change: { set: string[]; removed: string[] };
    secrets: readonly SecretInfo[];
    actor: Actor;
    now: Date;
  },
): Promise<void> {
  const { fn, change, actor, now } = write;
  if (change.set.length === 0 && change.removed.length === 0) return;
  const object: FunctionSecretsChange = {
    id: fn.id,
    object: "function_secrets",
    name: fn.name,
    set: change.set,
    removed: change.removed,
    secrets: write.secrets.map((secret) => secret.name),
  };
  await recordEvents(tx, write.orgId, now, [{ type: "function.secrets_updated", object, actor }]);
}
