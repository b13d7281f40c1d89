import { linkOutNode } from "./definition";
import { defineBehaviour } from "../types";
import type { LinkSource } from "../../runtime/types";

/** Node-RED's warning (link.errors.missingReturn). */
export const MISSING_RETURN = "Missing return node information";

export const linkOutBehaviour = defineBehaviour(linkOutNode, (ctx, c) => {
  return {
    input(msg, _send, done) {
      // Node-RED marks the message with its (legacy) link event, whatever the mode.
      msg._event = `node:${ctx.node.id}`;
      if (c.mode === "link") {
        ctx.links.send(c.links, msg);
        done();
        return;
      }
      const stack = msg._linkSource;
      const source = Array.isArray(stack) && stack.length > 0 ? (stack.pop() as LinkSource | undefined) : undefined;
      if (!source || typeof source !== "object" || typeof source.node !== "string" || typeof source.id !== "string") {
        ctx.log.warn(MISSING_RETURN);
        done();
        return;
      }
      const replied = ctx.links.reply(source.node, source.id, msg);
      if (replied === false) ctx.log.warn(MISSING_RETURN);
      else if (replied !== true) {
        void replied.then(
          (ok) => {
            if (!ok) ctx.log.warn(MISSING_RETURN);
          },
          () => ctx.log.warn(MISSING_RETURN),
        );
      }
      done();
    },
  };
});
