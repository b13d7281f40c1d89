import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import type { AppServices } from "../app-services";
import { API_PREFIX, type RestRequest, type RestResult } from "../api/rest/handler";
import { UNAVAILABLE_RETRY_AFTER_SEC } from "../errors";
import { CLIENT_IP_HEADER, resolveClientIp } from "./client-ip";
import { directMountFor, serveDirect, serveRest, serveTrpc, serveWebhooks, type FetchHandler } from "./direct-mount";
import type { WebhookHttpRequest } from "../api/rest/webhook-handler";
import { serveMetrics } from "./metrics-endpoint";
import { servePage } from "./page-outage";
import { applyPagePolicy } from "./content-security-policy";
import { HEALTH_PATH, isHealthRequest, serveHealth } from "./health";
import { serveTemplateFrame, TEMPLATE_FRAME_PREFIX } from "../dashboards/template-frame";

export interface RequestListenerOptions {
  app: AppServices;
  trustProxyHops: number;
  /** Send Strict-Transport-Security (the public URL is https). */
  hsts: boolean;
  /** The REST adapter's core (api/rest: restCore). */
  rest: (req: RestRequest) => Promise<RestResult>;
  /** The webhook handler (api/rest/webhook-handler.ts: serveWebhookTarget). */
  webhooks: (req: WebhookHttpRequest) => Promise<RestResult>;
  /** tRPC's fetch adapter (createTrpcHandler): every /api/trpc request trpcCore leaves to it. */
  trpc: FetchHandler;
  /** The common /api/trpc requests (queries by GET) without fetch objects (api/trpc-node.ts); undefined: hand it to `trpc`. */
  trpcCore?: (req: RestRequest) => Promise<RestResult | undefined>;
  /** Next's request handler: pages, next-auth, /_next assets. */
  next: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  /** GET /metrics's bearer token (METRICS_TOKEN); without it, loopback only. */
  metricsToken?: string;
}

/** The `route` labels of what Next serves: its assets, its API routes, the pages. */
const NEXT_ASSETS = "next_asset";
const PAGE = "page";
const NEXT_API = "next_api";
const REST_UNMATCHED = `${API_PREFIX}/{unmatched}`;

/**
 * The custom server's requests (src/server.ts): the REST API, the webhooks, tRPC and GET /metrics go
 * straight to their handlers; everything else goes through Next. Each answer is counted in
 * app.metrics by its route template (src/server/http/README.md, "Metrics").
 */
export function createRequestListener(options: RequestListenerOptions): RequestListener {
  const { app, trustProxyHops, hsts } = options;
  const { logger, metrics, config } = app;
  const origin = config.publicUrl;
  const development = process.env.NODE_ENV !== "production";

  return (req, res) => {
    const started = performance.now();
    req.headers[CLIENT_IP_HEADER] = resolveClientIp(req, trustProxyHops);
    if (hsts) res.setHeader("Strict-Transport-Security", "max-age=63072000; includeSubDomains");
    const url = req.url ?? "/";
    // Polled by every balancer and orchestrator: answered at once, without the REST adapter.
    if (isHealthRequest(req.method, url)) {
      serveHealth(req, res, app, started);
      metrics.httpRequest(HEALTH_PATH, req.method!, 200, (performance.now() - started) / 1000);
      return;
    }
    const mount = directMountFor(url);
    let route: string;
    let served: Promise<RestResult | void>;
    switch (mount) {
      case "rest":
        route = REST_UNMATCHED;
        served = serveRest(req, res, options.rest);
        break;
      case "webhooks":
        route = "hooks";
        served = serveWebhooks(req, res, options.webhooks);
        break;
      case "trpc":
        route = "trpc";
        served = options.trpcCore ? serveTrpc(req, res, origin, options.trpcCore, options.trpc) : serveDirect(req, res, origin, options.trpc);
        break;
      case "metrics":
        route = "metrics";
        served = serveMetrics(req, res, metrics, options.metricsToken);
        break;
      default:
        if (url.startsWith(TEMPLATE_FRAME_PREFIX)) {
          // ui-template's sandboxed frame and its scripts (SPEC §21): a policy of their own, not the pages'.
          route = "dashboard_frame";
          served = Promise.resolve().then(() => serveTemplateFrame(req, res));
        } else if (url.startsWith("/_next/")) {
          route = NEXT_ASSETS;
          served = options.next(req, res);
        } else {
          // Next's own API routes (/api/auth, /api/v1/openapi.json) apart from the pages.
          route = url.startsWith("/api/") ? NEXT_API : PAGE;
          if (route === PAGE) applyPagePolicy(req, res, development);
          // Pages and next-auth: a 500 caused by an outage goes out as 503 with Retry-After.
          served = servePage(res, UNAVAILABLE_RETRY_AFTER_SEC, () => options.next(req, res));
        }
    }
    served.then(
      (result) => {
        const label = result?.route === undefined ? route : API_PREFIX + result.route;
        metrics.httpRequest(label, req.method ?? "GET", res.statusCode, (performance.now() - started) / 1000);
      },
      (err: unknown) => {
        logger.error({ err }, "request handler failed");
        if (!res.headersSent) {
          res.statusCode = 500;
          res.setHeader("Content-Type", "application/json");
          res.end(JSON.stringify({ error: { code: "INTERNAL", message: "internal error" } }));
        }
        metrics.httpRequest(route, req.method ?? "GET", res.statusCode, (performance.now() - started) / 1000);
      },
    );
  };
}
