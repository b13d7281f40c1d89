/**
 * The csv node's RFC 4180 mode, as Node-RED 4.1's 70-CSV.js (the `spec: "rfc"` branch), on the
 * ported parser in rfc4180.ts.
 */
import type { Done, Message, NodeContext, Send } from "../../runtime/types";
import { parseCsv, quoteCell } from "./rfc4180";
import { ensureString, sendRows, type CsvSettings } from "./settings";

const BAD_TEMPLATE = "Malformed columns template.";
const NOT_CSV = "This node only handles CSV strings or js objects.";
const NO_TEMPLATE = "No columns template specified for object -> CSV.";

export function rfcMode(ctx: NodeContext, s: CsvSettings) {
  const quote = '"';
  const quoteables = [s.sep, quote, "\n", "\r"];
  const templateQuoteablesStrict = [",", '"', "\n", "\r"];
  let goodTemplate = true;
  let badTemplateWarnOnce = true;
  let hdrSent = false;
  let store: unknown[] = [];
  let statusShown = false;

  const addQuotes = (cell: string, options: { separator?: string; quoteables?: string[] } = {}) =>
    quoteCell(cell, { quote, separator: options.separator ?? s.sep, quoteables: options.quoteables ?? quoteables });
  const columnStringToTemplateArray = (col: string, sep?: string): string[] | null => {
    const parsed = parseCsv(col, { separator: sep, quote, outputStyle: "array", strict: true });
    goodTemplate = parsed.data.length === 1;
    return goodTemplate ? (parsed.data[0] as string[]) : null;
  };
  const templateArrayToColumnString = (template: string[], keepEmptyColumns = false, separator = ",", quotables = templateQuoteablesStrict) => {
    const parsed = parseCsv("", { headers: template, headersOnly: true, separator, quote, outputStyle: "array", strict: true });
    return keepEmptyColumns ? parsed.headers.map((e) => addQuotes(e || "", { separator, quoteables: quotables })).join(separator) : parsed.header;
  };
  const hasTemplate = (t: string[] | null | undefined): t is string[] => !!t && t.length > 0 && !(t.length === 1 && t[0] === "");

  // The configuration's schema refuses a template that does not parse strictly.
  let template: string[] = columnStringToTemplateArray(s.template, ",") ?? [""];
  const noTemplate = !hasTemplate(template);
  const sendHeaders = s.hdrout !== "none";
  const sendHeadersOnce = s.hdrout === "once";

  const fail = (done: Done, err: Error) => {
    ctx.status({ fill: "red", shape: "dot", text: err.message });
    statusShown = true;
    done(err);
  };

  return function input(msg: Message, send: Send, done: Done) {
    if (statusShown) {
      ctx.status(null);
      statusShown = false;
    }
    if (Object.prototype.hasOwnProperty.call(msg, "reset")) hdrSent = false;
    if (!Object.prototype.hasOwnProperty.call(msg, "payload")) {
      if (!Object.prototype.hasOwnProperty.call(msg, "reset")) send(msg);
      done();
      return;
    }
    let inputData = msg.payload as unknown;
    const parts = msg.parts as { index: number; count?: number } | undefined;
    if (typeof inputData === "object") {
      try {
        let isArrayOfArrays = Array.isArray(inputData) && inputData.length > 0 && Array.isArray(inputData[0]);
        const isObject = !Array.isArray(inputData) && typeof inputData === "object";
        const isArrayOfPrimitives = Array.isArray(inputData) && inputData.length > 0 && typeof inputData[0] !== "object";
        if (isObject) inputData = [inputData];
        else if (isArrayOfPrimitives) {
          inputData = [inputData];
          isArrayOfArrays = true;
        }
        const rows = inputData as unknown[];
        const lines: string[] = [];
        if (!(noTemplate && parts && Object.prototype.hasOwnProperty.call(parts, "index") && parts.index > 0)) {
          template = columnStringToTemplateArray(s.template) ?? [""];
        }
        if (sendHeaders && !hdrSent) {
          if (!hasTemplate(template)) {
            if (Object.prototype.hasOwnProperty.call(msg, "columns")) template = columnStringToTemplateArray(String(msg.columns || ""), ",") ?? [""];
            else template = Object.keys(rows[0] as object) ?? [""];
          }
          lines.push(templateArrayToColumnString(template, true, s.sep, quoteables));
          if (sendHeadersOnce) hdrSent = true;
        }
        for (let r = 0; r < rows.length; r++) {
          const row = rows[r] as Record<string, unknown>;
          if (isArrayOfArrays) {
            const cells = row as unknown as unknown[];
            const withTemplate = hasTemplate(template);
            const len = withTemplate ? template.length : cells.length;
            const result: string[] = [];
            for (let t = 0; t < len; t++) {
              let cell = cells[t];
              if (cell === undefined) cell = "";
              if (withTemplate) {
                if (template[t]) result[t] = addQuotes(ensureString(cell));
              } else result[t] = addQuotes(ensureString(cell));
            }
            lines.push(result.join(s.sep));
          } else {
            if (!hasTemplate(template) && Object.prototype.hasOwnProperty.call(msg, "columns")) template = columnStringToTemplateArray(String(msg.columns || ""), ",") ?? [""];
            if (!hasTemplate(template)) {
              if (badTemplateWarnOnce) {
                ctx.log.warn(NO_TEMPLATE);
                badTemplateWarnOnce = false;
              }
              template = Object.keys(row) ?? [""];
              const rowData: string[] = [];
              for (const header in rows[0] as object) {
                if (Object.prototype.hasOwnProperty.call(row, header)) {
                  const cell = row[header];
                  if (typeof cell !== "object") rowData.push(addQuotes(cell !== undefined ? "" + String(cell) : ""));
                }
              }
              lines.push(rowData.join(s.sep));
            } else {
              const rowData: string[] = [];
              for (let t = 0; t < template.length; t++) {
                if (!template[t]) rowData.push("");
                else {
                  let cellValue = row[template[t]!];
                  if (cellValue === undefined) cellValue = "";
                  rowData.push(addQuotes(ensureString(cellValue)));
                }
              }
              lines.push(rowData.join(s.sep));
            }
          }
        }
        msg.payload = lines.join(s.ret) + s.ret;
        msg.columns = templateArrayToColumnString(template);
        if (msg.payload !== "") send(msg);
        done();
      } catch (e) {
        done(e);
      }
      return;
    }
    if (typeof inputData === "string") {
      const text = inputData;
      try {
        let firstLine = true;
        let last = false;
        let linecount = 0;
        const hasParts = Object.prototype.hasOwnProperty.call(msg, "parts");
        if (hasParts && parts) {
          linecount = parts.index;
          if (parts.index > s.skip) firstLine = false;
          if (Object.prototype.hasOwnProperty.call(parts, "count") && parts.index + 1 >= (parts.count as number)) last = true;
        }
        let cursor = 0;
        if (s.skip > 0 && linecount < s.skip) {
          for (; cursor < text.length; cursor++) {
            if (firstLine && linecount < s.skip) {
              if (text[cursor] === "\r" || text[cursor] === "\n") linecount += 1;
              continue;
            }
            break;
          }
          if (cursor >= text.length) {
            // Node-RED returns here without calling done: the line is skipped.
            done();
            return;
          }
        }
        const noOfCR = ((cursor ? text.slice(cursor) : text).match(/[\r\n]/g) || []).length;
        if (hasParts && s.multi === "mult" && noOfCR > 1) firstLine = true;
        if (firstLine && s.hdrin) {
          try {
            const head = parseCsv(text, { cursor, separator: s.sep, quote, dataHasHeaderRow: true, headersOnly: true, outputStyle: "array", strict: true });
            template = head.headers;
            cursor = head.cursor;
          } catch (e) {
            ctx.status({ fill: "red", shape: "dot", text: BAD_TEMPLATE });
            statusShown = true;
            throw e;
          }
        }
        const result = parseCsv(text, {
          cursor,
          separator: s.sep,
          quote,
          dataHasHeaderRow: false,
          headers: hasTemplate(template) ? template : null,
          outputStyle: "object",
          includeNullValues: s.includeNullValues,
          includeEmptyStrings: s.includeEmptyStrings,
          parseNumeric: s.parseNumbers,
          strict: false,
        });
        const data = result.data;
        if (s.multi !== "one") {
          if (hasParts && parts && noOfCR <= 1) {
            if (data.length > 0) store.push(...data);
            if (parts.index + 1 === parts.count) {
              msg.payload = store;
              msg.columns = templateArrayToColumnString(result.headers);
              delete msg.parts;
              send(msg);
              store = [];
            }
          } else {
            msg.columns = templateArrayToColumnString(result.headers);
            msg.payload = data;
            send(msg);
          }
        } else {
          sendRows(ctx, s, msg, data, templateArrayToColumnString(result.headers), { hasParts, last }, send);
        }
        done();
      } catch (e) {
        done(e);
      }
      return;
    }
    fail(done, new Error(NOT_CSV));
  };
}
