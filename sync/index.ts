import type { Logger, SyncConfig } from "../core/index.ts";
import { createBuiltinPlanner } from "./builtin/planner.ts";
import { createLlmPlanner } from "./llm/planner.ts";
import type { Planner } from "./planner.ts";

export * from "./planner.ts";
export * from "./schema.ts";
export * from "./service.ts";
export type { InteractionListQuery } from "./queries.ts";
export {
  SYNC_TOOLS,
  createToolCatalog,
  toolAllowed,
  toolJsonSchema,
  runReadTool,
  prepareWriteTool,
} from "./tools/catalog.ts";
export type { Source, Tool, ToolContext, ToolOutput, ReadTool, WriteTool } from "./tools/types.ts";
export { RESOURCE_NAMES, money } from "./tools/resources.ts";
export {
  functionToolName,
  type FunctionToolPort,
  type FunctionToolSpec,
  type FunctionToolAnswer,
} from "./tools/functions.ts";
export { createBuiltinPlanner };

/**
 * The planner SYNC answers with: the built-in one, or with `TESSERA_SYNC_LLM_URL` set the model's,
 * which falls back to the built-in one when the provider fails.
 */
export function createSyncPlanner(config: SyncConfig, _log?: Logger): Planner {
  const builtin = createBuiltinPlanner();
  return config.llm ? createLlmPlanner({ llm: config.llm, fallback: builtin }) : builtin;
}
