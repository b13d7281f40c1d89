import { AsyncLocalStorage } from "node:async_hooks";
import type { ServerResponse } from "node:http";

/*
 * Pages during an outage (SPEC §17). A server component that cannot read what it needs (the
 * database or the store is down) throws, and Next answers the page with 500 and the error
 * boundary (src/app/error.tsx): Next has no way for a page to say 503. So the custom server serves
 * each page request inside a small context; the server components' tRPC caller
 * (src/trpc/server.ts) and next-auth's sign-in (api/next-auth-options.ts) mark it when they met
 * UNAVAILABLE, and the error status Next then writes goes out as 503 with Retry-After, like every
 * other door.
 *
 * The context lives on globalThis: Next bundles its own copy of this module for the server
 * components, and both copies must reach the one the custom server runs requests in.
 */

interface PageRequest {
  unavailable: boolean;
}

const SLOT = Symbol.for("flowplane.pageRequests");
type Slot = { [SLOT]?: AsyncLocalStorage<PageRequest> };

function pageRequests(): AsyncLocalStorage<PageRequest> {
  const slot = globalThis as Slot;
  return (slot[SLOT] ??= new AsyncLocalStorage<PageRequest>());
}

/**
 * Serves a request Next handles (pages, next-auth) so that a failure caused by an outage (Next's
 * 500 for a page, next-auth's 401 for a sign-in whose credentials could not be checked) is
 * answered 503 with Retry-After `retryAfterSec`. Node writes every head through writeHead (an
 * implicit head too), so that is where the status is decided; redirects and successes pass.
 */
export function servePage(res: ServerResponse, retryAfterSec: number, serve: () => Promise<void>): Promise<void> {
  const request: PageRequest = { unavailable: false };
  const writeHead = res.writeHead;
  res.writeHead = function writeHeadOf(this: ServerResponse, statusCode: number, ...rest: unknown[]) {
    if (statusCode >= 400 && request.unavailable) {
      statusCode = 503;
      this.statusCode = 503;
      this.setHeader("Retry-After", String(retryAfterSec));
    }
    return (writeHead as (this: ServerResponse, status: number, ...args: unknown[]) => ServerResponse).call(this, statusCode, ...rest);
  } as ServerResponse["writeHead"];
  return pageRequests().run(request, serve);
}

/** Marks the page request being served as failed by an outage (no-op outside one). */
export function markPageUnavailable(): void {
  const request = pageRequests().getStore();
  if (request) request.unavailable = true;
}
