import type { MiddlewareHandler } from "hono";
import {
  AppError,
  sha256Hex,
  type Clock,
  type Config,
  type Logger,
  type SecretBox,
} from "../../core/index.ts";
import type { Store } from "../../store/index.ts";
import type { AppEnv } from "../env.ts";
import {
  findIdempotentRequest,
  isOAuthPrincipal,
  reserveIdempotencyKey,
  releaseIdempotencyKey,
  saveIdempotentResponse,
  type KeyPrincipal,
} from "../../engines/index.ts";

const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;
/** A request still "in flight" past this lease is taken to have crashed. */
const LEASE_MS = 60_000;
const REPLAYED_HEADERS = ["content-type", "location"];

/**
 * `Idempotency-Key` on POST/PATCH (Stripe's semantics): the first response is
 * stored for 24 h and replayed with `Idempotent-Replayed: true`; the same key with
 * another method, path or body is a 422; the same key while the first request is
 * still running is a 409. Server errors are not stored, so a retry can succeed.
 * Stored bodies are sealed: a response may hold a secret shown once (a webhook
 * endpoint's or an API key's), which must not rest in the table in plaintext.
 *
 * Keys are per credential, as Stripe keys them per API key: a stored answer replays only to
 * the credential that made it (`credentialOf`), never to another key of the organization that
 * sends the same key and body. Its scopes are part of that identity, so a replay goes only to a
 * caller whose authorization for this very request already passed when the answer was made; a
 * member whose role changed since is a new caller and runs the request afresh (through the route's
 * scope check).
 */
export function idempotency(deps: {
  store: Store;
  clock: Clock;
  config: Config;
  secretBox: SecretBox;
  log: Logger;
}): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const key = c.req.header("idempotency-key");
    if (key === undefined || (c.req.method !== "POST" && c.req.method !== "PATCH")) return next();
    if (!KEY_SHAPE.test(key)) {
      throw new AppError("invalid_request", "Idempotency-Key must be 1-255 printable ASCII characters", {
        errors: [{ param: "Idempotency-Key", code: "invalid", message: "1-255 printable ASCII characters" }],
      });
    }
    const principal = c.get("principal");
    const scope = { orgId: principal.orgId, credential: credentialOf(principal), key };
    const path = new URL(c.req.url).pathname;
    const requestHash = sha256Hex(`${c.req.method}\n${path}\n${c.get("bodyText") ?? ""}`);
    const now = deps.clock.now();
    const ttlMs = deps.config.idempotencyTtlHours * 3_600_000;

    const reserved = await reserveIdempotencyKey(deps.store, {
      ...scope,
      method: c.req.method,
      path,
      requestHash,
      now,
      leaseUntil: new Date(now.getTime() + LEASE_MS),
      expiredBefore: new Date(now.getTime() - ttlMs),
    });
    if (!reserved) {
      const existing = await findIdempotentRequest(deps.store, scope);
      if (!existing)
        throw new AppError("idempotency_key_in_use", "Retry this request: its key was just released");
      if (existing.request_hash !== requestHash) {
        throw new AppError(
          "idempotency_key_reused",
          "This Idempotency-Key was used with a different request",
          {
            errors: [
              { param: "Idempotency-Key", code: "reused", message: "keys must be unique per request" },
            ],
          },
        );
      }
      if (existing.response_status === null) {
        throw new AppError(
          "idempotency_key_in_use",
          "A request with this Idempotency-Key is still in progress",
        );
      }
      return replay(existing, deps.secretBox);
    }

    try {
      await next();
    } catch (error) {
      await releaseIdempotencyKey(deps.store, scope);
      throw error;
    }
    if (c.res.status >= 500) {
      await releaseIdempotencyKey(deps.store, scope);
      return;
    }
    const status = c.res.status;
    const headers: Record<string, string> = {};
    for (const name of REPLAYED_HEADERS) {
      const value = c.res.headers.get(name);
      if (value) headers[name] = value;
    }
    const save = (body: string) =>
      saveIdempotentResponse(deps.store, { ...scope, status, headers, body: deps.secretBox.seal(body) });
    // A stream (SYNC's reply as Server-Sent Events) reaches its caller as it is written: waiting for its
    // end to store it held every event back until the last. It is stored when it ends; until then a
    // retry with the key is told the first is still in progress (409), as for any request in flight.
    if (c.res.body && c.res.headers.get("content-type")?.startsWith("text/event-stream")) {
      const [toCaller, toStore] = c.res.body.tee();
      c.res = new Response(toCaller, c.res);
      void new Response(toStore)
        .text()
        .then(save)
        .catch(async (error: unknown) => {
          deps.log.warn("idempotency: a streamed answer was not stored; its key is released", {
            error: error instanceof Error ? error.message : String(error),
          });
          await releaseIdempotencyKey(deps.store, scope).catch(() => undefined);
        });
      return;
    }
    await save(await c.res.clone().text());
  };
}

/**
 * Who sent a request, for idempotency: the member behind a dashboard session (any of their
 * sessions), the OAuth installation or app behind a token, or the API key; with the scopes it
 * holds now. A fingerprint, so the table holds no credential.
 */
export function credentialOf(principal: KeyPrincipal): string {
  const who = principal.user
    ? `user:${principal.user.id}`
    : isOAuthPrincipal(principal)
      ? `oauth:${principal.keyId}`
      : `key:${principal.keyId}`;
  return sha256Hex(`${who}\n${[...principal.scopes].sort().join(" ")}`);
}

function replay(
  stored: { response_status: number | null; response_headers: unknown; response_body: string | null },
  box: SecretBox,
) {
  const headers = new Headers(stored.response_headers as Record<string, string>);
  headers.set("Idempotent-Replayed", "true");
  // Bodies stored before sealing began are JSON text, which never starts with the sealed prefix.
  const raw = stored.response_body;
  const body = raw?.startsWith("v1.") ? box.open(raw) : raw;
  return new Response(body, { status: stored.response_status ?? 200, headers });
}
