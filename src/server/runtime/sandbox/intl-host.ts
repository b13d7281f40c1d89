/**
 * The host's half of `Intl` in the function sandbox. QuickJS has no Intl: its toLocaleString
 * ignores locales and options, its localeCompare compares code points. Node-RED's code runs in
 * V8, whose answers come from ICU, so ours ask the host's V8 (the server's ICU and time zone, as
 * Node-RED's do): the driver (driver.ts) patches the prototypes' locale methods and
 * intl-source.ts builds the `Intl` object; both call `intlCall` through one host function.
 *
 * Calls (all texts; the answer is "=" and the value's text, JSON where it says so, or "!" and
 * `[name, message]` JSON for what the call threw: a RangeError stays a RangeError):
 * - `date`, kind ("" | "Date" | "Time"), `[locales, options]` JSON, epoch ms: Date.prototype.toLocale{kind}String
 * - `number`, `[locales, options]` JSON, value (see `valueOf`): Number/BigInt.prototype.toLocaleString
 * - `compare`, `[locales, options]` JSON, a, b: an Intl.Collator's compare (a number as text)
 * - `sort`, `[locales, options]` JSON, strings JSON: the order (indices as JSON) a stable sort by the collator's compare puts them in, or null past its time budget
 * - `ascii`, `[locales, options]` JSON: a collator's weights of ASCII (asciiCollation), which the sandbox compares itself
 * - `case`, "upper" | "lower", `[locales]` JSON, text: String.prototype.toLocale{Upper,Lower}Case
 * - `new`, constructor name, `[locales, options]` JSON: its resolvedOptions() as JSON (throws what V8 throws)
 * - `call`, constructor name, `[locales, options]` JSON, `[method, ...args]` JSON (see `revive`): the method's result as JSON
 * - `static`, constructor name ("" for Intl itself), `[method, ...args]` JSON: supportedLocalesOf, getCanonicalLocales, supportedValuesOf
 *
 * Formatters are kept by their constructor, locales and options, at most FORMATTERS_KEPT of them
 * (those whose locales and options are short), as V8 keeps the one of a call without arguments.
 */

type IntlConstructorName = "DateTimeFormat" | "NumberFormat" | "Collator" | "PluralRules" | "RelativeTimeFormat" | "ListFormat" | "DisplayNames";

type IntlConstructor = new (locales?: unknown, options?: unknown) => object;

// Their own parameter types differ; here each takes what the sandbox sent (V8 checks it).
const CONSTRUCTORS = {
  DateTimeFormat: Intl.DateTimeFormat,
  NumberFormat: Intl.NumberFormat,
  Collator: Intl.Collator,
  PluralRules: Intl.PluralRules,
  RelativeTimeFormat: Intl.RelativeTimeFormat,
  ListFormat: Intl.ListFormat,
  DisplayNames: Intl.DisplayNames,
} as unknown as Record<IntlConstructorName, IntlConstructor>;

/** The methods the sandbox may call on each (never a constructor's other properties). */
const METHODS: Record<IntlConstructorName, ReadonlySet<string>> = {
  DateTimeFormat: new Set(["format", "formatToParts", "formatRange", "formatRangeToParts"]),
  NumberFormat: new Set(["format", "formatToParts", "formatRange", "formatRangeToParts"]),
  Collator: new Set(["compare"]),
  PluralRules: new Set(["select", "selectRange"]),
  RelativeTimeFormat: new Set(["format", "formatToParts"]),
  ListFormat: new Set(["format", "formatToParts"]),
  DisplayNames: new Set(["of"]),
};

const STATICS = new Set(["supportedLocalesOf", "getCanonicalLocales", "supportedValuesOf"]);

const FORMATTERS_KEPT = 256;
const KEY_KEPT_CHARS = 1_000;
/** What one call may carry (driver.ts INTL_MAX_CHARS): a host call cannot be interrupted. */
const INTL_MAX_CHARS = 1_000_000;
const formatters = new Map<string, object>();
/** Items one `sort` call orders at most (driver.ts SORT_BATCH_MAX). */
const SORT_MAX_ITEMS = 10_000;
/** What one `sort` call may take (a run's hard limit is its own limit plus 100 ms of grace); tests lower it. */
export const intlLimits = { sortBudgetMs: 40 };
const OVER_BUDGET = Symbol("over budget");

