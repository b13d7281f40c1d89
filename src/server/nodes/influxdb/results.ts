/**
 * InfluxDB's answers to a query as node-red-contrib-influxdb 0.7.0 hands them to the flow: 1.x's
 * JSON through node-influx's `results.parse` (rows with their `time` a Date and their series' tags
 * added; one list per statement when there are several) and 2.0's annotated CSV through
 * @influxdata/influxdb-client's `linesToTables` and `toObject` (each value typed by its column's
 * `#datatype`, `#default` filling empty cells, times left as text).
 */

interface V1Series {
  name?: string;
  tags?: Record<string, unknown>;
  columns?: string[];
  values?: unknown[][];
}
interface V1Answer {
  results: Array<{ statement_id?: number; error?: string; series?: V1Series[] }>;
}

/** A 1.x time: RFC 3339 text (to the millisecond, as a Date holds it), or a number at the query's epoch. */
function v1Time(value: unknown, precision: string | undefined): Date {
  if (typeof value === "number") {
    // node-influx's timetoDate: to nanoseconds, then the nearest millisecond.
    const ns: Record<string, number> = { h: 3.6e12, m: 6e10, s: 1e9, ms: 1e6, u: 1e3, n: 1 };
    return new Date(Math.round((value * (ns[precision ?? "n"] ?? 1)) / 1e6));
  }
  return new Date(String(value));
}

function v1Rows(series: V1Series[] = [], precision: string | undefined): Array<Record<string, unknown>> {
  const rows: Array<Record<string, unknown>> = [];
  const tagNames = series.length && series[0]!.tags ? Object.keys(series[0]!.tags) : [];
  for (const s of series) {
    const columns = s.columns ?? [];
    for (const value of s.values ?? []) {
      const row: Record<string, unknown> = {};
      columns.forEach((c, j) => {
        row[c] = c === "time" ? v1Time(value[j], precision) : value[j];
      });
      for (const t of tagNames) row[t] = s.tags?.[t];
      rows.push(row);
    }
  }
  return rows;
}

/** node-influx's ResultError: an error InfluxDB put in its results. */
export function v1ResultError(answer: V1Answer): string | undefined {
  for (const r of answer.results ?? []) if (r.error) return `Error from InfluxDB: ${r.error}`;
  return undefined;
}

/** node-influx's `query()` result: the rows, or a list of rows per statement. */
export function v1Results(answer: V1Answer, precision: string | undefined): unknown {
  const results = answer.results ?? [];
  if (results.length === 1) return v1Rows(results[0]!.series, precision);
  return results.map((r) => v1Rows(r.series, precision));
}

// ---- 2.0's annotated CSV ----

/** The client's LineSplitter: a line's cells, `"` quoting a cell and `""` a quote inside one. */
function cells(line: string): string[] {
  const out: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quoted) {
      if (c === '"') {
        if (line[i + 1] === '"') {
          cell += '"';
          i++;
        } else quoted = false;
      } else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      out.push(cell);
      cell = "";
    } else cell += c;
  }
  out.push(cell);
  return out;
}

const TYPED: Record<string, (x: string) => unknown> = {
  boolean: (x) => (x === "" ? null : x === "true"),
  unsignedLong: (x) => (x === "" ? null : +x),
  long: (x) => (x === "" ? null : +x),
  double: (x) => (x === "" ? null : x === "+Inf" ? Number.POSITIVE_INFINITY : x === "-Inf" ? Number.NEGATIVE_INFINITY : +x),
  string: (x) => x,
  base64Binary: (x) => x,
  duration: (x) => (x === "" ? null : x),
  "dateTime:RFC3339": (x) => (x === "" ? null : x),
};

interface Column {
  label: string;
  dataType: string;
  defaultValue: string;
}

/** The answer's lines, as the client's chunksToLines splits them: a newline inside a quoted cell stays in it. */
function lines(csv: string): string[] {
  const out: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < csv.length; i++) {
    const c = csv[i];
    if (c === '"') quoted = !quoted;
    else if (c === "\n" && !quoted) {
      out.push(csv.slice(start, i > start && csv[i - 1] === "\r" ? i - 1 : i));
      start = i + 1;
    }
  }
  if (start < csv.length) out.push(csv.slice(start));
  return out;
}

/** Every row of every table in the answer, as the client's `tableMeta.toObject(row)` gives it. */
export function fluxRows(csv: string): Array<Record<string, unknown>> {
  const rows: Array<Record<string, unknown>> = [];
  let columns: Column[] | undefined;
  let expectMeta = true;
  let first = 0;
  let meta: Column[] = [];
  for (const line of lines(csv)) {
    if (line === "") {
      expectMeta = true;
      columns = undefined;
      continue;
    }
    const values = cells(line);
    if (expectMeta) {
      columns ??= values.map(() => ({ label: "", dataType: "", defaultValue: "" }));
      if (!values[0]!.startsWith("#")) {
        first = values[0] === "" ? 1 : 0;
        if (first === 1) columns = columns.slice(1);
        for (let i = first; i < values.length; i++) if (columns[i - first]) columns[i - first]!.label = values[i]!;
        meta = columns;
        expectMeta = false;
      } else if (values[0] === "#datatype") {
        for (let i = 1; i < values.length; i++) if (columns[i]) columns[i]!.dataType = values[i]!;
      } else if (values[0] === "#default") {
        for (let i = 1; i < values.length; i++) if (columns[i]) columns[i]!.defaultValue = values[i]!;
      }
      continue;
    }
    const row = values.slice(first);
    const obj: Record<string, unknown> = {};
    for (let i = 0; i < meta.length && i < row.length; i++) {
      const column = meta[i]!;
      let val = row[i]!;
      if (val === "" && column.defaultValue) val = column.defaultValue;
      obj[column.label] = (TYPED[column.dataType] ?? ((x: string) => x))(val);
    }
    rows.push(obj);
  }
  return rows;
}
