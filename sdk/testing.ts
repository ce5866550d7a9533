/**
 * A fake `ctx` for testing a function under `deno test`, without a server: engine state in
 * memory (with the runtime's rules: JSON values, keys 1–512 characters, key order, cursors),
 * `platform.fetch` answered by a handler you give (a 404 problem otherwise), and `waitUntil`
 * promises you can await.
 *
 * @example
 *   import { createTestContext } from "tessera/testing";
 *   import handler from "./index.ts";
 *
 *   Deno.test("counts calls", async () => {
 *     const ctx = createTestContext({ engines: { finance: { calls: 2 } } });
 *     const res = await handler(new Request("http://localhost/"), ctx);
 *     await ctx.settled();
 *     if ((await ctx.engines.finance.get("calls")) !== 3) throw new Error("not counted");
 *   });
 */
import type {
  Caller,
  Context,
  EngineName,
  EngineState,
  EngineStateListOptions,
  FunctionInfo,
  IntelligenceSnapshot,
} from "./types.ts";

export interface TestContextOptions {
  /** `ctx.user`; default a full-access API key of the organization `test`. Null: an anonymous call. */
  user?: Caller | null;
  /** `ctx.snapshot`; default null. */
  snapshot?: IntelligenceSnapshot | null;
  /** Initial engine state: `{ finance: { "reminded:INV-1": true } }`. */
  engines?: Partial<Record<EngineName, Record<string, unknown>>>;
  /**
   * Answers `ctx.platform.fetch`: it gets a `Request` for `https://platform.tessera.invalid<path>`.
   * Default: 404 problem+json for every path.
   */
  platform?: (request: Request) => Response | Promise<Response>;
  function?: Partial<FunctionInfo>;
  organization_id?: string;
  request_id?: string;
}

/** A `Context` with what a test wants to look at. */
export interface TestContext extends Context {
  /** Resolves when every `waitUntil` promise so far settled (rejections are collected, not thrown). */
  settled(): Promise<unknown[]>;
  /** The requests `platform.fetch` made, in order. */
  readonly platformRequests: Request[];
}

/** The origin `ctx.platform.fetch` paths resolve against, as in Tessera's isolate. */
export const PLATFORM_ORIGIN = "https://platform.tessera.invalid";
const ENGINES: EngineName[] = ["finance", "growth", "talent", "sync"];
const MAX_LIST = 1000;

export function createTestContext(options: TestContextOptions = {}): TestContext {
  const organizationId = options.organization_id ?? "org_test";
  const pending: Array<Promise<unknown>> = [];
  const platformRequests: Request[] = [];
  const answer = options.platform ?? notFound;
  const engines = Object.fromEntries(
    ENGINES.map((name) => [name, memoryState(options.engines?.[name] ?? {})]),
  ) as Record<EngineName, EngineState>;
  return {
    user:
      options.user === undefined
        ? {
            type: "api_key",
            key_id: "key_test",
            kind: "full_access",
            organization_id: organizationId,
            organization: "test",
            scopes: ["*"],
          }
        : options.user,
    function: { id: "fn_test", name: "test", version: 1, ...options.function },
    organization_id: organizationId,
    request_id: options.request_id ?? "req_test",
    snapshot: options.snapshot ?? null,
    engines: Object.freeze(engines),
    platform: {
      // One implementation of both overloads: the typed one only narrows what `json()` answers.
      async fetch(path: string | URL | Request, init?: RequestInit) {
        const target = path instanceof Request ? path.url : String(path);
        const url = new URL(target, `${PLATFORM_ORIGIN}/`);
        if (url.origin !== PLATFORM_ORIGIN)
          throw new TypeError("ctx.platform.fetch takes a path of the Tessera API, not a URL");
        const request = new Request(path instanceof Request ? path : url.href, init);
        platformRequests.push(request.clone());
        return answer(request);
      },
    },
    waitUntil(promise) {
      pending.push(
        Promise.resolve(promise).then(
          () => undefined,
          (error: unknown) => error,
        ),
      );
    },
    passThroughOnException() {},
    async settled() {
      const errors: unknown[] = [];
      for (let seen = 0; seen < pending.length; seen++) {
        const error = await pending[seen];
        if (error !== undefined) errors.push(error);
      }
      return errors;
    },
    platformRequests,
  };
}

function notFound(request: Request): Response {
  const path = new URL(request.url).pathname;
  return Response.json(
    { type: "about:blank", title: "Not Found", status: 404, detail: `no fake answer for ${path}` },
    { status: 404, headers: { "content-type": "application/problem+json" } },
  );
}

/** Engine state in memory, stored as JSON text as Tessera stores it (a later change to a value does not leak in). */
export function memoryState(initial: Record<string, unknown> = {}): EngineState {
  const values = new Map<string, string>();
  const checkKey = (key: string) => {
    if (typeof key !== "string" || key.length < 1 || [...key].length > 512)
      throw new TypeError("engine state keys are 1–512 characters");
  };
  for (const [key, value] of Object.entries(initial)) values.set(key, JSON.stringify(value ?? null));
  return {
    get<T>(key: string) {
      checkKey(key);
      const text = values.get(key);
      return Promise.resolve(text === undefined ? null : (JSON.parse(text) as T));
    },
    set(key: string, value: unknown) {
      checkKey(key);
      values.set(key, JSON.stringify(value === undefined ? null : value));
      return Promise.resolve();
    },
    delete(key: string) {
      checkKey(key);
      return Promise.resolve(values.delete(key));
    },
    list<T>({ prefix = "", cursor = null, limit = 100 }: EngineStateListOptions = {}) {
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST)
        return Promise.reject(new TypeError(`engines.list: limit is 1–${MAX_LIST}`));
      // Code point order, as Tessera lists keys (not UTF-16 order).
      const keys = [...values.keys()]
        .filter((key) => key.startsWith(prefix) && (cursor === null || byCodePoint(key, cursor) > 0))
        .sort(byCodePoint);
      const page = keys.slice(0, limit);
      return Promise.resolve({
        entries: page.map((key) => ({ key, value: JSON.parse(values.get(key)!) as T })),
        cursor: keys.length > limit ? page[page.length - 1]! : null,
      });
    },
  };
}

function byCodePoint(a: string, b: string): number {
  const left = [...a];
  const right = [...b];
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const diff = left[i]!.codePointAt(0)! - right[i]!.codePointAt(0)!;
    if (diff !== 0) return diff;
  }
  return left.length - right.length;
}
