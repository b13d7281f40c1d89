import { z } from "zod";
import { defineNode } from "../types";
import { MAX_OUTPUT_PORTS } from "../../../shared/flow-graph";

/**
 * The longest function code (each of On message, On start, On stop): 1,000,000 characters. Real
 * flows hold functions past 100,000 (a bundled library pasted in); the whole flow still fits the
 * flows' 5 MiB body limit, and the sandbox's time and memory limits bound what the code does.
 */
export const MAX_CODE_CHARS = 1_000_000;
const TOO_LONG = "must be at most 1,000,000 characters";

/**
 * Code that names the flow or global context (`flow.set`, `global.get`, `context.flow`) can
 * change what another branch reads: it runs in the flow's turn, as Node-RED's does. Code that names
 * neither can only change its own messages (and its node context), and runs beside the flow. On
 * Start's code counts too: it shares the code's scope (a helper it defines may set the context).
 */
const SHARED_CONTEXT = /\b(?:flow|global)\b/;

/** RED.util functions Node-RED's function node has and ours does not (red-util-source.ts throws for them). */
const UNAVAILABLE_UTIL = /\bRED\.util\.(encodeObject|prepareJSONataExpression|evaluateJSONataExpression)\b/g;
/** Node's util module, a global of Node-RED's function sandbox (not RED.util). */
const NODE_UTIL = /(?<![.\w$])util\.(\w+)/g;
/**
 * What the sandbox's `util` has of Node's (runtime/sandbox/node-util-source.ts; its test checks the
 * two agree). The rest of Node 24's util is bound to the server's process: an import names it.
 */
export const SANDBOX_NODE_UTIL: readonly string[] = [
  "_extend", "callbackify", "debug", "debuglog", "deprecate", "format", "formatWithOptions", "inherits", "inspect",
  "isArray", "isDeepStrictEqual", "promisify", "stripVTControlCharacters", "toUSVString", "types", "TextDecoder", "TextEncoder",
];

/**
 * npm packages a function's Setup can load: pure JavaScript, evaluated in the sandbox from the
 * server's node_modules (runtime/sandbox/packages-source.ts, whose list a test keeps equal to this).
 */
export const SANDBOX_PACKAGES = ["lodash", "moment", "moment-timezone"] as const;
/**
 * Modules a function's Setup can load (Node-RED's `libs`, which may name any of Node's built-in
 * modules or an npm package): Node's crypto and util, which the sandbox has (driver.ts, MODULES),
 * by their bare names or with `node:`, and the npm packages above.
 */
export const SANDBOX_MODULES = ["crypto", "node:crypto", "util", "node:util", ...SANDBOX_PACKAGES] as const;
const MODULES_TEXT = "Node's crypto and util, and the npm packages lodash, moment and moment-timezone";
/** What the sandbox's crypto has of Node's (runtime/sandbox/crypto-source.ts; its test checks the two agree). */
export const SANDBOX_CRYPTO: readonly string[] = [
  "Cipheriv", "Decipheriv", "Hash", "Hmac", "createCipheriv", "createDecipheriv", "createHash", "createHmac", "getCiphers", "getHashes",
  "getRandomValues", "hash", "randomBytes", "randomFill", "randomFillSync", "randomInt", "randomUUID", "timingSafeEqual",
];
/** Names a module's variable may not take: the globals of Node-RED's function sandbox, and `node` (Node-RED's editor and runtime refuse them). */
export const RESERVED_LIB_NAMES: readonly string[] = [
  "console", "util", "Buffer", "URL", "URLSearchParams", "Date", "RED", "__node__", "node", "context", "flow", "global", "env",
  "setTimeout", "clearTimeout", "setInterval", "clearInterval", "promisify",
];
/** JavaScript's own globals (the engine's): a module under one of these names would take it from the code, and from the sandbox's own code. */
const JS_GLOBALS: readonly string[] = [
  "globalThis", "undefined", "NaN", "Infinity", "eval", "isFinite", "isNaN", "parseFloat", "parseInt", "decodeURI", "decodeURIComponent",
  "encodeURI", "encodeURIComponent", "escape", "unescape", "Object", "Function", "Array", "Number", "Boolean", "String", "Symbol", "BigInt",
  "Math", "JSON", "Reflect", "Proxy", "Promise", "RegExp", "Error", "AggregateError", "EvalError", "RangeError", "ReferenceError",
  "SyntaxError", "TypeError", "URIError", "Map", "Set", "WeakMap", "WeakSet", "WeakRef", "FinalizationRegistry", "ArrayBuffer",
  "SharedArrayBuffer", "DataView", "Atomics", "Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array", "Int32Array",
  "Uint32Array", "Float32Array", "Float64Array", "BigInt64Array", "BigUint64Array", "Iterator", "Intl", "queueMicrotask", "arguments",
];
const JS_NAME = /^[A-Za-z_$][\w$]*$/;
const MAX_LIBS = 20;
const MAX_LIB_NAME_CHARS = 64;
const libNameAllowed = (name: string) => name.length <= MAX_LIB_NAME_CHARS && JS_NAME.test(name) && !RESERVED_LIB_NAMES.includes(name) && !JS_GLOBALS.includes(name);
const isSandboxModule = (module: unknown): module is (typeof SANDBOX_MODULES)[number] => (SANDBOX_MODULES as readonly unknown[]).includes(module);

