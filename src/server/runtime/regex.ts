import { RE2JS } from "re2js";

/**
 * Regular expressions from flow configs (switch "regex" rules, change "re" rules) run on RE2JS, a
 * linear-time engine (RE2's automaton in pure JavaScript): matching time grows with the input's
 * length, never exponentially, so `^(a+)+$` on a long payload cannot block the main thread.
 * Why not V8's RegExp with a deadline: V8 cannot interrupt a running match, so a deadline would mean
 * a worker per match (a thread hop per message) or a killed worker per runaway. RE2 syntax is the
 * price: no backreferences or lookaround; such patterns are refused when the flow is saved.
 */
export type SafeRegex = RE2JS;

export function compileSafeRegex(source: string, options: { caseInsensitive?: boolean } = {}): SafeRegex {
  return RE2JS.compile(source, options.caseInsensitive ? RE2JS.CASE_INSENSITIVE : 0);
}

/** Why `source` is not a pattern the runtime accepts, or null when it is. */
export function safeRegexProblem(source: string): string | null {
  try {
    compileSafeRegex(source);
    return null;
  } catch (err) {
    return `is not a supported regular expression (RE2 syntax: no backreferences or lookaround): ${err instanceof Error ? err.message : String(err)}`.slice(0, 300);
  }
}

export function safeTest(regex: SafeRegex, input: string): boolean {
  return regex.matcher(input).find();
}

/** Replaces every match; `$1`, `${name}` in the replacement name groups (RE2JS syntax). */
export function safeReplaceAll(regex: SafeRegex, input: string, replacement: string): string {
  return regex.matcher(input).replaceAll(replacement);
}

/** A pattern that is only tested (a switch rule), never asked where it matched. */
export interface RegexTest {
  test(input: string): boolean;
}

/**
 * Lookaheads right after a leading `^` (`^(?!.*get$|.*set$).*$`, a Zigbee2MQTT topic router's;
 * `^(?=.*\d)(?=.*[a-z]).{8,}$`): without the `m` flag such a match can start only at 0, so each
 * lookahead is its body matched at 0 (or not, for `(?!`) and the rest is the rest matched at 0,
 * each an RE2 pattern: JavaScript's answer, in linear time. Null for any other pattern (a
 * top-level `|` after them belongs to the whole pattern, `^(?!a)b|c`, so it is not this form).
 */
function leadingLookaheads(source: string): { lookaheads: Array<{ body: string; negative: boolean }>; rest: string } | null {
  if (!source.startsWith("^(?=") && !source.startsWith("^(?!")) return null;
  const lookaheads: Array<{ body: string; negative: boolean }> = [];
  let i = 1;
  while (source.startsWith("(?=", i) || source.startsWith("(?!", i)) {
    const end = closing(source, i);
    if (end < 0) return null;
    lookaheads.push({ body: source.slice(i + 3, end), negative: source[i + 2] === "!" });
    i = end + 1;
  }
  const rest = source.slice(i);
  return topLevelAlternation(rest) ? null : { lookaheads, rest };
}

/** A switch rule's pattern as it tests: RE2, or leading lookaheads as RE2 patterns of their own (leadingLookaheads). */
export function compileRegexTest(source: string, options: { caseInsensitive?: boolean } = {}): RegexTest {
  const leading = leadingLookaheads(source);
  if (!leading) {
    const regex = compileSafeRegex(source, options);
    return { test: (input) => safeTest(regex, input) };
  }
  const checks = leading.lookaheads.map((l) => ({ regex: compileSafeRegex(`^(?:${l.body})`, options), negative: l.negative }));
  const rest = compileSafeRegex(`^(?:${leading.rest})`, options);
  return { test: (input) => checks.every((c) => safeTest(c.regex, input) !== c.negative) && safeTest(rest, input) };
}

/** Why `source` cannot be a tested pattern (compileRegexTest), or null. */
export function regexTestProblem(source: string): string | null {
  const leading = leadingLookaheads(source);
  if (!leading) return safeRegexProblem(source);
  for (const part of [...leading.lookaheads.map((l) => l.body), leading.rest]) {
    const problem = safeRegexProblem(`^(?:${part})`);
    if (problem) return problem;
  }
  return null;
}

