import Mustache from "mustache";
import type { NodeFactory } from "../../runtime/types";
import { setProperty } from "../../runtime/properties";
import type { z } from "zod";
import type { templateConfig } from "./definition";

export const templateBehaviour: NodeFactory = (ctx) => {
  const c = ctx.node.config as z.infer<typeof templateConfig>;
  if (c.syntax === "mustache") Mustache.parse(c.template);
  return {
    input(msg, send, done) {
      const text = c.syntax === "mustache" ? Mustache.render(c.template, msg) : c.template;
      setProperty(msg, c.field, c.output === "json" ? JSON.parse(text) : text);
      send(msg);
      done();
    },
  };
};
