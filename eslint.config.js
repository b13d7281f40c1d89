import js from "@eslint/js";
import tseslint from "typescript-eslint";
import reactHooks from "eslint-plugin-react-hooks";

export default tseslint.config(
  { ignores: ["node_modules/", ".next/", "dist/", "data/", "src/generated/", "test-results/", "playwright-report/", "next-env.d.ts"] },
  js.configs.recommended,
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
