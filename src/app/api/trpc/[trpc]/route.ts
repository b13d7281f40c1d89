import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { appRouter } from "@/server/api/root";
import { createInnerContext } from "@/server/api/trpc";
import { getApp } from "@/server/app-context";
import { browserSessionId } from "@/server/auth/next-auth";
import { clientIp } from "@/server/api/rest/client-ip";
import { newId } from "@/server/ids";
import { limitTrpcBody } from "@/server/api/trpc-body-limit";

export const dynamic = "force-dynamic";

// The web UI's door to the same procedures the REST API exposes; it authenticates with the
// next-auth session cookie (or a bearer token, for tools).
async function handler(incoming: Request) {
  const app = await getApp();
  const req = await limitTrpcBody(incoming, appRouter, "/api/trpc");
  if (req instanceof Response) return req;
  const responseHeaders = new Headers({ "Cache-Control": "no-store" });
  return fetchRequestHandler({
    endpoint: "/api/trpc",
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
}

export { handler as GET, handler as POST };
