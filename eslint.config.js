import js from "@eslint/js";
import tseslint from "typescript-eslint";
import reactHooks from "eslint-plugin-react-hooks";
import importX from "eslint-plugin-import-x";
import { createTypeScriptImportResolver } from "eslint-import-resolver-typescript";
import globals from "globals";
import { layerZones, layerPackageRules, layerSyntaxRules, layerTypeOnlyRules } from "./eslint.layers.js";

export default tseslint.config(
  { ignores: ["node_modules/", ".next/", "dist/", "packages/*/dist/", "data/", "src/generated/", "test-results/", "playwright-report/", "next-env.d.ts", "bench/node-red/"] },
  js.configs.recommended,
  { files: ["**/*.mjs", "**/*.js"], languageOptions: { globals: globals.node } },
  ...tseslint.configs.recommended,
  {
    plugins: { "react-hooks": reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "no-console": "off",
    },
  },
  {
    // Tests read loosely typed JSON bodies.
    files: ["src/test/**/*.ts", "**/*.test.ts", "e2e/**/*.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  {
    // The layer rules of docs/ARCHITECTURE.md, on resolved paths: an import is judged by the file it
    // reaches, whatever its spelling (`@/server/db`, `../../db`, `../../db.ts`, `@/server/db/index`).
    // src/test/layers.test.ts proves that each rule bites.
    files: ["src/**/*.ts", "src/**/*.tsx"],
    ignores: ["src/**/*.test.ts", "src/test/**"],
    plugins: { "import-x": importX },
    settings: {
      "import-x/resolver-next": [createTypeScriptImportResolver({ project: "./tsconfig.json", alwaysTryTypes: true })],
    },
    rules: {
      "import-x/no-restricted-paths": ["error", { zones: layerZones }],
    },
  },
  ...layerPackageRules,
  ...layerSyntaxRules,
  ...layerTypeOnlyRules,
);
