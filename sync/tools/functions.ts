import { z } from "zod";
import { AppError } from "../../core/index.ts";
import type { PreparedChange, Tool, ToolContext } from "./types.ts";

/** A function an organization deployed with a `tool` declaration (runtime/ lists and runs them). */
export interface FunctionToolSpec {
  /** The function's name. */
  name: string;
  description: string;
  /** The JSON Schema (type object) the function declared for its JSON body. */
  parameters: Record<string, unknown>;
  readOnly: boolean;
}

/** What a function answered: its status and body (JSON when it answered JSON, else text). */
export interface FunctionToolAnswer {
  requestId: string;
  status: number;
  body: unknown;
}

/**
 * How SYNC reaches the organization's functions without knowing the runtime: the composition
 * root passes one in (runtime/sync-function-tools.ts). `call` invokes the function in its
 * isolate as the credential in `ctx.principal`, with the arguments as a JSON POST body.
 */
export interface FunctionToolPort {
  list(orgId: string): Promise<FunctionToolSpec[]>;
  call(ctx: ToolContext, name: string, args: Record<string, unknown>): Promise<FunctionToolAnswer>;
}

const Args = z.record(z.string(), z.unknown());
type Args = z.infer<typeof Args>;

/** `weekly-report` → `function_weekly_report`: a tool name a model accepts. */
export function functionToolName(name: string): string {
  return `function_${name.replace(/[^a-zA-Z0-9_]/g, "_")}`;
}

/**
 * One function as a tool: read-only ones run when a planner calls them; the others are writes,
 * proposed and run only at approval. Invoking a function needs `functions:read`, so does a read;
 * a write needs `functions:write` of whoever approves it. The function checks its own arguments
 * (the declared schema is what the model sees).
 */
export function functionTool(port: FunctionToolPort, spec: FunctionToolSpec): Tool {
  const base = {
    name: functionToolName(spec.name),
    description: `${spec.description} (the organization's function '${spec.name}')`,
    scopes: ["functions"] as const,
    scopeOf: () => "functions" as const,
    parameters: Args,
    jsonSchema: spec.parameters,
  };
  const answered = (answer: FunctionToolAnswer) => {
    if (answer.status >= 400) {
      throw new AppError(
        "validation_failed",
        `function '${spec.name}' answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 500)}`,
      );
    }
    return answer;
  };
  if (spec.readOnly) {
    return {
      ...base,
      access: "read",
      async run(ctx: ToolContext, args: Args) {
        const answer = answered(await port.call(ctx, spec.name, args));
        return { result: { status: answer.status, body: answer.body }, sources: [] };
      },
    };
  }
  return {
    ...base,
    access: "write",
    async prepare(_ctx: ToolContext, args: Args): Promise<PreparedChange<Args>> {
      return {
        arguments: args,
        preview: `Run the function ${spec.name} with ${JSON.stringify(args)}`,
        sources: [],
      };
    },
    async apply(ctx: ToolContext, args: Args) {
      const answer = answered(await port.call(ctx, spec.name, args));
      return {
        object: {
          object: "function_response",
          id: answer.requestId,
          function: spec.name,
          status: answer.status,
          body: answer.body,
        },
      };
    },
  };
}
