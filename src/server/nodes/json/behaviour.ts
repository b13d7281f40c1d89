import { jsonNode } from "./definition";
import { defineBehaviour } from "../types";
import { Ajv, type ValidateFunction } from "ajv";
import draft06 from "ajv/lib/refs/json-schema-draft-06.json";
import { getProperty, setProperty } from "../../runtime/properties";
import { compileSafeRegex, safeTest } from "../../runtime/regex";
import { bytesToText, isBytes, oversizeProblem } from "../parsers/input";

const MAX_SCHEMA_CHARS = 64 * 1024;

/** Ajv's patterns on RE2 (linear time): a schema's `pattern` cannot stall the event loop. */
function re2Engine(pattern: string, flags: string) {
  const regex = compileSafeRegex(pattern, { caseInsensitive: flags.includes("i") });
  return { test: (s: string) => safeTest(regex, s) };
}
re2Engine.code = "re2js";

/** One validator per process, as Node-RED's module-level one (draft-07 with draft-06 added). */
const ajv = new Ajv({ allErrors: true, code: { regExp: re2Engine } });
ajv.addMetaSchema(draft06);

const SCHEMA_ERROR = "JSON Schema error";
const SCHEMA_COMPILE_ERROR = "JSON Schema error: failed to compile schema";

export const jsonBehaviour = defineBehaviour(jsonNode, (ctx, c) => {
  const indent = c.pretty ? 4 : 0;
  let schemaText: string | null = null;
  let compiled: ValidateFunction | null = null;

  return {
    input(msg, send, done) {
      let validate = false;
      if (msg.schema) {
        // Recompiled only when the schema differs from the last one, as Node-RED does.
        const text = JSON.stringify(msg.schema) ?? "";
        if (text !== schemaText) {
          try {
            if (text.length > MAX_SCHEMA_CHARS) throw new Error("schema too large");
            compiled = ajv.compile(msg.schema as object);
            schemaText = text;
          } catch {
            schemaText = null;
            compiled = null;
            done(SCHEMA_COMPILE_ERROR);
            return;
          }
        }
        validate = true;
      }
      const check = (value: unknown): boolean => {
        if (!validate || !compiled) return true;
        if (compiled(value)) {
          delete msg.schema;
          return true;
        }
        msg.schemaError = compiled.errors;
        done(`${SCHEMA_ERROR}: ${ajv.errorsText(compiled.errors)}`);
        return false;
      };

      const value = getProperty(msg, c.property);
      if (value === undefined) {
        send(msg);
        done();
        return;
      }
      if (typeof value === "string" || isBytes(value)) {
        const text = typeof value === "string" ? value : bytesToText(value);
        const tooBig = oversizeProblem(text);
        if (tooBig) return done(tooBig);
        let parsed: unknown;
        try {
          if (c.action !== "str" || validate) parsed = JSON.parse(text);
        } catch (err) {
          return done((err as Error).message);
        }
        if (c.action !== "str") setProperty(msg, c.property, parsed);
        if (!check(parsed)) return;
        send(msg);
        done();
        return;
      }
      if (typeof value === "object" || typeof value === "boolean" || typeof value === "number") {
        if (c.action === "obj") {
          if (!check(value)) return;
          send(msg);
          done();
          return;
        }
        if (!check(value)) return;
        let text: string;
        try {
          text = JSON.stringify(value, null, indent);
        } catch {
          return done("Failed to convert payload");
        }
        setProperty(msg, c.property, text);
        send(msg);
        done();
        return;
      }
      ctx.log.warn("Ignored unsupported payload type");
      done();
    },
  };
});