/** The formatter kept under `key`, made by `make` if none is (the most recently used are kept). */
function kept(key: string, make: () => object): object {
  // Options V8 ignores may be long: such a formatter is made for the call and not kept.
  if (key.length > KEY_KEPT_CHARS) return make();
  let made = formatters.get(key);
  if (made) {
    formatters.delete(key);
    formatters.set(key, made);
    return made;
  }
  made = make();
  formatters.set(key, made);
  if (formatters.size > FORMATTERS_KEPT) formatters.delete(formatters.keys().next().value!);
  return made;
}

function formatter(name: IntlConstructorName, args: string): object {
  return kept(`${name}\u0000${args}`, () => {
    const [locales, options] = parseArgs(args);
    return new CONSTRUCTORS[name](locales, options);
  });
}

const DATE_FIELDS = ["weekday", "year", "month", "day"];
const TIME_FIELDS = ["dayPeriod", "hour", "minute", "second", "fractionalSecondDigits"];

/**
 * The DateTimeFormat that Date.prototype.toLocale{kind}String(locales, options) formats with,
 * kept (V8 makes one per call when there are options): ECMA-402's defaults (CreateDateTimeFormat
 * with required any/date/time, defaults all/date/time) added to the options. Null where V8's own
 * call must answer (dateStyle or timeStyle, which a date-only or time-only call may refuse, or
 * options that are not an object).
 */
function dateFormatter(kind: string, args: string): Intl.DateTimeFormat | null {
  const [locales, options] = parseArgs(args);
  if (options !== undefined && (typeof options !== "object" || options === null || Array.isArray(options) || "dateStyle" in options || "timeStyle" in options)) return null;
  return kept(`date${kind}\u0000${args}`, () => {
    const o: Record<string, unknown> = { ...(options as Record<string, unknown> | undefined) };
    const date = kind !== "Time";
    const time = kind !== "Date";
    const given = (date && DATE_FIELDS.some((f) => o[f] !== undefined)) || (time && TIME_FIELDS.some((f) => o[f] !== undefined));
    if (!given && date) Object.assign(o, { year: "numeric", month: "numeric", day: "numeric" });
    if (!given && time) Object.assign(o, { hour: "numeric", minute: "numeric", second: "numeric" });
    return new Intl.DateTimeFormat(locales as string, o as Intl.DateTimeFormatOptions);
  }) as Intl.DateTimeFormat;
}

/** Locales and options as the sandbox gave them (null stays null: V8 refuses it). */
function parseArgs(json: string): [unknown, unknown] {
  if (json === "") return [undefined, undefined];
  const parsed = JSON.parse(json, revive) as unknown[];
  return [parsed[0], parsed[1]];
}

/** A value the sandbox sent as text: "n<number>", "b<bigint>", "s<string>", "u" undefined. */
function valueOf(text: string): unknown {
  const tag = text[0];
  const rest = text.slice(1);
  if (tag === "n") return rest === "-0" ? -0 : Number(rest);
  if (tag === "b") return BigInt(rest);
  if (tag === "s") return rest;
  return undefined;
}

/** JSON arguments with what JSON lacks as {"\u0000undefined": 1}, {"\u0000bigint": "123"} and {"\u0000num": "NaN" | "Infinity" | "-Infinity" | "-0"}. */
function revive(_key: string, value: unknown): unknown {
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    const keys = Object.keys(value);
    const tagged = value as Record<string, string>;
    if (keys.length === 1 && keys[0] === "\u0000undefined") return undefined;
    if (keys.length === 1 && keys[0] === "\u0000bigint") return BigInt(tagged["\u0000bigint"]!);
    if (keys.length === 1 && keys[0] === "\u0000num") return tagged["\u0000num"] === "-0" ? -0 : Number(tagged["\u0000num"]);
  }
  return value;
}

function isConstructorName(name: string): name is IntlConstructorName {
  return Object.prototype.hasOwnProperty.call(CONSTRUCTORS, name);
}

const thrown = (name: string, message: string) => `!${JSON.stringify([name, message])}`;

