import { bytesToText, cloneWithout, isBytes } from "../parsers/input";
import type { Message, NodeContext, Send } from "../../runtime/types";

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

/**
 * "A message per row" (both parsers, as Node-RED's 70-CSV.js): each row goes out as a copy of the
 * message (the input's payload never copied) with `columns`, and `parts` of its own, or, for input
 * that was itself part of a sequence, those parts less the skipped and header lines. The last part
 * of a sequence marks its rows `complete`; an empty last part still ends the sequence.
 */
export function sendRows(
  ctx: Pick<NodeContext, "newMessageId">,
  s: CsvSettings,
  msg: Message,
  rows: unknown[],
  columns: string,
  sequence: { hasParts: boolean; last: boolean },
  send: Send,
): void {
  const count = rows.length;
  rows.forEach((row, index) => {
    const out = cloneWithout(msg, "payload");
    out.columns = columns;
    out.payload = row;
    if (!sequence.hasParts) out.parts = { id: msg._msgid, index, count };
    else {
      const p = out.parts as { index: number; count: number };
      const dropped = s.skip + (s.hdrin ? 1 : 0);
      p.index -= dropped;
      p.count -= dropped;
    }
    if (sequence.last) out.complete = true;
    send(out);
  });
  if (sequence.hasParts && sequence.last && count === 0) send({ _msgid: ctx.newMessageId(), complete: true });
}
