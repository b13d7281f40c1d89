import type { AppServices } from "./app-services";

/**
 * The slot through which Next's bundles reach the process's one AppServices. The custom server
 * (src/server.ts) builds them once and puts them here; Next's route handlers and server components
 * take them from here. This module imports nothing at run time, so Next's bundles never pull in
 * the database drivers, the flow runtime or its sandbox: they use the one instance the server made.
 * The slot lives on globalThis because Next bundles its own copy of this module.
 */
const SLOT = Symbol.for("flowplane.appServices");
type Slot = { [SLOT]?: Promise<AppServices> };

export function setAppServices(services: Promise<AppServices> | AppServices): void {
  (globalThis as Slot)[SLOT] = Promise.resolve(services);
}

export function getAppServices(): Promise<AppServices> {
  const services = (globalThis as Slot)[SLOT];
  if (!services) {
    return Promise.reject(
      new Error("the app services are not started: run the app through its server (npm start, or npm run dev), not `next` directly"),
    );
  }
  return services;
}
