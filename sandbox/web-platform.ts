import { createHash } from "node:crypto";
import { lstatSync, mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild-wasm";
import ivm, { type IsolatedVM } from "./isolated-vm/index.ts";

/** The in-isolate web platform, bundled and frozen into a V8 startup snapshot (one per sandbox). */
export interface GuestPlatform {
  /** The bundled platform script (what the snapshot ran). */
  code: string;
  /** sha256 of `code`, hex: names this platform build. */
  hash: string;
  snapshot: IsolatedVM.ExternalCopy<ArrayBuffer>;
  /** Modules kept out of the snapshot, handed to a guest on first use (op "module"). */
  modules: Record<GuestModule, string>;
}

const ENTRY = fileURLToPath(new URL("./guest/index.ts", import.meta.url));
/** whatwg-url uses TextEncoder/TextDecoder at module load: bundled modules get the platform's own. */
const ENCODING = fileURLToPath(new URL("./guest/encoding.ts", import.meta.url));
const LAZY_TR46 = "tessera-lazy-tr46";

/** The modules a guest asks the host for on first use (op "module"), each a script whose completion value is its exports. */
export type GuestModule = "tr46" | "urlpattern";
/** Tessera's version (package.json), for the guest's `navigator.userAgent`; read when building. */
const version = () =>
  (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string })
    .version;

/**
 * Builds the platform: bundled with esbuild-wasm from `sandbox/guest/` (~1-2 s; the bundle
 * is then cached on disk), then snapshotted (~40 ms, ~0.8 MB). No build step: a fresh clone
 * runs as is. A sandbox builds one on its first cold start and keeps it until disposed;
 * nothing here keeps it (a module holds no state, and the snapshot's memory goes with its
 * sandbox).
 */
export async function buildGuestPlatform(): Promise<GuestPlatform> {
  const [code, tr46, urlpattern] = await Promise.all([
    bundleCached("platform", bundle),
    bundleCached("tr46", () => bundleModule("tr46", "__tessera_tr46")),
    bundleCached("urlpattern", () => bundleModule("urlpattern-polyfill/urlpattern", "__tessera_urlpattern")),
  ]);
  const snapshot = ivm.Isolate.createSnapshot([{ code, filename: "tessera:platform.js" }]);
  return {
    code,
    hash: createHash("sha256").update(code).digest("hex"),
    snapshot,
    modules: { tr46, urlpattern },
  };
}

/**
 * esbuild-wasm takes seconds on a busy machine, so the bundle is cached on disk, keyed
 * by a hash of its inputs (the guest sources and the bundled packages' versions). The
 * snapshot is not: V8 aborts the process on a snapshot from another build.
 */
async function bundleCached(name: string, build: () => Promise<string>): Promise<string> {
  const guestDir = fileURLToPath(new URL("./guest/", import.meta.url));
  const hash = createHash("sha256");
  for (const name of readdirSync(guestDir).sort())
    hash.update(name).update(readFileSync(join(guestDir, name)));
  const require = createRequire(import.meta.url);
  for (const name of ["web-streams-polyfill", "whatwg-url", "tr46", "esbuild-wasm"]) {
    hash.update(name).update(readFileSync(require.resolve(`${name}/package.json`)));
  }
  // urlpattern-polyfill exports no package.json: its code stands for its version.
  hash.update(readFileSync(require.resolve("urlpattern-polyfill/urlpattern")));
  // The version the bundle carries (navigator.userAgent), and this file: its build options.
  hash.update(version());
  hash.update(readFileSync(fileURLToPath(import.meta.url)));
  const dir = platformCacheDir();
  if (!dir) return build();
  const file = join(dir, `${name}-${hash.digest("hex").slice(0, 32)}.js`);
  try {
    return readFileSync(file, "utf8");
  } catch {
    const code = await build();
    // Written aside, then renamed: a concurrent reader never sees half a file. Not written (a full
    // disk): the next sandbox bundles again.
    const partial = `${file}.${process.pid}.tmp`;
    try {
      writeFileSync(partial, code);
      renameSync(partial, file);
    } catch {}
    return code;
  }
}

/**
 * The bundle cache's directory: this user's own under the temp dir, made private (0700), or
 * none (then each sandbox bundles anew). The temp dir is shared by the machine's users, and
 * what is cached here runs as the platform of every function isolate: a directory another user
 * made, or may write to, or a link in its place, could hold their code, so it is not used.
 */
export function platformCacheDir(temp = tmpdir()): string | undefined {
  const uid = process.getuid?.();
  const dir = join(temp, `tessera-guest-platform-${uid ?? "user"}`);
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") return undefined;
  }
  // Windows has no uid; its temp dir is the user's own.
  if (uid === undefined) return dir;
  const stat = lstatSync(dir);
  return stat.isDirectory() && stat.uid === uid && (stat.mode & 0o077) === 0 ? dir : undefined;
}

/**
 * A package as one script whose completion value is its exports, for a guest to evaluate on first
 * use (tr46 with punycode, see lazyTr46; urlpattern-polyfill, see guest/urlpattern.ts).
 */
