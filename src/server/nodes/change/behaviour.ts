import type { NodeFactory } from "../../runtime/types";
import { deleteProperty, getProperty, setProperty, typedValue } from "../../runtime/properties";
import { compileSafeRegex, safeReplaceAll, type SafeRegex } from "../../runtime/regex";
import type { z } from "zod";
import type { changeConfig } from "./definition";

export const changeBehaviour: NodeFactory = (ctx) => {
  const { rules } = ctx.node.config as z.infer<typeof changeConfig>;
  // "re" rules run on the linear-time engine (see runtime/regex.ts), compiled once per deploy.
  const patterns = new Map<number, SafeRegex>();
  rules.forEach((rule, i) => {
    if (rule.t === "change" && rule.from_type === "re") patterns.set(i, compileSafeRegex(rule.from));
  });
  return {
    input(msg, send, done) {
      for (const [index, rule] of rules.entries()) {
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
              const pattern = patterns.get(index);
              if (typeof to === "string" || typeof to === "number" || typeof to === "boolean") {
                const whole = rule.from_type !== "re" && current === rule.from;
                const replaced = pattern ? safeReplaceAll(pattern, current, String(to)) : current.replaceAll(rule.from, String(to));
                setProperty(msg, rule.p, whole && typeof to !== "string" ? to : replaced);
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
