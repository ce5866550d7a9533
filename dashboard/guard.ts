import { createHmac, randomBytes } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { html } from "hono/html";
import { AppError, safeEqual } from "../core/index.ts";
import { csrfMatches } from "../engines/index.ts";
import type { ApiDeps, AppEnv } from "../api/env.ts";
import { readBody } from "../api/middleware/json-body.ts";
import { CSP, page } from "./layout.ts";
import { sameOrigin } from "./origin.ts";
import { cookieName, httpsOrigin, sessionOf } from "./session.ts";

/**
 * Every state change a browser can make on the dashboard and the OAuth consent pages passes here
 * before its handler: from this origin (`sameOrigin`), a body under its limit, and a CSRF token. A
 * new form cannot forget any of them; `DashboardParts.posted` still checks the session's own token.
 */

/** The pre-session CSRF cookie of forms sent before there is a session (sign-in, setup, invitation, reset). */
const PRE_SESSION_COOKIE = "tessera_csrf";
/** How long a pre-session form may stay open; a page reuses its cookie for the first half of that. */
const PRE_SESSION_TTL_S = 2 * 60 * 60;
const PRE_SESSION_VALUE = /^(\d{1,12})\.[A-Za-z0-9_-]{24}$/;
/**
 * A form sent without a session (a few fields), and an OAuth endpoint's body: read no further. It is
 * below oidc-provider's own 56 KiB, so this limit, and its 413, answer first.
 */
export const SMALL_FORM_BYTES = 32 * 1024;

/** Methods that change nothing; everything else is guarded. */
const SAFE = new Set(["GET", "HEAD"]);

export interface FormGuardOptions {
  /** Paths whose forms upload a function's files: read under `TESSERA_FUNCTION_MAX_UPLOAD_BYTES`. */
  uploads?: RegExp;
}

/**
 * The guard of the dashboard's and the consent pages' state changes, in this order, so nothing is
 * read or changed for a request it refuses:
 *
 * 1. From another origin → 403 (`sameOrigin`: Fetch Metadata, else Origin, else Referer).
 * 2. Body past the limit → 413, read no further (Content-Length first, then counted on the stream):
 *    without a session `SMALL_FORM_BYTES`, with one the API's `TESSERA_MAX_BODY_BYTES`, a deploy the
 *    upload limit. The form is kept for the handler (Hono's body cache).
 * 3. No valid CSRF token (`_csrf` field, or `X-CSRF-Token`) → 403: the session's, or the
 *    pre-session token of this browser's `tessera_csrf` cookie (`preSessionCsrf`).
 *
 * @example
 *   const guard = formGuard(deps, { uploads: /^\/functions\/new$/ });
 *   app.use("/settings/*", guard);
 */
export function formGuard(deps: ApiDeps, options: FormGuardOptions = {}): MiddlewareHandler<AppEnv> {
  // Mounted on overlapping paths (`/settings` and `/settings/*`): a request is guarded once.
  const guarded = new WeakSet<Request>();
  return async (c, next) => {
    if (SAFE.has(c.req.method) || guarded.has(c.req.raw)) return next();
    guarded.add(c.req.raw);
    if (!sameOrigin(c, deps.config.publicUrl)) {
      return refuse(c, "This form was sent from another site. Nothing was changed.");
    }
    const signed = await sessionOf(c, deps);
    const upload = options.uploads?.test(c.req.path) ?? false;
    const limit = !signed
      ? Math.min(SMALL_FORM_BYTES, deps.config.maxBodyBytes)
      : upload
        ? deps.config.functions.maxUploadBytes
        : deps.config.maxBodyBytes;
    const field = (await readForm(c, limit))?.get("_csrf");
    const token = typeof field === "string" ? field : c.req.header("x-csrf-token");
    const valid =
      (signed !== undefined && csrfMatches(signed.session, token)) || preSessionMatches(c, deps, token);
    if (!valid) return refuse(c, "This form has expired: reload the page and try again.");
    return next();
  };
}

/**
 * The CSRF token of a form shown before there is a session (sign-in, setup, invitation, reset), as
 * OWASP's signed double-submit cookie: a random value in an HttpOnly, SameSite=Strict cookie
 * (`__Host-` over https, so no sibling host can plant one), and in the form its HMAC under a key
 * derived from TESSERA_SECRET. Another site can neither read the cookie nor make a matching token;
 * the value carries when it was made, so it ends after two hours whatever the browser keeps.
 */
export function preSessionCsrf(c: Context<AppEnv>, deps: ApiDeps): string {
  const nowS = Math.floor(deps.clock.nowMs() / 1000);
  const current = getCookie(c, cookieName(deps, PRE_SESSION_COOKIE));
  const age = current === undefined ? undefined : ageOf(current, nowS);
  if (current !== undefined && age !== undefined && age < PRE_SESSION_TTL_S / 2) {
    return preSessionToken(deps, current);
  }
  const value = `${nowS}.${randomBytes(18).toString("base64url")}`;
  setCookie(c, cookieName(deps, PRE_SESSION_COOKIE), value, {
    httpOnly: true,
    sameSite: "Strict",
    secure: httpsOrigin(deps),
    path: "/",
    maxAge: PRE_SESSION_TTL_S,
  });
  return preSessionToken(deps, value);
}

function preSessionMatches(c: Context<AppEnv>, deps: ApiDeps, token: string | undefined): boolean {
  const value = getCookie(c, cookieName(deps, PRE_SESSION_COOKIE));
  if (!token || !value) return false;
  const age = ageOf(value, Math.floor(deps.clock.nowMs() / 1000));
  return age !== undefined && age < PRE_SESSION_TTL_S && safeEqual(preSessionToken(deps, value), token);
}

function preSessionToken(deps: ApiDeps, value: string): string {
  return createHmac("sha256", deps.csrfKey).update(`pre-session csrf:${value}`).digest("base64url");
}

/** Seconds since the cookie's value was made; undefined when it is not one of ours or is from the future. */
function ageOf(value: string, nowS: number): number | undefined {
  const match = PRE_SESSION_VALUE.exec(value);
  const age = match ? nowS - Number(match[1]) : -1;
  return age >= 0 ? age : undefined;
}

/**
 * Reads the body under `maxBytes` (a 413 AppError past it) into Hono's body cache, where the
 * handler's `parseBody` and `formData` find it; a form (urlencoded or multipart) is parsed once.
 */
async function readForm(c: Context<AppEnv>, maxBytes: number): Promise<FormData | undefined> {
  const bytes = await readBody(c, maxBytes);
  // Hono keeps promises there (request.ts `#cachedBody`), whatever its type says.
  const cache = c.req.bodyCache as Record<string, Promise<unknown>>;
  cache.arrayBuffer = Promise.resolve(
    bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
  );
  const contentType = c.req.header("content-type") ?? "";
  const type = contentType.split(";")[0]!.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded" && type !== "multipart/form-data") return undefined;
  let form: FormData;
  try {
    form = await new Response(bytes, { headers: { "content-type": contentType } }).formData();
  } catch {
    throw new AppError("invalid_request", "The form could not be read: reload the page and send it again");
  }
  cache.formData = Promise.resolve(form);
  return form;
}

/** A refused state change: 403, as a page (a person in a browser sent it), nothing done. */
async function refuse(c: Context<AppEnv>, reason: string): Promise<Response> {
  c.header("Content-Security-Policy", CSP);
  return c.html(
    await page(
      "Forbidden",
      {},
      html`<h1>Forbidden</h1>
        <p>${reason}</p>`,
    ),
    403,
  );
}
