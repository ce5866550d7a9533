import { AppError, type Clock } from "../core/index.ts";
import { recordEvents, type Actor, type ListQuery, type Page } from "../engines/index.ts";
import type { Queryable, Store } from "../store/index.ts";
import {
  activateVersion,
  deploymentTriggers,
  findDeployment,
  requireFunction,
  selectDeploymentPage,
  versionBefore,
} from "./function-queries.ts";
import { renderDeployment } from "./function-rows.ts";
import type { Deployment, FunctionObject } from "./function-schemas.ts";
import { subscribe } from "./triggers.ts";

/**
 * Versions: every deploy is an immutable deployment; a rollback points the function at
 * another one (its triggers with it) and, when that changes what serves, records
 * `function.rolled_back` (the action, by its actor: the audit log's one row for it) and
 * `function.deployed` (what serves now, which subscribers to deploys follow; no actor, as a
 * consequence of the action recorded beside it).
 */

export interface FunctionVersions {
  deployments(orgId: string, ref: string, query: ListQuery): Promise<Page<Deployment>>;
  deployment(orgId: string, ref: string, version: number): Promise<Deployment>;
  /** Serves an older (or newer) deployment; without a version, the one before the active one. */
  rollback(orgId: string, ref: string, version: number | undefined, actor: Actor): Promise<FunctionObject>;
}

export interface VersionDeps {
  store: Store;
  clock: Clock;
  changed(orgId: string, functionId: string): void;
}

export function createFunctionVersions(deps: VersionDeps): FunctionVersions {
  const { store, clock } = deps;
  return {
    async deployments(orgId, ref, query) {
      const fn = await requireFunction(store, orgId, ref);
      return selectDeploymentPage(store, orgId, fn, query);
    },

    async deployment(orgId, ref, version) {
      const fn = await requireFunction(store, orgId, ref);
      const row = await findDeployment(store, orgId, fn.id, version);
      if (!row) throw new AppError("not_found", `Function '${fn.name}' has no version ${version}`);
      return renderDeployment(row, fn.version);
    },

    async rollback(orgId, ref, version, actor) {
      const rolled = await store.transaction((tx) =>
        rollBack(tx, { orgId, ref, version, actor, now: clock.now() }),
      );
      deps.changed(orgId, rolled.id);
      return rolled;
    },
  };
}

async function rollBack(
  tx: Queryable,
  asked: { orgId: string; ref: string; version: number | undefined; actor: Actor; now: Date },
): Promise<FunctionObject> {
  const { orgId, ref, version, actor, now } = asked;
  const current = await requireFunction(tx, orgId, ref, true);
  const target = version ?? (await versionBefore(tx, orgId, current.id, current.version));
  if (!target) {
    throw new AppError("conflict", `Function '${current.name}' has no version before ${current.version}`);
  }
  const triggers = await deploymentTriggers(tx, orgId, current.id, target);
  if (!triggers) {
    throw new AppError("validation_failed", `Function '${current.name}' has no version ${target}`, {
      errors: [{ param: "version", code: "invalid_reference", message: `no version ${target}` }],
    });
  }
  await activateVersion(tx, orgId, current.id, target, now);
  await subscribe(tx, orgId, current.id, triggers);
  const object = await requireFunction(tx, orgId, current.id);
  if (target !== current.version) {
    const previousAttributes = { version: current.version };
    await recordEvents(tx, orgId, now, [
      { type: "function.rolled_back", object, previousAttributes, actor },
      { type: "function.deployed", object, previousAttributes },
    ]);
  }
  return object;
}
