import { describe, expect, it } from "vitest";
import { appRouter } from "../root";
import { collectRoutes, indexRoutes, matchRoute, type RouteIndex } from "./routes";

const routes = collectRoutes(appRouter);
const index = indexRoutes(routes);
/** Every route tried in turn, as before the index: the answer the index must give. */
const everyRoute: RouteIndex = { byFirstSegment: new Map(), anyFirstSegment: routes };

/** A request path for a route's template: each parameter filled in (`{path+}` with two segments). */
const pathOf = (template: string) => template.replace(/\{(\w+)\+\}/g, "a/b.txt").replace(/\{(\w+)\}/g, "x_$1");

describe("REST routes by their first segment", () => {
  it("match every route as trying all of them in turn does, for each method", () => {
    const methods = ["GET", "POST", "PUT", "PATCH", "DELETE"];
    for (const route of routes) {
      const path = pathOf(route.path);
      for (const method of methods) {
        expect(matchRoute(index, method, path), `${method} ${path}`).toEqual(matchRoute(everyRoute, method, path));
      }
      expect(matchRoute(index, route.method, path), route.path).toMatchObject({ route: { path: route.path, method: route.method } });
      expect(matchRoute(index, route.method, `${path}/`), `${route.path}/`).toMatchObject({ route: { path: route.path } });
    }
  });

  it("keep static segments before parameters, name the allowed methods, and match nothing for unknown paths", () => {
    expect(matchRoute(index, "POST", "/flows/import")).toMatchObject({ route: { path: "/flows/import" } });
    expect(matchRoute(index, "GET", "/flows/flw_1")).toMatchObject({ route: { path: "/flows/{id}" }, params: { id: "flw_1" } });
    expect(matchRoute(index, "PUT", "/health")).toEqual({ allowed: ["GET"] });
    for (const path of ["/", "//flows", "/nope", "/nope/flows", "/Flows", "/flows/a/b/c/d/e"]) {
      expect(matchRoute(index, "GET", path), path).toEqual(matchRoute(everyRoute, "GET", path));
    }
    expect(matchRoute(index, "GET", "/nope")).toBeNull();
    expect(() => matchRoute(index, "GET", "/flows/%E0%A4%A")).toThrow(/percent-encoded/);
  });
});
