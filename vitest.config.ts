import { defineConfig } from "vitest/config";
import path from "node:path";
import { writeNodeIndex } from "./scripts/node-index";

// The node folders' index (gitignored): written before any test imports the registry, so a folder
// just added is found without another step.
writeNodeIndex();

const alias = { "@": path.resolve(import.meta.dirname, "src") };

// Two tiers, named by what they touch: `*.test.ts` are pure, `*.integration.test.ts` use a real
// database and store (embedded by default; DATABASE_URL / REDIS_URL switch them to real servers).
// A third, `*.cluster.test.ts`, runs several app processes against one PostgreSQL and one Redis:
// the project exists only when both are configured (`npm run test:cluster`; .ci/run's real-services
// step), so `npm test` on the embedded defaults neither runs nor skips it.
const clusterProject = {
  resolve: { alias },
  test: {
    name: "cluster",
    include: ["src/**/*.cluster.test.ts"],
    environment: "node",
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // One cluster at a time: the processes use fixed ports (3700-3799) and share the two cores.
    maxWorkers: 1,
    fileParallelism: false,
    sequence: { groupOrder: 2 },
  },
};
const realServices = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);

export default defineConfig({
  resolve: { alias },
  test: {
    projects: [
      {
        resolve: { alias },
        test: {
          name: "unit",
          include: ["src/**/*.test.ts"],
          exclude: ["src/**/*.integration.test.ts", "src/**/*.cluster.test.ts"],
          environment: "node",
          sequence: { groupOrder: 0 },
        },
      },
      {
        resolve: { alias },
        test: {
          name: "integration",
          include: ["src/**/*.integration.test.ts"],
          environment: "node",
          testTimeout: 30_000,
          hookTimeout: 60_000,
          // bcrypt cost 12 and PGlite start-up are CPU-heavy; two workers match the two cores.
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
      ...(realServices ? [clusterProject] : []),
    ],
  },
});
