import type { NodeFactory } from "../../runtime/types";
import { getProperty, setProperty } from "../../runtime/properties";
import type { z } from "zod";
import type { jsonConfig } from "./definition";

export const jsonBehaviour: NodeFactory = (ctx) => {
  const c = ctx.node.config as z.infer<typeof jsonConfig>;
  return {
    input(msg, send, done) {
      const value = getProperty(msg, c.property);
      const toObject = c.action === "obj" || (c.action === "auto" && typeof value === "string");
      try {
        if (toObject) {
          if (typeof value === "string") setProperty(msg, c.property, JSON.parse(value));
        } else if (typeof value !== "string") {
          setProperty(msg, c.property, JSON.stringify(value, null, c.pretty ? 2 : undefined));
        }
      } catch (err) {
        done(new Error(`json: ${(err as Error).message}`));
        return;
      }
      send(msg);
      done();
    },
  };
};
