import path from "node:path";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

/**
 * Each layer rule of docs/ARCHITECTURE.md must fail the lint, whatever the import's spelling. Each
 * case lints a made-up file at a real place in the tree (it is never written to disk) and expects
 * the rule to report it; the allowed cases make sure the rules do not forbid everything.
 */
const root = path.resolve(import.meta.dirname, "../..");
const eslint = new ESLint({ cwd: root });

async function lint(file: string, code: string) {
  const [result] = await eslint.lintText(`${code}\nexport {};\n`, { filePath: path.join(root, file) });
  return result!.messages.filter((m) => m.ruleId === "import-x/no-restricted-paths" || m.ruleId === "no-restricted-imports" || m.ruleId === "no-restricted-syntax");
}

const forbidden: Array<[string, string, string]> = [
  // [rule, importing file, import]
  ["4: nodes do not reach the database (relative)", "src/server/nodes/inject/probe.ts", 'import "../../db";'],
  ["4: nodes do not reach the database (alias)", "src/server/nodes/inject/probe.ts", 'import "@/server/db";'],
  ["4: nodes do not reach the database (with extension)", "src/server/nodes/inject/probe.ts", 'import "../../db.ts";'],
  ["4: nodes do not call services", "src/server/nodes/inject/probe.ts", 'import "@/server/services/flows/flows";'],
  ["4: nodes do not call services (relative)", "src/server/nodes/inject/probe.ts", 'import "../../services/flows/flows";'],
  ["4: the runtime does not use the store", "src/server/runtime/probe.ts", 'import "../store";'],
  ["4: the runtime does not use the generated client", "src/server/runtime/probe.ts", 'import "@/generated/prisma/client";'],
  ["4: the runtime does not use Prisma packages", "src/server/runtime/probe.ts", 'import "@prisma/client";'],
  ["4: the runtime does not reach the AppServices", "src/server/runtime/probe.ts", 'import "../app-services";'],
  ["4: the runtime does not reach the services slot (alias)", "src/server/runtime/probe.ts", 'import "@/server/services-slot";'],
  ["4: the runtime does not use Next", "src/server/runtime/probe.ts", 'import "next/server";'],
  ["4: the runtime does not use tRPC", "src/server/nodes/debug/probe.ts", 'import "@trpc/server";'],
  ["4: the runtime does not import the custom server's HTTP layer", "src/server/runtime/probe.ts", 'import "../http/direct-mount";'],
  ["4: nodes do not reach the flow runtime", "src/server/nodes/inject/probe.ts", 'import "@/server/flow-runtime/types";'],
  ["4: the runtime does not reach the flow runtime (relative)", "src/server/runtime/probe.ts", 'import "../flow-runtime/local";'],
  ["4: the runtime does not import a node folder", "src/server/runtime/probe.ts", 'import "../nodes/inject/behaviour";'],
  ["4: the engine does not import the node registry (alias)", "src/server/runtime/flow/probe.ts", 'import "@/server/nodes/registry";'],
  ["a node folder does not import the registry", "src/server/nodes/inject/probe.ts", 'import "../registry";'],
  ["a node folder does not import the folder index", "src/server/nodes/inject/probe.ts", 'import "../folders.generated";'],
  ["1: features do not import the server", "src/features/accounts/probe.ts", 'import "@/server/db";'],
  ["1: features do not import the server (relative)", "src/features/accounts/probe.ts", 'import "../../server/services/accounts/login";'],
  ["1: components do not import the server", "src/components/probe.tsx", 'import "@/server/errors";'],
  ["1: pages do not import the server", "src/app/flows/probe.tsx", 'import "@/server/services-slot";'],
  ["1: the root layout does not import the server", "src/app/probe.tsx", 'import "@/server/api/rest";'],
  ["realtime does not import services", "src/server/realtime/probe.ts", 'import "../services/flows/events";'],
  ["realtime does not import services (alias)", "src/server/realtime/probe.ts", 'import "@/server/services/flows/flows";'],
  ["server never imports the UI", "src/server/services/probe.ts", 'import "@/features/accounts/types";'],
  ["server never imports pages (relative)", "src/server/probe.ts", 'import "../app/layout";'],
  ["shared is isomorphic", "src/shared/probe.ts", 'import "@/server/errors";'],
  ["shared is isomorphic (relative)", "src/shared/probe.ts", 'import "../server/permissions";'],
  ["2: routers do not import the database", "src/server/api/routers/probe.ts", 'import "../../db";'],
  ["2: routers do not touch Prisma through the context", "src/server/api/routers/probe.ts", "declare const ctx: any; void ctx.services.db.prisma.flow.findMany();"],
  ["2: routers do not use Prisma packages", "src/server/api/routers/probe.ts", 'import "@prisma/client";'],
  ["2: REST handlers do not use the database drivers", "src/server/api/rest/probe.ts", 'import "pg";'],
  ["2: routers do not use the store's driver", "src/server/api/routers/probe.ts", 'import "ioredis";'],
  ["2: routers do not use PGlite", "src/server/api/routers/probe.ts", 'import "@electric-sql/pglite";'],
  ["2: routers do not name the database handle", "src/server/api/routers/probe.ts", "declare const ctx: any; void ctx.services.db.sql`select 1`;"],
  ["2: routers do not name the database handle (computed)", "src/server/api/routers/probe.ts", 'declare const ctx: any; void ctx.services["db"];'],
  ["2: routers do not reach Prisma by a computed name", "src/server/api/routers/probe.ts", 'declare const db: any; void db["prisma"];'],
  ["2: routers do not destructure Prisma", "src/server/api/routers/probe.ts", "declare const ctx: any; const { prisma } = ctx.services.db; void prisma;"],
  ["2: routers do not destructure the database handle", "src/server/api/rest/probe.ts", "declare const ctx: any; const { db: handle } = ctx.services; void handle;"],
  ["2: routers do not destructure the database handle in parameters", "src/server/api/routers/probe.ts", "export const f = ({ db }: { db: unknown }) => db;"],
  ["8: auth does not name the whole AppServices", "src/server/auth/probe.ts", 'import type { AppServices } from "../app-services";'],
  ["8: auth does not name the whole AppServices (alias)", "src/server/auth/probe.ts", 'import type { AppServices } from "@/server/app-services";'],
  ["8: auth does not compose the app", "src/server/auth/probe.ts", 'import "../compose";'],
  ["8: services do not compose the app", "src/server/services/flows/probe.ts", 'import "@/server/compose";'],
  ["8: the transports do not compose the app", "src/server/api/rest/probe.ts", 'import "../../compose.ts";'],
  ["8: route handlers do not compose the app", "src/app/api/v1/probe.ts", 'import "@/server/compose";'],
  ["8: app-services.ts imports types only", "src/server/app-services.ts", 'import { openDatabase } from "./db"; void openDatabase;'],
  ["8: app-services.ts defines no code", "src/server/app-services.ts", "export function build() { return 1; }"],
  ["auth does not call services", "src/server/auth/probe.ts", 'import "../services/accounts/login";'],
  ["auth does not call services (alias)", "src/server/auth/probe.ts", 'import "@/server/services/organizations/organizations";'],
  ["auth does not import the transports", "src/server/auth/probe.ts", 'import "../api/request-context";'],
  ["3: services do not import the custom server's HTTP layer", "src/server/services/flows/probe.ts", 'import "../../http/client-ip";'],
  ["3: services do not use the WebSocket admission", "src/server/services/devices/probe.ts", 'import "@/server/realtime/admission";'],
  ["3: services do not import the API layer", "src/server/services/flows/probe.ts", 'import "../../api/trpc";'],
  ["3: services do not import Next", "src/server/services/flows/probe.ts", 'import "next/headers";'],
  ["browser code uses no server packages", "src/features/accounts/probe.ts", 'import "ioredis";'],
  ["6: services do not reach into the local runtime", "src/server/services/flows/probe.ts", 'import "../../flow-runtime/local";'],
  ["6: services do not reach into the clustered runtime (alias)", "src/server/services/flows/probe.ts", 'import "@/server/flow-runtime/clustered";'],
  ["6: services do not use the engine", "src/server/services/flows/probe.ts", 'import "@/server/runtime/engine";'],
  ["6: routers do not use the engine", "src/server/api/routers/probe.ts", 'import "../../runtime/engine.ts";'],
  ["6: REST does not use the sandbox", "src/server/api/rest/probe.ts", 'import "../../runtime/sandbox/sandbox-pool";'],
  ["6: the hub does not use the cluster bus", "src/server/realtime/probe.ts", 'import "../flow-runtime/cluster-bus";'],
  ["the flow runtime does not reach into services for SQL", "src/server/flow-runtime/probe.ts", 'import "../services/context/context";'],
  ["the flow runtime does not reach into services (alias)", "src/server/flow-runtime/probe.ts", 'import "@/server/services/executions/executions";'],
  ["the flow runtime does not reach the AppServices", "src/server/flow-runtime/probe.ts", 'import "../app-services";'],
  ["persistence does not call services", "src/server/persistence/probe.ts", 'import "../services/context/context";'],
  ["persistence does not reach the flow runtime", "src/server/persistence/probe.ts", 'import "@/server/flow-runtime/context-hub";'],
  ["persistence does not reach the API layer", "src/server/persistence/probe.ts", 'import "../api/trpc";'],
  ["the Node-RED mapping does not import the import service", "src/server/services/flows/node-red-mapping.ts", 'import "./node-red";'],
  ["the Node-RED mapping does not import the subflow mapping", "src/server/services/flows/node-red-mapping.ts", 'import "@/server/services/flows/node-red-subflows";'],
  ["the Node-RED mapping does not reach the database", "src/server/services/flows/node-red-mapping.ts", 'import "../../db";'],
  ["the Node-RED mapping does not call the subflow service", "src/server/services/flows/node-red-mapping.ts", 'import "../subflows/subflows";'],
  ["the subflow mapping does not import the import service", "src/server/services/flows/node-red-subflows.ts", 'import "./node-red";'],
];

