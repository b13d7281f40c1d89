import type { Message, NodeFactory } from "../../runtime/types";
import type { z } from "zod";
import type { delayConfig } from "./definition";

/**
 * delay: each message waits delay_ms. rate: at most `rate` messages per period; the excess waits in
 * a bounded queue (oldest dropped past max_queue) or is dropped at once when `drop` is set.
 */
export const delayBehaviour: NodeFactory = (ctx) => {
  const c = ctx.node.config as z.infer<typeof delayConfig>;
  const timers = new Set<NodeJS.Timeout>();
  const queue: Message[] = [];
  let sentInWindow = 0;
  let windowTimer: NodeJS.Timeout | undefined;
  let dropped = 0;

  const openWindow = () => {
    windowTimer = setTimeout(() => {
      windowTimer = undefined;
      sentInWindow = 0;
      while (queue.length > 0 && sentInWindow < c.rate) {
        sentInWindow++;
        ctx.send(queue.shift()!);
      }
      if (sentInWindow > 0) openWindow();
      ctx.status(queue.length > 0 ? { fill: "blue", shape: "ring", text: `${queue.length} queued` } : null);
    }, c.rate_period_ms);
  };

  return {
    input(msg, send, done) {
      if (c.mode === "delay") {
        const timer = setTimeout(() => {
          timers.delete(timer);
          send(msg);
        }, c.delay_ms);
        timers.add(timer);
        done();
        return;
      }
      if (sentInWindow < c.rate) {
        sentInWindow++;
        if (!windowTimer) openWindow();
        send(msg);
      } else if (c.drop) {
        dropped++;
        ctx.status({ fill: "yellow", shape: "ring", text: `${dropped} dropped` });
      } else {
        if (queue.length >= c.max_queue) {
          queue.shift();
          dropped++;
        }
        queue.push(msg);
        ctx.status({ fill: "blue", shape: "ring", text: `${queue.length} queued` });
      }
      done();
    },
    close() {
      timers.forEach((t) => clearTimeout(t));
      if (windowTimer) clearTimeout(windowTimer);
      queue.length = 0;
    },
  };
};
