import "server-only";
import { headers } from "next/headers";
import { getApp } from "@/server/app-context";
import { createCaller } from "@/server/api/root";
import { requestContext } from "@/server/api/request-context";
import { browserSessionId } from "@/server/auth/next-auth";
import { getOpenApiDocument } from "@/server/api/rest";

/** A tRPC caller for server components, authenticated by the request's session cookie. */
export async function serverCaller() {
  // Reading the request first makes every page that calls this rendered per request, never
  // prerendered at build time (when there are no app services to call).
  const h = await headers();
  const app = await getApp();
  const sessionId = await browserSessionId(app, { cookie: h.get("cookie") });
  const caller = createCaller(requestContext(app, (name) => h.get(name), { headerCredentials: false, browserSessionId: sessionId }));
  return { caller, signedIn: sessionId !== undefined };
}

/** The OpenAPI document of the REST surface, for the docs page (the same one /api/v1/openapi.json serves). */
export async function openApiDocument(): Promise<unknown> {
  const app = await getApp();
  return getOpenApiDocument(app.config.publicUrl, app.config.version);
}