const allowed: Array<[string, string, string]> = [
  ["nodes use the runtime's types", "src/server/nodes/inject/probe.ts", 'import "../../runtime/types";'],
  ["services use the database", "src/server/services/flows/probe.ts", 'import "../../db";'],
  ["services use the flow runtime's interface", "src/server/services/flows/probe.ts", 'import "../../flow-runtime/types";'],
  ["routers call services", "src/server/api/routers/probe.ts", 'import "../../services/flows/flows";'],
  ["the import service builds on the Node-RED mapping", "src/server/services/flows/node-red.ts", 'import "./node-red-mapping";'],
  ["the subflow mapping builds on the Node-RED mapping", "src/server/services/flows/node-red-subflows.ts", 'import "./node-red-mapping";'],
  ["routers use the rest of the context", "src/server/api/routers/probe.ts", "declare const ctx: any; const { store, flowRuntime } = ctx.services; void store; void flowRuntime; void ctx.services.config;"],
  ["next-auth's options call services", "src/server/api/probe.ts", 'import "../services/accounts/login";'],
  ["auth uses its own primitives", "src/server/auth/probe.ts", 'import "./session-store";'],
  ["8: auth uses its narrow interface", "src/server/auth/probe.ts", 'import type { AuthDeps } from "./auth-deps";'],
  ["8: services name the app's type", "src/server/services/flows/probe.ts", 'import type { AppServices } from "../../app-services";'],
  ["8: app-services.ts imports types", "src/server/app-services.ts", 'import type { Database } from "./db";'],
  ["services build on auth primitives", "src/server/services/probe.ts", 'import "../auth/session-store";'],
  ["the flow runtime uses persistence", "src/server/flow-runtime/probe.ts", 'import "../persistence/context-store";'],
  ["services use persistence", "src/server/services/context/probe.ts", 'import "@/server/persistence/context-store";'],
  ["persistence uses the generated client", "src/server/persistence/probe.ts", 'import "../../generated/prisma/client";'],
  ["features use the tRPC client", "src/features/accounts/probe.ts", 'import "@/trpc/react";'],
  ["route handlers mount the server", "src/app/api/v1/probe.ts", 'import "@/server/api/rest";'],
  ["features use shared contracts", "src/features/accounts/probe.ts", 'import "@/shared/permissions";'],
];

describe("layer rules (ESLint)", () => {
  it.each(forbidden)("rule %s", async (_rule, file, code) => {
    const messages = await lint(file, code);
    expect(messages.length, `${file}: ${code}`).toBeGreaterThan(0);
  });

  it.each(allowed)("allows: %s", async (_rule, file, code) => {
    const messages = await lint(file, code);
    expect(messages, `${file}: ${code}`).toEqual([]);
  });
}, 60_000);
