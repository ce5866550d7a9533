import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";

/**
 * A local npm registry for tests: abbreviated packuments at `/<name>` (`/@scope%2fname`) and
 * gzipped tarballs at `/<name>/-/<base>-<version>.tgz`, built here from file maps with a
 * minimal ustar writer, each with its sha512 `dist.integrity`. Packages can be published
 * while it runs; a version can be served with bytes that differ from its integrity.
 */

export interface FakeNpmVersion {
  /** Paths inside the package (package.json is written from `name`, `version`, `dependencies`). */
  files: Record<string, string>;
  dependencies?: Record<string, string>;
  /** Serve other bytes than those the integrity was computed from. */
  tampered?: boolean;
}

export interface FakeNpmRegistry {
  url: string;
  /** Paths requested, in order. */
  requests: string[];
  publish(name: string, version: string, content: FakeNpmVersion): void;
  close(): Promise<void>;
}

export async function startFakeNpmRegistry(
  packages: Record<string, Record<string, FakeNpmVersion>> = {},
): Promise<FakeNpmRegistry> {
  const requests: string[] = [];
  const published = new Map<
    string,
    Map<string, { tgz: Buffer; integrity: string; deps?: Record<string, string> }>
  >();
  const tarballs = new Map<string, Buffer>();
  let url = "";

  const tarballPath = (name: string, version: string) =>
    `/${name}/-/${name.split("/").at(-1)}-${version}.tgz`;
  const publish = (name: string, version: string, content: FakeNpmVersion) => {
    const manifest = { name, version, type: "module", main: "index.js", dependencies: content.dependencies };
    const tgz = gzipSync(tar({ "package.json": JSON.stringify(manifest), ...content.files }));
    const integrity = `sha512-${createHash("sha512").update(tgz).digest("base64")}`;
    const versions = published.get(name) ?? new Map();
    versions.set(version, {
      tgz,
      integrity,
      ...(content.dependencies ? { deps: content.dependencies } : {}),
    });
    published.set(name, versions);
    const served = content.tampered
      ? gzipSync(tar({ "package.json": JSON.stringify(manifest), "index.js": "export default 'evil';" }))
      : tgz;
    tarballs.set(tarballPath(name, version), served);
  };

  const packument = (name: string) => {
    const versions = published.get(name)!;
    const sorted = [...versions.keys()]
      .filter((v) => !v.includes("-"))
      .sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
    return {
      name,
      "dist-tags": { latest: sorted.at(-1) },
      versions: Object.fromEntries(
        [...versions].map(([version, info]) => [
          version,
          {
            name,
            version,
            ...(info.deps ? { dependencies: info.deps } : {}),
            dist: { tarball: url + tarballPath(name, version), integrity: info.integrity },
          },
        ]),
      ),
    };
  };

  const server: Server = createServer((request, response) => {
    const path = request.url ?? "/";
    requests.push(path);
    const tgz = tarballs.get(path);
    if (tgz) {
      response.writeHead(200, { "content-type": "application/octet-stream" }).end(tgz);
      return;
    }
    const name = decodeURIComponent(path.slice(1));
    if (published.has(name)) {
      response
        .writeHead(200, { "content-type": "application/vnd.npm.install-v1+json" })
        .end(JSON.stringify(packument(name)));
      return;
    }
    response.writeHead(404, { "content-type": "application/json" }).end(`{"error":"Not found"}`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  for (const [name, versions] of Object.entries(packages)) {
    for (const [version, content] of Object.entries(versions)) publish(name, version, content);
  }
  return {
    url,
    requests,
    publish,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A ustar archive of regular files under `package/` (or the exact names given with a leading `/`). */
export function tar(files: Record<string, string>): Buffer {
  const blocks: Buffer[] = [];
  for (const [path, body] of Object.entries(files)) {
    const data = Buffer.from(body);
    const header = Buffer.alloc(512);
    const name = path.startsWith("/") ? path.slice(1) : `package/${path}`;
    header.write(name, 0, 100, "utf8");
    header.write("0000644\0", 100, "ascii");
    header.write("0000000\0", 108, "ascii");
    header.write("0000000\0", 116, "ascii");
    header.write(`${data.length.toString(8).padStart(11, "0")}\0`, 124, "ascii");
    header.write("00000000000\0", 136, "ascii");
    header.write("        ", 148, "ascii");
    header.write("0", 156, "ascii");
    header.write("ustar\0", 257, "ascii");
    header.write("00", 263, "ascii");
    let sum = 0;
    for (const byte of header) sum += byte;
    header.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148, "ascii");
    blocks.push(header, data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}