async function bundleModule(specifier: string, globalName: string): Promise<string> {
  const result = await esbuild.build({
    stdin: {
      contents: `module.exports = require(${JSON.stringify(specifier)});`,
      resolveDir: fileURLToPath(new URL(".", import.meta.url)),
    },
    bundle: true,
    write: false,
    format: "iife",
    globalName,
    platform: "neutral",
    mainFields: ["module", "main"],
    target: "es2022",
    logLevel: "silent",
    minifyWhitespace: true,
    minifySyntax: true,
  });
  return `${result.outputFiles[0]!.text}\nreturn ${globalName};`;
}

async function bundle(): Promise<string> {
  const result = await esbuild.build({
    entryPoints: [ENTRY],
    bundle: true,
    write: false,
    format: "iife",
    platform: "neutral",
    mainFields: ["module", "main"],
    target: "es2022",
    // Non-ASCII characters escaped (\u2026): one "…" in the source made V8 keep the whole script as
    // a two-byte string, ~240 kB more in every isolate's heap (1,000 idle isolates: 2,437–2,441 MB
    // ASCII, 2,658–2,708 MB not; bench/README.md).
    charset: "ascii",
    logLevel: "silent",
    // Whitespace and syntax only: class and function names stay readable in stacks and console output.
    minifyWhitespace: true,
    minifySyntax: true,
    banner: { js: '"use strict";' },
    inject: [ENCODING],
    define: { TESSERA_VERSION: JSON.stringify(version()) },
    plugins: [lazyTr46(), longNames()],
  });
  return result.outputFiles[0]!.text;
}

const ONE_LETTER = [..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_$"];

/**
 * isolated-vm 5's snapshots lose one-character names (6 and 7 not checked: the renaming costs
 * nothing at run time, so it stays for every major): a function compiled lazily after
 * the snapshot cannot resolve an outer variable named `L` (nor a global `K`), because
 * V8 compares internalized names by identity and the snapshot's one-character strings
 * are not the canonical ones any more. Pre-minified packages (web-streams-polyfill) are
 * full of such names, so every bundled module (packages and sandbox/guest alike) has its
 * identifiers renamed by esbuild with all one-letter names taken (referenced as free
 * variables, which esbuild never reuses); `keepNames` keeps classes' and functions' `.name`.
 */
function longNames(): esbuild.Plugin {
  const taken = `[${ONE_LETTER.map((letter) => `typeof ${letter}`).join(",")}]`;
  return {
    name: "tessera-long-names",
    setup(build) {
      build.onLoad({ filter: /\.(m?js|cjs|ts)$/ }, async (args) => {
        const source = readFileSync(args.path, "utf8");
        const ts = args.path.endsWith(".ts");
        const esm = ts || args.path.endsWith(".mjs") || /^\s*(import|export)\s/m.test(source);
        const reserve = `\n${esm ? "export " : ""}function __tessera_taken_names() { return ${taken}; }\n`;
        const result = await esbuild.transform(source + reserve, {
          loader: ts ? "ts" : "js",
          minifyIdentifiers: true,
          keepNames: true,
          format: esm ? "esm" : "cjs",
        });
        return { contents: result.code, loader: "js" };
      });
    },
  };
}

/**
 * tr46 (IDNA, pulled in by whatwg-url) is 220 kB of source and tables: in the snapshot it
 * would cost every isolate's boot. ASCII host names do not need it: the URL Standard
 * lowercases them, bogus `xn--` labels included (its ASCII fallback, whatwg/url#914; WPT's
 * toascii.json), so this shim answers those itself (toUnicode: those without `xn--` labels)
 * and, on the first other one, asks the host for tr46 (op "module") and evaluates it with
 * the Function constructor it captured at startup.
 */
function lazyTr46(): esbuild.Plugin {
  const bridge = fileURLToPath(new URL("./guest/bridge.ts", import.meta.url));
  return {
    name: "tessera-lazy-tr46",
    setup(build) {
      build.onResolve({ filter: /^tr46$/ }, () => ({ path: LAZY_TR46, namespace: LAZY_TR46 }));
      build.onLoad({ filter: /.*/, namespace: LAZY_TR46 }, () => ({
        loader: "js",
        resolveDir: fileURLToPath(new URL("./guest/", import.meta.url)),
        contents: `
          import { hostSync } from ${JSON.stringify(bridge)};
          const FunctionConstructor = Function;
          const SIMPLE = /^[\\x21-\\x7e]*$/;
          let real;
          const load = () => (real ??= new FunctionConstructor(hostSync("module", 0, "tr46"))());
          const isSimple = (domain) => SIMPLE.test(domain) && !/(^|\\.)xn--/i.test(domain);
          export function toASCII(domain, options) {
            return SIMPLE.test(domain) ? domain.toLowerCase() : load().toASCII(domain, options);
          }
          export function toUnicode(domain, options) {
            return isSimple(domain) ? { domain: domain.toLowerCase(), error: false } : load().toUnicode(domain, options);
          }`,
      }));
    },
  };
}
