import { defineConfig } from "vitest/config";
import path from "node:path";
import { writeNodeIndex } from "./scripts/node-index";

// The node folders' index (gitignored): written before any test imports the registry, so a folder
// just added is found without another step.
writeNodeIndex();

const alias = { "@": path.resolve(import.meta.dirname, "src") };

// Isolation: a file imports the server's module graph (Prisma's client, PGlite, the node folders) in
// 2-3 s; with isolation each of the 194 files did, which was more than half of `npm test`'s wall
// time (690 s -> about 400 s without). The code keeps no state at module level that a test could
// leak into the next file (app services, pools and stores are per application; see
// docs/ARCHITECTURE.md), and every file builds its own app.
//
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
          // Files share a worker's module graph instead of importing it again each (see above).
          // Vitest's default of cores - 1 workers stays (one on two cores): two ran the tier in 77 s
          // instead of about 130, but timing tests (runaway.test.ts: no event-loop gap of 250 ms
          // while three sandboxes spin) then failed in CI, where this tier runs beside others.
          isolate: false,
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
          isolate: false,
          sequence: { groupOrder: 1 },
        },
      },
      ...(realServices ? [clusterProject] : []),
    ],
  },
});