function answer(run: () => unknown, json: boolean): string {
  try {
    const value = run();
    // undefined (DisplayNames.of an unknown code) is not JSON: the sandbox reads the word.
    return `=${json ? (value === undefined ? "undefined" : JSON.stringify(value)) : String(value)}`;
  } catch (err) {
    return thrown(err instanceof Error ? err.name : "Error", err instanceof Error ? err.message : String(err));
  }
}

/** Tab, newline, carriage return and printable ASCII: what the sandbox compares itself. */
const ASCII_CODES = [9, 10, 13, ...Array.from({ length: 95 }, (_, i) => 32 + i)];

/** The table's comparison, as driver.ts asciiCompare makes it (for codes all in the table). */
function modelCompare(a: string, b: string, primary: number[], tertiary: number[]): number {
  const n = Math.min(a.length, b.length);
  let third = 0;
  for (let i = 0; i < n; i++) {
    const px = primary[a.charCodeAt(i)]!;
    const py = primary[b.charCodeAt(i)]!;
    if (px !== py) return px < py ? -1 : 1;
    const tx = tertiary[a.charCodeAt(i)]!;
    const ty = tertiary[b.charCodeAt(i)]!;
    if (third === 0 && tx !== ty) third = tx < ty ? -1 : 1;
  }
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  return third;
}

const ASCII_TABLES_KEPT = 64;
const asciiTables = new Map<string, string>();

/**
 * A collator's weights of ASCII_CODES as JSON `[primary[127], tertiary[127]]` (0 for other
 * codes; tertiary all 0 where its sensitivity ignores case), or "" where they do not decide its
 * order. Each code has one collation element with the common secondary weight, and the only
 * tertiary difference among them is case, so ICU's answer for strings of these codes is the
 * comparison of their primary weights, then of their tertiary ones, unless the locale tailors
 * ASCII with contractions (Czech sorts "ch" after "h", Danish "aa" as "å") or the options change
 * more (numeric, punctuation ignored, search). The weights come from the collator's own order of
 * the single codes; the table is then checked against the collator on every string of one and
 * two codes (9,702, once per worker thread and locale arguments: tens of milliseconds), and kept
 * only if it orders them all as the collator does. intl-host.test.ts and the sandbox's test
 * compare random strings too.
 */
function asciiCollation(args: string): string {
  const known = asciiTables.get(args);
  if (known !== undefined) {
    // Most recently used last.
    asciiTables.delete(args);
    asciiTables.set(args, known);
    return known;
  }
  const table = asciiTableOf(args);
  if (args.length <= KEY_KEPT_CHARS) {
    asciiTables.set(args, table);
    if (asciiTables.size > ASCII_TABLES_KEPT) asciiTables.delete(asciiTables.keys().next().value!);
  }
  return table;
}

function asciiTableOf(args: string): string {
  const collator = formatter("Collator", args) as Intl.Collator;
  const { locale, usage, ignorePunctuation, numeric } = collator.resolvedOptions();
  if (usage !== "sort" || ignorePunctuation || numeric) return "";
  const chars = ASCII_CODES.map((c) => String.fromCharCode(c));
  const sorted = [...chars].sort(collator.compare);
  const cased = collator.compare("a", "A") !== 0;
  const base = new Intl.Collator(locale, { sensitivity: "base" });
  const primary = new Array<number>(127).fill(0);
  const tertiary = new Array<number>(127).fill(0);
  let p = 0;
  let t = 0;
  sorted.forEach((ch, i) => {
    if (i === 0 || base.compare(sorted[i - 1]!, ch) !== 0) {
      p++;
      t = 0;
    }
    t++;
    primary[ch.charCodeAt(0)] = p;
    tertiary[ch.charCodeAt(0)] = cased ? t : 0;
  });
  const strings = [...chars];
  for (const a of chars) for (const b of chars) strings.push(a + b);
  strings.sort(collator.compare);
  for (let i = 1; i < strings.length; i++) {
    if (modelCompare(strings[i - 1]!, strings[i]!, primary, tertiary) !== collator.compare(strings[i - 1]!, strings[i]!)) return "";
  }
  return JSON.stringify([primary, tertiary]);
}

