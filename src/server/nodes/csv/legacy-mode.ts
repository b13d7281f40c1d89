/**
 * The csv node's legacy mode, as Node-RED 4.1's 70-CSV.js (the branch without `spec: "rfc"`, which
 * every flow exported before Node-RED 4.0 gets), ported line for line, quirks included: its
 * character loop is what those flows' messages were made by.
 */
import type { Done, Message, NodeContext, Send } from "../../runtime/types";
import { ensureString, sendRows, type CsvSettings } from "./settings";

const NOT_CSV = "This node only handles CSV strings or js objects.";
const NO_TEMPLATE = "No columns template specified for object -> CSV.";
const BAD_CSV = "Malformed CSV data - output probably corrupt.";

const escapeForRegExp = (sep: string) => sep.replace(/[-[\]{}()*+!<=:?./\\^$|#\s,]/g, "\\$&");
/** A separator outside double quotes (Node-RED's look-ahead for an even number of quotes after it). */
const separatorRegExp = (sep: string) => new RegExp(escapeForRegExp(sep) + '(?=(?:(?:[^"]*"){2})*[^"]*$)', "g");

type Row = Record<string, unknown> | unknown[] | string | number | boolean | null;

export function legacyMode(ctx: NodeContext, s: CsvSettings) {
  const quo = '"';
  let goodTemplate = true;
  let hdrSent = false;
  let store: unknown[] = [];
  let tmpwarn = true;
  // Node-RED keeps the last separator used in one regular expression across calls; so does this.
  let re = separatorRegExp(s.sep);
  const reg = /^[-]?(?!E)(?!0\d)\d*\.?\d*(E-?\+?)?\d+$/i;

  /** Splits a column list (trimmed, unquoted, retrimmed); sets whether it was a good template. */
  const clean = (col: string, sep?: string): string[] => {
    if (sep) re = separatorRegExp(sep);
    const cols = (col.trim().split(re) || [""]).map((x) => x.replace(/"/g, "").trim());
    goodTemplate = !(cols.length === 1 && cols[0] === "");
    return cols;
  };
  let template = clean(s.template, ",");
  const notemplate = template.length === 1 && template[0] === "";
  const columnsOf = (t: string[]) =>
    t
      .map((v) => (v.indexOf(",") !== -1 ? '"' + v + '"' : v))
      .filter((v) => v)
      .join(",");

  function toCsv(msg: Message, send: Send, done: Done) {
    const parts = msg.parts as { index?: number } | undefined;
    if (!(notemplate && parts && Object.prototype.hasOwnProperty.call(parts, "index") && (parts.index as number) > 0)) template = clean(s.template);
    const ou: string[] = [];
    if (!Array.isArray(msg.payload)) msg.payload = [msg.payload];
    let payload = msg.payload as Row[];
    if (s.hdrout !== "none" && !hdrSent) {
      if (template.length === 1 && template[0] === "") {
        if (Object.prototype.hasOwnProperty.call(msg, "columns")) template = clean(String(msg.columns || ""), ",");
        else template = Object.keys(payload[0] as object);
      }
      ou.push(template.map((v) => (v.indexOf(s.sep) !== -1 ? '"' + v + '"' : v)).join(s.sep));
      if (s.hdrout === "once") hdrSent = true;
    }
    for (let r = 0; r < payload.length; r++) {
      if (Array.isArray(payload[r]) || typeof payload[r] !== "object") {
        if (typeof payload[r] !== "object") {
          msg.payload = [payload];
          payload = msg.payload as Row[];
        }
        const cells = payload[r] as unknown[];
        for (let t = 0; t < cells.length; t++) {
          if (cells[t] === undefined) cells[t] = "";
          const text = String((cells[t] as { toString(): string }).toString());
          if (text.indexOf(quo) !== -1) cells[t] = quo + text.replace(/"/g, '""') + quo;
          else if (text.indexOf(s.sep) !== -1) cells[t] = quo + text + quo;
          else if (text.indexOf("\n") !== -1) cells[t] = quo + text + quo;
        }
        ou.push(cells.join(s.sep));
      } else {
        const row = payload[r] as Record<string, unknown>;
        if (template.length === 1 && template[0] === "" && Object.prototype.hasOwnProperty.call(msg, "columns")) template = clean(String(msg.columns || ""), ",");
        if (template.length === 1 && template[0] === "") {
          if (tmpwarn) {
            ctx.log.warn(NO_TEMPLATE);
            tmpwarn = false;
          }
          const line: string[] = [];
          for (const p in payload[0] as object) {
            if (Object.prototype.hasOwnProperty.call(row, p) && typeof row[p] !== "object") {
              let q = "";
              if (row[p] !== undefined) q += String(row[p]);
              if (q.indexOf(quo) !== -1) line.push(quo + q.replace(/"/g, '""') + quo);
              else if (q.indexOf(s.sep) !== -1 || p.indexOf("\n") !== -1) line.push(quo + q + quo);
              else line.push(q);
            }
          }
          ou.push(line.join(s.sep));
        } else {
          const line: string[] = [];
          for (let t = 0; t < template.length; t++) {
            if (template[t] === "") line.push("");
            else {
              // Node-RED reads payload["r"]["<column>"]: a column name is one key, dots and all.
              let p: unknown = Object.prototype.hasOwnProperty.call(row, template[t]!) ? row[template[t]!] : undefined;
              if (p === undefined) p = "";
              const text = ensureString(p);
              if (text.indexOf(quo) !== -1) line.push(quo + text.replace(/"/g, '""') + quo);
              else if (text.indexOf(s.sep) !== -1 || text.indexOf("\n") !== -1) line.push(quo + text + quo);
              else line.push(text);
            }
          }
          ou.push(line.join(s.sep));
        }
      }
    }
    msg.payload = ou.join(s.ret) + s.ret;
    msg.columns = template.map((v) => (v.indexOf(",") !== -1 ? '"' + v + '"' : v)).join(",");
    if (msg.payload !== "") send(msg);
    done();
  }

  function fromCsv(msg: Message, send: Send, done: Done) {
    let f = true; // outside quotes
    let j = 0;
    let k: Array<string | number | null> = [""];
    let o: Record<string, unknown> = {};
    const a: Array<Record<string, unknown>> = [];
    let first = true;
    let last = false;
    const line = msg.payload as string;
    let linecount = 0;
    let tmp = "";
    const hasParts = Object.prototype.hasOwnProperty.call(msg, "parts");
    const parts = msg.parts as { index: number; count?: number } | undefined;
    if (hasParts && parts) {
      linecount = parts.index;
      if (parts.index > s.skip) first = false;
      if (Object.prototype.hasOwnProperty.call(parts, "count") && parts.index + 1 >= (parts.count as number)) last = true;
    }
    const nocr = (line.match(/[\r\n]/g) || []).length;
    if (hasParts && s.multi === "mult" && nocr > 1) {
      tmp = "";
      first = true;
    }
    const finishCell = () => {
      const cell = k[j];
      if (s.parseNumbers && typeof cell === "string" && reg.test(cell.trim())) k[j] = parseFloat(cell.trim());
      if (s.includeNullValues && k[j] === null) o[template[j]!] = k[j];
      if (s.includeEmptyStrings && k[j] === "") o[template[j]!] = k[j];
      if (k[j] !== null && k[j] !== "") o[template[j]!] = k[j];
    };
    for (let i = 0; i < line.length; i++) {
      if (first && linecount < s.skip) {
        if (line[i] === "\n") linecount += 1;
        continue;
      }
      if (s.hdrin && first) {
        if (line[i] === "\n" || line[i] === "\r" || line.length - i === 1) {
          if (line.length - i === 1) tmp += line[i];
          template = clean(tmp, s.sep);
          first = false;
        } else tmp += line[i];
      } else if (line[i] === quo) {
        f = !f;
        if (line[i - 1] === quo && f === false) k[j] = String(k[j]) + '"';
      } else if (line[i] === s.sep && f) {
        if (!goodTemplate) template[j] = "col" + (j + 1);
        if (template[j] && template[j] !== "") {
          // No value between separators, or a line starting with one: null.
          // At the very first character line[i - 1] is undefined and this throws, as in Node-RED.
          if (line[i - 1] === s.sep || (line[i - 1] as string).includes("\n")) k[j] = null;
          finishCell();
        }
        j += 1;
        // A separator as the last character: a null value ends the line.
        k[j] = line.length - 1 === i ? null : "";
      } else if ((line[i] === "\n" || line[i] === "\r") && f) {
        if (!goodTemplate) template[j] = "col" + (j + 1);
        if (template[j] && template[j] !== "") {
          if (line[i - 1] === s.sep) k[j] = null;
          finishCell();
        }
        if (JSON.stringify(o) !== "{}") a.push(o);
        j = 0;
        k = [""];
        o = {};
        f = true;
      } else {
        k[j] = String(k[j]) + line[i];
      }
    }
    if (f === false) ctx.log.warn(BAD_CSV);
    if (!goodTemplate) template[j] = "col" + (j + 1);
    if (template[j] && template[j] !== "") finishCell();
    if (JSON.stringify(o) !== "{}") a.push(o);

    if (s.multi !== "one") {
      msg.payload = a;
      if (hasParts && parts && nocr <= 1) {
        if (JSON.stringify(o) !== "{}") store.push(o);
        if (parts.index + 1 === parts.count) {
          msg.payload = store;
          msg.columns = columnsOf(template);
          delete msg.parts;
          send(msg);
          store = [];
        }
      } else {
        msg.columns = columnsOf(template);
        send(msg);
      }
    } else {
      sendRows(ctx, s, msg, a, columnsOf(template), { hasParts, last }, send);
    }
    done();
  }

  return function input(msg: Message, send: Send, done: Done) {
    if (Object.prototype.hasOwnProperty.call(msg, "reset")) hdrSent = false;
    if (!Object.prototype.hasOwnProperty.call(msg, "payload")) {
      if (!Object.prototype.hasOwnProperty.call(msg, "reset")) send(msg);
      done();
      return;
    }
    try {
      if (typeof msg.payload === "object") toCsv(msg, send, done);
      else if (typeof msg.payload === "string") fromCsv(msg, send, done);
      else {
        ctx.log.warn(NOT_CSV);
        done();
      }
    } catch (e) {
      done(e);
    }
  };
}
