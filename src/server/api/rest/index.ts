import { appRouter, createCaller } from "../root";
import { getApp } from "../../app-context";
import { createRestHandler } from "./handler";
import { buildOpenApiDocument } from "./openapi";
import { apiDescription } from "./api-description";

export const handleRest = createRestHandler({
  router: appRouter,
  getApp,
  createCaller: (ctx) => createCaller(ctx),
});

let openApiCache: { key: string; doc: ReturnType<typeof buildOpenApiDocument> } | undefined;

export function getOpenApiDocument(publicUrl: string, version: string) {
  const key = `${publicUrl}|${version}`;
  if (openApiCache?.key !== key) {
    openApiCache = { key, doc: buildOpenApiDocument(appRouter, { version, serverUrl: publicUrl, description: apiDescription }) };
  }
  return openApiCache.doc;
}