/** One call from the sandbox; see the file's comment. */
export function intlCall(op: string, a: string, b = "", c = ""): string {
  // The driver refuses these first (intlHost); here for whatever reaches the host function anyway.
  if (a.length + b.length + c.length > INTL_MAX_CHARS) return thrown("RangeError", "Intl: the arguments are too long for the function sandbox (over 1,000,000 characters)");
  switch (op) {
    case "date": {
      const date = new Date(Number(c));
      return answer(() => {
        // V8's own answer for an invalid date ("Invalid Date", where a DateTimeFormat throws).
        const kept = Number.isNaN(date.getTime()) ? null : dateFormatter(a, b);
        if (kept) return kept.format(date);
        const [locales, options] = parseArgs(b) as [string, Intl.DateTimeFormatOptions];
        return a === "Date" ? date.toLocaleDateString(locales, options) : a === "Time" ? date.toLocaleTimeString(locales, options) : date.toLocaleString(locales, options);
      }, false);
    }
    case "number": {
      // Number.prototype.toLocaleString(locales, options) is new Intl.NumberFormat(locales, options).format(x).
      return answer(() => (formatter("NumberFormat", a) as Intl.NumberFormat).format(valueOf(b) as number | bigint), false);
    }
    case "ascii":
      return answer(() => asciiCollation(a), false);
    case "compare":
      return answer(() => (formatter("Collator", a) as Intl.Collator).compare(b, c), false);
    case "sort":
      return answer(() => {
        const items = JSON.parse(b) as unknown;
        if (!Array.isArray(items) || items.length > SORT_MAX_ITEMS || !items.every((item) => typeof item === "string")) throw new TypeError("Intl: sort takes at most 10,000 strings");
        const { compare } = formatter("Collator", a) as Intl.Collator;
        const order = items.map((_, i) => i);
        // A host call cannot be interrupted: past its budget the sandbox sorts them itself
        // (a comparison per call, between which its time limit holds). Strings made to defeat
        // ICU's shortcuts can cost microseconds a comparison.
        const until = performance.now() + intlLimits.sortBudgetMs;
        let compared = 0;
        try {
          // Stable, as V8's Array.prototype.sort is: equal items keep their order.
          order.sort((x, y) => {
            if (++compared % 256 === 0 && performance.now() > until) throw OVER_BUDGET;
            return compare(items[x] as string, items[y] as string) || x - y;
          });
        } catch (err) {
          if (err === OVER_BUDGET) return null;
          throw err;
        }
        return order;
      }, true);
    case "case":
      return answer(() => {
        const locales = parseArgs(b)[0] as string;
        return a === "upper" ? c.toLocaleUpperCase(locales) : c.toLocaleLowerCase(locales);
      }, false);
    case "new":
      if (!isConstructorName(a)) return thrown("TypeError", `Intl.${a} is not a constructor`);
      return answer(() => (formatter(a, b) as { resolvedOptions(): unknown }).resolvedOptions(), true);
    case "call": {
      if (!isConstructorName(a)) return thrown("TypeError", `Intl.${a} is not a constructor`);
      return answer(() => {
        const [method, ...args] = JSON.parse(c, revive) as [string, ...unknown[]];
        if (!METHODS[a].has(method)) throw new TypeError(`Intl.${a}.prototype.${method} is not a function`);
        const target = formatter(a, b) as Record<string, (...args: unknown[]) => unknown>;
        return target[method]!(...args);
      }, true);
    }
    case "static":
      return answer(() => {
        const [method, ...args] = JSON.parse(b, revive) as [string, ...unknown[]];
        if (!STATICS.has(method)) throw new TypeError(`${method} is not a function`);
        const owner = (a === "" ? Intl : isConstructorName(a) ? CONSTRUCTORS[a] : undefined) as Record<string, (...args: unknown[]) => unknown> | undefined;
        const fn = owner?.[method];
        if (typeof fn !== "function") throw new TypeError(`Intl${a ? `.${a}` : ""}.${method} is not a function`);
        return fn.apply(owner, args);
      }, true);
    default:
      return thrown("TypeError", `unknown Intl call ${op.slice(0, 40)}`);
  }
}
