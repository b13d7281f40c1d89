import { htmlNode } from "./definition";
import { defineBehaviour } from "../types";
import type * as Cheerio from "cheerio";
import type { Message } from "../../runtime/types";
import { getProperty, setProperty } from "../../runtime/properties";
import { bytesToText, cloneWithout, isBytes, oversizeProblem } from "../parsers/input";

/**
 * An element's HTML as Node-RED writes it: its inner HTML, trimmed, re-serialized as XML. Hex
 * character references upper-cased: Node-RED's cheerio (1.0.0-rc.10) writes &#xE9;, ours &#xe9;.
 */
function innerXml(cheerio: typeof Cheerio, $: Cheerio.CheerioAPI, el: Parameters<Cheerio.CheerioAPI>[0]): string {
  const inner = ($(el).html() ?? "").trim();
  return cheerio
    .load(inner, undefined, false)
    .xml()
    .replace(/&#x([0-9a-f]+);/g, (_m, hex: string) => `&#x${hex.toUpperCase()};`);
}

/** In multi mode, at most this many characters of input copied into the messages sent. */
export const MAX_MULTI_COPY_CHARS = 64 * 1024 * 1024;

export const htmlBehaviour = defineBehaviour(htmlNode, async (ctx, c) => {
  // cheerio (about 20 MB of memory) is loaded when an html node first starts, not with every runtime.
  const cheerio = await import("cheerio");
  return {
    input(msg, send, done) {
      const value = getProperty(msg, c.property);
      if (value === undefined) {
        send(msg);
        done();
        return;
      }
      if (typeof value !== "string" && !isBytes(value)) return done("cheerio.load() expects a string");
      const text = typeof value === "string" ? value : bytesToText(value);
      const tooBig = oversizeProblem(text);
      if (tooBig) return done(tooBig);
      const selector = c.selector || (Object.prototype.hasOwnProperty.call(msg, "select") ? String(msg.select ?? "") : "");
      try {
        const $ = cheerio.load(text);
        const elements = selector ? $(selector).toArray() : [];
        const values = elements.map((el): unknown => {
          const attribs = "attribs" in el ? { ...el.attribs } : {};
          switch (c.return) {
            case "text":
              return $(el).text();
            case "attr":
              return attribs;
            case "compl":
              // Spread, not Object.assign: an attribute named __proto__ stays a plain property.
              return { [c.content_key]: ($(el).html() ?? "").trim(), ...attribs };
            default:
              return innerXml(cheerio, $, el);
          }
        });
        if (c.output_as === "single") {
          setProperty(msg, c.out_property, values);
          send(msg);
          done();
          return;
        }
        // Each message is a copy of the input. Where the result replaces the HTML (the same top-level
        // property) the HTML is left out of the copies; else the copies are bounded in total.
        const replacesInput = c.out_property === c.property && /^[A-Za-z_$][\w$]*$/.test(c.property);
        if (!replacesInput && values.length * text.length > MAX_MULTI_COPY_CHARS) {
          return done(`${values.length} messages would each copy the ${text.length}-character input (over ${MAX_MULTI_COPY_CHARS} characters in all); send a single message, or write the result to the input property`);
        }
        values.forEach((v, index) => {
          if (!v) return;
          const out = (replacesInput ? cloneWithout(msg, c.property) : structuredClone(msg)) as Message;
          setProperty(out, c.out_property, v);
          out.parts = { id: msg._msgid, index, count: values.length, type: "string", ch: "" };
          send(out);
        });
        done();
      } catch (err) {
        done((err as Error).message);
      }
    },
  };
});
