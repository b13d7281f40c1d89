import { bytesToText, isBytes } from "../parsers/input";

/** The csv node's configuration as its runtime uses it (escapes such as \t turned into characters). */
export interface CsvSettings {
  template: string;
  sep: string;
  ret: string;
  multi: "one" | "mult";
  hdrin: boolean;
  hdrout: "none" | "all" | "once";
  skip: number;
  parseNumbers: boolean;
  includeEmptyStrings: boolean;
  includeNullValues: boolean;
}

/** Node-RED's escapes in the separator and newline fields: \t, \n and \r as typed in its editor. */
export function unescapeCsv(text: string): string {
  return text.replace(/\\t/g, "\t").replace(/\\n/g, "\n").replace(/\\r/g, "\r");
}

/** Node-RED's RED.util.ensureString: text as is, bytes decoded, objects as JSON, the rest String(). */
export function ensureString(value: unknown): string {
  if (isBytes(value)) return bytesToText(value);
  if (typeof value === "object") return JSON.stringify(value);
  if (typeof value === "string") return value;
  return "" + String(value);
}
