import { existsSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { basename, join, relative } from "node:path";
import { problemParts } from "../api/problem.ts";
import {
  AppError,
  disposable,
  HOP_BY_HOP_HEADERS,
  isAppError,
  newId,
  type Config,
  type Disposable,
} from "../core/index.ts";
import { compileFunction, createOutboundFetch, keptFiles, stopCompiler } from "../runtime/index.ts";
import {
  createFunctionFileSet,
  createSandbox,
  type InvocationIO,
  type InvocationResponse,
  type LoadedFunction,
  type LogLevel,
  type OutboundRequest,
  type OutboundResponse,
  type Sandbox,
} from "../sandbox/index.ts";
import { parseEnvFile } from "./env-file.ts";
import { collectUpload } from "./functions.ts";
import type { RemoteContext } from "./functions-remote.ts";
import { watchTree } from "./watch-tree.ts";

/**
 * `tessera functions serve DIR`: the folder, compiled as a deploy compiles it, run in the same
 * isolate sandbox as the server runs it, on a local port, with `ctx` reaching a Tessera server's
 * data (`functions-remote.ts`), as `supabase functions serve` or `wrangler dev` do. Each save
 * recompiles and retires the isolate. A folder that does not compile answers every request with a
 * 500 problem naming `file:line:column` (the old version does not keep serving: what you see is
 * what you saved) until a save compiles again.
 */
export interface ServeFunctionOptions {
  dir: string;
  hostname: string;
  /** 0: any free port. */
  port: number;
  remote: RemoteContext;
  config: Config;
  /**
   * The CLI's environment, as a deploy reads it: TESSERA_JSR_URL, TESSERA_NPM_REGISTRY (else
   * npm_config_registry), TESSERA_NPM_CACHE (else XDG_CACHE_HOME) decide where imports come from.
   */
  env?: Record<string, string | undefined> | undefined;
  /**
   * The function's `Deno.env` (its secrets on the server): this file, read again on every reload;
   * without it, `DIR/.env` when there is one (a deploy never uploads `.env*` files).
   */
  envFile?: string | undefined;
  /** Where request lines, console lines and compile reports go. */
  print: (line: string) => void;
}

export interface ServedFunction extends Disposable {
  url: string;
  /** Resolves when the current compile (at start or after a save) is done. */
  ready(): Promise<void>;
}

type Build = { version: number; loaded: LoadedFunction } | { error: AppError };

/** Saves come as bursts of events (editors write, rename, chmod): one compile per burst. */
const DEBOUNCE_MS = 80;
const IGNORED = /(^|[/\\])(\.git|node_modules|\.DS_Store|[^/\\]*~|\.[^/\\]*\.sw[a-p])($|[/\\])/;

export async function serveFunction(options: ServeFunctionOptions): Promise<ServedFunction> {
  const { dir, remote, config, print } = options;
  const name = basename(dir).toLowerCase();
  const shown = relative(process.cwd(), dir) || ".";
  const functionId = `fn_local_${name}`;
  const sandbox: Sandbox = createSandbox({ maxIsolates: 4, memoryBudgetMb: 1024, idleTimeoutMs: 300_000 });
  const outbound = createOutboundFetch({
    allowPrivateTargets: config.allowPrivateTargets,
    maxResponseBytes: config.functions.maxResponseBytes,
    userAgent: "Tessera-Functions/1",
  });
  let version = 0;
  let build: Build | undefined;
  let building: Promise<void> = Promise.resolve();
  let contexts = new Map<number, { user: unknown; [k: string]: unknown }>();

  const compile = async (reason: string): Promise<void> => {
    const started = performance.now();
    try {
      const files = await collectUpload(dir, { jsrUrl: options.env?.TESSERA_JSR_URL, env: options.env });
      const env = readEnv(options.envFile, dir);
      const compiled = await compileFunction(files, undefined, {
        maxBundleBytes: config.functions.maxBundleBytes,
      });
      version++;
      const limits = config.functions.defaultLimits;
      // CPU time: the most a deploy may ask for, not the default. A developer's machine is busy (an
      // editor, compilers) and a cold isolate's first request there overran 50 ms; a loop still stops.
      const cpuTimeLimitMs = Math.max(limits.cpu_time_ms, config.functions.maxLimits.cpu_time_ms);
      build = {
        version,
        loaded: {
          program: { code: compiled.code, filename: `${name}@local${version}.js` },
          limits: {
            memoryLimitMb: limits.memory_mb,
            cpuTimeLimitMs,
            wallTimeLimitMs: limits.wall_time_ms,
          },
          env,
          // The folder's files, as a deploy keeps them (`Deno.readFile`), read at this save.
          files: createFunctionFileSet(keptFiles(files), new Date()),
        },
      };
      contexts = new Map();
      sandbox.retire(remote.organizationId, functionId);
      const ms = Math.round(performance.now() - started);
      print(`${reason} ${compiled.entrypoint} (v${version}, ${compiled.bytes} bytes, ${ms} ms)`);
      for (const warning of compiled.warnings) print(`  warning: ${join(shown, warning)}`);
    } catch (error) {
      build = { error: asCompileError(error) };
      const located = build.error.errors.filter((item) => item.code === "compile_error");
      if (located.length === 0) print(`error: ${build.error.message}`);
      else {
        print(`error: ${shown} does not compile (requests get a 500 until a save compiles):`);
        for (const { message } of located) print(`  ${join(shown, message)}`);
      }
    }
  };

  const io = (requestId: string): InvocationIO => ({
    fetch(request: OutboundRequest, via: "network" | "platform"): Promise<OutboundResponse> {
      if (via === "platform") return remote.platformFetch(request);
      return outbound(request, AbortSignal.timeout(config.functions.defaultLimits.wall_time_ms));
    },
    call: (op, args) => remote.call(op, args),
    snapshot: () => snapshotNow,
    log(level: LogLevel, message: string) {
      print(`  ${level.padEnd(5)} ${requestId} ${message}`);
    },
  });
  let snapshotNow: unknown = null;

  const handle = async (req: IncomingMessage, res: ServerResponse, origin: string): Promise<void> => {
    const started = performance.now();
    const requestId = newId("req");
    let status = 500;
    try {
      await building;
      const current = build;
      if (!current || "error" in current) throw current?.error ?? new AppError("unavailable", "compiling");
      snapshotNow = await remote.latestSnapshot();
      const body = await readBody(req, config.functions.maxRequestBytes);
      const context = contextOf(contexts, current.version, () => ({
        user: remote.user,
        function: { id: functionId, name, version: current.version },
        organization_id: remote.organizationId,
      }));
      const response = await sandbox.invoke(
        { orgId: remote.organizationId, functionId, version: current.version },
        () => Promise.resolve(current.loaded),
        {
          requestId,
          method: req.method ?? "GET",
          url: new URL(req.url ?? "/", origin).toString(),
          headers: headerPairs(req),
          body,
          context,
        },
        io(requestId),
      );
      status = response.status;
      await writeResponse(res, response, requestId, req.method === "HEAD");
    } catch (error) {
      const failure = isAppError(error) ? error : new AppError("internal", (error as Error).message);
      const problem = problemParts(failure, requestId);
      status = problem.status;
      if (!res.headersSent) {
        res.writeHead(status, { ...problem.headers, "x-request-id": requestId });
        res.end(problem.body);
      } else res.destroy();
      // A compile error was printed when it was saved; anything else is printed here.
      const compileFailure = build !== undefined && "error" in build && build.error === error;
      if (!compileFailure) print(`  error ${requestId} ${failure.code}: ${failure.message}`);
    }
    const path = req.url ?? "/";
    print(`${req.method} ${path} ${status} ${Math.round(performance.now() - started)} ms`);
  };

  building = compile("serving");
  await building;
  const server = createServer((req, res) => void handle(req, res, origin));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.hostname, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://${options.hostname.includes(":") ? `[${options.hostname}]` : options.hostname}:${port}`;

  let timer: NodeJS.Timeout | undefined;
  // Saves come in bursts (a temp file, a rename, the editor's swap file): one build after the last.
  const watcher = watchTree(
    dir,
    (file) => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        building = building.then(() => compile(`reloaded (${file})`));
      }, DEBOUNCE_MS);
    },
    IGNORED,
  );

  return disposable<ServedFunction>({
    url: origin,
    ready: () => building,
    async dispose() {
      watcher.close();
      clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await building.catch(() => {});
      await outbound.dispose();
      await sandbox.dispose();
      await stopCompiler();
    },
  });
}

