import { csvNode } from "./definition";
import { defineBehaviour } from "../types";
import { asNodeRedError, oversizeProblem } from "../parsers/input";
import { legacyMode } from "./legacy-mode";
import { rfcMode } from "./rfc-mode";
import { unescapeCsv, type CsvSettings } from "./settings";

export const csvBehaviour = defineBehaviour(csvNode, (ctx, c) => {
  const settings: CsvSettings = {
    template: c.columns,
    sep: unescapeCsv(c.separator),
    ret: unescapeCsv(c.newline),
    multi: c.output,
    hdrin: c.header_in,
    hdrout: c.header_out,
    skip: c.skip_lines,
    parseNumbers: c.parse_numbers,
    includeEmptyStrings: c.include_empty_strings,
    includeNullValues: c.include_null_values,
  };
  const input = c.spec === "rfc" ? rfcMode(ctx, settings) : legacyMode(ctx, settings);
  return {
    input(msg, send, done) {
      if (typeof msg.payload === "string") {
        const tooBig = oversizeProblem(msg.payload);
        if (tooBig) return done(tooBig);
      }
      // Node-RED's csv node hands Error objects to done(): reported as their toString().
      input(msg, send, (err?: unknown) => (err === undefined ? done() : done(asNodeRedError(err))));
    },
  };
});
