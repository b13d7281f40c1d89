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
  { name: "TypeError", pattern: /^'[^']*' is read-only$/, replacement: "Assignment to constant variable." },
  { name: "InternalError", pattern: /^stack overflow$/, replacement: "Maximum call stack size exceeded", v8Name: "RangeError" },
  { name: "RangeError", pattern: /^invalid array length$/, replacement: "Invalid array length" },
  { name: "TypeError", pattern: /^empty array$/, replacement: "Reduce of empty array with no initial value" },
  { name: "TypeError", pattern: /^cannot convert symbol to string$/, replacement: "Cannot convert a Symbol value to a string" },
  { name: "URIError", pattern: /^.*$/, replacement: "URI malformed" },
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
  const top = /^\s*at [^\n]*?\(?<input>:(\d+):(\d+)\)?\s*$/m.exec(stack.split("\n")[0] ?? "");
  if (!top) return undefined;
  const line = Number(top[1]) - WRAPPER_LINES;
  const column = Number(top[2]);
  if (line < 1 || column < 1) return undefined;
  for (const source of sources) {
    if (!source) continue;
    const offset = offsetOf(source, line, column);
    if (offset === undefined) continue;
    const paren = source[offset] === "(" || source[offset] === "`" ? offset : tailCallParen(source, offset);
    const callee = paren === undefined ? undefined : calleeBefore(source, paren);
    if (callee) return callee;
  }
  return undefined;
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

function offsetOf(source: string, line: number, column: number): number | undefined {
  let offset = 0;
  for (let l = 1; l < line; l++) {
    const next = source.indexOf("\n", offset);
    if (next < 0) return undefined;
    offset = next + 1;
  }
  const at = offset + column - 1;
  const end = source.indexOf("\n", offset);
  return at < (end < 0 ? source.length : end) ? at : undefined;
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
  const parts: string[] = [];
  let pos = skipSpaceBack(source, end - 1);
  for (;;) {
    const c = source[pos];
    if (c === undefined) return undefined;
    if (IDENT.test(c)) {
      let start = pos;
      while (start > 0 && IDENT.test(source[start - 1]!)) start--;
      const name = source.slice(start, pos + 1);
      if (/^[0-9]/.test(name) || KEYWORDS.has(name)) return undefined;
      const before = skipSpaceBack(source, start - 1);
      if (source[before] === "." && source[before - 1] !== ".") {
        const optional = source[before - 1] === "?";
        parts.unshift(`${optional ? "?." : "."}${name}`);
        pos = skipSpaceBack(source, before - (optional ? 2 : 1));
        continue;
      }
      parts.unshift(name);
      return { text: parts.join(""), start, isNew: wordEndingAt(source, before) === "new" };
    }
    if (c === "]") {
      const open = matchingBack(source, pos);
      if (open === undefined || source[open] !== "[") return undefined;
      const key = keyText(source.slice(open + 1, pos));
      if (key === undefined) return undefined;
      const before = skipSpaceBack(source, open - 1);
      const optional = source[before] === "." && source[before - 1] === "?";
      parts.unshift(optional ? (key.startsWith(".") ? `?${key}` : `?.${key}`) : key);
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
        parts.unshift("(...)");
        pos = before;
        continue;
      }
      // Parentheses around the head: V8 prints what is inside, when that is a chain itself.
      const inner = calleeBefore(source, pos);
      if (!inner || skipSpaceForward(source, open + 1) !== inner.start) return undefined;
      parts.unshift(inner.text);
      return { text: parts.join(""), start: open, isNew: word === "new" };
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

function skipSpaceBack(source: string, pos: number): number {
  while (pos >= 0 && /\s/.test(source[pos]!)) pos--;
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
