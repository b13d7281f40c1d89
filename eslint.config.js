import js from "@eslint/js";
import tseslint from "typescript-eslint";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";

const RUNTIME_BOUNDARY = {
  group: ["**/flow-runtime/local", "**/flow-runtime/clustered", "**/flow-runtime/cluster-bus", "**/runtime/engine", "**/runtime/sandbox/*"],
  message: "use app.flowRuntime (the FlowRuntime interface in flow-runtime/types) instead of a runtime implementation or the engine",
};

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
    // Boundary: services, routers, REST and the realtime hub reach the running flows only through
    // AppServices.flowRuntime (the FlowRuntime interface, src/server/flow-runtime/types.ts), never
    // an implementation of it or the engine, so a flow running on another instance is reached the same way.
    files: ["src/server/services/**/*.ts", "src/server/api/**/*.ts", "src/server/realtime/**/*.ts"],
    ignores: ["**/*.test.ts"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [{ group: ["@/app/*", "@/features/*", "../app/*", "../features/*"], message: "server code never reaches into the UI" }, RUNTIME_BOUNDARY] }],
    },
  },
  {
    files: ["src/app/**/*.ts", "src/app/**/*.tsx", "src/features/**/*.ts", "src/features/**/*.tsx"],
    rules: { "no-restricted-imports": ["error", { patterns: [RUNTIME_BOUNDARY] }] },
  },
  {
    // Layer rule: the runtime and node behaviours know nothing of Prisma, Next or tRPC.
    files: ["src/server/runtime/**/*.ts", "src/server/nodes/**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", { patterns: ["@prisma/*", "**/generated/prisma/*", "next", "next/*", "@trpc/*", "../api/*", "../db"] }],
    },
  },
);
