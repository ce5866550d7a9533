import { readFileSync } from "node:fs";
import { afterAll } from "vitest";
import { isAppError } from "../../core/index.ts";
import { compileFunction } from "../../runtime/index.ts";
import { createSandbox } from "../../sandbox/index.ts";
import type {
  FunctionKey,
  Sandbox,
  SandboxOptions,
  InvocationIO,
  InvocationRequest,
  InvocationResponse,
  LoadedFunction,
  LogLevel,
  OutboundRequest,
  OutboundResponse,
  SandboxLimits,
} from "../../sandbox/index.ts";

const FIXTURES = new URL("../fixtures/guest/", import.meta.url);
const compiled = new Map<string, Promise<string>>();

/** Bundles a function's source as a deploy would (runtime/compile.ts): one ES module. */
export function compile(source: string): Promise<string> {
  let code = compiled.get(source);
  if (!code) {
    code = compileFunction({ "index.ts": source }, "index.ts", { maxBundleBytes: 10 * 1024 * 1024 }).then(
      (result) => result.code,
    );
    compiled.set(source, code);
  }
  return code;
}

export const fixture = (name: string) => readFileSync(new URL(`${name}.js`, FIXTURES), "utf8");

export const LIMITS: SandboxLimits = { memoryLimitMb: 64, cpuTimeLimitMs: 200, wallTimeLimitMs: 2_000 };

export function loaderOf(source: string, limits: SandboxLimits = LIMITS, env: Record<string, string> = {}) {
  return async (): Promise<LoadedFunction> => ({
    program: { code: await compile(source), filename: "index.js" },
    limits,
    env,
  });
}

export const key = (functionId: string, orgId = "org_a", version = 1): FunctionKey => ({
  orgId,
  functionId,
  version,
});

export function request(
  url = "https://fn.example/hello",
  init: Partial<InvocationRequest> = {},
): InvocationRequest {
  return {
    requestId: "req_test",
    method: "GET",
    url,
    headers: [],
    body: null,
    context: { user: null },
    ...init,
  };
}

export interface RecordingIO extends InvocationIO {
  logs: Array<{ level: LogLevel; message: string }>;
  fetches: Array<{ request: OutboundRequest; via: string }>;
  calls: Array<{ op: string; args: unknown }>;
}

/** An io that records what the guest did; `fetch`/`call` answer with the given functions. */
export function recordingIO(
  options: {
    fetch?: (request: OutboundRequest, via: "network" | "platform") => Promise<OutboundResponse>;
    call?: (op: string, args: unknown) => Promise<unknown>;
    snapshot?: () => unknown;
  } = {},
): RecordingIO {
  const io: RecordingIO = {
    logs: [],
    fetches: [],
    calls: [],
    fetch(request, via) {
      io.fetches.push({ request, via });
      return options.fetch ? options.fetch(request, via) : Promise.reject(new Error("no network in tests"));
    },
    call(op, args) {
      io.calls.push({ op, args });
      return options.call ? options.call(op, args) : Promise.resolve(null);
    },
    snapshot: () => (options.snapshot ? options.snapshot() : null),
    log(level, message) {
      io.logs.push({ level, message });
    },
  };
  return io;
}

export async function text(response: InvocationResponse): Promise<string> {
  if (!response.body) return "";
  return response.body instanceof Uint8Array
    ? new TextDecoder().decode(response.body)
    : new Response(response.body).text();
}

export async function json(response: InvocationResponse): Promise<Record<string, unknown>> {
  return JSON.parse(await text(response)) as Record<string, unknown>;
}

export async function failure(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (isAppError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error("expected the invocation to fail");
}

export const SANDBOX_OPTIONS: SandboxOptions = {
  maxIsolates: 50,
  memoryBudgetMb: 1024,
  idleTimeoutMs: 60_000,
};

let shared: Sandbox | undefined;
/** The test file's sandbox, made on first use and disposed after its last test. */
export function testSandbox(): Sandbox {
  shared ??= createSandbox(SANDBOX_OPTIONS);
  return shared;
}
afterAll(async () => {
  await shared?.dispose();
  shared = undefined;
});

/** Boots one isolate for `source` (in the test file's sandbox unless given one); `dispose()` it after. */
export async function hostFor(
  source: string,
  limits: SandboxLimits = LIMITS,
  env: Record<string, string> = {},
  sandbox: Sandbox = testSandbox(),
) {
  return sandbox.createHost({ program: { code: await compile(source), filename: "index.js" }, limits, env });
}
