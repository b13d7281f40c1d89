import { router, createCallerFactory } from "./trpc";
import { systemRouter } from "./routers/system.router";
import { authRouter } from "./routers/auth.router";
import { organizationsRouter } from "./routers/organizations.router";
import { apiKeysRouter } from "./routers/api-keys.router";
import { auditRouter } from "./routers/audit.router";
import { flowsRouter } from "./routers/flows.router";
import { nodesRouter } from "./routers/nodes.router";
import { devicesRouter } from "./routers/devices.router";
import { contextRouter } from "./routers/context.router";
import { variablesRouter } from "./routers/variables.router";
import { subflowsRouter } from "./routers/subflows.router";
import { executionsRouter } from "./routers/executions.router";
import { configNodesRouter } from "./routers/config-nodes.router";
import { filesRouter } from "./routers/files.router";
import { dashboardsRouter } from "./routers/dashboards.router";

export const appRouter = router({
  system: systemRouter,
  auth: authRouter,
  organizations: organizationsRouter,
  apiKeys: apiKeysRouter,
  audit: auditRouter,
  flows: flowsRouter,
  nodes: nodesRouter,
  devices: devicesRouter,
  context: contextRouter,
  variables: variablesRouter,
  subflows: subflowsRouter,
  configNodes: configNodesRouter,
  executions: executionsRouter,
  files: filesRouter,
  dashboards: dashboardsRouter,
});

export type AppRouter = typeof appRouter;

export const createCaller = createCallerFactory(appRouter);
