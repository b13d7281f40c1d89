import js from "@eslint/js";
import tseslint from "typescript-eslint";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";

export default tseslint.config(
  { ignores: ["node_modules/", ".next/", "dist/", "data/", "src/generated/", "test-results/", "playwright-report/", "next-env.d.ts"] },
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
    // Layer rule: server code never reaches into the UI.
    files: ["src/server/**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", { patterns: ["@/app/*", "@/features/*", "../app/*", "../features/*"] }],
    },
  },
  {
    // Layer rule: the runtime and node behaviours know nothing of Prisma, Next or tRPC.
    files: ["src/server/runtime/**/*.ts", "src/server/nodes/**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", { patterns: ["@prisma/*", "**/generated/prisma/*", "next", "next/*", "@trpc/*", "../api/*", "../db"] }],
    },
  },
);
