import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { appRouter } from "./root";
import { requestContext } from "./request-context";
import type { AppServices } from "../app-services";
import { browserSessionId } from "../auth/browser-session";
import { limitTrpcBody } from "./trpc-body-limit";
import { toAppError } from "../errors";

export const TRPC_ENDPOINT = "/api/trpc";

/**
 * The web UI's door to the same procedures the REST API exposes; it authenticates with the
 * next-auth session cookie (or a bearer token, for tools). One handler with two mounts: Next's
 * route file (src/app/api/trpc/[trpc]/route.ts, used by `next dev`) and the custom server, which
 * serves /api/trpc without Next (src/server/http/README.md, "Request path").
 */
export function createTrpcHandler(getAppServices: () => Promise<AppServices>): (req: Request) => Promise<Response> {
  return async function handler(incoming: Request) {
    const app = await getAppServices();
    // The body is counted while it streams in, with the procedures' REST limits (413 early).
    const req = await limitTrpcBody(incoming, appRouter, TRPC_ENDPOINT);
    if (req instanceof Response) return req;
    const responseHeaders = new Headers({ "Cache-Control": "no-store" });
    return fetchRequestHandler({
      endpoint: TRPC_ENDPOINT,
      req,
      router: appRouter,
      createContext: async () =>
        requestContext(app, (name) => req.headers.get(name), {
          responseHeaders,
          headerCredentials: true,
          browserSessionId: await browserSessionId(app, { cookie: req.headers.get("cookie"), origin: req.headers.get("origin") }),
        }),
      // A procedure's headers, and those of its error (Retry-After on 429 and 503), also when the
      // error came before our middleware could copy them (creating the context, a batch).
      responseMeta: ({ errors }) => {
        for (const error of errors) {
          for (const [name, value] of Object.entries(toAppError(error).headers ?? {})) {
            if (!responseHeaders.has(name)) responseHeaders.set(name, value);
          }
        }
        return { headers: responseHeaders };
      },
    });
  };
}
