import { z } from "zod";
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject } from "zod-openapi";
import type { AnyRouter } from "@trpc/server";
import { collectRoutes } from "./routes";
import { API_PREFIX } from "./handler";
import { errorTable } from "../../errors";
import { outputSchemaOf } from "../frozen-output";

const errorBodySchema = z
  .object({
    error: z.object({
      code: z.enum(Object.keys(errorTable) as [keyof typeof errorTable, ...(keyof typeof errorTable)[]]),
      message: z.string(),
      details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
    }),
  })
  .meta({ id: "Error", description: "The one error envelope every endpoint uses" });

const errorResponse = (description: string) => ({
  description,
  content: { "application/json": { schema: errorBodySchema } },
});

/** Raw bytes in a request or an answer (meta.rest.rawBody / rawResponse). */
const binarySchema = z.string().meta({ format: "binary", description: "The bytes as they are (any content)" });

function isObjectSchema(schema: unknown): schema is z.ZodObject {
  return schema instanceof z.ZodObject;
}

/**
 * OpenAPI 3.1 for the whole REST surface, generated from the router: the same zod schemas that
 * validate each request and response, so the document cannot drift from the code.
 */
export function buildOpenApiDocument(router: AnyRouter, options: { version: string; serverUrl: string; description?: string }) {
  const paths: ZodOpenApiPathsObject = {};
  for (const route of collectRoutes(router)) {
    const input = route.procedure._def.inputs[0] as z.ZodType | undefined;
    const output = outputSchemaOf((route.procedure._def as { output?: unknown }).output);
    const status = String(route.meta.rest.status ?? 200);
    const op: ZodOpenApiOperationObject = {
      operationId: route.procedurePath,
      summary: route.meta.summary,
      description: route.meta.description,
      tags: route.meta.tags,
      responses: {
        [status]:
          status === "204"
            ? { description: "No content" }
            : route.meta.rest.rawResponse
              ? { description: "The file's bytes", content: { "application/octet-stream": { schema: binarySchema } } }
              : { description: "Success", content: { "application/json": { schema: output ?? z.unknown() } } },
        "4XX": errorResponse("Client error: see `error.code`"),
        "5XX": errorResponse("`INTERNAL` or `UNAVAILABLE` (database or session store unreachable)"),
      },
      ...(route.meta.auth ? { security: [{ bearerAuth: [] }, { apiKey: [] }] } : { security: [] }),
    };
    if (input) {
      const pathKeys = Object.fromEntries(route.paramNames.map((n) => [n, true] as const)) as Record<string, true> & Record<number, never>;
      if (isObjectSchema(input)) {
        const hasPath = route.paramNames.length > 0;
        const queryKeys = Object.fromEntries((route.meta.rest.query ?? []).map((n) => [n, true] as const)) as Record<string, true> & Record<number, never>;
        const hasQuery = Object.keys(queryKeys).length > 0;
        const raw = route.meta.rest.rawBody !== undefined;
        const withPath = hasPath ? input.omit(pathKeys) : input;
        const withoutPath = raw ? (withPath as z.ZodObject).omit({ content: true } as never) : withPath;
        const rest = hasQuery ? withoutPath.omit(queryKeys as never) : withoutPath;
        op.requestParams = {
          ...(hasPath ? { path: input.pick(pathKeys) } : {}),
          ...(route.method === "GET" || route.method === "DELETE" ? { query: rest } : hasQuery ? { query: input.pick(queryKeys) } : {}),
        };
        if (raw) {
          op.requestBody = { required: true, content: { "application/octet-stream": { schema: binarySchema } } };
        } else if (route.method !== "GET" && route.method !== "DELETE") {
          op.requestBody = { required: true, content: { "application/json": { schema: rest } } };
        } else if (route.method === "DELETE" && Object.keys(rest.shape).length > 0) {
          op.requestBody = { required: false, content: { "application/json": { schema: rest } } };
        }
      } else if (route.method !== "GET") {
        op.requestBody = { required: true, content: { "application/json": { schema: input } } };
      }
    }
    const key = `${API_PREFIX}${route.path}`;
    paths[key] = { ...paths[key], [route.method.toLowerCase()]: op };
  }
  return createDocument({
    openapi: "3.1.0",
    info: {
      title: "Flowplane API",
      version: options.version,
      description: options.description,
    },
    servers: [{ url: options.serverUrl }],
    components: {
      securitySchemes: {
        bearerAuth: { type: "http", scheme: "bearer", bearerFormat: "JWT", description: "Access token from /auth/login, or an API key" },
        apiKey: { type: "apiKey", in: "header", name: "X-API-Key" },
      },
    },
    paths,
  });
}
