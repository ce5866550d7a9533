import type { Clock, FunctionConfig, SecretBox } from "../core/index.ts";
import type { ListQuery, Page } from "../engines/index.ts";
import type { Store } from "../store/index.ts";
import { createFunctionActivity, type FunctionActivity } from "./function-activity.ts";
import { createFunctionDeploys, type FunctionDeploys } from "./function-deploy.ts";
import { requireFunction, selectFunctionPage } from "./function-queries.ts";
import type { FunctionObject } from "./function-schemas.ts";
import { createFunctionSecrets, type FunctionSecrets } from "./function-secrets.ts";
import { createFunctionVersions, type FunctionVersions } from "./function-versions.ts";

export { resolveLimits, type Deployer } from "./function-deploy.ts";

export interface FunctionServiceOptions {
  store: Store;
  clock: Clock;
  box: SecretBox;
  config: FunctionConfig;
  /** Every kind in the event catalog (GET /v1/event_types): what event triggers may name. */
  eventTypes: readonly string[];
  /** Called after a change that makes warm isolates or cached lookups stale (deploy, rollback, delete, secrets). */
  onChange?: (orgId: string, functionId: string) => void;
}

/**
 * The service behind `/v1/functions`, by phase: deploy and delete (runtime/function-deploy.ts),
 * versions and rollback (function-versions.ts), secrets (function-secrets.ts), logs and
 * trigger runs (function-activity.ts). Their SQL is in the `*-queries.ts` files.
 */
export interface FunctionService
  extends FunctionDeploys, FunctionVersions, FunctionSecrets, FunctionActivity {
  list(orgId: string, query: ListQuery): Promise<Page<FunctionObject>>;
  /** By name or by id (`fn_…`). */
  get(orgId: string, ref: string): Promise<FunctionObject>;
}

/**
 * Functions of one organization at a time: every query is scoped by `org_id`, every
 * deploy, rollback and delete records its event in the same transaction. A deploy
 * compiles first (a 422 changes nothing), then writes a new immutable deployment.
 *
 * @example
 *   const functions = createFunctionService({ store, clock, box, config: config.functions, eventTypes });
 *   const fn = await functions.deploy(orgId, { name: "hello", files: { "index.ts": source } });
 */
export function createFunctionService(options: FunctionServiceOptions): FunctionService {
  const { store } = options;
  const deps = {
    ...options,
    changed: (orgId: string, functionId: string) => options.onChange?.(orgId, functionId),
  };
  return {
    ...createFunctionDeploys(deps),
    ...createFunctionVersions(deps),
    ...createFunctionSecrets(deps),
    ...createFunctionActivity(deps),
    list: (orgId, query) => selectFunctionPage(store, orgId, query),
    get: (orgId, ref) => requireFunction(store, orgId, ref),
  };
}
