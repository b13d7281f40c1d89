import "server-only";
import { headers } from "next/headers";
import { getAppServices } from "@/server/services-slot";
import { createCaller } from "@/server/api/root";
import { requestContext } from "@/server/api/request-context";
import { browserSessionId } from "@/server/auth/browser-session";
import { getOpenApiDocument } from "@/server/api/rest";
import { markPageUnavailable } from "@/server/http/page-outage";
import { UNAVAILABLE_DIGEST } from "@/shared/page-errors";

/** A tRPC caller for server components, authenticated by the request's session cookie. */
export async function serverCaller() {
  // Reading the request first makes every page that calls this rendered per request, never
  // prerendered at build time (when there are no app services to call).
  const h = await headers();
  const services = await getAppServices();
  const sessionId = await browserSessionId(services, { cookie: h.get("cookie") });
  const caller = createCaller(requestContext(services, (name) => h.get(name), { headerCredentials: false, browserSessionId: sessionId }), {
    onError({ error }) {
      // A data store is down (SPEC §17): the page's answer becomes 503 with Retry-After instead
      // of Next's 500 (src/server/http/page-outage.ts), and the error boundary can tell.
      if (error.code === "SERVICE_UNAVAILABLE") {
        markPageUnavailable();
        (error as { digest?: string }).digest = UNAVAILABLE_DIGEST;
      }
    },
  });
  return { caller, signedIn: sessionId !== undefined };
}

/** The OpenAPI document of the REST surface, for the docs page (the same one /api/v1/openapi.json serves). */
export async function openApiDocument(): Promise<unknown> {
  const services = await getAppServices();
  return getOpenApiDocument(services.config.publicUrl, services.config.version);
}
