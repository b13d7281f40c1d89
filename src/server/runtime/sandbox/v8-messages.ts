/**
 * V8's wording of the errors QuickJS words its own way, for what the host shows of an error the
 * user's code threw (msg.error.message, the node's status, the debug sidebar): Node-RED runs the
 * code in Node's V8, and flows and users read its text. Only what can be said exactly is rewritten;
 * anything else keeps QuickJS's text. An error the code catches itself keeps QuickJS's message.
 */

export interface EngineError {
  name: string;
  message: string;
  stack: string;
}

/** QuickJS's message → V8's, where one is always the other (the name too, where it differs). */
const SAME_MEANING: Array<{ name?: string; pattern: RegExp; replacement: string; v8Name?: string }> = [
  { pattern: /^'([^']*)' is not defined$/, replacement: "$1 is not defined" },
  { pattern: /^cannot read property '([^']*)' of (undefined|null)$/, replacement: "Cannot read properties of $2 (reading '$1')" },
  { pattern: /^cannot set property '([^']*)' of (undefined|null)$/, replacement: "Cannot set properties of $2 (setting '$1')" },
  { name: "InternalError", pattern: /^stack overflow$/, replacement: "Maximum call stack size exceeded", v8Name: "RangeError" },
  { name: "RangeError", pattern: /^invalid array length$/, replacement: "Invalid array length" },
  { name: "TypeError", pattern: /^empty array$/, replacement: "Reduce of empty array with no initial value" },
  { name: "TypeError", pattern: /^cannot convert symbol to string$/, replacement: "Cannot convert a Symbol value to a string" },
  // QuickJS's own URIError texts (a URIError the code throws keeps its words).
  { name: "URIError", pattern: /^(?:expecting %|expecting hex digit|malformed UTF-8|invalid character|expecting surrogate pair)$/, replacement: "URI malformed" },
];

/**
 * The error as V8 would have named and worded it. `sources`: the code the engine may have been
 * running (the op's own first), for a call of something that is not a function, which V8 words
 * with the callee as written ("msg.payload.trim(...).toUpper is not a function").
 */
export function v8Error(error: EngineError, sources: ReadonlyArray<string | undefined> = []): { name: string; message: string } {
  if (error.name === "TypeError" && error.message === "not a function") {
    const callee = failedCallee(error.stack, sources);
    if (callee) return { name: "TypeError", message: `${callee.text} is not a ${callee.isNew ? "constructor" : "function"}` };
  }
  // A constant assigned; the same text of a frozen object's property keeps QuickJS's words.
  const readOnly = error.name === "TypeError" ? /^'([^']*)' is read-only$/.exec(error.message) : null;
  if (readOnly && constantAssigned(error.stack, sources, readOnly[1]!)) return { name: "TypeError", message: "Assignment to constant variable." };
  for (const { name, pattern, replacement, v8Name } of SAME_MEANING) {
    if ((name === undefined || name === error.name) && pattern.test(error.message)) {
      return { name: v8Name ?? error.name, message: error.message.replace(pattern, replacement) };
    }
  }
  return { name: error.name, message: error.message };
}

/** The wrapper the Function constructor puts before the body: "(function anonymous(…\n) {\n". */
const WRAPPER_LINES = 2;

/**
 * The callee of the call that failed: the top frame must be the user's code (not a builtin's, as
 * `[1].map(3)` fails inside map), at the call's "(" (or a tagged template's "`").
 */
function failedCallee(stack: string, sources: ReadonlyArray<string | undefined>): { text: string; isNew: boolean } | undefined {
  let found: { text: string; isNew: boolean } | undefined;
  for (const { source, offset } of framePlaces(stack, sources)) {
    const paren = source[offset] === "(" || source[offset] === "`" ? offset : tailCallParen(source, offset);
    const callee = paren === undefined ? undefined : calleeBefore(source, paren);
    if (!callee) continue;
    // Every source is "<input>" with the same wrapper: a call at that place in two of them (the
    // body and On Start) leaves it unknown which one failed.
    if (found) return undefined;
    found = callee;
  }
  return found;
}