/** Node-RED's libs entries the sandbox can load, each variable once (Node-RED refuses a name given twice). */
function libsFromNodeRed(libs: unknown): Array<{ var: string; module: (typeof SANDBOX_MODULES)[number] }> {
  const kept: Array<{ var: string; module: (typeof SANDBOX_MODULES)[number] }> = [];
  for (const lib of Array.isArray(libs) ? libs : []) {
    const entry = lib as { var?: unknown; module?: unknown };
    if (typeof entry?.var !== "string" || !libNameAllowed(entry.var) || !isSandboxModule(entry.module)) continue;
    if (kept.some((k) => k.var === entry.var) || kept.length >= MAX_LIBS) continue;
    kept.push({ var: entry.var, module: entry.module });
  }
  return kept;
}

/** What an imported function node's code reaches for that the sandbox lacks: a line each, for the import's report. */
export function functionImportNotes(props: Record<string, unknown>): string[] {
  const code = ["func", "initialize", "finalize"].map((k) => (typeof props[k] === "string" ? props[k] : "")).join("\n");
  const notes: string[] = [];
  const unavailable = [...new Set([...code.matchAll(UNAVAILABLE_UTIL)].map((m) => `RED.util.${m[1]}`))];
  if (unavailable.length > 0) notes.push(`its code calls ${unavailable.join(", ")}, which the sandbox does not offer (the call throws an error saying so)`);
  // Code that names a variable util (const util = RED.util) means its own.
  const ownUtil = /\b(?:const|let|var)\s+util\b|(?<![.\w$])util\s*=(?!=)|[(,]\s*util\s*[,)=]|\{[^{}]*(?<![.\w$])util\b[^{}]*\}\s*=(?!=)/.test(code);
  const nodeUtil = ownUtil ? [] : [...new Set([...code.matchAll(NODE_UTIL)].filter((m) => !SANDBOX_NODE_UTIL.includes(m[1]!)).map((m) => m[0]))];
  if (nodeUtil.length > 0) notes.push(`its code uses ${nodeUtil.slice(0, 3).join(", ")} of Node's util module, which the sandbox's util does not have`);
  const libs = Array.isArray(props.libs) ? (props.libs as Array<{ var?: unknown; module?: unknown }>) : [];
  const kept = libsFromNodeRed(libs);
  const missing = [...new Set(libs.filter((lib) => !isSandboxModule(lib?.module)).map((lib) => String(lib?.module ?? "")))];
  if (missing.length > 0) {
    notes.push(`its Setup loads ${missing.slice(0, 5).join(", ")}, which the sandbox cannot (it loads ${MODULES_TEXT}): code that uses ${missing.length === 1 ? "it" : "them"} throws`);
  }
  const refused = libs.filter((lib) => isSandboxModule(lib?.module) && !kept.some((k) => k.var === lib.var && k.module === lib.module));
  if (refused.length > 0) {
    const names = [...new Set(refused.map((lib) => String(lib.var)))];
    notes.push(`its Setup's variable ${names.slice(0, 5).join(", ")} is reserved, not a name or given twice (Node-RED refuses it too): left out`);
  }
  for (const lib of kept.filter((k) => k.module.endsWith("crypto"))) {
    const names = new RegExp(`(?<![.\\w$])${lib.var.replace(/\$/g, "\\$")}\\.(\\w+)`, "g");
    const absent = [...new Set([...code.matchAll(names)].map((m) => m[1]!).filter((name) => !SANDBOX_CRYPTO.includes(name)))];
    if (absent.length > 0) notes.push(`its code uses ${absent.slice(0, 3).map((name) => `${lib.var}.${name}`).join(", ")} of Node's crypto module, which the sandbox's crypto does not have`);
  }
  return notes;
}