/** Width of a lookbehind body: fixed (every match the same length), or null. */
function fixedWidth(body: string): number | null {
  let width = 0;
  let last = 0;
  let i = 0;
  while (i < body.length) {
    const ch = body[i]!;
    if (ch === "|" || ch === "(" || ch === ")" || ch === "*" || ch === "+" || ch === "?") return null;
    if (ch === "{") {
      const m = /^\{(\d+)\}/.exec(body.slice(i));
      if (!m) return null;
      width += last * (Number(m[1]) - 1);
      i += m[0].length;
      continue;
    }
    if (ch === "^" || ch === "$") {
      last = 0;
      i++;
      continue;
    }
    if (ch === "\\") {
      const next = body[i + 1] ?? "";
      if (/[1-9k]/.test(next)) return null;
      last = next === "b" || next === "B" ? 0 : 1;
      width += last;
      i += next === "x" ? 4 : next === "u" ? 6 : 2;
      continue;
    }
    if (ch === "[") {
      let j = i + 1;
      if (body[j] === "^") j++;
      if (body[j] === "]") j++;
      while (j < body.length && body[j] !== "]") j += body[j] === "\\" ? 2 : 1;
      if (j >= body.length) return null;
      last = 1;
      width++;
      i = j + 1;
      continue;
    }
    last = 1;
    width++;
    i++;
  }
  return width;
}

/** The group that ends at `open`'s matching parenthesis (the pattern is well formed: V8 compiled it). */
function closing(source: string, open: number): number {
  let depth = 0;
  for (let i = open; i < source.length; i++) {
    const ch = source[i];
    if (ch === "\\") i++;
    else if (ch === "[") {
      i++;
      if (source[i] === "^") i++;
      if (source[i] === "]") i++;
      while (i < source.length && source[i] !== "]") i += source[i] === "\\" ? 2 : 1;
    } else if (ch === "(") depth++;
    else if (ch === ")" && --depth === 0) return i;
  }
  return -1;
}

/** How far before lastIndex a lookbehind of no fixed width may reach, for the matches after the first. */
export const LOOKBEHIND_REACH = 1024;

/**
 * A pattern with lookaround, as RE2 can run it: Node-RED's JSONata runs any JavaScript regular
 * expression and real flows use lookbehind (`(?<=sensors\/[0-9]+\/)[a-z_]+`), which RE2 lacks. A
 * positive lookbehind at the pattern's start and a positive lookahead at its end become ordinary
 * parts of an RE2 pattern, `(?:X)(Y)(?:Z)`, whose group 1 is the match, in linear time, with the
 * same priorities. For a lookbehind of fixed width the leftmost match of that is exactly
 * JavaScript's; for one of varying width it is the match whose lookbehind starts leftmost (the
 * same unless two lookbehind matches end in different places, as `a|ab` can), and after the
 * first match it reaches at most LOOKBEHIND_REACH characters back. Other lookarounds (negative
 * ones, lookarounds elsewhere in the pattern) stay refused. Returns null without lookaround;
 * `behindWidth` is the fixed width, or null when it varies.
 */
export function lookaroundAsRe2(source: string): { core: string; behindWidth: number | null } | { problem: string } | null {
  if (!/\(\?<?[=!]/.test(source)) return null;
  const refused = { problem: "only a lookbehind (?<=…) at the start and a lookahead (?=…) at the end are supported" };
  let core = source;
  let behind = "";
  let behindWidth: number | null = 0;
  if (core.startsWith("(?<=")) {
    const end = closing(core, 0);
    if (end < 0) return refused;
    behind = core.slice(4, end);
    behindWidth = fixedWidth(behind);
    core = core.slice(end + 1);
  }
  let ahead = "";
  const lastOpen = core.lastIndexOf("(?=");
  if (lastOpen >= 0 && closing(core, lastOpen) === core.length - 1 && !core.slice(0, lastOpen).endsWith("\\")) {
    ahead = core.slice(lastOpen + 3, -1);
    core = core.slice(0, lastOpen);
  }
  if (/\(\?<?[=!]/.test(core) || /\(\?<?[=!]/.test(behind) || /\(\?<?[=!]/.test(ahead) || topLevelAlternation(core)) return refused;
  if (/\((?!\?)/.test(behind) || /\((?!\?)/.test(ahead)) return { problem: "a lookaround may not capture (use (?:…) inside it)" };
  return { core: `(?:${behind})(${core})(?:${ahead})`, behindWidth };
}

/** Whether `source` has a `|` outside every group and class (`(?<=X)a|b` is `(?<=X)a` or `b`). */
function topLevelAlternation(source: string): boolean {
  let depth = 0;
  for (let i = 0; i < source.length; i++) {
    const ch = source[i];
    if (ch === "\\") i++;
    else if (ch === "[") {
      i++;
      if (source[i] === "^") i++;
      if (source[i] === "]") i++;
      while (i < source.length && source[i] !== "]") i += source[i] === "\\" ? 2 : 1;
    } else if (ch === "(") depth++;
    else if (ch === ")") depth--;
    else if (ch === "|" && depth === 0) return true;
  }
  return false;
}
