import moment from "moment-timezone";
import parseFormat from "moment-parseformat";
import { momentNode } from "./definition";
import { defineBehaviour } from "../types";
import { getTarget, setTarget } from "../../runtime/operands";
import { parsePath } from "../../runtime/properties";

/** parseFormat misreads ISO texts with more than 3 decimals of a second: keep 3 (as the contrib does). */
function catchDp(text: string): string {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}.\d{4,}/.test(text) ? text.replace(/^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3})\d*(.*)/, "$1$2") : text;
}

const TZ_HELP = "see http://momentjs.com/timezone/docs/#/data-loading/";

/** The longest text read as a date (the longest date text a person writes is far shorter). */
export const MAX_TEXT = 256;

/** moment-timezone's zone names, lower case: its lookup is a plain object, where `constructor` would be found (and throw). */
const ZONES = new Set(moment.tz.names().map((name) => name.toLowerCase()));
const isZone = (name: string) => ZONES.has(name.toLowerCase());

/** Whether reading `path` passes through undefined or null before its last part (Node-RED's getMessageProperty throws there). */
function parentMissing(msg: Record<string, unknown>, path: string): boolean {
  let parts: readonly (string | number)[];
  try {
    parts = parsePath(path, msg);
  } catch {
    return false;
  }
  let value: unknown = msg;
  for (const part of parts.slice(0, -1)) {
    if (value === null || value === undefined) return true;
    value = (value as Record<string | number, unknown>)[part];
  }
  return value === null || value === undefined;
}

/**
 * node-red-contrib-moment 4's Date/Time Formatter (nrmoment.js), line by line, except where its
 * help says we differ: no timezone or locale means UTC and en (not the server's), and a message's
 * inTz/outTz is its own.
 */
export const momentBehaviour = defineBehaviour(momentNode, (ctx, c) => {
  const locale = c.locale || "en";
  return {
    input(msg, send, done) {
      if (c.topic !== "") msg.topic = c.topic;
      // As the contrib: an empty input is msg.payload (its `config.input || 'payload'`); the date type is now.
      const from = c.input || "payload";
      let inp: unknown;
      if (c.input_type === "msg" && parentMissing(msg, from.startsWith("msg.") ? from.slice(4) : from)) {
        // Node-RED's getMessageProperty throws there, and the contrib takes now.
        ctx.log.warn(`Input property, msg.${from.startsWith("msg.") ? from.slice(4) : from}, does NOT exist. Output has been set to NOW.`);
        inp = new Date();
      } else if (c.input_type === "msg" || c.input_type === "flow" || c.input_type === "global") inp = getTarget(ctx, { type: c.input_type, path: from }, msg);
      else if (c.input_type === "str") inp = from.trim();
      else inp = new Date();

      let shift: moment.DurationInputObject | undefined;
      let inputFormat = "";
      let parsedFormat: string | undefined = "";
      let unreadable = false;
      if (inp === null) inp = "";
      if (typeof inp === "string" && inp.trim().length > MAX_TEXT) {
        // Strict parsing of a long text costs its length squared: past any date's length, it is none.
        unreadable = true;
      } else if (typeof inp === "string") {
        inp = inp.trim();
        const text = inp as string;
        switch (text.toLowerCase()) {
          case "today":
            inp = new Date();
            break;
          case "yesterday":
            inp = new Date();
            shift = { days: -1 };
            break;
          case "tomorrow":
            inp = new Date();
            shift = { days: 1 };
            break;
          default: {
            inp = catchDp(text);
            // The contrib's en-US test never matches (it lower-cases before comparing with en_US): only an American zone reads month first.
            const american = c.in_tz.split("/")[0] === "America";
            // undefined for an empty text: Node-RED's settings then have no input_format.
            parsedFormat = parseFormat(inp as string, { preferredOrder: { "/": american ? "MDY" : "DMY", ".": "DMY", "-": "YMD" } });
            inputFormat = parsedFormat ?? "";
          }
        }
      } else if (typeof inp === "number") inp = new Date(inp);

      let inTz = typeof msg.inTz === "string" && msg.inTz !== "" ? msg.inTz : c.in_tz || "UTC";
      let outTz = typeof msg.outTz === "string" && msg.outTz !== "" ? msg.outTz : c.out_tz || c.in_tz || inTz;
      if (!isZone(inTz)) {
        ctx.log.warn(`Moment: Input Timezone Invalid, reset to UTC - ${TZ_HELP}`);
        inTz = "UTC";
      }
      if (!isZone(outTz)) {
        ctx.log.warn(`Moment: Output Timezone Invalid, reset to UTC - ${TZ_HELP}`);
        outTz = "UTC";
      }

      const input = inp as moment.MomentInput;
      let when = unreadable ? moment.invalid() : inputFormat !== "" ? moment.tz(inp as string, inputFormat, true, inTz) : moment.tz(input, inTz);
      // What strict parsing refused, JavaScript's Date may still read (the contrib's fallback).
      if (!when.isValid() && !unreadable) when = moment.utc(new Date(inp as string));
      if (shift) when.add(shift);
      when.locale(locale);
      if (c.adj_amount !== 0) {
        if (c.adj_dir === "subtract") when.subtract(c.adj_amount, c.adj_type);
        else when.add(c.adj_amount, c.adj_type);
      }
      when.tz(outTz);

      let value: unknown;
      if (!when.isValid()) {
        ctx.log.warn("The input property was NOT a recognisable date. Output will be a blank string");
        value = "";
      } else {
        switch (c.format.toLowerCase()) {
          case "":
          case "iso8601":
          case "iso":
            value = when.toISOString();
            break;
          case "fromnow":
          case "timeago":
            value = when.fromNow();
            break;
          case "calendar":
          case "aroundnow":
            value = when.calendar(null, { sameElse: "YYYY-MM-DD" });
            break;
          case "date":
          case "jsdate":
            value = when.toDate();
            break;
          case "object":
            value = when.toObject();
            break;
          default:
            value = when.format(c.format);
        }
      }
      let written = false;
      try {
        written = setTarget(ctx, { type: c.output_type, path: c.output }, msg, value);
      } catch {
        // a context refusing the value (full, a key it does not take): the contrib warns and sends on
      }
      if (!written) ctx.log.warn(`Output property, ${c.output_type}.${c.output}, cannot be set. No output.`);
      msg.settings = { input: inp, input_format: parsedFormat, input_tz: inTz, output_format: c.format, output_locale: locale, output_tz: outTz };
      send(msg);
      done();
    },
  };
});
