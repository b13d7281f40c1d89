import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { appRouter } from "./root";
import { createInnerContext } from "./trpc";
import type { AppServices } from "../app";
import { browserSessionId } from "../auth/next-auth";
import { clientIp } from "./rest/client-ip";
import { newId } from "../ids";

export const TRPC_ENDPOINT = "/api/trpc";

/**
 * The web UI's door to the same procedures the REST API exposes; it authenticates with the
 * next-auth session cookie (or a bearer token, for tools). One handler with two mounts: Next's
 * route file (src/app/api/trpc/[trpc]/route.ts, used by `next dev`) and the custom server, which
 * serves /api/trpc without Next (docs/ARCHITECTURE.md, "Request path").
 */
export function createTrpcHandler(getApp: () => Promise<AppServices>): (req: Request) => Promise<Response> {
  return async function handler(req: Request) {
    const app = await getApp();
    const responseHeaders = new Headers({ "Cache-Control": "no-store" });
    return fetchRequestHandler({
      endpoint: TRPC_ENDPOINT,
      req,
      router: appRouter,
      createContext: async () =>
        createInnerContext(app, {
          requestId: newId("req"),
          ip: clientIp(req),
          userAgent: req.headers.get("user-agent") ?? "",
          credentials: {
            authorization: req.headers.get("authorization") ?? undefined,
            apiKey: req.headers.get("x-api-key") ?? undefined,
            browserSessionId: await browserSessionId(app, { cookie: req.headers.get("cookie"), origin: req.headers.get("origin") }),
          },
          responseHeaders,
        }),
      responseMeta: () => ({ headers: responseHeaders }),
    });
  };
}
