// The optional model planner for SYNC: see README.md.
export { createLlmPlanner, type LlmPlannerOptions } from "./planner.ts";
export {
  createChatClient,
  toolDefinitions,
  type ChatClient,
  type ChatCompletion,
  type ChatMessage,
  type ChatRequest,
  type ChatToolCall,
  type ChatToolDefinition,
} from "./client.ts";
export { LlmError, type LlmFailure } from "./errors.ts";
