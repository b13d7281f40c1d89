import { defineBehaviour } from "../types";
import yaml from "js-yaml";
import { getProperty, setProperty } from "../../runtime/properties";
import { isBytes, oversizeProblem } from "../parsers/input";
import { exceedsExpansion } from "../parsers/expansion";
import { MAX_YAML_VALUES, yamlNode } from "./definition";

export const yamlBehaviour = defineBehaviour(yamlNode, (ctx, c) => {
  return {
    input(msg, send, done) {
      const value = getProperty(msg, c.property);
      if (value === undefined) {
        send(msg);
        done();
        return;
      }
      if (typeof value === "string") {
        const tooBig = oversizeProblem(value);
        if (tooBig) return done(tooBig);
        let parsed: unknown;
        try {
          // js-yaml 4's load is the safe one: DEFAULT_SCHEMA has no JavaScript types.
          parsed = yaml.load(value);
        } catch (err) {
          return done((err as Error).message);
        }
        if (exceedsExpansion(parsed, MAX_YAML_VALUES)) return done(`the YAML document expands to more than ${MAX_YAML_VALUES} values (aliases); it was not converted`);
        setProperty(msg, c.property, parsed);
        send(msg);
        done();
        return;
      }
      // null too: typeof null is "object", so Node-RED dumps it ("null\\n") as well.
      if (typeof value === "object" && !isBytes(value)) {
        let text: string;
        try {
          text = yaml.dump(value);
        } catch {
          return done("Failed to convert payload");
        }
        setProperty(msg, c.property, text);
        send(msg);
        done();
        return;
      }
      ctx.log.warn(isBytes(value) ? "Ignored non-object payload" : "Ignored unsupported payload type");
      done();
    },
  };
});
