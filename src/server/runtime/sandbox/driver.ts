/**
 * The JavaScript that runs INSIDE the QuickJS sandbox of one function node: it builds the Node-RED
 * style API (`node`, `context`, `flow`, `env`, `RED`, `console`), compiles the user's code with the
 * Function constructor (so the code is the body of `function (msg, node, context, flow, global, env, RED)`
 * and cannot close the wrapper early), and serializes everything that goes back to the host as JSON.
 *
 * The source is evaluated once per QuickJS context as an expression yielding a factory; the host
 * calls the factory with its callbacks (the flow's four context calls, the global context, the
 * variables, the sources of Buffer and RED.util evaluated at their first use, bytes to and from
 * base64) and the code strings, and keeps only the returned dispatcher. Nothing of this is reachable from the user's code through globals: the host
 * callbacks live in the factory's closure.
 *
 * Dispatcher ops (first argument):
 *   0 run(msgJson)  1 initialize  2 finalize  5 timer(idText)  6 link return(answerJson)
 *                   → an envelope string, or "" when the code returned a promise; when "" or when
 *                     jobs are queued, the host drains the job queue, then calls
 *   3 settle()      → the envelope of the settled promise (throws its rejection), or of the plain
 *                     result again once the jobs it queued have run
 *   4 partial()     → the envelope of what happened before an error (sends, status, logs, timers)
 *   7 load(what)    → "": evaluates Buffer (no argument), RED.util ("util"), Node's util ("nodeutil"), Intl ("intl"), URL ("url")
 *                     or Node's crypto ("crypto", for the node's libs), or an npm package of the libs
 *                     ("package:<name>", which also makes the variables the libs give it) now,
 *                     outside a run's time limit
 *
 * Envelope: {"r": <returned value>, "s": [<sent value>, ...], "l": [[level, text], ...], "st"?: <status>,
 *            "t"?: [[id, delayMs, repeats], ...], "c"?: [id, ...], "ri"?: <run token>,
 *            "e"?: [[text, isError, msg, sends before it], ...], "d"?: [[run token, text | null, isError, msg], ...],
 *            "m"?: <the input msg as the code left it>, "ip"?: 1, "is"?: [ok, text]}
 *
 * Node-RED's per-message API: each run gets its own `node` object, whose `done` belongs to that
 * message (a timer's callback may call it later). A run reports its token ("ri"); node.done(err)
 * reports [token, error text or null, whether it was an Error, the msg as it is then] ("d");
 * node.error(err, msg) with a msg reports [text, isError, msg] ("e") for the catch nodes (without a
 * msg it is a log line). Texts are Node-RED's: an Error's toString() ("Error: boom"), a string as it
 * is, anything else its String(). "m": the run's msg as the code left it, after an error (op 4), and
 * after every run when info.finalMsg (a complete node watches the node).
 * A run whose promise is still pending when its call ends says "rp"; the call in which it settles
 * reports ["ls": [run token, ok, text | null, {n, m, s} (a rejection with an Error) | null, msg], ...]
 * (what it resolved to is sent in that call, as before).
 * On Start: when `initialize` returns a promise still pending when its call ends, the envelope says
 * "ip"; the envelope of the later call in which it settles says "is": [true] or [false, text].
 *
 * Timers: setTimeout/setInterval keep their callback here, in a table private to the driver, and
 * report [id, delay, repeats] in the envelope ("t"); clearTimeout/clearInterval report the id ("c")
 * unless the timer was set in the same call. The host keeps the clocks and calls op 5 with the id
 * when one is due: a timeout leaves the table before its callback runs, an interval stays; an id the
 * table does not hold (cleared since) runs nothing and is reported in "c". A promise returned by the
 * code that is still pending when its call ends is not dropped: if it settles during a later call (a
 * timer's), what it resolves to is sent then (like node.send) and a rejection is logged as an error.
 * Ids start above info.timerBase, so a re-created engine never reuses an id the host may still hold.
 *
 * node.linkcall(target, msg, {timeout}) (Node-RED 5.0): returns a promise and reports
 * [id, target, msg, timeout ms] in the envelope ("lc"); the host calls the link-in and, when a
 * link-out in return mode answers (or the timeout passes, or the target is not found), calls op 6
 * with {"i": id, "m": msg} or {"i": id, "e": text}, which settles that promise. Link call ids use
 * the timers' sequence (never reused, above info.timerBase); an unknown id settles nothing.
 */
import { RED_UTIL_NAMES } from "./red-util-source";