/** Where the top frame is in each source that has that line and column (it must be the user's code, not a builtin's). */
function framePlaces(stack: string, sources: ReadonlyArray<string | undefined>): Array<{ source: string; offset: number }> {
  const top = /^\s*at [^\n]*?\(?<input>:(\d+):(\d+)\)?\s*$/m.exec(stack.split("\n")[0] ?? "");
  if (!top) return [];
  const line = Number(top[1]) - WRAPPER_LINES;
  const column = Number(top[2]);
  if (line < 1 || column < 1) return [];
  const places: Array<{ source: string; offset: number }> = [];
  for (const source of new Set(sources)) {
    if (!source) continue;
    const offset = offsetOf(source, line, column);
    if (offset !== undefined) places.push({ source, offset });
  }
  return places;
}

/** Whether the assignment at the top frame is to the name `name` (QuickJS places it at the name). */
function constantAssigned(stack: string, sources: ReadonlyArray<string | undefined>, name: string): boolean {
  const places = framePlaces(stack, sources);
  return places.length > 0 && places.every(({ source, offset }) => source.startsWith(name, offset) && /^\s*(?:[-+*/%&|^]|\*\*|<<|>>>?|&&|\|\||\?\?)?=(?!=)|^\s*(?:\+\+|--)/.test(source.slice(offset + name.length, offset + name.length + 8)) && !IDENT.test(source[offset + name.length] ?? ""));
}

/**
 * QuickJS places a failed tail call (`return f(x);`) at its `return`: the call is then the whole
 * expression after it, and its "(" the one that closes last.
 */
function tailCallParen(source: string, offset: number): number | undefined {
  if (!/^return\b/.test(source.slice(offset, offset + 7))) return undefined;
  const start = skipSpaceForward(source, offset + 6);
  let depth = 0;
  let end = start;
  for (; end < source.length; end++) {
    const c = source[end]!;
    if (c === "(" || c === "[" || c === "{") depth++;
    else if (c === ")" || c === "]" || c === "}") {
      if (depth === 0) break;
      depth--;
    } else if (depth === 0 && (c === ";" || c === "\n")) break;
    else if (c === '"' || c === "'" || c === "`" || c === "/") return undefined;
  }
  const last = skipSpaceBack(source, end - 1);
  if (source[last] !== ")") return undefined;
  const open = matchingBack(source, last);
  if (open === undefined || source[open] !== "(") return undefined;
  // The call must be the whole expression.
  return calleeBefore(source, open)?.start === start ? open : undefined;
}

/** The index of line `line`, column `column` (QuickJS counts code points, not UTF-16 units). */
function offsetOf(source: string, line: number, column: number): number | undefined {
  let offset = 0;
  for (let l = 1; l < line; l++) {
    const next = source.indexOf("\n", offset);
    if (next < 0) return undefined;
    offset = next + 1;
  }
  const end = source.indexOf("\n", offset);
  const lineEnd = end < 0 ? source.length : end;
  let at = offset;
  for (let c = 1; c < column && at < lineEnd; c++) {
    const code = source.charCodeAt(at);
    at += code >= 0xd800 && code <= 0xdbff ? 2 : 1;
  }
  return at < lineEnd ? at : undefined;
}

const IDENT = /[A-Za-z0-9_$]/;
/** Words after which "(" opens a parenthesized expression, not a call. */
const KEYWORDS = new Set(["return", "typeof", "await", "void", "delete", "in", "of", "new", "case", "throw", "yield", "else", "do", "instanceof"]);

/**
 * V8's CallPrinter form of the expression that ends just before `end` (a member chain: names,
 * `.x`, `?.x`, `[0]`, `['x']` as `.x`, `[i]`, inner calls as `(...)`, parentheses dropped), where it
 * starts, and whether `new` precedes it; undefined for anything else.
 */
