import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A local stand-in for the internet the CLI vendors from: https-style module hosting
 * (content types, redirects) and a jsr registry under `/jsr` (meta.json,
 * `<version>_meta.json` with exports and checksums, the files). No real network in tests.
 */

export interface FakeModule {
  body: string;
  type?: string;
}
export type FakeRoute = FakeModule | { redirect: string };

export interface FakeJsrPackage {
  /** version → { exports, files (path from the package root, e.g. "mod.ts") } */
  versions: Record<
    string,
    { exports: Record<string, string>; files: Record<string, string>; yanked?: boolean }
  >;
  latest?: string;
}

export interface FakeRemote {
  url: string;
  jsrUrl: string;
  /** Paths requested, in order. */
  requests: string[];
  close(): Promise<void>;
}

export async function startFakeRemote(
  routes: (base: string) => Record<string, FakeRoute>,
  jsr: Record<string, FakeJsrPackage> = {},
): Promise<FakeRemote> {
  const requests: string[] = [];
  let table: Record<string, FakeRoute> = {};
  const server: Server = createServer((request, response) => {
    const path = request.url ?? "/";
    requests.push(path);
    const route = table[path];
    if (!route) {
      response.writeHead(404, { "content-type": "text/plain" }).end("not found");
    } else if ("redirect" in route) {
      response.writeHead(302, { location: route.redirect }).end();
    } else {
      response.writeHead(200, { "content-type": route.type ?? "application/typescript" }).end(route.body);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // Explicit routes win, so a test can serve a registry file that differs from its manifest.
  table = { ...jsrRoutes(jsr), ...routes(url) };
  return {
    url,
    jsrUrl: `${url}/jsr`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function jsrRoutes(packages: Record<string, FakeJsrPackage>): Record<string, FakeRoute> {
  const routes: Record<string, FakeRoute> = {};
  const json = (value: unknown): FakeModule => ({ body: JSON.stringify(value), type: "application/json" });
  for (const [name, pkg] of Object.entries(packages)) {
    const versions = Object.fromEntries(
      Object.entries(pkg.versions).map(([version, v]) => [version, v.yanked ? { yanked: true } : {}]),
    );
    routes[`/jsr/${name}/meta.json`] = json({ latest: pkg.latest ?? null, versions });
    for (const [version, { exports, files }] of Object.entries(pkg.versions)) {
      const manifest = Object.fromEntries(
        Object.entries(files).map(([path, body]) => [
          `/${path}`,
          { size: body.length, checksum: `sha256-${createHash("sha256").update(body).digest("hex")}` },
        ]),
      );
      routes[`/jsr/${name}/${version}_meta.json`] = json({ exports, manifest });
      for (const [path, body] of Object.entries(files)) {
        routes[`/jsr/${name}/${version}/${path}`] = { body, type: "text/typescript" };
      }
    }
  }
  return routes;
}
