import { afterAll, beforeAll } from "vitest";
import type { AppServices } from "@/server/app-services";
import { createTestApp, restClient } from "./app";

type Request = ReturnType<typeof restClient>;

export interface FileApp {
  /** The file's application; there once the file's beforeAll ran (read it inside tests and hooks). */
  readonly app: AppServices;
  /** REST calls to it through the server's adapter; a stable function, safe to keep in a const. */
  readonly request: Request;
}

/**
 * One application for a whole test file: created in a beforeAll, closed in an afterAll (after the
 * file's own afterAll hooks, which run first: vitest runs after-hooks in reverse order). Call it at
 * the top of the file, before the file's own hooks that use the app.
 */
export function setUpTestApp(overrides?: Record<string, string>): FileApp {
  let app: AppServices | undefined;
  let client: Request | undefined;
  beforeAll(async () => {
    app = await createTestApp(overrides);
    client = restClient(app);
  });
  afterAll(async () => {
    await app?.close();
  });
  const request = (<T = any>(...args: Parameters<Request>) => {
    if (!client) throw new Error("setUpTestApp: the file's app is not created yet (call request inside a test or hook)");
    return client<T>(...args);
  }) as Request;
  return {
    get app() {
      if (!app) throw new Error("setUpTestApp: the file's app is not created yet (read it inside a test or hook)");
      return app;
    },
    request,
  };
}