export function calleeBefore(source: string, end: number): { text: string; start: number; isNew: boolean } | undefined {
  // Built from the end: reversed when done.
  const parts: string[] = [];
  const done = (start: number, isNew: boolean) => {
    // `new X().y()`: V8 names the new object "(intermediate value)"; not said here.
    if (isNew && parts.includes("(...)")) return undefined;
    return { text: parts.reverse().join(""), start, isNew };
  };
  let pos = skipSpaceBack(source, end - 1);
  for (;;) {
    const c = source[pos];
    if (c === undefined) return undefined;
    if (IDENT.test(c)) {
      let start = pos;
      while (start > 0 && IDENT.test(source[start - 1]!)) start--;
      const name = source.slice(start, pos + 1);
      if (/^[0-9]/.test(name) || KEYWORDS.has(name)) return undefined;
      // A name with letters beyond ASCII, or a regular expression's flags: not read here.
      if (start > 0 && (source.charCodeAt(start - 1) > 0x7f || source[start - 1] === "\\")) return undefined;
      const before = skipSpaceBack(source, start - 1);
      if (source[before] === "." && source[before - 1] !== ".") {
        const optional = source[before - 1] === "?";
        parts.push(`${optional ? "?." : "."}${name}`);
        pos = skipSpaceBack(source, before - (optional ? 2 : 1));
        continue;
      }
      if (source[before] === "/") return undefined;
      parts.push(name);
      return done(start, wordEndingAt(source, before) === "new");
    }
    if (c === "]") {
      const open = matchingBack(source, pos);
      if (open === undefined || source[open] !== "[") return undefined;
      const key = keyText(source.slice(open + 1, pos));
      if (key === undefined) return undefined;
      const before = skipSpaceBack(source, open - 1);
      const optional = source[before] === "." && source[before - 1] === "?";
      parts.push(optional ? (key.startsWith(".") ? `?${key}` : `?.${key}`) : key);
      pos = optional ? skipSpaceBack(source, before - 2) : before;
      continue;
    }
    if (c === ")") {
      const open = matchingBack(source, pos);
      if (open === undefined || source[open] !== "(") return undefined;
      const before = skipSpaceBack(source, open - 1);
      const prev = source[before];
      const word = prev !== undefined && IDENT.test(prev) ? wordEndingAt(source, before) : undefined;
      if (prev === ")" || prev === "]" || (word !== undefined && !KEYWORDS.has(word))) {
        // A call in the chain: V8 prints its arguments as "(...)".
        parts.push("(...)");
        pos = before;
        continue;
      }
      // Parentheses around the head: V8 prints what is inside, when that is a chain itself.
      const inner = calleeBefore(source, pos);
      if (!inner || skipSpaceForward(source, open + 1) !== inner.start) return undefined;
      parts.push(inner.text);
      return done(open, word === "new");
    }
    return undefined;
  }
}

/** A bracket key as V8 prints it: a string literal as ".x", a number or a name chain as "[k]". */
function keyText(raw: string): string | undefined {
  const key = raw.trim();
  const quoted = /^(['"])((?:(?!\1)[^\\\n])*)\1$/.exec(key);
  if (quoted) return `.${quoted[2]}`;
  if (/^\d+$/.test(key) || /^[A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)*$/.test(key)) return `[${key}]`;
  return undefined;
}

/**
 * The index of the bracket that opens the one at `close` (any kind: the caller checks which),
 * over nested pairs and simple string literals; undefined across a template, a regular
 * expression, a comment or an escaped quote.
 */
function matchingBack(source: string, close: number): number | undefined {
  let depth = 0;
  for (let i = close; i >= 0; i--) {
    const c = source[i]!;
    if (c === '"' || c === "'") {
      const opening = source.lastIndexOf(c, i - 1);
      if (opening < 0 || source.slice(opening, i).includes("\\") || source.slice(opening, i).includes("\n")) return undefined;
      i = opening;
      continue;
    }
    if (c === "`" || c === "/") return undefined;
    if (c === ")" || c === "]" || c === "}") depth++;
    else if (c === "(" || c === "[" || c === "{") {
      depth--;
      if (depth === 0) return i;
    }
  }
  return undefined;
}

/**
 * The last index at or before `pos` that is not white space; -2 (nothing to read) where that
 * crosses a line end into a line with a line comment (the text there may be the comment's).
 */
function skipSpaceBack(source: string, pos: number): number {
  let crossed = false;
  while (pos >= 0 && /\s/.test(source[pos]!)) {
    if (source[pos] === "\n") crossed = true;
    pos--;
  }
  if (crossed && pos >= 0 && source.lastIndexOf("//", pos) > source.lastIndexOf("\n", pos)) return -2;
  return pos;
}

function skipSpaceForward(source: string, pos: number): number {
  while (pos < source.length && /\s/.test(source[pos]!)) pos++;
  return pos;
}

/** The word that ends at `pos` (inclusive), if a name ends there. */
function wordEndingAt(source: string, pos: number): string | undefined {
  if (pos < 0 || !IDENT.test(source[pos]!)) return undefined;
  let start = pos;
  while (start > 0 && IDENT.test(source[start - 1]!)) start--;
  return source.slice(start, pos + 1);
}
