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
