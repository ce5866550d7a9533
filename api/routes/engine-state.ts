import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { z } from "zod";
import { AppError, type FieldError } from "../../core/index.ts";
import {
  decodeCursor,
  DEFAULT_STATE_LIST_LIMIT,
  EngineStateEntrySchema,
  EngineStatePageSchema,
  EngineStatePutSchema,
  ENGINES,
  keyProblem,
  MAX_STATE_LIST_LIMIT,
  type Engine,
  type EngineStateEntry,
  type EngineStateEntryObject,
  type EngineStateService,
  type EngineStateSetOptions,
} from "../../engines/index.ts";
import type { AppEnv } from "../env.ts";
import { json } from "../openapi.ts";
import { parseBody } from "../validate.ts";
import { declareRoutes, operation, queryParams, rawPath } from "./declare.ts";

const PATH = "/v1/engines";
/** `/v1/engines/<engine>/state/<key…>`: the key is everything after the fifth slash. */
const KEY_SEGMENT = 5;
const LIST_PARAMS = ["prefix", "cursor", "limit"];
const ENTRY = "/{engine}/state/{key}";
/** One route for every key: it may span segments (`a/b`) and hold any character but `?` and `#`. */
const ENTRY_ROUTING = "/:engine/state/:key{[\\s\\S]+}";

/**
 * `/v1/engines/{engine}/state`: each engine's JSON key-value store. GET needs
 * `<engine>:read`, PUT and DELETE `<engine>:write`. Lists page by cursor in key
 * order; entries carry `ETag: "<version>"` for `If-Match` / `If-None-Match`.
 */
export function engineStateRoutes(state: EngineStateService): OpenAPIHono<AppEnv> {
  const withEtag = (status: string) => ({
    ...json(EngineStateEntrySchema, status),
    headers: { ETag: { description: 'The version, quoted ("3")', schema: { type: "string" as const } } },
  });
  // The engine the path names decides the scope: an unknown one is a 404 for any key.
  const scope = ({ engine }: { engine: Engine }) => engine;

  return declareRoutes({ tags: ["engine state"] }, [
    operation({
      method: "get",
      path: "/{engine}/state",
      operationId: "engines.list_state",
      summary: "List an engine's state entries in key order, by cursor",
      scope,
      params: EngineParams,
      query: ListQuery,
      ok: { 200: json(EngineStatePageSchema, "A page of entries") },
      handler: async (c) => {
        const { engine } = c.req.valid("param");
        const { prefix, cursor, limit } = parseListParams(queryParams(c));
        const page = await state.list(c.var.principal.orgId, engine, { prefix, cursor, limit });
        return c.json({
          data: page.entries.map((entry) => render(engine, entry)),
          meta: { next_cursor: page.nextCursor, limit },
        });
      },
    }),
    operation({
      method: "get",
      path: ENTRY,
      operationId: "engines.retrieve_state",
      summary: "Retrieve one entry",
      scope,
      params: KeyParams,
      routingPath: ENTRY_ROUTING,
      ok: {
        200: withEtag("The entry"),
        304: { description: "If-None-Match names the current version" },
      },
      handler: async (c) => {
        const [engine, key] = [c.req.valid("param").engine, keyParam(c)];
        const entry = await state.get(c.var.principal.orgId, engine, key);
        if (!entry) throw notFound(engine, key);
        c.header("ETag", etag(entry.version));
        // RFC 9110 §13.1.2: a cached copy that is still current needs no body.
        if (matchesAny(c.req.header("if-none-match"), entry.version)) return c.body(null, 304);
        return c.json(render(engine, entry));
      },
    }),
    operation({
      method: "put",
      path: ENTRY,
      operationId: "engines.set_state",
      summary: "Create or replace an entry (If-Match / If-None-Match: * for concurrency control)",
      scope,
      params: KeyParams,
      headers: Conditions,
      body: EngineStatePutSchema,
      routingPath: ENTRY_ROUTING,
      ok: { 200: withEtag("The replaced entry"), 201: withEtag("The created entry") },
      errors: { 412: true },
      handler: async (c) => {
        const [engine, key] = [c.req.valid("param").engine, keyParam(c)];
        const conditions = putConditions(c.req.header("if-match"), c.req.header("if-none-match"));
        const { value } = parseBody(c, EngineStatePutSchema);
        const entry = await state.set(c.var.principal.orgId, engine, key, value, conditions);
        c.header("ETag", etag(entry.version));
        const created = entry.version === 1;
        if (created) c.header("Location", `${PATH}/${engine}/state/${encodeURIComponent(key)}`);
        return c.json(render(engine, entry), created ? 201 : 200);
      },
    }),
    operation({
      method: "delete",
      path: ENTRY,
      operationId: "engines.delete_state",
      summary: "Delete an entry",
      scope,
      params: KeyParams,
      headers: Conditions.pick({ "if-match": true }),
      routingPath: ENTRY_ROUTING,
      ok: { 204: { description: "Deleted" } },
      errors: { 412: true },
      handler: async (c) => {
        const [engine, key] = [c.req.valid("param").engine, keyParam(c)];
        const ifMatch = c.req.header("if-match");
        const ifVersion = ifMatch === undefined || ifMatch.trim() === "*" ? undefined : matchVersion(ifMatch);
        const deleted = await state.delete(c.var.principal.orgId, engine, key, { ifVersion });
        if (deleted) return c.body(null, 204);
        // `If-Match: *` is false when there is nothing to match (RFC 9110 §13.1.1).
        if (ifMatch !== undefined) throw preconditionFailed(`Key '${key.slice(0, 100)}' does not exist`);
        throw notFound(engine, key);
      },
    }),
  ]);
}

