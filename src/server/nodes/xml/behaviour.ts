import { xmlNode } from "./definition";
import { defineBehaviour } from "../types";
import { lazyRequire } from "../../lazy-require";

/** xml2js, loaded by the first xml node that converts something. */
const xml = lazyRequire<typeof import("xml2js")>("xml2js");
import { getProperty, setProperty } from "../../runtime/properties";
import { asNodeRedError, bytesToText, isBytes, oversizeProblem } from "../parsers/input";

type Options = Record<string, unknown>;

/** Keys that would give parsed objects another prototype. */
const FORBIDDEN_KEYS = new Set(["__proto__", "constructor", "prototype"]);

/** msg.options when it is an object (Node-RED's test: `typeof msg.options === "object"`), else null. */
function messageOptions(msg: Record<string, unknown>): Options | null {
  return Object.prototype.hasOwnProperty.call(msg, "options") && typeof msg.options === "object" && msg.options !== null ? (msg.options as Options) : null;
}

export const xmlBehaviour = defineBehaviour(xmlNode, (ctx, c) => {
  return {
    input(msg, send, done) {
      const value = getProperty(msg, c.property);
      if (value === undefined) {
        send(msg);
        done();
        return;
      }
      if (typeof value === "object" && !isBytes(value)) {
        const options: Options = messageOptions(msg) ?? { renderOpts: { pretty: false } };
        options.async = false;
        let text: string;
        try {
          text = new (xml().Builder)(options).buildObject(value);
        } catch (err) {
          return done(asNodeRedError(err));
        }
        setProperty(msg, c.property, text);
        send(msg);
        done();
        return;
      }
      if (typeof value === "string" || isBytes(value)) {
        // Bytes: Node-RED reaches here only for strings; a Buffer there is an object it would build from.
        const text = typeof value === "string" ? value : bytesToText(value);
        const tooBig = oversizeProblem(text);
        if (tooBig) return done(tooBig);
        const options: Options = messageOptions(msg) ?? {};
        options.async = true;
        // xml2js may throw synchronously (bad options) besides calling back with an error.
        options.attrkey = c.attribute_key || options.attrkey || "$";
        options.charkey = c.text_key || options.charkey || "_";
        const badKey = [options.attrkey, options.charkey].find((k) => FORBIDDEN_KEYS.has(String(k)));
        if (badKey !== undefined) return done(`msg.options must not name ${String(badKey)} as the attribute or text key`);
        try {
          xml().parseString(text, options, (err: Error | null, result: unknown) => {
            if (err) return done(asNodeRedError(err));
            setProperty(msg, c.property, result);
            send(msg);
            done();
          });
        } catch (err) {
          done(asNodeRedError(err));
        }
        return;
      }
      ctx.log.warn("This node only handles xml strings or js objects.");
      done();
    },
  };
});
