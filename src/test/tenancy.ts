import { expect } from "vitest";
import { appRouter } from "@/server/api/root";
import { collectRoutes, type RestRoute } from "@/server/api/rest/routes";
import type { restClient } from "./app";

type Request = ReturnType<typeof restClient>;

/** What a tenant-scoped route is called with: real ids of the victim organization, and a body. */
export interface RouteFixture {
  params: Record<string, string>;
  body?: unknown;
}

/**
 * Every authenticated REST route that takes an id in its path: these are the ones that could leak.
 * A `{key}` alone names no resource (`/context/global/{key}` is the caller's own organization's
 * global context, tested on its own in context.integration.test.ts), nor does a `{path}` alone
 * (`/files/{path}` is the caller's own organization's file, tested in files.integration.test.ts).
 */
export function tenantScopedRoutes(): RestRoute[] {
  return collectRoutes(appRouter).filter((r) => r.meta.auth && r.paramNames.some((name) => name !== "key" && name !== "path"));
}

function fill(route: RestRoute, fixture: RouteFixture): string {
  return route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = fixture.params[name];
    if (value === undefined) throw new Error(`fixture for ${route.method} ${route.path} lacks ${name}`);
    return encodeURIComponent(value);
  });
}

/**
 * Calls every tenant-scoped route with the victim organization's ids and the attacker's credential
 * and expects 404 (or 403): a route without a fixture fails the test, so a new endpoint cannot
 * forget to be checked.
 */
export async function assertTenantIsolation(request: Request, attackerToken: string, fixtures: Record<string, RouteFixture>) {
  const results: string[] = [];
  for (const route of tenantScopedRoutes()) {
    const key = `${route.method} ${route.path}`;
    const fixture = fixtures[key];
    expect(fixture, `no cross-tenant fixture for ${key}: add one in the isolation test`).toBeDefined();
    const res = await request(route.method, fill(route, fixture!), { token: attackerToken, body: fixture!.body });
    expect([403, 404], `${key} answered ${res.status} ${res.text}`).toContain(res.status);
    results.push(`${key} → ${res.status}`);
  }
  return results;
}
