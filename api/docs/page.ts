/** Where Swagger UI reads the API's description: the document `createApi` generates (api/app.ts). */
export const OPENAPI_URL = "/v1/openapi.json";

/**
 * The page's Content-Security-Policy (CSP Level 3, https://www.w3.org/TR/CSP3/). Nothing is
 * allowed unless listed: scripts only from our own files (no inline script, no eval), styles
 * from our files and the `style` attributes Swagger UI's React components write, images
 * from us and the `data:` icons of swagger-ui.css, requests (the document, "Try it out")
 * only to this origin. No framing (clickjacking), no `<base>`, forms post only here.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join("; ");

/** The page's own headers (the assets' are in index.ts). */
export const PAGE_HEADERS = {
  "Content-Type": "text/html; charset=utf-8",
  "Content-Security-Policy": DOCS_CSP,
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "no-referrer",
  "X-Content-Type-Options": "nosniff",
  // The page names the assets' version: a new release must not meet a cached old page.
  "Cache-Control": "no-cache",
} as const;

/** Starts Swagger UI: a file of its own, since the policy above runs no inline script. */
export const INIT_JS = `// Tessera's API reference (api/docs/): Swagger UI over the OpenAPI document.
window.ui = SwaggerUIBundle({ url: ${JSON.stringify(OPENAPI_URL)}, dom_id: "#swagger-ui" });
`;

/**
 * The HTML of `/docs`. `assets` is the URL of the folder of our files (`/docs/assets`);
 * `swaggerUi` the one of the package's, which carries its version.
 */
export function docsPage(assets: string, swaggerUi: string): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Tessera API reference</title>
    <link rel="stylesheet" href="${swaggerUi}/swagger-ui.css">
    <link rel="stylesheet" href="${swaggerUi}/index.css">
    <link rel="icon" type="image/png" href="${swaggerUi}/favicon-32x32.png" sizes="32x32">
    <link rel="icon" type="image/png" href="${swaggerUi}/favicon-16x16.png" sizes="16x16">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <noscript>This reference needs JavaScript. The OpenAPI document it shows is
      <a href="${OPENAPI_URL}">${OPENAPI_URL}</a>.</noscript>
    <script src="${swaggerUi}/swagger-ui-bundle.js"></script>
    <script src="${assets}/init.js"></script>
  </body>
</html>
`;
}
