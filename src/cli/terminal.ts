/**
 * What the CLI prints comes partly from the server (flow names, warnings, errors, debug messages),
 * and a terminal obeys control characters: ESC sequences retitle the window, rewrite earlier lines,
 * set hyperlinks or clipboard contents; C1 controls do the same on some terminals; BiDi overrides
 * show text in another order than it is. Each is written as a `\uXXXX` escape: readable, and the
 * same value when it stands inside a JSON string, so JSON output stays valid and equal.
 */

// C0 but tab and newline, DEL, C1, the BiDi controls and marks, the line and paragraph separators.
// eslint-disable-next-line no-control-regex -- control characters are what this matches
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;
// The same and tab and newline too: a value inside one line of our own text.
// eslint-disable-next-line no-control-regex -- control characters are what this matches
const UNSAFE_INLINE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;

const escapeChar = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;

/** A server's string inside a line we print (a name, a message): nothing in it can act on the terminal or start a line. */
export function inline(value: unknown): string {
  return String(value).replace(UNSAFE_INLINE, escapeChar);
}

/** A whole text about to be written to the terminal: our own line breaks and tabs stay, any other control is escaped. */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, escapeChar);
}
