/**
 * One way into a function, read in this order:
 * 1. match.ts — which requests are invocations;
 * 2. headers.ts — the caller's headers as the function sees them, and the function's as the
 *    caller gets them: the platform's cookies never cross, the dashboard's origin sandboxes;
 * 3. serve.ts — the core: caller, function, permission, body, the isolate's answer;
 * 4. the adapters where Node and Fetch differ: node.ts (off the socket, the API role's
 *    path) and fetch.ts (the app's route: `app.request()`, `ctx.platform.fetch`);
 * 5. upgrade.ts — WebSocket upgrades (Node's `upgrade` event) through the same core.
 */
export { isInvocationPath, matchInvocation, INVOKE_ROUTE, INVOKE_SUBPATH_ROUTE } from "./match.ts";
export {
  answerHeaders,
  headersFromFetch,
  headersFromNode,
  type HeaderPairs,
  type InvocationOrigin,
} from "./headers.ts";
export {
  isApiKeyHeader,
  serveInvocation,
  type InvocationCall,
  type InvocationDeps,
  type InvocationOutcome,
  type InvocationRunner,
} from "./serve.ts";
export { createNodeInvocation, type NodeInvocationDeps } from "./node.ts";
export { fetchInvocation } from "./fetch.ts";
export { createNodeUpgrade, type NodeUpgrade } from "./upgrade.ts";
