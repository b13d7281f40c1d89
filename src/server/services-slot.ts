import type { AppServices } from "./app-services";

/**
 * The process's AppServices, as Next's route handlers and server components reach them. The custom
 * server (src/server.ts) builds them once and installs them here. This module imports nothing at
 * run time, so Next's bundles never pull in the database drivers, the flow runtime or its sandbox:
 * they use the one instance the server made.
 */
const SLOT = Symbol.for("flowplane.app");
type Slot = { [SLOT]?: Promise<AppServices> };

export function setAppServices(app: Promise<AppServices> | AppServices): void {
  (globalThis as Slot)[SLOT] = Promise.resolve(app);
}

export function getAppServices(): Promise<AppServices> {
  const app = (globalThis as Slot)[SLOT];
  if (!app) {
    return Promise.reject(
      new Error("the app services are not started: run the app through its server (npm start, or npm run dev), not `next` directly"),
    );
  }
  return app;
}
