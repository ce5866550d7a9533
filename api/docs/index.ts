import { Hono } from "hono";
import { basePath } from "hono/route";
import { AppError } from "../../core/index.ts";
import { isSwaggerUiFile, SWAGGER_UI_FILES, swaggerUiAssets } from "./assets.ts";
import { docsPage, INIT_JS, PAGE_HEADERS } from "./page.ts";

export { DOCS_CSP, OPENAPI_URL } from "./page.ts";

/** A year, and `immutable` (RFC 8246): not even revalidated when the user reloads the page. */
const IMMUTABLE = "public, max-age=31536000, immutable";

/** The folder of the package's files: its version in the name, so a new one is a new URL. */
const packageFolder = (version: string) => `swagger-ui-dist@${encodeURIComponent(version)}`;

/**
 * The interactive API reference, served whole from this process so it works with no internet:
 * the page, Swagger UI's files from the installed `swagger-ui-dist` (read on first use, cached
 * for good under a versioned URL) and `init.js`, which points Swagger UI at the OpenAPI document.
 *
 * @example
 *   app.route("/docs", docsRoutes());
 *   // GET /docs                                               the page (CSP: no inline script)
 *   // GET /docs/assets/init.js                                starts Swagger UI
 *   // GET /docs/assets/swagger-ui-dist@5.35.0/swagger-ui.css  the package's files
 */
export function docsRoutes(): Hono {
  const app = new Hono();
  const assets = swaggerUiAssets();

  app.get("/", async (c) => {
    const { version } = await assets();
    // Mounted at "/", the base is "/": "//assets" would name a host, not a path.
    const folder = `${basePath(c).replace(/\/$/, "")}/assets`;
    return c.body(docsPage(folder, `${folder}/${packageFolder(version)}`), 200, PAGE_HEADERS);
  });

  app.get("/assets/init.js", (c) =>
    c.body(INIT_JS, 200, {
      "Content-Type": "text/javascript; charset=utf-8",
      "X-Content-Type-Options": "nosniff",
      // Unversioned: revalidated on every load, so a release that changes it is seen at once.
      "Cache-Control": "no-cache",
    }),
  );

  app.get("/assets/:folder/:file", async (c) => {
    const { folder, file } = c.req.param();
    const { version, files } = await assets();
    // Another version's URL is a 404, never this version's bytes under a name cached for good.
    if (folder !== `swagger-ui-dist@${version}` || !isSwaggerUiFile(file)) {
      throw new AppError("not_found", `No such file of the API reference: '${folder}/${file}'`);
    }
    return c.body(files[file], 200, {
      "Content-Type": SWAGGER_UI_FILES[file],
      "X-Content-Type-Options": "nosniff",
      "Cache-Control": IMMUTABLE,
    });
  });

  return app;
}
