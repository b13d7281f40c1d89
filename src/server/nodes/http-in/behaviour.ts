import { httpInNode } from "./definition";
import { defineBehaviour } from "../types";
import { FLOW_BUSY_RETRY_AFTER_SEC } from "../../runtime/engine";
import { webhookError } from "../../runtime/webhooks";
import { AppError, flowBusy } from "../../errors";

export const httpInBehaviour = defineBehaviour(httpInNode, (ctx, c) => {
  const webhooks = ctx.services.webhooks;
  if (!webhooks) throw new Error("webhooks are not available on this server");
  let unregister: (() => void) | undefined;
  return {
    start() {
      unregister = webhooks.register(ctx.organizationSlug, c.method, c.path, {
        flowId: ctx.flowId,
        organizationId: ctx.organizationId,
        nodeId: ctx.node.id,
        onRequest: (req, respond) => {
          // Backpressure: the caller is told to come back rather than queued without bound.
          if (ctx.busy()) {
            respond(webhookError(flowBusy(FLOW_BUSY_RETRY_AFTER_SEC, ctx.waiting())));
            return;
          }
          const deliver = (body: unknown, files?: unknown[]) => {
            const resId = webhooks.openResponse({ flowId: ctx.flowId, organizationId: ctx.organizationId }, respond);
            ctx.send({
              _msgid: ctx.newMessageId(),
              // `cookies` is always empty: the caller's cookies are the app's (its session), never a flow's.
              req: { method: req.method, path: req.path, params: req.params ?? {}, query: req.query, headers: req.headers, cookies: {}, body, ...(files && { files }) },
              res: { _id: resId },
              payload: req.method === "GET" ? req.query : body,
            });
          };
          // Node-RED's multer runs for POST only (21-httpin.js), on a multipart/form-data body.
          if (c.upload && c.method === "post" && req.method === "POST" && req.multipart !== undefined) {
            const parsed = req.multipart;
            if ("error" in parsed) respond(webhookError(new AppError("VALIDATION_FAILED", parsed.error)));
            else deliver(parsed.fields, parsed.files.map((f) => ({ fieldname: f.fieldname, originalname: f.originalname, encoding: f.encoding, mimetype: f.mimetype, buffer: Buffer.from(f.base64, "base64"), size: f.size })));
            return;
          }
          deliver(req.bytes !== undefined ? Buffer.from(req.bytes, "base64") : req.body);
        },
      });
    },
    close() {
      unregister?.();
    },
  };
});