/** The problem a request gets while the folder does not compile: the compiler's `file:line:column` messages. */
function asCompileError(error: unknown): AppError {
  if (isAppError(error)) return new AppError("function_failed", error.message, { errors: error.errors });
  return new AppError("function_failed", `The function does not compile: ${(error as Error).message}`);
}

/** One context object per version: the sandbox keeps its JSON by identity (sandbox/invocation.ts). */
function contextOf<T>(contexts: Map<number, T>, version: number, make: () => T): T {
  let context = contexts.get(version);
  if (!context) contexts.set(version, (context = make()));
  return context;
}

function headerPairs(req: IncomingMessage): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!.toLowerCase();
    if (!HOP_BY_HOP_HEADERS.has(name)) pairs.push([name, req.rawHeaders[i + 1]!]);
  }
  return pairs;
}

async function readBody(req: IncomingMessage, maxBytes: number): Promise<Uint8Array | null> {
  if (req.method === "GET" || req.method === "HEAD") return null;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.byteLength;
    if (size > maxBytes)
      throw new AppError("payload_too_large", `The request body exceeds ${maxBytes} bytes`);
    chunks.push(chunk);
  }
  return chunks.length === 0 ? null : new Uint8Array(Buffer.concat(chunks));
}

async function writeResponse(
  res: ServerResponse,
  response: InvocationResponse,
  requestId: string,
  head: boolean,
): Promise<void> {
  const headers = response.headers.filter(
    ([name]) => !HOP_BY_HOP_HEADERS.has(name.toLowerCase()) && name.toLowerCase() !== "content-length",
  );
  res.statusCode = response.status;
  if (response.statusText) res.statusMessage = response.statusText;
  for (const [name, value] of headers) res.appendHeader(name, value);
  res.setHeader("x-request-id", requestId);
  const { body } = response;
  if (head || body === null) res.end();
  else if (typeof body === "string" || body instanceof Uint8Array) res.end(body);
  else {
    for await (const chunk of body) res.write(chunk);
    res.end();
  }
  await response.finished;
}

/** The secrets `Deno.env` holds locally: `--env-file`, else `DIR/.env` if present, else none. */
function readEnv(envFile: string | undefined, dir: string): Record<string, string> {
  const file = envFile ?? join(dir, ".env");
  if (!envFile && !existsSync(file)) return {};
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new AppError("validation_failed", `cannot read ${file}: ${(error as Error).message}`);
  }
  try {
    return parseEnvFile(text, relative(process.cwd(), file) || file);
  } catch (error) {
    throw new AppError("validation_failed", (error as Error).message);
  }
}
