import { describe, expect, it } from "vitest";
import { appRouter } from "../root";
import { collectRoutes } from "./routes";
import { buildOpenApiDocument } from "./openapi";

describe("OpenAPI document", () => {
  const doc = buildOpenApiDocument(appRouter, { version: "1.0.0", serverUrl: "http://x" }) as unknown as {
    openapi: string;
    paths: Record<string, Record<string, { responses: Record<string, unknown>; operationId: string }>>;
    components: { schemas: Record<string, unknown> };
  };

  it("is OpenAPI 3.1 and documents every REST route of the router", () => {
    expect(doc.openapi).toBe("3.1.0");
    for (const route of collectRoutes(appRouter)) {
      const op = doc.paths[`/api/v1${route.path}`]?.[route.method.toLowerCase()];
      expect(op, `${route.method} ${route.path}`).toBeDefined();
      expect(op!.operationId).toBe(route.procedurePath);
      expect(Object.keys(op!.responses)).toContain(String(route.meta.rest.status ?? 200));
    }
    expect(doc.components.schemas.Error).toBeDefined();
  });

  it("takes response schemas from the procedures' output validators", () => {
    const health = doc.paths["/api/v1/health"]!.get!.responses["200"] as { content: { "application/json": { schema: { properties: object } } } };
    expect(Object.keys(health.content["application/json"].schema.properties)).toEqual(["status", "version", "uptime_sec", "instance_id"]);
  });

  it("documents where a flow runs (runtime) on GET /flows/{id}", () => {
    const flow = doc.paths["/api/v1/flows/{id}"]!.get!.responses["200"] as any;
    const runtime = flow.content["application/json"].schema.properties.flow.properties.runtime;
    expect(JSON.stringify(runtime)).toContain("instance_id");
  });
});
