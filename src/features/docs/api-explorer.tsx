"use client";

import { useEffect, useRef } from "react";
import "swagger-ui-dist/swagger-ui.css";
import "./api-explorer.css";

/** What Swagger UI hands its request interceptor. */
type SwaggerRequest = { [k: string]: unknown; url?: unknown; credentials?: unknown };

/**
 * The OpenAPI document with "Try it out" (Swagger UI's self-contained bundle, loaded with this page
 * alone, from our origin): requests go from this page to our own API, with the browser's session
 * cookie (same origin) unless a key or token is pasted under Authorize, which then wins. Nothing is
 * persisted: a pasted key lives as long as the page.
 */
export function ApiExplorer({ specUrl }: { specUrl: string }) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const node = host.current;
    let cancelled = false;
    void import("swagger-ui-dist/swagger-ui-es-bundle.js").then(({ default: SwaggerUIBundle }) => {
      if (cancelled || !node) return;
      SwaggerUIBundle({
        domNode: node,
        url: specUrl,
        docExpansion: "list",
        defaultModelRendering: "model",
        displayRequestDuration: true,
        persistAuthorization: false,
        validatorUrl: null,
        requestInterceptor: (request: SwaggerRequest) => {
          // Only our own origin: the document names no other server.
          if (new URL(String(request.url), window.location.href).origin !== window.location.origin) throw new Error("requests go to this server only");
          request.credentials = "same-origin";
          return request;
        },
      });
    });
    return () => {
      cancelled = true;
      if (node) node.replaceChildren();
    };
  }, [specUrl]);
  return (
    <div ref={host}>
      <p aria-live="polite">Loading the API explorer…</p>
    </div>
  );
}
