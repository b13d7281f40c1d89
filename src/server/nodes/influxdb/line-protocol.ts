/**
 * InfluxDB's line protocol as node-red-contrib-influxdb 0.7.0 writes it, so a flow writes the same
 * points here as in Node-RED (influx-cases.recorded.json). Two writers, as there: InfluxDB 1.x through
 * node-influx 5.9 (`v1*`: fields sorted, tags in the message's order, numbers as given, the
 * measurement unescaped, as node-influx writes them) and 1.8-flux / 2.0 through
 * @influxdata/influxdb-client 1.33 (`Point`: typed fields, tags sorted, empty tags left out, every
 * name escaped, the time of writing when a point has none).
 */

export type Fields = Record<string, unknown>;
export type Tags = Record<string, unknown>;

// ---- 1.x (node-influx's grammar/escape.ts and schema.ts) ----

/** node-influx's Escaper: each of `chars` gets a backslash; `wrap` around the result. */
function v1Escaper(chars: string[], wrap = ""): (val: unknown) => string {
  const re = new RegExp(`[${chars.join("").replace(/[-|\\{()[\]^$+*?.]/g, "\\$&")}]`, "g");
  return (input) => {
    // node-influx's own quirk, kept: the first \' in a string becomes \\'.
    const val = typeof input === "string" ? input.replace(/\\'/, "\\\\'") : String(input);
    return wrap + val.replace(re, (c) => `\\${c}`) + wrap;
  };
}

const v1Tag = v1Escaper([",", "=", " "]);
const v1Quoted = v1Escaper(['"', "\\"], '"');

/** A field value as node-influx writes one without a schema: a string quoted, anything else as String() gives it. */
const v1FieldValue = (value: unknown) => (typeof value === "string" ? v1Quoted(value) : String(value));

export interface V1Point {
  measurement: string;
  fields: Fields;
  tags?: Tags;
  timestamp?: unknown;
}

/** node-influx's castTimestamp: a numeric string as it is, a number as text, a date at the precision. */
function v1Timestamp(timestamp: unknown, precision: string): string {
  if (typeof timestamp === "string") {
    if (!/^-?\d+(\.\d+)?$/.test(timestamp.trim())) throw new Error(`Expected numeric value for, timestamp, but got '${timestamp}'!`);
    return timestamp;
  }
  if (typeof timestamp === "number") return String(timestamp);
  if (timestamp instanceof Date) {
    const ms = timestamp.getTime();
    switch (precision) {
      case "h":
        return String(Math.floor(ms / 3_600_000));
      case "m":
        return String(Math.floor(ms / 60_000));
      case "s":
        return String(Math.floor(ms / 1000));
      case "ms":
        return String(ms);
      case "u":
        return `${ms}000`;
      default:
        return `${ms}000000`;
    }
  }
  return String(timestamp);
}

export function v1Lines(points: V1Point[], precision: string): string {
  return points
    .map((point) => {
      let line = String(point.measurement);
      for (const [k, v] of Object.entries(point.tags ?? {})) line += `,${v1Tag(k)}=${v1Tag(v)}`;
      Object.keys(point.fields)
        .sort()
        .forEach((k, i) => {
          line += `${i === 0 ? " " : ","}${v1Tag(k)}=${v1FieldValue(point.fields[k])}`;
        });
      // node-influx: `timestamp && cast(timestamp)`, written unless undefined: a falsy one as it is (0, null, "").
      if (point.timestamp !== undefined) line += ` ${point.timestamp ? v1Timestamp(point.timestamp, precision) : String(point.timestamp)}`;
      return line;
    })
    .join("\n");
}

/** node-red-contrib-influxdb's setFieldIntegers: "5i" becomes the number 5 (which node-influx then writes as a float). */
export function v1Integers(fields: Fields): Fields {
  const out: Fields = { ...fields };
  for (const [k, v] of Object.entries(out)) if (typeof v === "string" && /^-?\d+i$/.test(v)) out[k] = Number.parseInt(v.slice(0, -1), 10);
  return out;
}

/** A point of influxdb out's message on 1.x: `time` among the fields is the timestamp. */
export function v1PointOf(measurement: string, fields: Fields, tags?: Tags): V1Point {
  const f = v1Integers(fields);
  const point: V1Point = { measurement, fields: f, ...(tags !== undefined ? { tags } : {}) };
  if (f.time) {
    point.timestamp = f.time;
    delete f.time;
  }
  return point;
}

// ---- 1.8-flux and 2.0 (@influxdata/influxdb-client's Point and util/escape.ts) ----

function v2Escaper(characters: string, replacements: string[]): (value: string) => string {
  return (value) => {
    let out = "";
    for (const c of String(value)) {
      const i = characters.indexOf(c);
      out += i >= 0 ? replacements[i] : c;
    }
    return out;
  };
}

const v2Measurement = v2Escaper(", \n\r\t", ["\\,", "\\ ", "\\n", "\\r", "\\t"]);
const v2Tag = v2Escaper(", =\n\r\t", ["\\,", "\\ ", "\\=", "\\n", "\\r", "\\t"]);
const v2QuotedInner = v2Escaper('"\\', ['\\"', "\\\\"]);

export type WritePrecision = "ns" | "us" | "ms" | "s";

/** The client's clock at a precision (its `currentTime`): milliseconds padded with zeros below them. */
function now(precision: WritePrecision): string {
  const ms = Date.now();
  if (precision === "s") return String(Math.floor(ms / 1000));
  if (precision === "ms") return String(ms);
  if (precision === "us") return `${ms}000`;
  return `${ms}000000`;
}

function dateAt(d: Date, precision: WritePrecision): string {
  const ms = d.getTime();
  if (precision === "s") return String(Math.floor(ms / 1000));
  if (precision === "ms") return String(ms);
  if (precision === "us") return `${ms}000`;
  return `${ms}000000`;
}

/** A point as @influxdata/influxdb-client builds it: fields already written as the protocol's values. */
export class Point {
  private readonly tags: Record<string, unknown> = {};
  private readonly fields: Record<string, string> = {};
  private time: unknown = undefined;

  constructor(private readonly name: string) {}

  tag(name: string, value: unknown): this {
    this.tags[name] = value;
    return this;
  }

  timestamp(value: unknown): this {
    this.time = value;
    return this;
  }

  /** node-red-contrib-influxdb's addFieldToPoint: `time` is the timestamp; a number a float, "5i" an integer, text a string, a boolean T/F; other values are left out. */
  field(name: string, value: unknown): this {
    if (name === "time") return this.timestamp(value);
    if (typeof value === "number") {
      if (!Number.isFinite(value)) throw new Error(`invalid float value for field '${name}': ${value}`);
      this.fields[name] = String(value);
    } else if (typeof value === "string") {
      if (/^-?\d+i$/.test(value)) {
        const n = Number.parseInt(value.slice(0, -1), 10);
        if (Number.isNaN(n) || n <= -9223372036854776e3 || n >= 9223372036854776e3) throw new Error(`invalid integer value for field '${name}': '${n}'!`);
        this.fields[name] = `${Math.floor(n)}i`;
      } else this.fields[name] = `"${v2QuotedInner(value)}"`;
    } else if (typeof value === "boolean") this.fields[name] = value ? "T" : "F";
    return this;
  }

  fieldsOf(fields: unknown): this {
    if (fields && typeof fields === "object") for (const [k, v] of Object.entries(fields)) this.field(k, v);
    return this;
  }

  tagsOf(tags: unknown): this {
    if (tags && typeof tags === "object") for (const [k, v] of Object.entries(tags)) this.tag(k, v);
    return this;
  }

  /** The line, or undefined when the point has no measurement or no field (the client drops it). */
  toLine(precision: WritePrecision): string | undefined {
    if (!this.name) return undefined;
    const fields = Object.keys(this.fields)
      .sort()
      .filter((k) => k !== "")
      .map((k) => `${v2Tag(k)}=${this.fields[k]}`)
      .join(",");
    if (fields === "") return undefined;
    let tags = "";
    for (const k of Object.keys(this.tags).sort()) {
      const v = this.tags[k];
      if (k !== "" && v) tags += `,${v2Tag(k)}=${v2Tag(String(v))}`;
    }
    // The write API's convertTime: none is now; text as it is (empty: none); a date or a number at the precision.
    const t = this.time;
    const time = t === undefined ? now(precision) : typeof t === "string" ? (t.length > 0 ? t : undefined) : t instanceof Date ? dateAt(t, precision) : typeof t === "number" ? String(Math.floor(t)) : String(t);
    return `${v2Measurement(this.name)}${tags} ${fields}${time !== undefined ? ` ${time}` : ""}`;
  }
}
