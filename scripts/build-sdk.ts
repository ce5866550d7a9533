import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/**
 * `npm run build:sdk` (and `npm pack` of sdk/, its `prepack`): the function SDK's Deno modules
 * (sdk/types.ts, sdk/testing.ts, sdk/api.ts) emitted as JavaScript and declarations into sdk/dist/,
 * the files the `@tessera/sdk` package ships. Deno type-checks TypeScript it finds through an
 * import map or a URL, but an `npm:` package only as JavaScript with `.d.ts` beside it, so a
 * function folder that imports the SDK by package name gets these. Fails on a type error.
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const SDK = join(ROOT, "sdk");
const ENTRIES = ["types.ts", "testing.ts"];

/** Builds sdk/dist/ (or `out`): types.js, testing.js, api.js and their .d.ts. */
export function buildSdk(out = join(SDK, "dist")): void {
  rmSync(out, { recursive: true, force: true });
  const program = ts.createProgram(
    ENTRIES.map((entry) => join(SDK, entry)),
    {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: ["lib.es2023.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts"],
      types: [],
      strict: true,
      declaration: true,
      allowImportingTsExtensions: true,
      rewriteRelativeImportExtensions: true,
      verbatimModuleSyntax: true,
      skipLibCheck: true,
      rootDir: SDK,
      outDir: out,
      newLine: ts.NewLineKind.LineFeed,
    },
  );
  const emitted = program.emit();
  const diagnostics = [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics];
  if (diagnostics.length > 0) {
    const host = {
      getCanonicalFileName: (f: string) => f,
      getCurrentDirectory: () => ROOT,
      getNewLine: () => "\n",
    };
    throw new Error(ts.formatDiagnostics(diagnostics, host));
  }
  // Declarations keep the sources' `./types.ts`; a package's files are `./types.js` + `./types.d.ts`.
  for (const entry of ["types", "testing", "api"]) {
    const file = join(out, `${entry}.d.ts`);
    writeFileSync(
      file,
      readFileSync(file, "utf8").replace(/^((?:import|export) [^\n]* from "\.\/[\w-]+)\.ts";$/gm, '$1.js";'),
    );
  }
}

/**
 * The `@tessera/sdk` tarball `npm pack sdk` makes, made in a copy so the checkout is left as it
 * is (tests run beside `npm run check`, which a sdk/dist/ would confuse): its path.
 */
export function packSdk(destination: string): string {
  const stage = mkdtempSync(join(tmpdir(), "tessera-sdk-"));
  try {
    const pkg = JSON.parse(readFileSync(join(SDK, "package.json"), "utf8")) as Record<string, unknown>;
    delete pkg.scripts;
    writeFileSync(join(stage, "package.json"), `${JSON.stringify(pkg, null, 2)}\n`);
    copyFileSync(join(SDK, "README.md"), join(stage, "README.md"));
    buildSdk(join(stage, "dist"));
    const packed = execFileSync("npm", ["pack", "--silent", "--pack-destination", destination], {
      cwd: stage,
      encoding: "utf8",
    });
    return join(destination, packed.trim().split("\n").pop()!);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const version = (JSON.parse(readFileSync(join(SDK, "package.json"), "utf8")) as { version: string })
    .version;
  buildSdk();
  // stderr: `npm pack`'s stdout is the tarball's name alone.
  console.error(`built @tessera/sdk ${version} into sdk/dist/`);
}
