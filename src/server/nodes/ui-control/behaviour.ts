import { uiControlNode } from "./definition";
import { defineBehaviour } from "../types";
import { clientOf, viewOf } from "../dashboard-support";
import type { DashboardInput } from "../../runtime/types";

export const uiControlBehaviour = defineBehaviour(uiControlNode, (ctx, c) => {
  let stop: (() => void) | undefined;
  /** Sockets already seen: their first page view is also their connection. */
  const seen = new Set<string>();
  const dash = ctx.services.dashboards;
  return {
    start() {
      if (!dash) {
        ctx.status({ fill: "red", shape: "ring", text: "dashboards are not available here" });
        return;
      }
      stop = dash.onInput(ctx.organizationId, ctx.node.id, (input: DashboardInput) => {
        if (input.event === "$group") {
          // Dashboard 1's: a viewer folded or opened a group that can be collapsed (its ui_control
          // sent these with Output "all" and "change", not "connect").
          const p = input.msg.payload as { group?: unknown; open?: unknown } | undefined;
          if (c.events !== "connect" && typeof p?.group === "string" && typeof p.open === "boolean") ctx.send({ _msgid: ctx.newMessageId(), payload: "group", group: p.group, open: p.open, _client: input.client });
          return;
        }
        if (input.event !== "$pageview") return;
        const page = (input.msg.payload as { page?: unknown } | undefined)?.page;
        // A socket's first page view is its connection; every page view is a change of page.
        const first = !seen.has(input.client.socketId);
        if (first) {
          if (seen.size >= 10_000) seen.clear();
          seen.add(input.client.socketId);
          if (c.events !== "change") ctx.send({ _msgid: ctx.newMessageId(), payload: "connect", page, _client: input.client });
        }
        // As Dashboard 2.0's: a change names the page (`name`), with its page object beside.
        const name = page && typeof page === "object" ? (page as { name?: unknown }).name : undefined;
        if (c.events !== "connect") ctx.send({ _msgid: ctx.newMessageId(), payload: "change", ...(typeof name === "string" ? { name } : {}), page, _client: input.client });
      });
    },
    input(msg, _send, done) {
      const client = clientOf(msg);
      dash?.control(ctx.organizationId, ctx.node.id, viewOf(msg), client ? { client } : {});
      done();
    },
    close() {
      stop?.();
    },
  };
});
