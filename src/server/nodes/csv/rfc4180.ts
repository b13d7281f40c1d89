/**
 * Node-RED 4.1's RFC 4180 CSV parser (@node-red/nodes/core/parsers/lib/csv/index.js, Apache-2.0,
 * Copyright OpenJS Foundation and other contributors), ported to TypeScript line for line.
 *
 * Why a port and not a CSV library (csv-parse, papaparse): the node's output is defined by this
 * parser's particular choices, which no library shares: an empty unquoted cell is null but an
 * empty quoted one is "", a stray quote in a relaxed field is kept or dropped by its neighbour,
 * numbers are cast with `+v` except for values starting with "+" or a leading zero, and a cursor
 * lets the node parse the header row and the data rows separately. Flows imported from Node-RED
 * must give the same messages here.
 *
 * Deviations from RFC 4180 (Node-RED's, for user friendliness): any single-character separator
 * and quote; `\r`, `\n` or `\r\n` end a record.
 */
export interface CsvParseOptions {
  cursor?: number;
  separator?: string;
  quote?: string;
  headersOnly?: boolean;
  headers?: string[] | null;
  dataHasHeaderRow?: boolean;
  outputHeader?: boolean;
  parseNumeric?: boolean;
  includeNullValues?: boolean;
  includeEmptyStrings?: boolean;
  outputStyle?: "array" | "object";
  strict?: boolean;
}

export interface CsvParseResult {
  headers: string[];
  /** The headers quoted where needed and joined with commas, empty ones left out. */
  header: string;
  data: unknown[];
  firstRowIsHeader?: boolean;
  outputStyle: "array" | "object";
  cursor: number;
}

/** Node-RED's ParseError and its subclasses, by name (what its errors print as). */
export class CsvParseError extends Error {
  constructor(
    message: string,
    readonly cursor: number,
    name: "ParseError" | "UnquotedQuoteError" | "DataAfterCloseError" = "ParseError",
  ) {
    super(message);
    this.name = name;
  }
}

type Cell = string | null;

