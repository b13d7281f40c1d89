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

export function matchRoute(
  routes: RestRoute[],
  method: string,
  path: string,
): { route: RestRoute; params: Record<string, string> } | { allowed: string[] } | null {
  const allowed: string[] = [];
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
