import type { AppServices } from "../app-services";
import { newId } from "../ids";
import type { RequestMeta } from "../services/request-meta";
import { CLIENT_IP_HEADER } from "../http/client-ip";
import { createInnerContext, type Context, type ResponseHeaders } from "./trpc";

/** How a transport reads one of its request's headers: lower-case name → value, or null. */
export type HeaderReader = (name: string) => string | null;

export interface RequestContextOptions {
  /** The request id to answer with (default: a new one). */
  requestId?: string;
  responseHeaders?: ResponseHeaders;
  /** Whether the Authorization and X-API-Key headers count (REST, tRPC: yes; server components: no). */
  headerCredentials: boolean;
  /** The session id the next-auth cookie carries, where the transport accepts the cookie. */
  browserSessionId?: string;
}

/** Who asked, as services record it: the client IP (the header the custom server sets from the socket) and the user agent. */
export function requestMeta(header: HeaderReader): RequestMeta {
  return { ip: header(CLIENT_IP_HEADER) ?? "unknown", userAgent: header("user-agent") ?? "" };
}

/**
 * The one request → context function: the REST adapter, the tRPC endpoint and the server
 * components' caller read the client IP (the header the custom server sets from the socket), the
 * user agent and the credentials the same way.
 */
export function requestContext(app: AppServices, header: HeaderReader, options: RequestContextOptions): Context {
  return createInnerContext(app, {
    requestId: options.requestId ?? newId("req"),
    ...requestMeta(header),
    credentials: {
      authorization: options.headerCredentials ? (header("authorization") ?? undefined) : undefined,
      apiKey: options.headerCredentials ? (header("x-api-key") ?? undefined) : undefined,
      browserSessionId: options.browserSessionId,
    },
    responseHeaders: options.responseHeaders,
  });
}