export function parseCsv(csvIn: string, parseOptions: CsvParseOptions = {}): CsvParseResult {
  const separator = parseOptions.separator ?? ",";
  const quote = parseOptions.quote ?? '"';
  const headersOnly = parseOptions.headersOnly ?? false;
  // The caller's array is filled in place when it is empty, as Node-RED's parser does.
  const headers: Cell[] = Array.isArray(parseOptions.headers) ? parseOptions.headers : [];
  const dataHasHeaderRow = parseOptions.dataHasHeaderRow ?? true;
  const outputHeader = parseOptions.outputHeader ?? true;
  const parseNumeric = parseOptions.parseNumeric ?? false;
  const includeNullValues = parseOptions.includeNullValues ?? false;
  const includeEmptyStrings = parseOptions.includeEmptyStrings ?? true;
  const outputStyle = parseOptions.outputStyle === "array" ? "array" : "object";
  const strict = parseOptions.strict ?? false;

  const cursorMax = csvIn.length;
  const outputArrays = outputStyle === "array";
  const headersSupplied = headers.length > 0;
  const skipNumberConversion = /^ *(\+|-0\d|0\d)/;
  const cellBuilder: string[] = [];
  let rowBuilder: Cell[] = [];
  let cursor = typeof parseOptions.cursor === "number" ? parseOptions.cursor : 0;
  let newCell = true;
  let inQuote = false;
  let closed = false;
  let output: Cell[][] = [];

  const finaliseCell = () => {
    const cell = cellBuilder.join("");
    cellBuilder.length = 0;
    // A cell of zero characters is null; an empty quoted cell is "".
    rowBuilder.push(cell || (newCell ? null : ""));
  };
  const finaliseRow = () => {
    if (cellBuilder.length) finaliseCell();
    if (rowBuilder.length) {
      output.push(rowBuilder);
      rowBuilder = [];
    }
  };

  while (cursor < cursorMax) {
    const char = csvIn[cursor]!;
    if (inQuote) {
      if (char === quote && csvIn[cursor + 1] === quote) {
        cellBuilder.push(quote);
        cursor += 2;
        newCell = false;
        closed = false;
      } else if (char === quote) {
        inQuote = false;
        cursor += 1;
        newCell = false;
        closed = true;
      } else {
        cellBuilder.push(char);
        newCell = false;
        closed = false;
        cursor++;
      }
    } else if (char === separator) {
      finaliseCell();
      cursor += 1;
      newCell = true;
      closed = false;
    } else if (char === quote) {
      if (newCell) {
        inQuote = true;
        cursor += 1;
        newCell = false;
        closed = false;
      } else if (strict) {
        throw new CsvParseError("Quote found in the middle of an unquoted field", cursor, "UnquotedQuoteError");
      } else {
        // Relaxed: keep one quote if the next char does not end the cell or the record.
        cursor++;
        if (csvIn[cursor] && csvIn[cursor] !== "\n" && csvIn[cursor] !== "\r" && csvIn[cursor] !== separator) {
          cellBuilder.push(char);
          if (csvIn[cursor] === quote) cursor++;
        }
      }
    } else if (char === "\n" || char === "\r") {
      finaliseRow();
      cursor += csvIn[cursor + 1] === "\n" ? 2 : 1;
      newCell = true;
      closed = false;
      if (headersOnly) break;
    } else if (closed) {
      if (strict) throw new CsvParseError("Data found after closing quote", cursor, "DataAfterCloseError");
      // Node-RED's relaxed branch: step back and take the character again as cell data.
      cursor--;
      closed = false;
    } else {
      cellBuilder.push(char);
      newCell = false;
      cursor++;
    }
  }
  if (strict && inQuote) throw new CsvParseError("Missing quote, unclosed cell", cursor);
  finaliseRow();

  let firstRowIsHeader = false;
  if (output.length >= 1) {
    if (headersSupplied) {
      // given by the caller
    } else if (dataHasHeaderRow) {
      headers.push(...output[0]!);
      firstRowIsHeader = true;
    } else {
      for (let i = 0; i < output[0]!.length; i++) headers.push("col" + (i + 1));
    }
  }

  const quotedHeaders: string[] = [];
  for (const h of headers) {
    if (!h) continue;
    quotedHeaders.push(quoteCell(h, { quote, separator: "," }));
  }
  const result: CsvParseResult = { headers: headers as string[], header: quotedHeaders.join(","), data: [], outputStyle, cursor };

  if (outputArrays || headersOnly) {
    if (!firstRowIsHeader && !headersOnly && outputHeader && headers.length > 0) {
      if (output.length > 0) output.unshift(headers);
      else output = [headers];
      firstRowIsHeader = true;
    }
    if (headersOnly) return result;
    result.firstRowIsHeader = firstRowIsHeader;
    result.data = firstRowIsHeader && !outputHeader ? output.slice(1) : output;
    return result;
  }

  const objects: Array<Record<string, unknown>> = [];
  for (let i = firstRowIsHeader ? 1 : 0; i < output.length; i++) {
    const row: Record<string, unknown> = {};
    let isEmpty = true;
    for (let j = 0; j < headers.length; j++) {
      const header = headers[j];
      if (!header) continue;
      let v: unknown = output[i]![j] === undefined ? null : output[i]![j];
      if (v === null && !includeNullValues) continue;
      else if (v === "" && !includeEmptyStrings) continue;
      else if (parseNumeric && typeof v === "string" && v && !skipNumberConversion.test(v)) {
        const n = +v;
        if (!isNaN(n)) v = n;
      }
      row[header] = v;
      isEmpty = false;
    }
    if (!isEmpty) objects.push(row);
  }
  result.data = objects;
  return result;
}

/** Quotes a cell if it holds any of `quoteables`, doubling the quotes inside (RFC 4180 2.6). */
export function quoteCell(cell: string, options: { quote?: string; separator?: string; quoteables?: string[] } = {}): string {
  const quote = options.quote ?? '"';
  const separator = options.separator ?? ",";
  const quoteables = options.quoteables ?? [quote, separator, "\r", "\n"];
  const doubleUp = cell.indexOf(quote) !== -1;
  const quoteChar = quoteables.some((q) => cell.includes(q)) ? quote : "";
  return quoteChar + (doubleUp ? cell.replace(/"/g, '""') : cell) + quoteChar;
}
