// Lint: type-aware rules, and the one-way import order of the folders (STYLE.md).
import tseslint from "typescript-eslint";

const LAYERS = ["core", "store", "engines", "sandbox", "runtime", "webhooks", "api", "cli"];

/** Each layer may import only the layers before it. */
function layerRule(layer) {
  const later = LAYERS.slice(LAYERS.indexOf(layer) + 1);
  return {
    files: [`${layer}/**/*.ts`],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: later.map((name) => ({
            group: [`../${name}/*`, `../../${name}/*`, `../../../${name}/*`, `../main.ts`, `../../main.ts`],
            message: `Imports go one way (core → store → engines → sandbox → runtime → webhooks → api → main): ${layer}/ must not import ${name}/. Move the shared piece down a layer.`,
          })),
        },
      ],
    },
  };
}

export default tseslint.config(
  {
    ignores: [
      "node_modules/**",
      ".tessera/**",
      "coverage/**",
      "bench/results/**",
      "tmp/**",
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
    files: ["api/dashboard/client/**/*.js"],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { ...tseslint.configs.disableTypeChecked.languageOptions, sourceType: "script" },
  },
  ...LAYERS.map(layerRule),
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
