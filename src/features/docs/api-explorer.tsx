"use client";

import dynamic from "next/dynamic";
import "swagger-ui-react/swagger-ui.css";
import "./api-explorer.css";

// Swagger UI renders in the browser only (it reads window); its bundle loads with this page alone.
const SwaggerUI = dynamic(() => import("swagger-ui-react"), {
  ssr: false,
  loading: () => <p aria-live="polite">Loading the API explorer…</p>,
});

/** What Swagger UI hands its request interceptor (its types say only "any properties"). */
type SwaggerRequest = { [k: string]: unknown; url?: unknown; credentials?: unknown };

/**
 * The OpenAPI document with "Try it out": requests go from this page to our own API, with the
 * browser's session cookie (same origin) unless a key or token is pasted under Authorize, which
 * then wins. Nothing is persisted: a pasted key lives as long as the page.
 */
export function ApiExplorer({ specUrl }: { specUrl: string }) {
  return (
    <SwaggerUI
      url={specUrl}
      docExpansion="list"
      defaultModelRendering="model"
      displayRequestDuration
      persistAuthorization={false}
      tryItOutEnabled={false}
      requestInterceptor={(request: SwaggerRequest) => {
        // Only our own origin: the document names no other server, and a pasted absolute URL is refused.
        if (new URL(String(request.url), window.location.href).origin !== window.location.origin) throw new Error("requests go to this server only");
        request.credentials = "same-origin";
        return request;
      }}
    />
  );
}
