import { AppError, randomBase62 } from "../core/index.ts";
import type { FunctionToolPort } from "../sync/index.ts";
import type { Store } from "../store/index.ts";
import { selectFunctionTools } from "./function-queries.ts";
import type { FunctionResponse } from "./invocation-scope.ts";
import type { FunctionInvoker } from "./invoke.ts";

/** The most of a function tool's answer SYNC reads (a model reads it too). */
const MAX_ANSWER_BYTES = 256 * 1024;

/**
 * The organization's functions that declared a `tool`, as SYNC reaches them: listed from their
 * serving deployments, and called in their isolates exactly as a request to
 * `POST {origin}/v1/functions/{name}/invoke` from the caller would be (its key's identity in
 * `ctx.user`, the arguments as the JSON body, `Tessera-Sync: tool` so it can tell).
 */
export function createSyncFunctionTools(deps: {
  store: Store;
  invoker: FunctionInvoker;
  origin: string;
}): FunctionToolPort {
  return {
    async list(orgId) {
      const rows = await selectFunctionTools(deps.store, orgId);
      return rows.map(({ name, tool }) => ({
        name,
        description: tool.description,
        parameters: tool.parameters,
        readOnly: tool.read_only,
      }));
    },
    async call(ctx, name, args) {
      if (!ctx.principal)
        throw new AppError("insufficient_scope", "a function tool runs as a key: none was given");
      const fn = await deps.invoker.resolve(ctx.orgId, name);
      if (!fn) throw new AppError("not_found", `No such function: '${name}'`);
      const requestId = `req_${randomBase62(20)}`;
      const response = await deps.invoker.invoke(fn, {
        requestId,
        method: "POST",
        url: `${deps.origin}/v1/functions/${fn.name}/invoke`,
        headers: [
          ["content-type", "application/json"],
          ["tessera-sync", "tool"],
        ],
        body: Buffer.from(JSON.stringify(args)),
        principal: ctx.principal,
        authorization: undefined,
        depth: 0,
      });
      const text = await bodyText(response);
      let body: unknown = text;
      if ((headerOf(response, "content-type") ?? "").includes("json")) {
        try {
          body = JSON.parse(text);
        } catch {
          body = text;
        }
      }
      return { requestId, status: response.status, body };
    },
  };
}

function headerOf(response: FunctionResponse, name: string): string | undefined {
  return response.headers.find(([key]) => key.toLowerCase() === name)?.[1];
}

/** The answer's body as text, at most MAX_ANSWER_BYTES of it (the rest is read and dropped). */
async function bodyText(response: FunctionResponse): Promise<string> {
  const body = response.body;
  if (body === null) return "";
  if (typeof body === "string") return body.slice(0, MAX_ANSWER_BYTES);
  if (body instanceof Uint8Array) return Buffer.from(body.subarray(0, MAX_ANSWER_BYTES)).toString("utf8");
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  const reader = body.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    if (bytes < MAX_ANSWER_BYTES) chunks.push(read.value);
    bytes += read.value.byteLength;
  }
  return Buffer.concat(chunks).subarray(0, MAX_ANSWER_BYTES).toString("utf8");
}
