import type { NodeFactory } from "../../runtime/types";
import { deleteProperty, getProperty, setProperty, typedValue } from "../../runtime/properties";
import type { z } from "zod";
import type { changeConfig } from "./definition";

function escapeRegExp(s: string) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

export const changeBehaviour: NodeFactory = (ctx) => {
  const { rules } = ctx.node.config as z.infer<typeof changeConfig>;
  return {
    input(msg, send, done) {
      for (const rule of rules) {
        switch (rule.t) {
          case "set":
            setProperty(msg, rule.p, typedValue(rule.to, rule.to_type, msg));
            break;
          case "delete":
            deleteProperty(msg, rule.p);
            break;
          case "move": {
            const value = getProperty(msg, rule.p);
            deleteProperty(msg, rule.p);
            setProperty(msg, rule.to, value);
            break;
          }
          case "change": {
            const current = getProperty(msg, rule.p);
            const to = typedValue(rule.to, rule.to_type, msg);
            if (typeof current === "string") {
              const pattern = rule.from_type === "re" ? new RegExp(rule.from, "g") : new RegExp(escapeRegExp(rule.from), "g");
              if (typeof to === "string" || typeof to === "number" || typeof to === "boolean") {
                const whole = rule.from_type !== "re" && current === rule.from;
                setProperty(msg, rule.p, whole && typeof to !== "string" ? to : current.replace(pattern, String(to)));
              } else if (current === rule.from) setProperty(msg, rule.p, to);
            } else if (String(current) === rule.from) {
              setProperty(msg, rule.p, to);
            }
            break;
          }
        }
      }
      send(msg);
      done();
    },
  };
};
