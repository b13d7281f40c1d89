import { appRouter } from "../root";
import { getAppServices } from "../../services-slot";
import { createRestCore, createRestHandler, type RestHandlerOptions } from "./handler";
import { buildOpenApiDocument } from "./openapi";
import { apiDescription } from "./api-description";

const options: RestHandlerOptions = { router: appRouter, getAppServices };

/** The route file's mount (fetch Request → Response). */
export const handleRest = createRestHandler(options);
/** The custom server's mount (Node's request and response, src/server/http/direct-mount.ts). */
export const restCore = createRestCore(options);

let openApiCache: { key: string; doc: ReturnType<typeof buildOpenApiDocument> } | undefined;

export function getOpenApiDocument(publicUrl: string, version: string) {
  const key = `${publicUrl}|${version}`;
  if (openApiCache?.key !== key) {
    openApiCache = { key, doc: buildOpenApiDocument(appRouter, { version, serverUrl: publicUrl, description: apiDescription }) };
  }
  return openApiCache.doc;
}