/**
 * The key, percent-decoded once from the raw path, so `a/b` and `a%2Fb` name the same
 * key and `%25` stays a `%`. Malformed encoding or a key breaking the rules is a 400. Not
 * a schema's work: Hono's parameters are decoded already (`%252F` would reach it as `/`).
 */
function keyParam(c: Context<AppEnv>): string {
  const raw = rawPath(c).split("/").slice(KEY_SEGMENT).join("/");
  let key: string;
  try {
    key = decodeURIComponent(raw);
  } catch {
    throw badParam("key", "is not percent-encoded UTF-8 (encode the key with encodeURIComponent)");
  }
  const problem = keyProblem(key, 1);
  if (problem) throw badParam("key", problem);
  return key;
}

function parseListParams(params: URLSearchParams): { prefix?: string; cursor?: string; limit: number } {
  const errors: FieldError[] = [];
  const fail = (param: string, message: string) => errors.push({ param, code: "invalid", message });
  for (const name of params.keys()) if (!LIST_PARAMS.includes(name)) fail(name, "is not a known parameter");
  const prefix = params.get("prefix") ?? undefined;
  const prefixProblem = prefix === undefined ? undefined : keyProblem(prefix, 0);
  if (prefixProblem) fail("prefix", prefixProblem);
  const cursor = params.get("cursor") ?? undefined;
  if (cursor !== undefined && decodeCursor(cursor) === undefined) {
    fail("cursor", "is not a next_cursor this list returned");
  }
  const rawLimit = params.get("limit");
  const limit =
    rawLimit === null ? DEFAULT_STATE_LIST_LIMIT : /^\d{1,9}$/.test(rawLimit) ? Number(rawLimit) : 0;
  if (limit < 1 || limit > MAX_STATE_LIST_LIMIT)
    fail("limit", `must be an integer from 1 to ${MAX_STATE_LIST_LIMIT}`);
  if (errors.length > 0) {
    throw new AppError("invalid_request", `${errors[0]!.param}: ${errors[0]!.message}`, { errors });
  }
  return { prefix: prefix || undefined, cursor, limit };
}

/** `If-Match: "<version>"` or `*`, or `If-None-Match: *` (create only); not both. */
function putConditions(ifMatch: string | undefined, ifNoneMatch: string | undefined): EngineStateSetOptions {
  if (ifMatch !== undefined && ifNoneMatch !== undefined) {
    throw badParam("If-None-Match", "send If-Match or If-None-Match, not both");
  }
  if (ifNoneMatch !== undefined) {
    if (ifNoneMatch.trim() !== "*") throw badParam("If-None-Match", "on PUT takes only * (create only)");
    return { ifVersion: 0 };
  }
  if (ifMatch === undefined) return {};
  return ifMatch.trim() === "*" ? { ifExists: true } : { ifVersion: matchVersion(ifMatch) };
}

const ENTITY_TAG = /^(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"$/;

/** The one version an `If-Match` list names (strong comparison: weak tags never match). */
function matchVersion(header: string): number {
  const tags = header.split(",").map((tag) => tag.trim());
  const versions: number[] = [];
  for (const tag of tags) {
    const match = ENTITY_TAG.exec(tag);
    if (!match) throw badParam("If-Match", 'must be * or entity tags such as "3" (the ETag of the entry)');
    if (!match[1] && /^[1-9]\d{0,15}$/.test(match[2]!)) versions.push(Number(match[2]));
  }
  if (versions.length > 1) throw badParam("If-Match", "takes one version of the entry");
  if (versions.length === 0)
    throw preconditionFailed(`No entry version matches If-Match: ${header.slice(0, 100)}`);
  return versions[0]!;
}

/** Whether an `If-None-Match` on GET names this version (weak comparison) or `*`. */
function matchesAny(header: string | undefined, version: number): boolean {
  if (header === undefined) return false;
  if (header.trim() === "*") return true;
  return header.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag(version));
}

const etag = (version: number) => `"${version}"`;

function render(engine: Engine, entry: EngineStateEntry): EngineStateEntryObject {
  return { object: "engine_state_entry", engine, ...entry };
}

function notFound(engine: Engine, key: string): AppError {
  return new AppError("not_found", `No such key in ${engine} state: '${key.slice(0, 100)}'`);
}

function preconditionFailed(message: string): AppError {
  return new AppError("precondition_failed", message);
}

function badParam(param: string, message: string): AppError {
  return new AppError("invalid_request", `${param}: ${message}`, {
    errors: [{ param, code: "invalid", message }],
  });
}

const EngineParams = z.object({
  engine: z
    .enum(ENGINES, {
      error: (issue) =>
        `No such engine: '${String(issue.input).slice(0, 100)}'; one of ${ENGINES.join(", ")}`,
    })
    .meta({ param: { name: "engine", in: "path" } }),
});
const KeyParams = EngineParams.extend({
  key: z.string().meta({
    param: { name: "key", in: "path" },
    description: "The key, percent-encoded as one segment (encodeURIComponent); 1-512 characters",
    example: "sync%2Fcursor",
  }),
});
const ListQuery = z.object({
  prefix: z.string().optional().meta({ description: "Only keys starting with this" }),
  cursor: z.string().optional().meta({ description: "meta.next_cursor of the previous page" }),
  limit: z
    .string()
    .optional()
    .meta({
      description: `Entries per page, 1-${MAX_STATE_LIST_LIMIT} (default ${DEFAULT_STATE_LIST_LIMIT})`,
    }),
});
const Conditions = z.object({
  "if-match": z
    .string()
    .optional()
    .meta({ description: 'Write only if the entry is at this version ("3"), or exists (*)' }),
  "if-none-match": z.string().optional().meta({ description: "* : create only, never replace" }),
});
