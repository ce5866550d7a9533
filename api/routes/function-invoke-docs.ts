import { createRoute } from "@hono/zod-openapi";
import { z } from "zod";
import { problems, type RouteDeclaration } from "../openapi.ts";

const FunctionRef = z.object({
  id: z.string().meta({ param: { name: "id", in: "path" }, description: "The function's name or id" }),
});

const METHODS = ["get", "post", "put", "patch", "delete"] as const;

/**
 * The invoke operations as `/v1/openapi.json` documents them, one per usual method, paths relative
 * to `/v1/functions`. Documentation only: invocation takes any method on `/{id}/invoke` and any
 * path below it, so `invokeRoutes` serves it with `app.all`, which a declaration cannot express.
 * Whoever mounts the invoke routes registers these beside them.
 */
export const INVOKE_ROUTES: readonly RouteDeclaration[] = METHODS.map((method) => {
  const declaration: RouteDeclaration = {
    method,
    path: "/{id}/invoke",
    operationId: `functions.invoke_${method}`,
    summary: "Invoke the function (any method, and any path below /invoke); it answers with its own response",
    tags: ["functions"],
    // A public function answers without a credential.
    security: [{ bearerAuth: [] }, {}],
    request: { params: FunctionRef },
    responses: {
      200: { description: "Whatever the function answers (any status, headers and body, streamed)" },
      // Not the rule's: the body is the function's (any type, its limit) and so are its answers.
      ...problems([401, 403, 404, 413, 429]),
      500: { description: "function_failed or function_memory_limit / function_cpu_limit (problem+json)" },
      504: { description: "function_timeout (problem+json)" },
    },
  };
  return createRoute(declaration);
});
