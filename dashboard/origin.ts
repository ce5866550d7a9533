import type { Context } from "hono";

/**
 * Whether a browser sent this request from this origin: the one rule of every state change a
 * browser can make (dashboard forms, the OAuth consent pages, `/v1` acting on a session).
 *
 * - **Fetch Metadata** first (`Sec-Fetch-Site`, set by the browser, unforgeable by a page):
 *   `same-origin`, and `none` (the person typed or bookmarked the URL), pass. `cross-site` is
 *   refused, and so is `same-site`: a sibling host (functions served from a subdomain of their own,
 *   ARCHITECTURE.md "Security model") is tenant code, not this origin.
 * - else **`Origin`** must be this origin (`null`, from a sandboxed frame or a privacy redirect, is not);
 * - else **`Referer`**'s origin must be (the pages send `Referrer-Policy: same-origin`, so a form of
 *   this origin in a browser without the two above still says where it comes from).
 * - **None of them**: no browser sent it (every browser sends at least one on a POST from a page;
 *   curl and scripts send none). It passes here and the CSRF token decides: a client that holds its
 *   own cookies is not what cross-site request forgery is about.
 *
 * This origin is `TESSERA_PUBLIC_URL`'s when set (scheme, host and port must all match); else the
 * request's own host, compared without the scheme, because behind a TLS-terminating proxy the server
 * sees `http` where the browser sees `https` (as the OAuth issuer and invitation links follow it).
 *
 * @example
 *   if (!sameOrigin(c, deps.config.publicUrl)) return refuse(c); // a form posted from another site
 */
export function sameOrigin(c: Context, publicUrl: string | undefined): boolean {
  const site = c.req.header("sec-fetch-site");
  if (site !== undefined) return site === "same-origin" || site === "none";
  const origin = c.req.header("origin");
  if (origin !== undefined) return isThisOrigin(origin, c, publicUrl);
  const referer = c.req.header("referer");
  if (referer !== undefined) return isThisOrigin(referer, c, publicUrl);
  return true;
}

function isThisOrigin(value: string, c: Context, publicUrl: string | undefined): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false; // `null`, or not a URL
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return false;
  if (publicUrl) return url.origin === new URL(publicUrl).origin;
  return url.host === new URL(c.req.url).host;
}
