import { AppError, type Clock, type SecretBox } from "../core/index.ts";
import type { Store } from "../store/index.ts";
import {
  bumpSecretsRevision,
  deleteSecret,
  requireFunction,
  selectSecrets,
  upsertSecret,
} from "./function-queries.ts";
import { MAX_SECRETS, type SecretInfo } from "./function-schemas.ts";

/**
 * Secrets: sealed at rest (core/secret-box.ts), shown by name only. Every change bumps the
 * function's secrets revision, so no warm isolate serves a stale `Deno.env`.
 */

export interface FunctionSecrets {
  secrets(orgId: string, ref: string): Promise<SecretInfo[]>;
  setSecrets(orgId: string, ref: string, updates: Record<string, string | null>): Promise<SecretInfo[]>;
  deleteSecret(orgId: string, ref: string, name: string): Promise<void>;
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

    async setSecrets(orgId, ref, updates) {
      const result = await store.transaction(async (tx) => {
        const fn = await requireFunction(tx, orgId, ref, true);
        const now = clock.now();
        for (const [name, value] of Object.entries(updates)) {
          if (value === null) await deleteSecret(tx, orgId, fn.id, name);
          else await upsertSecret(tx, { orgId, functionId: fn.id, name, sealed: box.seal(value), now });
        }
        await bumpSecretsRevision(tx, orgId, fn.id, now);
        const secrets = await selectSecrets(tx, orgId, fn.id);
        if (secrets.length > MAX_SECRETS) {
          const message = `a function holds at most ${MAX_SECRETS} secrets`;
          throw new AppError("validation_failed", message, {
            errors: [{ param: "body", code: "too_many", message }],
          });
        }
        return { functionId: fn.id, secrets };
      });
      deps.changed(orgId, result.functionId);
      return result.secrets;
    },

    async deleteSecret(orgId, ref, name) {
      const functionId = await store.transaction(async (tx) => {
        const fn = await requireFunction(tx, orgId, ref, true);
        if (!(await deleteSecret(tx, orgId, fn.id, name))) {
          throw new AppError("not_found", `Function '${fn.name}' has no secret '${name}'`);
        }
        await bumpSecretsRevision(tx, orgId, fn.id, clock.now());
        return fn.id;
      });
      deps.changed(orgId, functionId);
    },
  };
}
