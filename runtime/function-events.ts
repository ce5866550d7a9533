import type { EventType } from "../engines/index.ts";
import { FunctionRunSchema, FunctionSchema, FunctionSecretsChangeSchema } from "./function-schemas.ts";

/** The event kinds functions record (GET /v1/event_types lists them with the rest). */
export const FUNCTION_EVENT_TYPES: EventType[] = [
  {
    type: "function.deployed",
    description:
      "A function serves a new deployment: a deploy (with its actor), or a rollback (after function.rolled_back, which carries the actor); previous_attributes.version is the one before.",
    object: FunctionSchema,
  },
  {
    type: "function.rolled_back",
    description:
      "A function was rolled back to another deployment (previous_attributes.version is the one before); function.deployed follows.",
    object: FunctionSchema,
  },
  {
    type: "function.secrets_updated",
    description: "A function's secrets were set or removed: their names only, never a value.",
    object: FunctionSecretsChangeSchema,
  },
  {
    type: "function.deleted",
    description: "A function was deleted with its deployments, secrets and logs; the function as it was.",
    object: FunctionSchema,
  },
  {
    type: "function.run_failed",
    description:
      "A trigger run (event or cron) failed for good: its last attempt faulted or answered non-2xx, with no attempt left.",
    object: FunctionRunSchema,
  },
];
