// Lint: type-aware rules, and the one-way import order of the folders (ARCHITECTURE.md, "The floors").
import { builtinModules } from "node:module";
import path from "node:path";
import tseslint from "typescript-eslint";

const ROOT = import.meta.dirname;
const ORDER =
  "core → store → engines → sync → sandbox → runtime → webhooks → api → dashboard → services.ts → main.ts → cli → bin";

/**
 * The floors of the house, lowest first: a file may import its own floor and the ones below it.
 * SYNC (sync/) is built on the engines and serves the faces; the dashboard (dashboard/, with the
 * OAuth sign-in and consent pages) is the browser's face beside api/, which it builds on: api/
 * receives the dashboard's routes from above (services.ts) rather than importing them.
 * services.ts (the services, built once) and main.ts (the composition root) sit above both;
 * the CLI starts the server, so cli/ and bin/ sit above main.ts.
 */
const FLOORS = [
  "core",
  "store",
  "engines",
  "sync",
  "sandbox",
  "runtime",
  "webhooks",
  "api",
  "dashboard",
  "services.ts",
  "main.ts",
  "cli",
  "bin",
];
/** Tooling around the product: may import any floor (and one another); no floor may import them. */
const TOOLING = new Set(["test", "bench", "scripts", "examples"]);
/** Code that runs inside the isolate: its own floor and npm packages only, no Node. */
const GUEST = "sandbox/guest";
/** The function authors' SDK, a package of its own for Deno: nothing of the server's goes in or out. */
const SDK = "sdk";

/** The zone of a path relative to the repository root, or null outside the zones (docs, openapi/, configs). */
function zoneOf(relative) {
  if (relative === "" || relative.startsWith("..") || path.isAbsolute(relative)) return null;
  if (relative === GUEST || relative.startsWith(`${GUEST}/`)) return GUEST;
  const [first, ...rest] = relative.split("/");
  const known = (name) => FLOORS.includes(name) || TOOLING.has(name) || name === SDK;
  if (rest.length > 0 || known(first)) return known(first) ? first : null;
  // "../services.ts", "../services" and "../services.js" all name the root file services.ts.
  const file = `${first.replace(/\.(ts|js|mts|mjs)$/, "")}.ts`;
  return known(file) ? file : null;
}

const floorOf = (zone) => (zone === GUEST ? FLOORS.indexOf("sandbox") : FLOORS.indexOf(zone));
const shown = (zone) => (zone.endsWith(".ts") ? zone : `${zone}/`);

/** Why `from` may not import `to`, or null when it may. */
function refusal(from, to) {
  if (from === null || to === null || from === to) return null;
  if (TOOLING.has(from)) return null;
  if (from === GUEST) {
    return `${GUEST}/ runs inside the isolate (its own tsconfig, no Node): it imports only ${GUEST}/ and npm packages, never ${shown(to)} (host code, Node).`;
  }
  if (from === SDK) {
    return `sdk/ is a package of its own for function authors (Deno): it imports nothing of the server's, so not ${shown(to)}.`;
  }
  if (to === SDK)
    return `sdk/ is the function authors' package, not a part of the server: ${shown(from)} must not import it.`;
  if (TOOLING.has(to)) {
    return `${shown(to)} is tooling around the product: ${shown(from)} must not depend on it. Move what both need into the product.`;
  }
  if (floorOf(to) <= floorOf(from)) return null;
  return `Imports go one way (${ORDER}): ${shown(from)} must not import ${shown(to)}, a floor above it. Move the shared piece down a floor, or pass it in from above.`;
}

const isNodeBuiltin = (specifier) =>
  specifier.startsWith("node:") || builtinModules.includes(specifier.split("/")[0]);

/** The string an import names, from any of the forms an import takes (`source` on each of them). */
function specifierOf(node) {
  const source = node.source;
  return source?.type === "Literal" && typeof source.value === "string" ? source : null;
}

/**
 * Resolves every relative import against the importing file's own path and compares the two
 * files' zones, so an import is checked at any depth (`../../../../api/app.ts` as `../api/app.ts`).
 */
const layeringRule = {
  meta: {
    type: "problem",
    docs: {
      description: 'Imports go one way between the folders of the house (ARCHITECTURE.md, "The floors").',
    },
    schema: [],
  },
  create(context) {
    const file = path.relative(ROOT, context.filename).split(path.sep).join("/");
    const from = zoneOf(file);
    if (from === null) return {};
    const check = (node) => {
      const source = specifierOf(node);
      if (!source) return;
      const specifier = source.value;
      if (from === GUEST && isNodeBuiltin(specifier)) {
        context.report({
          node: source,
          message: `${GUEST}/ runs inside the isolate, where Node does not exist: "${specifier}" cannot be imported. Use the web platform or an npm package.`,
        });
        return;
      }
      if (!specifier.startsWith("./") && !specifier.startsWith("../")) return;
      const target = path.relative(ROOT, path.resolve(path.dirname(context.filename), specifier));
      const message = refusal(from, zoneOf(target.split(path.sep).join("/")));
      if (message) context.report({ node: source, message });
    };
    return {
      ImportDeclaration: check,
      ExportAllDeclaration: check,
      ExportNamedDeclaration: check,
      ImportExpression: check,
      TSImportType: check,
    };
  },
};

/** The layering rule as a config block of its own (test/lint/layering.test.ts lints with it). */
export const layering = {
  files: ["**/*.{ts,tsx,mts,js,mjs}"],
  plugins: { tessera: { rules: { layering: layeringRule } } },
  rules: { "tessera/layering": "error" },
};

export default tseslint.config(
  {
    ignores: [
      "node_modules/**",
      ".tessera/**",
      "coverage/**",
      "bench/results/**",
      "tmp/**",
      "clients/typescript/dist/**",
      "packages/cli/dist/**",
      // Web Platform Tests, vendored as upstream has them (test/fixtures/wpt/README.md).
      "test/fixtures/wpt/**",
      "eslint.config.js",
      "bin/**",
      // Guest programs that run inside isolates, hostile on purpose (infinite loops, heap bombs).
      "test/fixtures/guest/**",
      // Deno programs (Deno.serve, npm: specifiers, Deno.test): type-checked by `deno check` in test/parity/.
      "examples/functions/**",
      "sdk/**/*.test.ts",
    ],
  },
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": ["error", { checksVoidReturn: { arguments: false } }],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/require-await": "off",
      "@typescript-eslint/restrict-template-expressions": [
        "error",
        { allowNumber: true, allowBoolean: true },
      ],
    },
  },
  {
    files: ["test/**/*.ts", "bench/**/*.ts"],
    rules: {
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-return": "off",
      "@typescript-eslint/no-non-null-assertion": "off",
    },
  },
  {
    // The in-isolate web platform: WebIDL converts any value with String() and rejects
    // with whatever reason the guest gave (an AbortSignal's reason, a stream's error).
    files: ["sandbox/guest/**/*.ts"],
    rules: {
      "@typescript-eslint/prefer-promise-reject-errors": "off",
      "@typescript-eslint/no-base-to-string": "off",
    },
  },
  {
    // The dashboard's client islands: plain browser JavaScript served as written (no build, no types).
    files: ["dashboard/client/**/*.js"],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { ...tseslint.configs.disableTypeChecked.languageOptions, sourceType: "script" },
  },
  layering,
  {
    files: ["core/**/*.ts"],
    ignores: ["core/config.ts"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "MemberExpression[object.name='process'][property.name='env']",
          message: "Only core/config.ts reads process.env: configuration enters once.",
        },
      ],
    },
  },
);