export const DRIVER_SOURCE = String.raw`(function (hostFlowGet, hostFlowSet, hostFlowKeys, hostFlowIncrement, hostGlobal, hostEnvGet, hostBufferSource, hostBytesOf, hostBase64Of, hostUtilSource, hostIntl, hostIntlSource, hostUrl, hostUrlSource, hostCrypto, hostCryptoSource, hostPackageSource, infoJson, code, initCode, finCode) {
  "use strict";
  // Primordials, captured before any user code runs (user code may replace the originals).
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const isArray = Array.isArray;
  const apply = Reflect.apply;
  const arrayPush = Array.prototype.push;
  const arrayJoin = Array.prototype.join;
  const arrayMap = Array.prototype.map;
  const promiseThen = Promise.prototype.then;
  const promiseResolve = Promise.resolve;
  const promiseReject = Promise.reject;
  const stringTrim = String.prototype.trim;
  const PromiseCtor = Promise;
  const MapCtor = Map;
  const mapGet = Map.prototype.get;
  const mapSet = Map.prototype.set;
  const mapDelete = Map.prototype.delete;
  const mapKeys = Map.prototype.keys;
  const WeakMapCtor = WeakMap;
  const weakMapGet = WeakMap.prototype.get;
  const weakMapSet = WeakMap.prototype.set;
  const weakMapHas = WeakMap.prototype.has;
  const arrayFrom = Array.from;
  const ErrorCtor = Error;
  const TypeErrorCtor = TypeError;
  const Str = String;
  const AsyncFunction = (async function () {}).constructor;
  const FunctionCtor = Function;
  const awaitPattern = /\bawait\b/;
  const regexpTest = RegExp.prototype.test;

  const objectKeys = Object.keys;
  const hasOwn = Object.prototype.hasOwnProperty;
  const arrayBufferSlice = ArrayBuffer.prototype.slice;
  const defineProperty = Object.defineProperty;
  const stringIndexOf = String.prototype.indexOf;
  const indirectEval = eval;

  const info = parse(infoJson);
  const RED_UTIL_NAMES = ${JSON.stringify(RED_UTIL_NAMES)};
  const push = (list, value) => { apply(arrayPush, list, [value]); };
  const join = (list) => apply(arrayJoin, list, [","]);

  // Locales (intl-host.ts): QuickJS has no Intl, and its toLocaleString ignores locales and
  // options, its localeCompare compares code points. These ask the host's V8, as Node-RED's code
  // gets V8's answers; Intl itself (intl-source.ts) is evaluated at the code's first use of it.
  const stringSlice = String.prototype.slice;
  const mathTrunc = Math.trunc;
  const SetCtor = Set;
  const setHas = Set.prototype.has;
  const setAdd = Set.prototype.add;
  const setDelete = Set.prototype.delete;
  const RangeErrorCtor = RangeError;
  const intlAnswer = (text) => {
    if (text[0] === "=") return apply(stringSlice, text, [1]);
    const thrown = parse(apply(stringSlice, text, [1]));
    const Ctor = thrown[0] === "RangeError" ? RangeErrorCtor : thrown[0] === "TypeError" ? TypeErrorCtor : ErrorCtor;
    throw new Ctor(thrown[1]);
  };
  // What crosses, as JSON with what JSON lacks (intl-host.ts revives them): undefined, BigInts,
  // NaN, the infinities and -0. At most INTL_MAX_CHARS of it: a host call cannot be interrupted, and a
  // call past the time limit's grace costs every sandbox of the worker its engine.
  const INTL_MAX_CHARS = 1000000;
  const intlReplacer = function (key, value) {
    if (value === undefined) return key === "" ? value : { "\u0000undefined": 1 };
    if (typeof value === "bigint") return { "\u0000bigint": Str(value) };
    if (typeof value === "number" && (value !== value || value === 1 / 0 || value === -1 / 0 || (value === 0 && 1 / value < 0))) {
      return { "\u0000num": value === 0 ? "-0" : Str(value) };
    }
    return value;
  };
  const intlHost = (op, a, b, c) => {
    const size = a.length + (b === undefined ? 0 : b.length) + (c === undefined ? 0 : c.length);
    if (size > INTL_MAX_CHARS) throw new RangeErrorCtor("Intl: the arguments are too long for the function sandbox (over 1,000,000 characters)");
    return hostIntl(op, a, b, c);
  };
  // Locales and options as given (undefined crosses too): V8 refuses what it refuses, in its words.
  // At most LOCALE_ARGS_MAX_CHARS of locales and options: V8's locale list handling is quadratic
  // in the number of tags, and a host call cannot be interrupted.
  const LOCALE_ARGS_MAX_CHARS = 16384;
  const boundedArgs = (json) => {
    if (json.length > LOCALE_ARGS_MAX_CHARS) throw new RangeErrorCtor("Intl: the locales and options are too long for the function sandbox (over 16,384 characters as JSON)");
    return json;
  };
  // A string locale alone (localeCompare(b, 'de') in a sort) is written once.
  const localeArgsOf = new MapCtor();
  const localeArgs = (locales, options) => {
    if (options === undefined) {
      if (locales === undefined) return "";
      if (typeof locales === "string") {
        let json = apply(mapGet, localeArgsOf, [locales]);
        if (json === undefined) {
          json = boundedArgs(stringify([locales, undefined], intlReplacer));
          if (localeArgsOf.size < 64) apply(mapSet, localeArgsOf, [locales, json]);
        }
        return json;
      }
    }
    return boundedArgs(stringify([locales, options], intlReplacer));
  };
  const patch = (proto, name, fn) => {
    defineProperty(fn, "name", { value: name });
    defineProperty(proto, name, { value: fn, writable: true, configurable: true, enumerable: false });
  };
  const dateGetTime = Date.prototype.getTime;
  const localeDate = (kind, name) => patch(Date.prototype, name, function (locales, options) {
    return intlAnswer(intlHost("date", kind, localeArgs(locales, options), Str(apply(dateGetTime, this, []))));
  });
  localeDate("", "toLocaleString");
  localeDate("Date", "toLocaleDateString");
  localeDate("Time", "toLocaleTimeString");
  const numberValueOf = Number.prototype.valueOf;
  patch(Number.prototype, "toLocaleString", function (locales, options) {
    const n = apply(numberValueOf, this, []);
    return intlAnswer(intlHost("number", localeArgs(locales, options), n === 0 && 1 / n < 0 ? "n-0" : "n" + Str(n)));
  });
  const bigintValueOf = BigInt.prototype.valueOf;
  patch(BigInt.prototype, "toLocaleString", function (locales, options) {
    return intlAnswer(intlHost("number", localeArgs(locales, options), "b" + Str(apply(bigintValueOf, this, []))));
  });
  const stringOf = (value, method) => {
    if (value === null || value === undefined) throw new TypeErrorCtor("String.prototype." + method + " called on null or undefined");
    return Str(value);
  };
  // A collator's weights of tab, newline, carriage return and printable ASCII, from the host
  // (intl-host.ts asciiCollation; null where they do not decide its order: contractions, options):
  // strings of only those compare here, without a host call (a sort makes n log n of them),
  // exactly as ICU compares them. Kept for the first 64 locale arguments.
  const asciiTables = new MapCtor();
  const asciiWeights = (args) => {
    let weights = apply(mapGet, asciiTables, [args]);
    if (weights === undefined) {
      const table = intlAnswer(intlHost("ascii", args));
      weights = table === "" ? null : parse(table);
      // [primary, tertiary, sort keys made under it]
      if (weights !== null) push(weights, new MapCtor());
      if (asciiTables.size < 64) apply(mapSet, asciiTables, [args, weights]);
    }
    return weights;
  };
  const outside = (text, from, primary) => {
    for (let j = from; j < text.length; j++) {
      const c = text.charCodeAt(j);
      if (c > 126 || primary[c] === 0) return true;
    }
    return false;
  };
  /** -1, 0 or 1, or undefined when a string has a code outside the table. */
  const asciiCompare = (a, b, weights) => {
    const primary = weights[0];
    const tertiary = weights[1];
    const n = a.length < b.length ? a.length : b.length;
    let third = 0;
    for (let i = 0; i < n; i++) {
      const x = a.charCodeAt(i);
      const y = b.charCodeAt(i);
      if (x > 126 || y > 126) return undefined;
      const px = primary[x];
      const py = primary[y];
      if (px === 0 || py === 0) return undefined;
      if (px !== py) return outside(a, i + 1, primary) || outside(b, i + 1, primary) ? undefined : px < py ? -1 : 1;
      if (third === 0 && tertiary[x] !== tertiary[y]) third = tertiary[x] < tertiary[y] ? -1 : 1;
    }
    if (outside(a, n, primary) || outside(b, n, primary)) return undefined;
    if (a.length !== b.length) return a.length < b.length ? -1 : 1;
    return third;
  };
  // A short string's sort key under a table: its primary weights, a separator below them, then
  // its tertiary weights, as one string that compares natively (a sort compares each string
  // about 2 log n times; the key is made once). null: a code outside the table.
  const fromCharCode = String.fromCharCode;
  const mapClear = Map.prototype.clear;
  const SORT_KEY_MAX_LENGTH = 64;
  const SORT_KEYS_KEPT = 2048;
  const sortKey = (text, weights) => {
    const keys = weights[2];
    let key = apply(mapGet, keys, [text]);
    if (key !== undefined) return key;
    const primary = weights[0];
    const tertiary = weights[1];
    const n = text.length;
    const codes = [];
    for (let i = 0; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c > 126 || primary[c] === 0) {
        codes.length = 0;
        key = null;
        break;
      }
      codes[i] = primary[c] + 2;
      codes[n + 1 + i] = tertiary[c] + 2;
    }
    if (key !== null) {
      codes[n] = 1;
      key = apply(fromCharCode, undefined, codes);
    }
    if (keys.size >= SORT_KEYS_KEPT) apply(mapClear, keys, []);
    apply(mapSet, keys, [text, key]);
    return key;
  };
  let lastArgs = null;
  let lastWeights = null;
  const localeCompare = (a, b, args) => {
    // A sort compares under the same arguments each time; the sort keys of the table used before
    // go (one table's keys at a time are all an engine holds).
    if (args !== lastArgs) {
      const next = asciiWeights(args);
      if (lastWeights !== null && lastWeights !== next) apply(mapClear, lastWeights[2], []);
      lastWeights = next;
      lastArgs = args;
    }
    const weights = lastWeights;
    if (weights !== null) {
      if (a.length <= SORT_KEY_MAX_LENGTH && b.length <= SORT_KEY_MAX_LENGTH) {
        const ka = sortKey(a, weights);
        const kb = sortKey(b, weights);
        if (ka !== null && kb !== null) return ka < kb ? -1 : ka > kb ? 1 : 0;
      } else {
        const answer = asciiCompare(a, b, weights);
        if (answer !== undefined) return answer;
      }
    }
    return +intlAnswer(intlHost("compare", args, a, b));
  };
  patch(String.prototype, "localeCompare", function (that, locales, options) {
    return localeCompare(stringOf(this, "localeCompare"), Str(that), localeArgs(locales, options));
  });
  // array.sort(collator.compare): a sort compares n log n times, each a call into the interpreter
  // (~6 µs here, against V8's ~0.2). When the comparator is a Collator's own compare (intl-source.ts
  // registers each one it hands out) and every item is a string, the host orders them in one call,
  // with that collator, stably (V8's sort, Node-RED's), and the items are written back as
  // Array.prototype.sort's steps write them: read once each (holes skipped), written from index 0,
  // the holes' indices deleted at the end. Anything else (another comparator, a non-string, more
  // than SORT_BATCH_MAX items) is the sort it was.
  const arraySort = Array.prototype.sort;
  const ObjectCtor = Object;
  const collatorCompares = new WeakMapCtor();
  const sortableCompare = (fn, args) => {
    apply(weakMapSet, collatorCompares, [fn, args]);
  };
  const SORT_BATCH_MIN = 8;
  // A host call cannot be interrupted: at most this many items (tens of milliseconds of ICU).
  const SORT_BATCH_MAX = 10000;
  // The host's order of n items: a permutation of 0..n-1, or null (it gave up: past its time budget).
  const hostOrder = (args, items) => {
    const n = items.length;
    // Each item's own JSON: no toJSON of the array or of a prototype is looked up.
    let text = "[";
    for (let i = 0; i < n; i++) text += (i === 0 ? "" : ",") + stringify(items[i]);
    text += "]";
    if (args.length + text.length > INTL_MAX_CHARS) return null;
    const order = parse(intlAnswer(intlHost("sort", args, text)));
    if (!isArray(order) || order.length !== n) return null;
    const seen = [];
    for (let i = 0; i < n; i++) {
      const at = order[i];
      if (typeof at !== "number" || !(at >= 0 && at < n) || mathTrunc(at) !== at || seen[at] === true) return null;
      seen[at] = true;
    }
    return order;
  };
  // A method (no prototype, not a constructor), as a built-in's.
  patch(Array.prototype, "sort", {
    sort(comparefn) {
      const args = comparefn === undefined ? undefined : apply(weakMapGet, collatorCompares, [comparefn]);
      if (args === undefined || !isArray(this)) return apply(arraySort, this, [comparefn]);
      const obj = ObjectCtor(this);
      // LengthOfArrayLike (a proxy's length trap may answer anything).
      let len = +obj.length;
      len = len !== len || len <= 0 ? 0 : mathTrunc(len);
      if (len > SORT_BATCH_MAX) return apply(arraySort, obj, [comparefn]);
      const items = [];
      for (let k = 0; k < len; k++) if (k in obj) items[items.length] = obj[k];
      const n = items.length;
      let strings = n >= SORT_BATCH_MIN;
      for (let i = 0; strings && i < n; i++) if (typeof items[i] !== "string") strings = false;
      const order = strings ? hostOrder(args, items) : null;
      let sorted = items;
      if (order !== null) {
        sorted = [];
        for (let i = 0; i < n; i++) sorted[i] = items[order[i]];
      } else apply(arraySort, items, [comparefn]);
      let j = 0;
      for (; j < n; j++) obj[j] = sorted[j];
      for (; j < len; j++) delete obj[j];
      return obj;
    },
  }.sort);
  patch(String.prototype, "toLocaleUpperCase", function (locales) {
    return intlAnswer(intlHost("case", "upper", localeArgs(locales, undefined), stringOf(this, "toLocaleUpperCase")));
  });
  patch(String.prototype, "toLocaleLowerCase", function (locales) {
    return intlAnswer(intlHost("case", "lower", localeArgs(locales, undefined), stringOf(this, "toLocaleLowerCase")));
  });
  // ECMA-402's: each element's toLocaleString(locales, options), "" for null and undefined.
  // An array inside itself is "" there, as V8's join cycle check makes it.
  const joining = new SetCtor();
  patch(Array.prototype, "toLocaleString", function (locales, options) {
    if (this === null || this === undefined) throw new TypeErrorCtor("Array.prototype.toLocaleString called on null or undefined");
    const list = Object(this);
    if (apply(setHas, joining, [list])) return "";
    const n = mathTrunc(+list.length);
    const length = n > 0 ? n : 0;
    // V8 refuses these lengths before it reads an element.
    if (length > 4294967295) throw new TypeErrorCtor("Invalid array length");
    if (length - 1 > 536870888) throw new RangeErrorCtor("Invalid string length");
    apply(setAdd, joining, [list]);
    try {
      const parts = [];
      for (let i = 0; i < length; i++) {
        const item = list[i];
        push(parts, item === null || item === undefined ? "" : Str(item.toLocaleString(locales, options)));
      }
      return join(parts);
    } finally {
      apply(setDelete, joining, [list]);
    }
  });
  // %TypedArray%.prototype's too (a Buffer's is its toString, as in Node).
  const typedArrayProto = Object.getPrototypeOf(Uint8Array.prototype);
  const typedArrayLength = Object.getOwnPropertyDescriptor(typedArrayProto, "length").get;
  patch(typedArrayProto, "toLocaleString", function (locales, options) {
    const length = apply(typedArrayLength, this, []);
    const parts = [];
    for (let i = 0; i < length; i++) push(parts, Str(this[i].toLocaleString(locales, options)));
    return join(parts);
  });
  let intlObject = null;
  const loadIntl = () => {
    if (intlObject === null) {
      intlObject = indirectEval(hostIntlSource())({ host: intlHost, answer: intlAnswer, localeCompare, localeArgs, replacer: intlReplacer, Str, stringify, parse, sortableCompare });
    }
    return intlObject;
  };
  // A global the host's source makes at its first use: a getter that replaces itself with the
  // value (code may also set the name first, as with any global).
  const lazyGlobal = (name, make) => {
    defineProperty(globalThis, name, {
      configurable: true,
      enumerable: false,
      get() {
        const made = make();
        defineProperty(globalThis, name, { value: made, writable: true, configurable: true, enumerable: false });
        return made;
      },
      set(value) {
        defineProperty(globalThis, name, { value, writable: true, configurable: true, enumerable: false });
      },
    });
  };
  lazyGlobal("Intl", loadIntl);

  // URL and URLSearchParams (url-source.ts; the host's V8 parses), evaluated here at their first use.
  let urlClasses = null;
  const loadUrl = () => {
    if (urlClasses === null) urlClasses = indirectEval(hostUrlSource())({ host: (json) => hostUrl(json), stringify, parse, apply, WeakMap: WeakMapCtor, weakMapGet, weakMapSet, weakMapHas });
    return urlClasses;
  };
  lazyGlobal("URL", () => loadUrl().URL);
  lazyGlobal("URLSearchParams", () => loadUrl().URLSearchParams);

  // Node's Buffer (buffer-source.ts), evaluated here at its first use: by the code, or by a message
  // that brings one. Buffers cross to and from the host as {"\u0000b": base64}.
  const BUFFER_MARK = info.bufferMark;
  const BUFFER_MARK_JSON = stringify(BUFFER_MARK);
  let BufferCtor = null;
  let bufferFrom = null;
  const loadBuffer = () => {
    if (BufferCtor === null) {
      const B = indirectEval(hostBufferSource());
      bufferFrom = B.from;
      BufferCtor = B;
    }
    return BufferCtor;
  };
  lazyGlobal("Buffer", loadBuffer);
  // While a message is written for the host, a Buffer's toJSON writes its stand-in (one native
  // call per Buffer, where a replacer would be a call per value). The host reads the bytes of an
  // ArrayBuffer whole: a view of part of one (slice, subarray) is copied out first.
  const markToJSON = function () {
    const buffer = this.buffer;
    const offset = this.byteOffset;
    const length = this.length;
    const bytes = offset === 0 && length === buffer.byteLength ? buffer : apply(arrayBufferSlice, buffer, [offset, offset + length]);
    return { [BUFFER_MARK]: hostBase64Of(bytes, 0, length) };
  };
  // The swap is undone at the start of every call too: a time limit ends a run without its finally.
  let swapped = null;
  const unswap = () => {
    if (swapped === null) return;
    if (swapped.own) swapped.proto.toJSON = swapped.saved;
    else delete swapped.proto.toJSON;
    swapped = null;
  };
  const toJson = (value) => {
    let text;
    if (BufferCtor === null || swapped !== null) text = stringify(value);
    else {
      const proto = BufferCtor.prototype;
      swapped = { proto, own: apply(hasOwn, proto, ["toJSON"]), saved: proto.toJSON };
      proto.toJSON = markToJSON;
      try {
        text = stringify(value);
      } finally {
        unswap();
      }
    }
    return text === undefined ? "null" : text;
  };
  // A stand-in holds the bytes as base64, or (held) the index of a Buffer of this engine.
  const reviveBuffers = (value, held) => {
    if (value === null || typeof value !== "object") return value;
    if (isArray(value)) {
      for (let i = 0; i < value.length; i++) value[i] = reviveBuffers(value[i], held);
      return value;
    }
    const keys = objectKeys(value);
    if (keys.length === 1 && keys[0] === BUFFER_MARK) {
      const mark = value[BUFFER_MARK];
      if (typeof mark === "string") {
        loadBuffer();
        return apply(bufferFrom, BufferCtor, [hostBytesOf(mark)]);
      }
      // Node-RED's cloneMessage (lodash's cloneDeep) copies a Buffer with slice(): a view of the same bytes.
      if (held !== undefined && typeof mark === "number" && mark >= 0 && mark < held.length) return held[mark].slice();
    }
    for (let i = 0; i < keys.length; i++) value[keys[i]] = reviveBuffers(value[keys[i]], held);
    return value;
  };
  const cloneMessage = (value) => {
    if (value === undefined) return undefined;
    if (BufferCtor === null) return parse(toJson(value));
    const held = [];
    const text = stringify(value, function (key, item) {
      const original = this[key];
      if (original !== null && typeof original === "object" && original instanceof BufferCtor) {
        push(held, original);
        return { [BUFFER_MARK]: held.length - 1 };
      }
      return item;
    });
    const copy = parse(text === undefined ? "null" : text);
    return held.length === 0 ? copy : reviveBuffers(copy, held);
  };
  /** A message's JSON from the host (or from toJson): its Buffers' stand-ins as Buffers. */
  const parseMessage = (json) => {
    const value = parse(json);
    return apply(stringIndexOf, json, [BUFFER_MARK_JSON]) >= 0 ? reviveBuffers(value, undefined) : value;
  };

  let sent = [];
  let logs = [];
  let errors = [];
  let dones = [];
  let lates = [];
  let runPending = false;
  let runMsg;
  let runToken;
  let initState = null;
  let tokenSeq = 0;
  const tokenPrefix = Str(info.timerBase) + "r";
  let statusJson;
  let pending = null;
  let resultJson;

  const format = (value) => {
    try {
      if (typeof value === "string") return value;
      if (value instanceof ErrorCtor) return Str(value);
      const text = stringify(value);
      return text === undefined ? Str(value) : text;
    } catch (e) {
      try { return Str(value); } catch (e2) { return "[unprintable value]"; }
    }
  };
  const log = (level, args) => {
    const parts = [];
    for (let i = 0; i < args.length; i++) push(parts, format(args[i]));
    push(logs, stringify([level, apply(arrayJoin, parts, [" "])]));
  };

  // Callback forms of Node-RED's context API: get(key[, store][, cb]), set(key, value[, store][, cb]), keys([store][, cb]).
  const callbackOf = (args, from) => {
    for (let i = from; i < args.length; i++) if (typeof args[i] === "function") return args[i];
    return undefined;
  };
  const makeContext = (getOne, setOne, listKeys) => ({
    get(key, ...rest) {
      const value = isArray(key) ? apply(arrayMap, key, [(k) => getOne(Str(k))]) : getOne(Str(key));
      const cb = callbackOf(rest, 0);
      if (cb) {
        if (isArray(key)) return apply(cb, undefined, [null, ...value]);
        return cb(null, value);
      }
      return value;
    },
    set(key, value, ...rest) {
      if (isArray(key)) {
        for (let i = 0; i < key.length; i++) setOne(Str(key[i]), isArray(value) ? value[i] : undefined);
      } else {
        setOne(Str(key), value);
      }
      const cb = callbackOf(rest, 0);
      if (cb) cb(null);
    },
    keys(...rest) {
      const list = listKeys();
      const cb = callbackOf(rest, 0);
      if (cb) return cb(null, list);
      return list;
    },
  });

  // Per-node context: lives in the sandbox and keeps references, like Node-RED's memory store.
  const store = new MapCtor();
  const context = makeContext(
    (key) => apply(mapGet, store, [key]),
    (key, value) => {
      if (value === undefined) apply(mapDelete, store, [key]);
      else apply(mapSet, store, [key, value]);
    },
    () => arrayFrom(apply(mapKeys, store, [])),
  );
  // Flow context: a Map on the host, values cross as JSON.
  const flow = makeContext(
    (key) => {
      const text = hostFlowGet(key);
      return text === undefined ? undefined : parse(text);
    },
    (key, value) => hostFlowSet(key, value === undefined ? undefined : stringify(value)),
    () => parse(hostFlowKeys()),
  );
  // flow.increment: the flow runs on one instance and its sandboxes share one worker, so a read
  // and a write here are one atomic step.
  const numberOf = (by) => {
    const n = by === undefined ? 1 : by;
    if (typeof n !== "number" || n !== n || n === 1 / 0 || n === -1 / 0) throw new TypeErrorCtor("increment: the amount must be a finite number");
    return n;
  };
  flow.increment = (key, by) => hostFlowIncrement(Str(key), numberOf(by));
  // Global context: the organization's, on the host; every call waits for it (see sandbox-worker.ts).
  const global = makeContext(
    (key) => {
      const text = hostGlobal("get", key);
      return text === undefined ? undefined : parse(text);
    },
    (key, value) => hostGlobal("set", key, value === undefined ? undefined : stringify(value)),
    () => parse(hostGlobal("keys")),
  );
  global.increment = (key, by) => parse(hostGlobal("inc", Str(key), numberOf(by)));
  context.flow = flow;
  context.global = global;

  /** Node-RED's text of an error (its logMessage.toString()), and whether it was an Error. */
  const errorTextOf = (value) => {
    if (value instanceof ErrorCtor) return [Str(value), true];
    if (typeof value === "string") return [value, false];
    if (value === undefined || value === null) return ["", false];
    try { return [Str(value), false]; } catch (e) { return ["[unprintable value]", false]; }
  };
  const msgJsonOf = (value) => {
    try { return toJson(value); } catch (e) { return "{}"; }
  };
  // node.linkcall: the promises wait here, the host makes the call (see the header).
  const linkCalls = new MapCtor();
  let liveLinks = 0;
  let linksNew = [];
  const linkcall = function linkcall(target, msg, options) {
    if (typeof target !== "string" || apply(stringTrim, target, []) === "") {
      return apply(promiseReject, PromiseCtor, [new ErrorCtor("Error link call target parameter is not valid, expected a string")]);
    }
    if (typeof msg !== "object" || msg === null) {
      return apply(promiseReject, PromiseCtor, [new ErrorCtor("Error link call msg parameter is not valid, expected an object")]);
    }
    if (liveLinks >= maxTimers) {
      return apply(promiseReject, PromiseCtor, [new ErrorCtor("node.linkcall: too many calls waiting for their answer (at most " + maxTimers + ")")]);
    }
    const timeout = (options !== null && typeof options === "object" && options.timeout) || 5000;
    const id = nextTimerId++;
    const json = msgJsonOf(msg);
    return new PromiseCtor((resolve, reject) => {
      apply(mapSet, linkCalls, [id, { resolve, reject }]);
      liveLinks++;
      push(linksNew, "[" + id + "," + stringify(target) + "," + json + "," + toJson(+timeout || 5000) + "]");
    });
  };
  const nodeApi = {
    send(value) {
      if (value !== null && value !== undefined) push(sent, toJson(value));
    },
    status(value) {
      statusJson = value === null || value === undefined ? "null" : toJson(typeof value === "string" ? { text: value } : value);
    },
    log(value) { log("log", [value]); },
    warn(value) { log("warn", [value]); },
    debug(value) { log("log", [value]); },
    trace(value) { log("log", [value]); },
    error(value, msg) {
      if (msg !== null && typeof msg === "object") {
        const text = errorTextOf(value);
        push(errors, "[" + stringify(text[0]) + "," + (text[1] ? "true" : "false") + "," + msgJsonOf(msg) + "," + sent.length + "]");
        return;
      }
      log("error", [value]);
    },
    on() {},
  };
  /** The node object of one call: Node-RED makes one per message, whose done() is that message's. */
  const makeNode = (token, msg) => ({
    id: info.id,
    name: info.name,
    z: info.flowId,
    // Node-RED's node._path (the flow's path and the node's id), read when asked: env's NR_NODE_PATH.
    get path() { return env.get("NR_NODE_PATH"); },
    outputCount: info.outputs,
    send: nodeApi.send,
    status: nodeApi.status,
    log: nodeApi.log,
    warn: nodeApi.warn,
    debug: nodeApi.debug,
    trace: nodeApi.trace,
    error: nodeApi.error,
    on: nodeApi.on,
    linkcall,
    done(err) {
      if (token === undefined) return;
      if (!err) {
        push(dones, "[" + stringify(token) + ",null,false," + msgJsonOf(msg) + "]");
        return;
      }
      const text = errorTextOf(err);
      push(dones, "[" + stringify(token) + "," + stringify(text[0]) + "," + (text[1] ? "true" : "false") + "," + msgJsonOf(msg) + "]");
    },
  });
  const node = makeNode(undefined, undefined);
  /** The node object of the call under way (a timer set in it runs with it as this). */
  let callNode = node;
  // Variables (built-ins and non-secret values) live on the host side of the engine, which
  // replaces them when they change: read at each call, never cached here.
  const env = {
    get(name) {
      // A JSON text from the host: variables are strings, a subflow's env properties keep their type.
      var json = hostEnvGet(Str(name));
      return json === undefined ? undefined : JSON.parse(json);
    },
  };
  // Node-RED's RED.util (red-util-source.ts), evaluated here the first time the code calls one of
  // its functions other than cloneMessage.
  let redUtil = null;
  const redUtilLib = () => {
    if (redUtil === null) {
      redUtil = indirectEval(hostUtilSource())({
        loadBuffer,
        bufferOrNull: () => BufferCtor,
        cloneMessage: (value) => cloneMessage(value),
        envGet: (name) => env.get(name),
        flow,
        global,
      });
    }
    return redUtil;
  };
  const util = {};
  for (const name of RED_UTIL_NAMES) {
    util[name] = name === "cloneMessage" ? (value) => cloneMessage(value) : function () { return apply(redUtilLib()[name], undefined, arguments); };
  }
  const RED = { util };
  // Node's util module (node-util-source.ts), a global of Node-RED's function sandbox beside
  // RED.util, evaluated here at its first use.
  let nodeUtil = null;
  const loadNodeUtil = () => {
    if (nodeUtil === null) {
      nodeUtil = indirectEval(hostUtilSource("node"))({ bufferOrNull: () => BufferCtor, node: { id: info.id, name: info.name }, warn: (text) => log("warn", [text]) });
    }
    return nodeUtil;
  };
  // Node-RED's sandbox also has util.promisify as a global, promisify.
  lazyGlobal("util", loadNodeUtil);
  lazyGlobal("promisify", () => loadNodeUtil().promisify);
  // Node's crypto (crypto-source.ts; the host's crypto computes), for the node's Setup → Modules.
  const typedArraySet = typedArrayProto.set;
  const ArrayBufferIsView = ArrayBuffer.isView;
  const ArraySlice = Array.prototype.slice;
  const stringToLowerCase = String.prototype.toLowerCase;
  const Uint8ArrayCtor = Uint8Array;
  let cryptoModule = null;
  const loadCrypto = () => {
    if (cryptoModule === null) {
      cryptoModule = indirectEval(hostCryptoSource())({
        host: (json) => hostCrypto(json),
        replacer: intlReplacer,
        maxChars: info.cryptoMaxChars,
        stringify,
        parse,
        apply,
        isView: ArrayBufferIsView,
        WeakMap: WeakMapCtor,
        weakMapGet,
        weakMapSet,
        arrayPush,
        keys: objectKeys,
        defineProperty,
        arraySlice: ArraySlice,
        stringSlice,
        toLowerCase: stringToLowerCase,
        base64Of: (view) => hostBase64Of(view.buffer, view.byteOffset, view.byteLength),
        bufferOf: (base64) => apply(bufferFrom === null ? (loadBuffer(), bufferFrom) : bufferFrom, BufferCtor, [hostBytesOf(base64)]),
        bytesInto: (view, base64) => { apply(typedArraySet, view, [new Uint8ArrayCtor(hostBytesOf(base64))]); },
      });
    }
    return cryptoModule;
  };
  // npm packages of the node's libs (packages-source.ts: lodash, moment, moment-timezone and
  // moment's locales), each evaluated here once, at its first require, as Node's loader runs a
  // CommonJS file: the wrapped source called with its module, exports and require, this = exports.
  // A package that throws while it loads is not kept (Node's require drops it from its cache too).
  const libs = isArray(info.libs) ? info.libs : []; // [[var, module], ...]
  const packageModules = new MapCtor();
  const stringStartsWith = String.prototype.startsWith;
  // A load the time limit stopped leaves its unfinished entry in the map (no catch runs when the
  // engine interrupts): the next call forgets it, so the package or locale is evaluated again at
  // its next use instead of answering its unfinished exports for ever.
  const packagesLoading = []; // names, outermost first
  const forgetInterruptedLoads = () => {
    for (let i = 0; i < packagesLoading.length; i++) apply(mapDelete, packageModules, [packagesLoading[i]]);
    packagesLoading.length = 0;
  };
  // What a package writes to the console (moment's deprecation warnings, moment-timezone's missing
  // zones) is the server's log, as Node-RED's packages write to its stderr, not the node's warnings.
  const quiet = (...args) => { log("log", args); };
  const packageConsole = { log: quiet, info: quiet, debug: quiet, warn: quiet, error: quiet, trace: quiet };
  const requirePackage = (name) => {
    const known = apply(mapGet, packageModules, [name]);
    if (known !== undefined) return known.exports;
    const source = hostPackageSource(name);
    if (typeof source !== "string") {
      const error = new ErrorCtor("Cannot find module '" + name + "'");
      error.code = "MODULE_NOT_FOUND";
      throw error;
    }
    const module = { exports: {} };
    apply(mapSet, packageModules, [name, module]);
    push(packagesLoading, name);
    try {
      const body = indirectEval(source);
      // Paths as the packages write them: moment's "./locale/de", a locale's "../moment".
      const require = (request) => {
        const dependency = Str(request);
        if (name === "moment" && apply(stringStartsWith, dependency, ["./locale/"])) return requirePackage("moment/" + apply(stringSlice, dependency, [2]));
        if (apply(stringStartsWith, name, ["moment/locale/"]) && dependency === "../moment") return requirePackage("moment");
        return requirePackage(dependency);
      };
      apply(body, module.exports, [module, module.exports, require, globalThis, packageConsole]);
      packagesLoading.length--;
    } catch (error) {
      apply(mapDelete, packageModules, [name]);
      packagesLoading.length--;
      throw error;
    }
    return module.exports;
  };
  // A package's variables, made when the host has it loaded at set-up (op 7, before any of the
  // code runs, as Node-RED requires a function's modules when the node starts). Not a lazy global:
  // lodash reads the global _ while it loads, which would fix a lazy one to its unfinished exports.
  const definePackage = (module) => {
    const exports = requirePackage(module);
    for (let i = 0; i < libs.length; i++) {
      if (Str(libs[i][1]) === module) defineProperty(globalThis, Str(libs[i][0]), { value: exports, writable: true, configurable: true, enumerable: false });
    }
  };
  // The node's Setup → Modules (Node-RED's libs: [{var, module}]): each a global of the code, the
  // module Node-RED's sandbox gets for it: Node's crypto or util, evaluated at its first use, or an
  // npm package above (definePackage).
  const MODULES = { crypto: loadCrypto, util: loadNodeUtil };
  for (let i = 0; i < libs.length; i++) {
    const module = Str(libs[i][1]);
    const bare = apply(stringIndexOf, module, ["node:"]) === 0 ? apply(stringSlice, module, [5]) : module;
    if (apply(hasOwn, MODULES, [bare])) lazyGlobal(Str(libs[i][0]), MODULES[bare]);
  }
  // Node's console, as Node-RED's code has it: log, info and debug are the server's log (not shown,
  // as in Node-RED's default level), warn and error the node's warnings; the rest write through
  // them as Node's do (trace and a failed assert to stderr, so as errors), and none throws.
  const counts = new MapCtor();
  const timers2 = new MapCtor();
  const dateNow = Date.now;
  const label = (value) => (value === undefined ? "default" : Str(value));
  globalThis.console = {
    log(...args) { log("log", args); },
    info(...args) { log("log", args); },
    debug(...args) { log("log", args); },
    warn(...args) { log("warn", args); },
    error(...args) { log("error", args); },
    dir(value) { log("log", [value]); },
    dirxml(...args) { log("log", args); },
    table(value) { log("log", [value]); },
    trace(...args) { log("error", args.length === 0 ? ["Trace"] : ["Trace:", ...args]); },
    assert(value, ...args) { if (!value) log("error", args.length === 0 ? ["Assertion failed"] : ["Assertion failed:", ...args]); },
    count(name) {
      const key = label(name);
      const n = (apply(mapGet, counts, [key]) || 0) + 1;
      apply(mapSet, counts, [key, n]);
      log("log", [key + ": " + n]);
    },
    countReset(name) {
      const key = label(name);
      if (apply(mapGet, counts, [key]) === undefined) log("warn", ["Count for '" + key + "' does not exist"]);
      else apply(mapDelete, counts, [key]);
    },
    group(...args) { if (args.length > 0) log("log", args); },
    groupCollapsed(...args) { if (args.length > 0) log("log", args); },
    groupEnd() {},
    time(name) {
      const key = label(name);
      if (apply(mapGet, timers2, [key]) !== undefined) log("warn", ["Label '" + key + "' already exists for console.time()"]);
      else apply(mapSet, timers2, [key, dateNow()]);
    },
    timeLog(name, ...args) {
      const key = label(name);
      const start = apply(mapGet, timers2, [key]);
      if (start === undefined) log("warn", ["No such label '" + key + "' for console.timeLog()"]);
      else log("log", [key + ": " + (dateNow() - start) + "ms", ...args]);
    },
    timeEnd(name) {
      const key = label(name);
      const start = apply(mapGet, timers2, [key]);
      if (start === undefined) { log("warn", ["No such label '" + key + "' for console.timeEnd()"]); return; }
      apply(mapDelete, timers2, [key]);
      log("log", [key + ": " + (dateNow() - start) + "ms"]);
    },
    clear() {},
    profile() {},
    profileEnd() {},
    timeStamp() {},
  };

  // Node-RED runs the body in an async function; an async compile is only needed for code that
  // mentions await (a plain function is cheaper per call). Code using "await" as an identifier
  // (sloppy mode) still compiles, as a plain function.
  const compile = (body, params) => {
    if (!body) return null;
    if (apply(regexpTest, awaitPattern, [body])) {
      try {
        return apply(AsyncFunction, undefined, [...params, body]);
      } catch (asyncError) {
        try { return apply(FunctionCtor, undefined, [...params, body]); } catch (e) { throw asyncError; }
      }
    }
    return apply(FunctionCtor, undefined, [...params, body]);
  };
  const params = ["msg", "node", "context", "flow", "global", "env", "RED"];
  const fn = compile(code, params);
  const initFn = compile(initCode, params);
  const finFn = compile(finCode, params);

  // Timers: the callbacks live here, the clocks on the host (see the header).
  const TIMEOUT_MAX = 2147483647;
  const maxTimers = info.maxTimers;
  const timers = new MapCtor();
  let liveTimers = 0;
  let nextTimerId = info.timerBase + 1;
  /** Ids set during the current call (reported if still live when the envelope is made). */
  let timersSet = [];
  /** Ids of earlier calls cleared during the current call, or unknown to op 5. */
  let timersCleared = [];
  const addTimer = (name, fn, delay, args, repeat) => {
    if (typeof fn !== "function") {
      throw new TypeErrorCtor('The "callback" argument of ' + name + " must be of type function. Received " + (fn === null ? "null" : typeof fn));
    }
    if (liveTimers >= maxTimers) {
      throw new ErrorCtor(name + ": too many timers (a function node may have at most " + maxTimers + " set at once; clear some or let them run first)");
    }
    // Node's coercion: anything not in [1, 2^31 - 1] (NaN, 0, negative, too large) becomes 1 ms.
    let after = delay * 1;
    if (!(after >= 1 && after <= TIMEOUT_MAX)) {
      if (after > TIMEOUT_MAX) {
        log("warn", ["TimeoutOverflowWarning: " + after + " does not fit into a 32-bit signed integer. Timeout duration was set to 1."]);
      }
      after = 1;
    }
    const id = nextTimerId++;
    apply(mapSet, timers, [id, { fn, args, repeat, delay: after, fresh: true, self: callNode }]);
    liveTimers++;
    push(timersSet, id);
    return id;
  };
  const clearTimer = (id) => {
    const key = typeof id === "number" ? id : typeof id === "string" ? +id : NaN;
    const timer = apply(mapGet, timers, [key]);
    if (timer === undefined) return;
    apply(mapDelete, timers, [key]);
    liveTimers--;
    if (!timer.fresh) push(timersCleared, key);
  };
  globalThis.setTimeout = function setTimeout(fn, delay, ...args) { return addTimer("setTimeout", fn, delay, args, false); };
  // util.promisify(setTimeout)(ms, value), as Node-RED defines it on its sandbox's setTimeout.
  const sandboxSetTimeout = globalThis.setTimeout;
  sandboxSetTimeout[Symbol.for("nodejs.util.promisify.custom")] = function (after, value) {
    return new PromiseCtor((resolve) => { sandboxSetTimeout(() => { resolve(value); }, after); });
  };
  globalThis.setInterval = function setInterval(fn, delay, ...args) { return addTimer("setInterval", fn, delay, args, true); };
  // Interchangeable, as in Node and browsers.
  globalThis.clearTimeout = function clearTimeout(id) { clearTimer(id); };
  globalThis.clearInterval = function clearInterval(id) { clearTimer(id); };
  const timerJson = () => {
    let text = "";
    if (timersSet.length > 0) {
      const parts = [];
      for (let i = 0; i < timersSet.length; i++) {
        const id = timersSet[i];
        const timer = apply(mapGet, timers, [id]);
        if (timer !== undefined) push(parts, "[" + id + "," + timer.delay + "," + (timer.repeat ? "true" : "false") + "]");
      }
      if (parts.length > 0) text += ',"t":[' + join(parts) + "]";
    }
    if (timersCleared.length > 0) text += ',"c":[' + join(timersCleared) + "]";
    return text;
  };
  const newCall = () => {
    sent = [];
    logs = [];
    if (errors.length > 0) errors = [];
    if (dones.length > 0) dones = [];
    if (lates.length > 0) lates = [];
    runPending = false;
    runMsg = undefined;
    runToken = undefined;
    callNode = node;
    statusJson = undefined;
    pending = null;
    resultJson = undefined;
    if (timersSet.length > 0) {
      for (let i = 0; i < timersSet.length; i++) {
        const timer = apply(mapGet, timers, [timersSet[i]]);
        if (timer !== undefined) timer.fresh = false;
      }
      timersSet = [];
    }
    if (timersCleared.length > 0) timersCleared = [];
    if (linksNew.length > 0) linksNew = [];
  };

  /** The run's msg as the code left it: after an error, and after every run when a complete node watches. */
  const finalMsgJson = (always) => (runMsg !== undefined && (always || info.finalMsg) ? ',"m":' + msgJsonOf(runMsg) : "");
  const envelope = (resultJson, failed) =>
    '{"r":' + resultJson + ',"s":[' + join(sent) + '],"l":[' + join(logs) + ']' +
    (statusJson === undefined ? "" : ',"st":' + statusJson) +
    (timersSet.length === 0 && timersCleared.length === 0 ? "" : timerJson()) +
    (runToken === undefined ? "" : ',"ri":' + stringify(runToken)) +
    (errors.length === 0 ? "" : ',"e":[' + join(errors) + "]") +
    (dones.length === 0 ? "" : ',"d":[' + join(dones) + "]") +
    (lates.length === 0 ? "" : ',"ls":[' + join(lates) + "]") +
    (linksNew.length === 0 ? "" : ',"lc":[' + join(linksNew) + "]") +
    (runPending ? ',"rp":1' : "") +
    finalMsgJson(failed === true) +
    (initState === null ? "" : initJson()) + "}";
  /** On Start's promise: "ip" while pending (once), "is" when it settled (once). */
  const initJson = () => {
    const state = initState;
    if (!state.done) {
      if (state.reported) return "";
      state.reported = true;
      return ',"ip":1';
    }
    initState = null;
    if (state.ok) return ',"is":[true]';
    return ',"is":[false,' + stringify(errorTextOf(state.value)[0]) + "]";
  };

  /** A promise still pending when its call ended, settled during a later call: its value is sent then. */
  const settleLate = (state) => {
    if (state.init) return;
    if (state.token !== undefined) {
      // A message's run: what it resolves to is sent now, and the message is finished (or fails) now.
      let value = state.value;
      if (state.ok && value !== null && value !== undefined) {
        try {
          push(sent, toJson(value));
        } catch (e) {
          state.ok = false;
          value = e;
        }
      }
      let text = "null";
      let error = "null";
      if (!state.ok) {
        if (value instanceof ErrorCtor) {
          error = toJson({ n: Str(value.name), m: Str(value.message), s: Str(value.stack) });
        } else {
          const t = typeof value === "string" ? value : stringify(value);
          text = stringify(t === undefined ? "" : t);
        }
      }
      push(lates, "[" + stringify(state.token) + "," + (state.ok ? "true" : "false") + "," + text + "," + error + "," + msgJsonOf(state.msg) + "]");
      return;
    }
    if (!state.ok) {
      log("error", [state.value]);
      return;
    }
    if (!state.sends || state.value === null || state.value === undefined) return;
    try {
      push(sent, toJson(state.value));
    } catch (e) {
      log("error", [e]);
    }
  };

  // sends: what the code returns is sent (the body); initialize, finalize and timer callbacks' are not.
  const finish = (result, sends, init) => {
    resultJson = undefined;
    if (result !== null && typeof result === "object" && typeof result.then === "function") {
      const state = { done: false, ok: false, value: undefined, late: false, sends, init: init === true, reported: false, token: sends ? runToken : undefined, msg: sends ? runMsg : undefined };
      pending = state;
      if (init === true) initState = state;
      const promise = apply(promiseResolve, PromiseCtor, [result]);
      apply(promiseThen, promise, [
        (value) => { state.done = true; state.ok = true; state.value = value; if (state.late) settleLate(state); },
        (error) => { state.done = true; state.ok = false; state.value = error; if (state.late) settleLate(state); },
      ]);
      return "";
    }
    resultJson = sends ? toJson(result) : "null";
    return envelope(resultJson);
  };

  return function dispatch(op, msgJson) {
    unswap();
    if (packagesLoading.length !== 0) forgetInterruptedLoads();
    if (op === 7) {
      if (msgJson === "util") redUtilLib();
      else if (msgJson === "nodeutil") loadNodeUtil();
      else if (msgJson === "intl") loadIntl();
      else if (msgJson === "url") loadUrl();
      else if (msgJson === "crypto") loadCrypto();
      else if (typeof msgJson === "string" && apply(stringIndexOf, msgJson, ["package:"]) === 0) definePackage(apply(stringSlice, msgJson, [8]));
      else loadBuffer();
      return "";
    }
    if (op === 3) {
      const state = pending;
      pending = null;
      // A plain return whose promise jobs were run afterwards: same result, with what the jobs did.
      if (state === null && resultJson !== undefined) return envelope(resultJson);
      if (state === null || !state.done) {
        // Still pending: a timer may settle it later (see settleLate).
        if (state !== null) {
          state.late = true;
          if (state.token !== undefined) runPending = true;
        }
        if (liveTimers === 0 && liveLinks === 0) {
          log("warn", ["the function returned a promise that had not settled when its call ended, and no timer is set that could settle it"]);
        }
        return envelope("null");
      }
      if (state.init) return envelope("null");
      if (!state.ok) throw state.value;
      return envelope(state.sends ? toJson(state.value) : "null");
    }
    if (op === 4) return envelope("null", true);
    newCall();
    if (op === 0) {
      runToken = tokenPrefix + ++tokenSeq;
      runMsg = parseMessage(msgJson);
      callNode = makeNode(runToken, runMsg);
      return finish(fn === null ? undefined : fn(runMsg, callNode, context, flow, global, env, RED), true);
    }
    if (op === 5) {
      const id = +msgJson;
      const timer = apply(mapGet, timers, [id]);
      if (timer === undefined) {
        push(timersCleared, id);
        return finish(undefined, false);
      }
      if (!timer.repeat) {
        apply(mapDelete, timers, [id]);
        liveTimers--;
      }
      callNode = timer.self;
      return finish(apply(timer.fn, timer.self, timer.args), false);
    }
    if (op === 6) {
      const answer = parseMessage(msgJson);
      const call = apply(mapGet, linkCalls, [answer.i]);
      if (call !== undefined) {
        apply(mapDelete, linkCalls, [answer.i]);
        liveLinks--;
        if (answer.e !== undefined) call.reject(new ErrorCtor(answer.e));
        else call.resolve(answer.m);
      }
      return finish(undefined, false);
    }
    if (op === 1) {
      // Node-RED runs On Start in an async function: what it throws is a rejection (reported, and
      // the node drops its messages), not a failure to start.
      let started;
      try {
        started = initFn === null ? undefined : initFn(undefined, node, context, flow, global, env, RED);
      } catch (e) {
        initState = { done: true, ok: false, value: e, init: true, reported: true };
        return envelope("null");
      }
      return finish(started, false, true);
    }
    return finish(finFn === null ? undefined : finFn(undefined, node, context, flow, global, env, RED), false);
  };
})`;
