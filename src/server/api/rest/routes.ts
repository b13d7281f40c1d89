import type { AnyProcedure, AnyRouter } from "@trpc/server";
import { AppError } from "../../errors";
import type { HttpMethod, Meta } from "../trpc";

export interface RestRoute {
  method: HttpMethod;
  /** Path template under /api/v1, e.g. "/flows/{id}". */
  path: string;
  /** The procedure's dotted path in the router, e.g. "flows.get". */
  procedurePath: string;
  procedure: AnyProcedure;
  meta: Meta & { rest: NonNullable<Meta["rest"]> };
  paramNames: string[];
  regex: RegExp;
  type: "query" | "mutation" | "subscription";
}

function compile(path: string): { regex: RegExp; paramNames: string[] } {
  const paramNames: string[] = [];
  const pattern = path
    .split("/")
    .map((segment) => {
      const m = /^\{(\w+)(\+?)\}$/.exec(segment);
      if (m) {
        paramNames.push(m[1]!);
        // "{path+}" (last segment only): the rest of the path, slashes included (/files/{path+}).
        return m[2] ? "(.+)" : "([^/]+)";
      }
      return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    })
    .join("/");
  return { regex: new RegExp(`^${pattern}/?$`), paramNames };
}

/**
 * The REST surface is derived from the router: every procedure whose meta names a REST route is
 * exposed there, and nothing else is. Static segments win over parameters ("/flows/import" before
 * "/flows/{id}").
 */
export function collectRoutes(appRouter: AnyRouter): RestRoute[] {
  const procedures = appRouter._def.procedures as Record<string, AnyProcedure>;
  const routes: RestRoute[] = [];
  for (const [procedurePath, procedure] of Object.entries(procedures)) {
    const meta = procedure._def.meta as Meta | undefined;
    if (!meta?.rest) continue;
    const { regex, paramNames } = compile(meta.rest.path);
    routes.push({
      method: meta.rest.method,
      // As OpenAPI and the metrics name it: "{path+}" is "{path}" there.
      path: meta.rest.path.replace(/\{(\w+)\+\}/g, "{$1}"),
      procedurePath,
      procedure,
      meta: meta as RestRoute["meta"],
      paramNames,
      regex,
      type: procedure._def.type,
    });
  }
  const seen = new Set<string>();
  for (const r of routes) {
    const key = `${r.method} ${r.path}`;
    if (seen.has(key)) throw new Error(`two procedures claim ${key}`);
    seen.add(key);
  }
  return routes.sort((a, b) => a.paramNames.length - b.paramNames.length);
}

/**
 * The routes by the first segment of their path, so a request tries the few under its own first
 * segment instead of every route's pattern in turn (3 % of an inject's CPU went to those tries,
 * with ~100 routes). A route whose first segment is a parameter is tried for every path. Each
 * bucket keeps collectRoutes' order (static segments before parameters).
 */
export interface RouteIndex {
  byFirstSegment: Map<string, RestRoute[]>;
  /** The routes whose first segment is a parameter: the candidates of a path no bucket names. */
  anyFirstSegment: RestRoute[];
}

export function indexRoutes(routes: RestRoute[]): RouteIndex {
  // Each route's literal first segment; undefined for a parameter.
  const firsts = routes.map((route) => {
    const first = route.path.split("/")[1] ?? "";
    return first.startsWith("{") ? undefined : first;
  });
  const anyFirstSegment = routes.filter((_, i) => firsts[i] === undefined);
  const byFirstSegment = new Map<string, RestRoute[]>();
  for (const first of new Set(firsts)) {
    if (first !== undefined) byFirstSegment.set(first, routes.filter((_, i) => firsts[i] === first || firsts[i] === undefined));
  }
  return { byFirstSegment, anyFirstSegment };
}

/** The first segment of a request path as the routes' patterns see it (raw, still percent-encoded). */
function firstSegment(path: string): string {
  const end = path.indexOf("/", 1);
  return end === -1 ? path.slice(1) : path.slice(1, end);
}

export function matchRoute(
  index: RouteIndex,
  method: string,
  path: string,
): { route: RestRoute; params: Record<string, string> } | { allowed: string[] } | null {
  const allowed: string[] = [];
  const routes = index.byFirstSegment.get(firstSegment(path)) ?? index.anyFirstSegment;
  for (const route of routes) {
    const m = route.regex.exec(path);
    if (!m) continue;
    if (route.method !== method) {
      allowed.push(route.method);
      continue;
    }
    const params: Record<string, string> = {};
    route.paramNames.forEach((name, i) => {
      try {
        params[name] = decodeURIComponent(m[i + 1]!);
      } catch {
        // "%E0%A4%A" is not UTF-8: a client error, not a crash.
        throw new AppError("VALIDATION_FAILED", `${name}: is not valid percent-encoded UTF-8`, { details: [{ path: name, message: "is not valid percent-encoded UTF-8" }] });
      }
    });
    return { route, params };
  }
  return allowed.length > 0 ? { allowed: [...new Set(allowed)] } : null;
}