export const functionConfig = z.object({
  code: z.string().max(MAX_CODE_CHARS, TOO_LONG).default("return msg;").meta({ title: "On message", description: "JavaScript run for each message: return msg, an array for several outputs, or null" }),
  outputs: z.number().int().min(0).max(MAX_OUTPUT_PORTS).default(1).meta({ title: "Outputs", description: `How many output ports the node has (0-${MAX_OUTPUT_PORTS})` }),
  /** Per-call time limit. */
  timeout_ms: z.number().int().min(1).max(10_000).default(1000).meta({ title: "Time limit (ms)", description: "Longest a single run may take before it is stopped with an error" }),
  initialize: z.string().max(MAX_CODE_CHARS, TOO_LONG).default("").meta({ title: "On start", description: "JavaScript run once when the flow starts" }),
  finalize: z.string().max(MAX_CODE_CHARS, TOO_LONG).default("").meta({ title: "On stop", description: "JavaScript run once when the flow stops or is redeployed" }),
  libs: z
    .array(
      z.object({
        var: z
          .string()
          .max(MAX_LIB_NAME_CHARS)
          .regex(JS_NAME, "must be a JavaScript name (letters, digits, _ and $, not starting with a digit)")
          .refine((name) => !RESERVED_LIB_NAMES.includes(name), { message: `is a name the code already has (${RESERVED_LIB_NAMES.join(", ")})` })
          .refine((name) => !JS_GLOBALS.includes(name), { message: "is one of JavaScript's own globals, which the code already has" })
          .meta({ title: "Variable", description: "The name the code uses for the module" }),
        module: z.enum(SANDBOX_MODULES, { error: `must be one of ${SANDBOX_MODULES.join(", ")}: the sandbox loads ${MODULES_TEXT}, not others` }).meta({ title: "Module" }),
      }),
    )
    .max(MAX_LIBS)
    .default([])
    .refine((libs) => new Set(libs.map((lib) => lib.var)).size === libs.length, { message: "each variable may be given once" })
    .meta({ title: "Modules", description: `Node modules the code uses, each under a variable name (Node-RED's Setup → Modules): ${MODULES_TEXT}` }),
});

export const functionNode = defineNode({
  type: "function",
  version: 1,
  category: "function",
  name: "Function",
  description:
    "Runs JavaScript on each message in a sandbox with time and memory limits: return msg, an array for several outputs, or node.send(). " +
    "setTimeout and setInterval work as in Node-RED (up to 1,000 at once; a callback sends with node.send()), with one difference: " +
    "a due callback waits while the flow is busy, so code that sends in batches and yields with setTimeout is paced by the flow. " +
    "Timers are cleared when the flow is redeployed or stopped, and lost, like the node's context, if its sandbox restarts after a timeout or memory error.",
  help: `Runs JavaScript against each message it receives. The message is the object \`msg\`; by convention its body is \`msg.payload\`.

### Inputs

- \`msg\` (object): the whole message, as \`msg\` in the code.

### Outputs

1. … *n*: what the code returns or sends: a message goes to the first output; an array sends one entry per output (\`null\` skips one, an array inside sends several messages there).

### Details

The code returns the message(s) to pass on, or nothing (\`null\`) to stop the flow here; it may also call \`node.send(msg)\` (also later, from a timer). *On start* runs when the flow starts, *On stop* when it stops or is redeployed. When *On start* returns a promise (or uses \`await\`), messages that arrive before it settles wait, in order, and are handled once it has; if it fails, the error is reported and the node drops every message, as Node-RED's does.

#### Errors

Code that does not compile (a syntax error in *On Message*, *On Start* or *On Stop*) is the node's error when the flow starts, shown in the Debug sidebar and on the node; as in Node-RED the rest of the flow runs, and the node drops what it is sent until the code is fixed and deployed. *On Start* code that does not finish within the time limit keeps the flow from starting: Deploy says which node and why.

An error the code throws, \`node.error(err, msg)\` and \`node.done(err)\` go to the flow's *catch* nodes with the message (the one given to \`node.error\`; otherwise the input message as the code left it), \`msg.error\` = \`{message, source: {id, type, name, count}}\`. The message reads as Node-RED's: a thrown \`Error\` as \`Error: boom\` (its \`toString()\`, and the catch node's message also gets \`msg._error\`), a thrown string as it is, any other value as JSON; a \`ReferenceError\` names the line and column in the code (\`ReferenceError: ReferenceError: x is not defined (line 2, col 5)\`, Node-RED's exact text). The code runs in QuickJS, not in Node's V8: the errors code makes most often are worded as V8 words them (\`TypeError: msg.payload.trim(...).toUpper is not a function\`, \`Cannot read properties of undefined (reading 'x')\`, \`Assignment to constant variable.\`, \`RangeError: Maximum call stack size exceeded\`); others keep QuickJS's words, and so does \`e.message\` of an error the code catches itself. An error in a timer's callback reaches the catch nodes with an empty message. A run past the time limit is \`Error: Script execution timed out after 1000ms\`.

Messages are finished when the code returns (or its promise settles), which is when a *complete* node watching this node fires, with the message as the code left it; code that calls \`node.done()\` finishes each message itself, when it calls it (also later, from a timer).

In the code:

- \`node.id\`, \`node.name\`, \`node.path\`, \`node.outputCount\`; \`node.warn(text)\` and \`node.error(text)\` (shown as the node's warnings and errors); \`node.error(err, msg)\` (catch nodes receive \`msg\`); \`node.log\`, \`node.debug\`, \`node.trace\` (not shown, as in Node-RED's default log level); \`node.done(err?)\`; \`node.status({fill, shape, text})\`.
- \`context\` (this node's, in memory), \`flow\` (the flow's, shared by its nodes) and \`global\` (the organization's, shared by its flows; also \`context.flow\` / \`context.global\`): \`get(key)\`, \`set(key, value)\` (\`undefined\` deletes), \`keys()\`, synchronous (the callback forms work too). \`flow.increment(key, by = 1)\` and \`global.increment(key, by = 1)\` add to a number (anything else counts as 0) in one atomic step, exact even when several instances add at once, and return the new value.
- Flow and global context are **durable**: a value written while a message is handled is stored before any message this handling sends is delivered, so it survives a redeploy, a restart and a failover. The editor's *Context* tab and the REST API (\`/flows/{id}/context\`, \`/context/global\`) show and change them. An organization's context holds at most CONTEXT_MAX_BYTES (10 MiB by default); past it \`set\` throws \`context is full\`.
- \`env.get(NAME)\`: a variable of the flow or the organization (secrets read as undefined).
- \`setTimeout\`, \`setInterval\` and their clear functions (up to 1,000 at once).
- \`Intl\` (\`DateTimeFormat\`, \`NumberFormat\`, \`Collator\`, \`PluralRules\`, \`RelativeTimeFormat\`, \`ListFormat\`, \`DisplayNames\`) and the locale methods (\`toLocaleString\`, \`toLocaleDateString\`, \`toLocaleTimeString\`, \`localeCompare\`, \`toLocaleUpperCase\`), answered as Node-RED's are: by the server's V8, with its locale data and time zone.
- \`console\` with Node's methods: \`console.warn\` and \`console.error\`, a failed \`console.assert\` and \`console.trace\` show as the node's warnings; \`console.log\`, \`info\`, \`debug\`, \`dir\`, \`table\`, \`time\` / \`timeEnd\` and \`count\` are not shown (Node-RED writes them to the server's log).
- \`util\`: Node's util module, as Node-RED's function sandbox has it: \`util.inspect\`, \`util.format\` and \`util.formatWithOptions\` (Node's own code, so their text is Node's), \`promisify\`, \`callbackify\`, \`inherits\`, \`deprecate\`, \`isDeepStrictEqual\`, \`types\`, \`TextEncoder\` and \`TextDecoder\`, \`stripVTControlCharacters\`, \`toUSVString\`, \`debuglog\`, \`isArray\` and \`_extend\` (loaded the first time the code names \`util\`).
- \`URL\` and \`URLSearchParams\`, as Node's: a URL is parsed, and each setter applied, by the server's V8 (so its parts, errors and \`util.inspect\` text are Node's), and its \`searchParams\` and \`search\` stay in step; \`URL.canParse\` and \`URL.parse\` too. A string of more than 1,000,000 characters is a \`RangeError\`.
- \`RED.util\`: Node-RED's functions, which behave as Node-RED 5.0's: \`cloneMessage\`, \`getMessageProperty\` / \`setMessageProperty\` and \`getObjectProperty\` / \`setObjectProperty\` (property expressions such as \`payload.list[0]\`, \`a["b c"]\` or \`a[msg.key]\`), \`normalisePropertyExpression\`, \`evaluateNodeProperty\`, \`compareObjects\`, \`ensureString\`, \`ensureBuffer\`, \`generateId\`, \`parseContextStore\`, \`normaliseNodeTypeName\` and \`getSetting\`.
- The modules of *Modules* (Node-RED's Setup → Modules): each under its variable name, Node's \`crypto\` (\`crypto.createHash("sha256").update(text).digest("hex")\`, \`crypto.createHmac\`, \`crypto.randomUUID()\`, …) or \`util\`, or the npm package \`lodash\` (\`_.groupBy(msg.payload, "room")\`), \`moment\` (\`moment(msg.payload).add(1, "day").format("dddd D MMMM")\`; \`moment.locale("de")\` loads moment's German) or \`moment-timezone\` (\`moment.tz(msg.payload, "Europe/Berlin").format()\`). A package is evaluated in the node's sandbox when the node starts, as Node-RED requires each module then (so a moment-timezone entry gives a moment entry its \`tz\`). moment-timezone, with its time zone data, takes about 0.1 s of the server's CPU each time a node's sandbox starts, and 1.4 MB of the node's 32 MB; lodash 0.6 MB, moment 0.3 MB. What a package writes to the console (moment's deprecation warnings) goes to the server's log, as Node-RED's go to its own.
- \`await node.linkcall(target, msg, {timeout})\` (Node-RED 5.0): calls a *link in* node (its id, or its name: in this flow first, then in the organization's) with a copy of \`msg\`, as a *link call* node does, and resolves to the message its *link out* in return mode sends back; it rejects with \`timeout\` after \`timeout\` ms (default 5000), when the target is not found, and past 1,000 calls waiting at once.

### Differences from Node-RED

- The code runs in a sandbox (QuickJS) with a time limit per run (*Time limit*) and a memory limit: it cannot reach the server's process, files or network, and \`require\` is not available. A run past its time limit stops with an error a catch node can handle.
- *Modules* (Node-RED's Setup → Modules, \`libs\`) loads Node's \`crypto\` and \`util\` (also as \`node:crypto\`, \`node:util\`) and three npm packages, the server's own copies: lodash 4.18.1, moment 2.31.0 and moment-timezone 0.5.48 with all of its time zone data (the moment-timezone Node-RED 5.0's own JSONata uses); not other built-in modules or npm packages, where Node-RED installs whichever package is named, in its latest version. Each node has its own copy of a package, where Node-RED's nodes share one: \`moment.locale("fr")\` or \`_.mixin\` in one node does not change another's, and a node's sandbox that starts again (after a memory error) starts its packages again too. An import keeps those and names the others it leaves out. The sandbox's \`crypto\` has \`createHash\`, \`createHmac\` (\`update\`, \`digest\`, \`copy\`), \`createCipheriv\` and \`createDecipheriv\` (\`update\`, \`final\`, \`setAutoPadding\`, \`setAAD\`, \`getAuthTag\`, \`setAuthTag\`; a sandbox keeps at most 32 ciphers at once, the least recently used finished one leaving first; in a 1-bit or 8-bit CFB mode one update takes less data), \`hash\`, \`getHashes\`, \`getCiphers\`, \`randomBytes\`, \`randomFill\` / \`randomFillSync\`, \`randomInt\`, \`randomUUID\`, \`getRandomValues\` and \`timingSafeEqual\`, computed by the server's Node (so digests, ciphertexts, and the errors bad arguments get, are Node's); not signatures, key objects, key derivation, streams (\`pipe\`) or \`webcrypto\`. A digest takes at most about 12 MB of data, and one call makes at most 1 MiB of random bytes.
- A message leaves the code as its JSON (Buffers apart, below): a \`Date\` becomes its ISO text, a \`URL\` its \`href\`, a \`Map\`, \`Set\` or \`URLSearchParams\` \`{}\`, where Node-RED hands the next node the object itself. \`RED.util.cloneMessage\` in the code copies the same way.
- \`Buffer\` is Node's Buffer API (the \`buffer\` package, loaded the first time the code or a message uses one): a message's Buffers reach the code as Buffers and leave it as Buffers, and \`RED.util.cloneMessage\` shares their bytes as Node-RED's does. A Buffer kept in flow or global context is read back as its JSON (\`{type: "Buffer", data: [...]}\`), where Node-RED's memory context keeps the object.
- In \`RED.util\`, \`getSetting(node, name)\` and \`evaluateNodeProperty(value, "env", …)\` read what \`env.get\` reads (the flow's and the organization's variables), where Node-RED 4.1 reads the server's environment and 5.0's \`getSetting\` answers \`undefined\`; \`evaluateNodeProperty\` with \`"flow"\` or \`"global"\` reads this node's flow or global context (Node-RED's throws, as the code's \`node\` has no \`context()\`). JSONata (\`evaluateNodeProperty\` with \`"jsonata"\`, \`prepareJSONataExpression\`, \`evaluateJSONataExpression\`), a date in a moment.js format and \`encodeObject\` are not available: they throw an error saying so (a change node evaluates JSONata and dates).
- Node's \`util\` lacks what is bound to the server's process (\`parseArgs\`, \`MIMEType\`, \`getSystemErrorName\`, \`aborted\`, \`styleText\` and the like; an import's dry run names them). \`util.inspect\` shows every Promise as \`Promise { <pending> }\` (the sandbox cannot read a promise's state) and an error's stack with the code's own frames, named as Node-RED names them (\`at parse (Function node:<id>:2:24)\`, the line one past the code's line) but whose column is where the engine puts it (a call's parenthesis, where V8 puts the start of \`new\`), and without the server's frames Node-RED's also shows; \`util.types.isProxy\` answers false. \`TextDecoder\` knows UTF-8, UTF-16LE and windows-1252 (\`latin1\`, \`ascii\`), where Node's knows more. \`util.deprecate\`'s warning, once per function, shows as the node's warning, where Node-RED writes it to the server's log.
- \`Intl.Segmenter\`, \`Intl.Locale\` and \`Intl.DurationFormat\` are not available. Locale calls are answered outside the sandbox and cost a few microseconds each, where Node-RED's cost one or less; \`localeCompare\` and a \`Collator\`'s \`compare\` of ASCII text compare inside it, without that cost, in the locales where the collator's weights of single characters decide the order (not where letters contract, as Czech "ch" or Danish "aa"): sorting 1,000 ASCII names takes about 20 ms of the run's time, where Node-RED's takes under 1 ms.
- Context values are JSON and read as copies (as from Node-RED's persistent stores); keys are whole names (\`flow.get("a.b")\` reads the key \`a.b\`, not a nested property); there is one store (a store name is ignored); \`global\` is the organization's. Flow and global context are durable by default, where Node-RED's default store is in memory.
- Error texts are the sandbox engine's (QuickJS): the commonest (\`x is not defined\`, \`Cannot read properties of null (reading 'y')\`, \`Cannot set properties of …\`) read as Node-RED's, others may be worded differently. \`msg.error\` has no \`stack\` (Node-RED's shows the server's files), and an error's own \`stack\` holds only the engine's frames, without V8's first line (\`TypeError: message\`); \`util.inspect\` and \`util.format\` show an error as Node's do. The time limit counts the whole run, also after an \`await\`, where Node-RED's counts only the code's synchronous part.
- At most 10,000 messages wait for *On start*'s promise (later ones are dropped, with a warning, until it settles), and at most 10,000 messages wait for their \`node.done()\` (past it the oldest is never finished, as a message whose \`node.done()\` is never called).
- The code runs in a worker thread. Code that names the flow or global context (\`flow\`, \`global\`, \`context.flow\`, in *On Message* or *On Start*) runs in the flow's turn, as in Node-RED: until its synchronous part ends the flow's other messages wait (what the code sent then comes after them), so a value it sets is there for a branch that the same message reaches after it. Messages to other function nodes of the flow go on meanwhile (they run after it, in order, in the same worker). Code that names neither runs beside the flow: its outputs may interleave with another branch's otherwise than in Node-RED. A flow's turn is its own: other flows run beside it, where Node-RED's one thread runs one flow at a time. Timer callbacks, the code after an \`await\` and messages that waited for *On start* run beside the flow too.
- A due timer callback waits while the flow is busy, so code that sends in batches is paced by the flow. Timers are cleared on redeploy or stop, and lost, like the node's context, if its sandbox restarts after a time or memory error.`,
  inputs: 1,
  // node.linkcall: a link-out in return mode answers the function node as it answers a link call.
  // inTurn: code that can reach the flow or global context runs in the flow's turn (NodeRoles.inTurn).
  roles: { linkCall: true, inTurn: (c) => SHARED_CONTEXT.test(c.code) || SHARED_CONTEXT.test(c.initialize) },
  outputs: { value_of: "outputs" },
  configSchema: functionConfig,
  form: { code: { widget: "code", language: "javascript" }, initialize: { widget: "code", language: "javascript" }, finalize: { widget: "code", language: "javascript" } },
  nodeRed: {
    type: "function",
    toNodeRed: (c) => ({
      func: c.code,
      outputs: c.outputs,
      timeout: c.timeout_ms / 1000,
      noerr: 0,
      initialize: c.initialize,
      finalize: c.finalize,
      // Configs saved before libs existed have none.
      libs: (c.libs ?? []).map((lib) => ({ var: lib.var, module: lib.module })),
    }),
    fromNodeRed: (p) => {
      const timeout = Number(p.timeout);
      return {
        code: String(p.func ?? "return msg;"),
        outputs: Number(p.outputs ?? 1),
        timeout_ms: Number.isFinite(timeout) && timeout > 0 ? Math.min(10_000, Math.round(timeout * 1000)) : 1000,
        initialize: String(p.initialize ?? ""),
        finalize: String(p.finalize ?? ""),
        libs: libsFromNodeRed(p.libs),
      };
    },
    importNotes: functionImportNotes,
    partlyDropped: (p) => (Array.isArray(p.libs) && libsFromNodeRed(p.libs).length < p.libs.length ? ["libs"] : []),
  },
});
