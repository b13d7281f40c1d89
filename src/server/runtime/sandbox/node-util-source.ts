/**
 * Node's `util` module for the function node's code, as Node-RED's function sandbox has it (a
 * global `util`, beside `RED.util`): JavaScript evaluated INSIDE the QuickJS sandbox the first time
 * the code names it (driver.ts, `loadNodeUtil`), so code that never does pays nothing for it.
 *
 * - `inspect`, `format` and `formatWithOptions` are Node's own code: the `node-inspect-extracted`
 *   package (MIT), which is lib/internal/util/inspect.js with Node's internals emulated, read from
 *   node_modules once per thread, as buffer-source.ts reads the `buffer` package.
 * - The rest is written here after Node 24's lib/util.js and lib/internal/util/comparisons.js:
 *   `inherits`, `promisify` (and `promisify.custom`), `callbackify`, `deprecate`, `debuglog` /
 *   `debug`, `isDeepStrictEqual`, `types`, `isArray`, `_extend`, `stripVTControlCharacters`,
 *   `toUSVString`, `TextEncoder` and `TextDecoder` (UTF-8, UTF-16LE and windows-1252, which WHATWG
 *   also calls latin1 and ascii; Node's knows more through ICU).
 *
 * What the sandbox cannot know, it does not pretend to: a Promise's state (QuickJS keeps it from
 * JavaScript, so `inspect` shows every Promise as `Promise { <pending> }`), a Proxy
 * (`types.isProxy` answers false), the server's processes and files (`getSystemErrorName`,
 * `parseArgs`, `MIMEType`, `aborted` and the other process-bound functions are absent, and an
 * imported flow's dry run names them: SANDBOX_NODE_UTIL in nodes/function/definition.ts).
 *
 * The source is an expression yielding a factory; the driver calls it with `bufferOrNull()` (the
 * Buffer constructor if the code has loaded it), `node` ({id, name}, for stack frames) and `warn(text)` (a line in the node's log, where
 * Node writes a deprecation warning to the server's stderr).
 *
 * No backticks and no dollar-brace in NODE_UTIL_GLUE: it is a template literal.
 */
import { readFileSync } from "node:fs";
import { NODE_ERRORS_SOURCE } from "./node-errors-source";
import { createRequire } from "node:module";

const NODE_UTIL_GLUE = String.raw`
  var ObjectProto = Object.prototype;
  var toTag = function (v) { return ObjectProto.toString.call(v); };
  var getProto = Object.getPrototypeOf;
  var TypedArrayProto = getProto(Uint8Array.prototype);
  var typedArrayTag = Object.getOwnPropertyDescriptor(TypedArrayProto, Symbol.toStringTag).get;
  var kCustomPromisify = Symbol.for("nodejs.util.promisify.custom");
  var kCustomInspect = Symbol.for("nodejs.util.inspect.custom");

${NODE_ERRORS_SOURCE}
  function received(value) {
    if (value === null || value === undefined) return " Received " + value;
    if (typeof value === "function") return " Received function " + (value.name || "<anonymous>");
    if (typeof value === "object") {
      if (value.constructor && value.constructor.name) return " Received an instance of " + value.constructor.name;
      return " Received " + lib.inspect(value, { depth: -1 });
    }
    var shown = lib.inspect(value, { colors: false });
    if (shown.length > 28) shown = shown.slice(0, 25) + "...";
    return " Received type " + typeof value + " (" + shown + ")";
  }
  function argType(name, what, value) {
    return codeError(TypeError, "ERR_INVALID_ARG_TYPE", "The \"" + name + "\" argument must be " + what + "." + received(value));
  }

  // QuickJS's error.stack holds only the frames; Node's starts with "Name: message". inspect reads
  // an error's stack through this (the one place it does, patched in nodeUtilSource), so an error
  // is shown as Node-RED shows it, without being changed: its header, then the code's own frames
  // named as Node-RED names them ("at Function node:<id> [<name>]:<line>:<column>", the line one
  // past the code's, as Node-RED's wrapper puts it), without the sandbox's.
  var file = "Function node:" + deps.node.id + (deps.node.name ? " [" + deps.node.name + "]" : "");
  function nodeRedFrame(line) {
    var m = /^(\s+at )(\S+) \(<input>:(\d+):(\d+)\)$/.exec(line);
    if (m === null) return line;
    var where = file + ":" + (+m[3] - 1) + ":" + m[4];
    return m[2] === "anonymous" ? m[1] + where : m[1] + m[2] + " (" + where + ")";
  }
  function nodeStack(error) {
    var stack = error.stack;
    if (typeof stack !== "string" || stack === "" || /^\S/.test(stack)) return stack;
    var header;
    try { header = Error.prototype.toString.call(error); } catch (e) { header = "Error"; }
    var frames = stack.split("\n").filter(function (line) { return /^\s+at /.test(line) && line.indexOf("sandbox-driver.js") === -1; }).map(nodeRedFrame);
    return frames.length > 0 ? header + "\n" + frames.join("\n") : header;
  }
  var lib = loadInspect(nodeStack);

  // The buffer package shows "<Buffer 01 02 >" past 50 bytes; Node shows "... N more bytes".
  var patchedBuffer = null;
  function nodeBufferInspect() {
    var B = deps.bufferOrNull();
    if (B === null || B === patchedBuffer) return;
    patchedBuffer = B;
    Object.defineProperty(B.prototype, kCustomInspect, {
      configurable: true, writable: true, enumerable: false,
      value: function inspect() {
        var max = 50;
        var shown = Math.min(max, this.length);
        var remaining = this.length - max;
        var str = this.toString("hex", 0, shown).replace(/(.{2})/g, "$1 ").trim();
        if (remaining > 0) str += " ... " + remaining + " more byte" + (remaining > 1 ? "s" : "");
        return "<" + this.constructor.name + " " + str + ">";
      },
    });
  }
  function prepare() {
    nodeBufferInspect();
  }

  var inspect = lib.inspect;
  function inspectFn(value, opts) {
    prepare();
    return inspect.apply(undefined, arguments);
  }
  Object.defineProperty(inspectFn, "name", { value: "inspect" });
  ["custom", "colors", "styles"].forEach(function (key) { inspectFn[key] = inspect[key]; });
  Object.defineProperty(inspectFn, "defaultOptions", {
    get: function () { return inspect.defaultOptions; },
    set: function (options) { inspect.defaultOptions = options; },
    enumerable: true,
  });
  function format() {
    prepare();
    return lib.format.apply(undefined, arguments);
  }
  function formatWithOptions(options) {
    prepare();
    return lib.formatWithOptions.apply(undefined, arguments);
  }

  function inherits(ctor, superCtor) {
    if (ctor === undefined || ctor === null) throw argType("ctor", "of type function", ctor);
    if (superCtor === undefined || superCtor === null) throw argType("superCtor", "of type function", superCtor);
    if (superCtor.prototype === undefined) throw argType("superCtor.prototype", "of type object", superCtor.prototype);
    Object.defineProperty(ctor, "super_", { value: superCtor, writable: true, configurable: true });
    Object.setPrototypeOf(ctor.prototype, superCtor.prototype);
  }

  function promisify(original) {
    if (typeof original !== "function") throw argType("original", "of type function", original);
    if (original[kCustomPromisify]) {
      var custom = original[kCustomPromisify];
      if (typeof custom !== "function") throw argType("util.promisify.custom", "of type function", custom);
      return Object.defineProperty(custom, kCustomPromisify, { value: custom, enumerable: false, writable: false, configurable: true });
    }
    function fn() {
      var self = this;
      var args = Array.prototype.slice.call(arguments);
      return new Promise(function (resolve, reject) {
        args.push(function (err, value) {
          if (err) return reject(err);
          resolve(value);
        });
        Reflect.apply(original, self, args);
      });
    }
    Object.setPrototypeOf(fn, getProto(original));
    Object.defineProperty(fn, kCustomPromisify, { value: fn, enumerable: false, writable: false, configurable: true });
    return Object.defineProperties(fn, Object.getOwnPropertyDescriptors(original));
  }
  promisify.custom = kCustomPromisify;

  function callbackify(original) {
    if (typeof original !== "function") throw argType("original", "of type function", original);
    function callbackified() {
      var args = Array.prototype.slice.call(arguments);
      var cb = args.pop();
      if (typeof cb !== "function") throw argType("last argument", "of type function", cb);
      var self = this;
      Promise.resolve(Reflect.apply(original, self, args)).then(
        function (ret) { cb(null, ret); },
        function (rej) {
          if (!rej) {
            var wrapped = codeError(Error, "ERR_FALSY_VALUE_REJECTION", "Promise was rejected with falsy value");
            wrapped.reason = rej;
            rej = wrapped;
          }
          cb(rej);
        });
    }
    var descriptors = Object.getOwnPropertyDescriptors(original);
    if (typeof descriptors.length.value === "number") descriptors.length.value++;
    if (typeof descriptors.name.value === "string") descriptors.name.value += "Callbackified";
    delete descriptors.prototype;
    Object.defineProperties(callbackified, descriptors);
    return callbackified;
  }

  var warned = {};
  function deprecate(fn, msg, code) {
    if (typeof fn !== "function") throw argType("fn", "of type function", fn);
    var done = false;
    function deprecated() {
      if (!done && !(code !== undefined && warned[code])) {
        done = true;
        if (code !== undefined) warned[code] = true;
        deps.warn((code !== undefined ? "[" + code + "] " : "") + "DeprecationWarning: " + msg);
      }
      return new.target ? Reflect.construct(fn, arguments, new.target) : Reflect.apply(fn, this, arguments);
    }
    Object.setPrototypeOf(deprecated, fn);
    if (fn.prototype) deprecated.prototype = fn.prototype;
    return deprecated;
  }

  // NODE_DEBUG is the server's: no section is enabled in the sandbox.
  function debuglog(section, cb) {
    function logger() {}
    Object.defineProperty(logger, "enabled", { get: function () { return false; }, configurable: true, enumerable: true });
    return logger;
  }

  // types: what JavaScript can tell of a value.
  function tagIs(tag) { return function (v) { return v !== null && (typeof v === "object" || typeof v === "function") && toTag(v) === "[object " + tag + "]" && hasSlot(v, tag); }; }
  function hasSlot(v, tag) {
    try {
      switch (tag) {
        case "Date": Date.prototype.getTime.call(v); return true;
        case "RegExp": Object.getOwnPropertyDescriptor(RegExp.prototype, "source").get.call(v); return true;
        case "Map": Object.getOwnPropertyDescriptor(Map.prototype, "size").get.call(v); return true;
        case "Set": Object.getOwnPropertyDescriptor(Set.prototype, "size").get.call(v); return true;
        case "WeakMap": WeakMap.prototype.has.call(v, ObjectProto); return true;
        case "WeakSet": WeakSet.prototype.has.call(v, ObjectProto); return true;
        case "ArrayBuffer": Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, "byteLength").get.call(v); return true;
        case "SharedArrayBuffer": return typeof SharedArrayBuffer === "function" && (Object.getOwnPropertyDescriptor(SharedArrayBuffer.prototype, "byteLength").get.call(v), true);
        case "DataView": Object.getOwnPropertyDescriptor(DataView.prototype, "byteLength").get.call(v); return true;
        case "Promise": return v instanceof Promise;
        case "Number": Number.prototype.valueOf.call(v); return true;
        case "String": String.prototype.valueOf.call(v); return true;
        case "Boolean": Boolean.prototype.valueOf.call(v); return true;
        case "Symbol": Symbol.prototype.valueOf.call(v); return true;
        case "BigInt": BigInt.prototype.valueOf.call(v); return true;
        default: return true;
      }
    } catch (e) {
      return false;
    }
  }
  function typedTag(v) {
    try { return typedArrayTag.call(v); } catch (e) { return undefined; }
  }
  function isTypedArray(v) { return typedTag(v) !== undefined; }
  function typedIs(name) { return function (v) { return typedTag(v) === name; }; }
  var AsyncFunctionProto = getProto(async function () {});
  var GeneratorFunctionProto = getProto(function* () {});
  var AsyncGeneratorFunctionProto = getProto(async function* () {});
  var GeneratorProto = getProto(function* () {}.prototype);
  var AsyncGeneratorProto = getProto(async function* () {}.prototype);
  var MapIteratorProto = getProto(new Map().entries());
  var SetIteratorProto = getProto(new Set().entries());
  var isMap = tagIs("Map"), isSet = tagIs("Set");
  var isNumberObject = tagIs("Number"), isStringObject = tagIs("String"), isBooleanObject = tagIs("Boolean");
  var isSymbolObject = tagIs("Symbol"), isBigIntObject = tagIs("BigInt");
  var isArrayBuffer = tagIs("ArrayBuffer"), isSharedArrayBuffer = tagIs("SharedArrayBuffer"), isDataView = tagIs("DataView");
  function protoChainHas(v, proto) {
    for (var p = v; p !== null && p !== undefined; p = getProto(p)) if (p === proto) return true;
    return false;
  }
  var types = {
    isArgumentsObject: function (v) { return toTag(v) === "[object Arguments]"; },
    isArrayBuffer: isArrayBuffer,
    isAsyncFunction: function (v) { return typeof v === "function" && (protoChainHas(v, AsyncFunctionProto) || protoChainHas(v, AsyncGeneratorFunctionProto)); },
    isBigIntObject: isBigIntObject,
    isBooleanObject: isBooleanObject,
    isDate: tagIs("Date"),
    isExternal: function () { return false; },
    isGeneratorFunction: function (v) { return typeof v === "function" && (protoChainHas(v, GeneratorFunctionProto) || protoChainHas(v, AsyncGeneratorFunctionProto)); },
    isGeneratorObject: function (v) { return v !== null && typeof v === "object" && (protoChainHas(v, GeneratorProto) || protoChainHas(v, AsyncGeneratorProto)); },
    isMap: isMap,
    isMapIterator: function (v) { return v !== null && typeof v === "object" && protoChainHas(v, MapIteratorProto); },
    isModuleNamespaceObject: function (v) { return toTag(v) === "[object Module]"; },
    isNativeError: function (v) { return v instanceof Error && toTag(v) === "[object Error]"; },
    isNumberObject: isNumberObject,
    isPromise: tagIs("Promise"),
    isProxy: function () { return false; },
    isRegExp: tagIs("RegExp"),
    isSet: isSet,
    isSetIterator: function (v) { return v !== null && typeof v === "object" && protoChainHas(v, SetIteratorProto); },
    isSharedArrayBuffer: isSharedArrayBuffer,
    isStringObject: isStringObject,
    isSymbolObject: isSymbolObject,
    isWeakMap: tagIs("WeakMap"),
    isWeakSet: tagIs("WeakSet"),
    isAnyArrayBuffer: function (v) { return isArrayBuffer(v) || isSharedArrayBuffer(v); },
    isBoxedPrimitive: function (v) { return isNumberObject(v) || isStringObject(v) || isBooleanObject(v) || isBigIntObject(v) || isSymbolObject(v); },
    isArrayBufferView: function (v) { return ArrayBuffer.isView(v); },
    isDataView: isDataView,
    isTypedArray: isTypedArray,
    isUint8Array: typedIs("Uint8Array"),
    isUint8ClampedArray: typedIs("Uint8ClampedArray"),
    isUint16Array: typedIs("Uint16Array"),
    isUint32Array: typedIs("Uint32Array"),
    isInt8Array: typedIs("Int8Array"),
    isInt16Array: typedIs("Int16Array"),
    isInt32Array: typedIs("Int32Array"),
    isFloat16Array: typedIs("Float16Array"),
    isFloat32Array: typedIs("Float32Array"),
    isFloat64Array: typedIs("Float64Array"),
    isBigInt64Array: typedIs("BigInt64Array"),
    isBigUint64Array: typedIs("BigUint64Array"),
    isKeyObject: function () { return false; },
    isCryptoKey: function () { return false; },
  };

  // isDeepStrictEqual: Node's strict comparison (lib/internal/util/comparisons.js): same prototype
  // and tag, Object.is for primitives, own enumerable keys (symbols too), an error's cause and
  // errors, Map and Set entries compared deeply in any order, cycles as Node follows them.
  function ownEnumerable(v) {
    var keys = Object.keys(v);
    var symbols = Object.getOwnPropertySymbols(v);
    for (var i = 0; i < symbols.length; i++) if (ObjectProto.propertyIsEnumerable.call(v, symbols[i])) keys.push(symbols[i]);
    return keys;
  }
  function isIndex(key) { return typeof key === "string" && /^(?:0|[1-9][0-9]*)$/.test(key) && +key < 4294967295; }
  function bytesOf(v) {
    if (isArrayBuffer(v) || isSharedArrayBuffer(v)) return new Uint8Array(v);
    return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  }
  function deepEqual(a, b, memo) {
    if (Object.is(a, b)) return true;
    if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
    if (getProto(a) !== getProto(b)) return false;
    var tag = toTag(a);
    if (tag !== toTag(b)) return false;
    if (Array.isArray(a) !== Array.isArray(b)) return false;
    if (Array.isArray(a)) {
      if (a.length !== b.length) return false;
    } else if (types.isDate(a)) {
      if (!types.isDate(b) || !Object.is(a.getTime(), b.getTime())) return false;
    } else if (types.isRegExp(a)) {
      if (!types.isRegExp(b) || a.source !== b.source || a.flags !== b.flags || a.lastIndex !== b.lastIndex) return false;
    } else if (a instanceof Error || types.isNativeError(a)) {
      if (a.message !== b.message || a.name !== b.name) return false;
      if (("cause" in a) !== ("cause" in b) || ("errors" in a) !== ("errors" in b)) return false;
    } else if (tag === "[object URL]") {
      // Node compares URLs by href (its URL has no own keys).
      var hrefA, hrefB;
      try { hrefA = a.href; hrefB = b.href; } catch (e) { return false; }
      if (hrefA !== hrefB) return false;
    } else if (types.isBoxedPrimitive(a)) {
      if (!types.isBoxedPrimitive(b) || !Object.is(a.valueOf(), b.valueOf())) return false;
      if (isStringObject(a) && a.length !== b.length) return false;
    } else if (isTypedArray(a) || isArrayBuffer(a) || isSharedArrayBuffer(a) || isDataView(a)) {
      if (typedTag(a) !== typedTag(b)) return false;
      if (typedTag(a) === "Float32Array" || typedTag(a) === "Float64Array" || typedTag(a) === "Float16Array") {
        if (a.length !== b.length) return false;
        for (var f = 0; f < a.length; f++) if (!Object.is(a[f], b[f])) return false;
      } else {
        var x = bytesOf(a), y = bytesOf(b);
        if (x.length !== y.length) return false;
        for (var j = 0; j < x.length; j++) if (x[j] !== y[j]) return false;
      }
    } else if (isMap(a)) {
      if (!isMap(b) || a.size !== b.size) return false;
    } else if (isSet(a)) {
      if (!isSet(b) || a.size !== b.size) return false;
    } else if (types.isWeakMap(a) || types.isWeakSet(a) || types.isPromise(a)) {
      return false;
    }
    var keysA = ownEnumerable(a), keysB = ownEnumerable(b);
    if (isTypedArray(a)) {
      keysA = keysA.filter(function (k) { return !isIndex(k); });
      keysB = keysB.filter(function (k) { return !isIndex(k); });
    }
    if (keysA.length !== keysB.length) return false;
    for (var i = 0; i < keysA.length; i++) if (!ObjectProto.propertyIsEnumerable.call(b, keysA[i])) return false;
    // Node's cycle check: a pair met again is equal only if both sides were met at the same depth.
    var seenA = memo.a.get(a);
    if (seenA !== undefined) {
      var seenB = memo.b.get(b);
      if (seenB !== undefined) return seenA === seenB;
    }
    memo.position++;
    memo.a.set(a, memo.position);
    memo.b.set(b, memo.position);
    try {
      if (Array.isArray(a)) {
        for (var n = 0; n < a.length; n++) {
          var hasA = ObjectProto.hasOwnProperty.call(a, n), hasB = ObjectProto.hasOwnProperty.call(b, n);
          if (hasA !== hasB || !deepEqual(a[n], b[n], memo)) return false;
        }
        for (var ka = 0; ka < keysA.length; ka++) if (!isIndex(keysA[ka]) && !deepEqual(a[keysA[ka]], b[keysA[ka]], memo)) return false;
        return true;
      }
      if (a instanceof Error || types.isNativeError(a)) {
        if ("cause" in a && !deepEqual(a.cause, b.cause, memo)) return false;
        if ("errors" in a && !deepEqual(a.errors, b.errors, memo)) return false;
      }
      if (isSet(a) && !setEqual(a, b, memo)) return false;
      if (isMap(a) && !mapEqual(a, b, memo)) return false;
      if (isTypedArray(a)) return keysA.every(function (k) { return deepEqual(a[k], b[k], memo); });
      for (var kb = 0; kb < keysA.length; kb++) if (!deepEqual(a[keysA[kb]], b[keysA[kb]], memo)) return false;
      return true;
    } finally {
      memo.a.delete(a);
      memo.b.delete(b);
    }
  }
  function setEqual(a, b, memo) {
    var rest = [];
    a.forEach(function (v) { if (!b.has(v)) rest.push(v); });
    if (rest.length === 0) return true;
    var candidates = [];
    b.forEach(function (v) { if (v !== null && typeof v === "object" && !a.has(v)) candidates.push(v); });
    for (var i = 0; i < rest.length; i++) {
      if (rest[i] === null || typeof rest[i] !== "object") return false;
      var found = -1;
      for (var j = 0; j < candidates.length; j++) if (deepEqual(rest[i], candidates[j], memo)) { found = j; break; }
      if (found === -1) return false;
      candidates.splice(found, 1);
    }
    return true;
  }
  // Node's mapEquiv: primitive keys looked up, object keys pooled and matched deeply, key and value.
  function mapEqual(a, b, memo) {
    var pool = [];
    var ok = true;
    a.forEach(function (v, k) {
      if (!ok) return;
      if (k !== null && typeof k === "object") pool.push([k, v]);
      else if (!b.has(k) || !deepEqual(v, b.get(k), memo)) ok = false;
    });
    if (!ok) return false;
    if (pool.length === 0) return true;
    b.forEach(function (v, k) {
      if (!ok || k === null || typeof k !== "object") return;
      var found = -1;
      for (var j = 0; j < pool.length; j++) {
        if (deepEqual(pool[j][0], k, memo) && deepEqual(pool[j][1], v, memo)) { found = j; break; }
      }
      if (found === -1) ok = false;
      else pool.splice(found, 1);
    });
    return ok && pool.length === 0;
  }
  function isDeepStrictEqual(a, b) { return deepEqual(a, b, { a: new Map(), b: new Map(), position: 0 }); }

  // Node's ansi pattern (lib/internal/util/inspect.js, ansiPattern).
  var ansi = new RegExp("[\\u001B\\u009B][[\\]()#;?]*" +
    "(?:(?:(?:(?:;[-a-zA-Z\\d\\/\\#&.:=?%@~_]+)*" +
    "|[a-zA-Z\\d]+(?:;[-a-zA-Z\\d\\/\\#&.:=?%@~_]*)*)?" +
    "(?:\\u0007|\\u001B\\u005C|\\u009C))" +
    "|(?:(?:\\d{1,4}(?:[;:]\\d{0,4})*)?" +
    "[\\dA-PR-TZcf-ntqry=><~]))", "g");
  function stripVTControlCharacters(str) {
    if (typeof str !== "string") throw argType("str", "of type string", str);
    return str.replace(ansi, "");
  }

  // TextEncoder (UTF-8) and TextDecoder (below).
  function TextEncoder() {
    if (!new.target) throw new TypeError("Class constructor TextEncoder cannot be invoked without 'new'");
  }
  Object.defineProperty(TextEncoder.prototype, "encoding", { get: function () { return "utf-8"; }, enumerable: true, configurable: true });
  function utf8(str) {
    var out = [];
    for (var i = 0; i < str.length; i++) {
      var c = str.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < str.length) {
        var d = str.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) { c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00); i++; }
      }
      if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
      if (c < 0x80) out.push(c);
      else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
      else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
      else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    }
    return out;
  }
  TextEncoder.prototype.encode = function encode(input) {
    return new Uint8Array(utf8(input === undefined ? "" : "" + input));
  };
  TextEncoder.prototype.encodeInto = function encodeInto(src, dest) {
    var s = "" + src;
    var read = 0, written = 0;
    for (var i = 0; i < s.length; i++) {
      var c = s.charCodeAt(i);
      var pair = c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && s.charCodeAt(i + 1) >= 0xdc00 && s.charCodeAt(i + 1) <= 0xdfff;
      var bytes = utf8(pair ? s.slice(i, i + 2) : s[i]);
      if (written + bytes.length > dest.length) break;
      for (var b = 0; b < bytes.length; b++) dest[written++] = bytes[b];
      read += pair ? 2 : 1;
      if (pair) i++;
    }
    return { read: read, written: written };
  };
  // The WHATWG labels of the encodings this TextDecoder knows.
  var encodingOf = {};
  ["unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8", "utf-8", "utf8", "x-unicode20utf8"].forEach(function (l) { encodingOf[l] = "utf-8"; });
  ["csunicode", "iso-10646-ucs-2", "ucs-2", "unicode", "unicodefeff", "utf-16", "utf-16le"].forEach(function (l) { encodingOf[l] = "utf-16le"; });
  ["ansi_x3.4-1968", "ascii", "cp1252", "cp819", "csisolatin1", "ibm819", "iso-8859-1", "iso-ir-100", "iso8859-1", "iso88591", "iso_8859-1", "iso_8859-1:1987", "l1", "latin1", "us-ascii", "windows-1252", "x-cp1252"].forEach(function (l) { encodingOf[l] = "windows-1252"; });
  var cp1252 = [0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d, 0x17d, 0x8f,
    0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178];
  function TextDecoder(encoding, options) {
    if (!new.target) throw new TypeError("Class constructor TextDecoder cannot be invoked without 'new'");
    var label = encoding === undefined ? "utf-8" : ("" + encoding).trim().toLowerCase();
    if (!ObjectProto.hasOwnProperty.call(encodingOf, label)) throw codeError(RangeError, "ERR_ENCODING_NOT_SUPPORTED", "The \"" + encoding + "\" encoding is not supported");
    options = options || {};
    this._encoding = encodingOf[label];
    this._fatal = !!options.fatal;
    this._ignoreBOM = !!options.ignoreBOM;
    this._pending = [];
    this._bomSeen = false;
  }
  Object.defineProperty(TextDecoder.prototype, "encoding", { get: function () { return this._encoding; }, enumerable: true, configurable: true });
  Object.defineProperty(TextDecoder.prototype, "fatal", { get: function () { return this._fatal; }, enumerable: true, configurable: true });
  Object.defineProperty(TextDecoder.prototype, "ignoreBOM", { get: function () { return this._ignoreBOM; }, enumerable: true, configurable: true });
  TextDecoder.prototype.decode = function decode(input, options) {
    var bytes;
    if (input === undefined) bytes = new Uint8Array(0);
    else if (isArrayBuffer(input) || isSharedArrayBuffer(input)) bytes = new Uint8Array(input);
    else if (ArrayBuffer.isView(input)) bytes = new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
    else throw argType("input", "an instance of ArrayBuffer or ArrayBufferView", input);
    var stream = !!(options && options.stream);
    var all = this._pending.concat(Array.prototype.slice.call(bytes));
    var out = "", i = 0;
    var fatal = this._fatal, encoding = this._encoding;
    function bad() {
      if (fatal) throw codeError(TypeError, "ERR_ENCODING_INVALID_ENCODED_DATA", "The encoded data was not valid for encoding " + encoding, true);
      out += "\uFFFD";
    }
    if (encoding === "windows-1252") {
      for (; i < all.length; i++) out += String.fromCharCode(all[i] >= 0x80 && all[i] < 0xa0 ? cp1252[all[i] - 0x80] : all[i]);
    } else if (encoding === "utf-16le") {
      for (; i + 1 < all.length; i += 2) {
        var unit = all[i] | (all[i + 1] << 8);
        if (unit >= 0xd800 && unit <= 0xdbff) {
          if (i + 3 < all.length) {
            var next = all[i + 2] | (all[i + 3] << 8);
            if (next >= 0xdc00 && next <= 0xdfff) { out += String.fromCharCode(unit, next); i += 2; continue; }
            bad();
            continue;
          }
          if (stream) break;
          bad();
          continue;
        }
        if (unit >= 0xdc00 && unit <= 0xdfff) { bad(); continue; }
        out += String.fromCharCode(unit);
      }
      if (!stream && i < all.length) { bad(); i = all.length; }
    } else {
      while (i < all.length) {
        var b0 = all[i];
        if (b0 < 0x80) { out += String.fromCharCode(b0); i++; continue; }
        var need = b0 >= 0xc2 && b0 <= 0xdf ? 1 : b0 >= 0xe0 && b0 <= 0xef ? 2 : b0 >= 0xf0 && b0 <= 0xf4 ? 3 : -1;
        if (need === -1) { bad(); i++; continue; }
        var lo = 0x80, hi = 0xbf;
        if (b0 === 0xe0) lo = 0xa0; else if (b0 === 0xed) hi = 0x9f; else if (b0 === 0xf0) lo = 0x90; else if (b0 === 0xf4) hi = 0x8f;
        var cp = b0 & (need === 1 ? 0x1f : need === 2 ? 0x0f : 0x07);
        var k = 1, broken = false;
        for (; k <= need; k++) {
          if (i + k >= all.length) break;
          var bk = all[i + k];
          if (bk < lo || bk > hi) { broken = true; break; }
          lo = 0x80; hi = 0xbf;
          cp = (cp << 6) | (bk & 63);
        }
        if (!broken && k <= need) {
          if (stream) break;
          bad(); i = all.length; continue;
        }
        if (broken) { bad(); i += k; continue; }
        out += String.fromCodePoint(cp);
        i += need + 1;
      }
    }
    this._pending = stream ? all.slice(i) : [];
    // The first code point of a stream (not of each chunk) may be a BOM.
    if (!this._ignoreBOM && !this._bomSeen && out.length > 0) {
      if (encoding !== "windows-1252" && out.charCodeAt(0) === 0xfeff) out = out.slice(1);
      this._bomSeen = true;
    }
    if (!stream) this._bomSeen = false;
    return out;
  };

  function _extend(target, source) {
    if (source === null || typeof source !== "object") return target;
    var keys = Object.keys(source);
    for (var i = keys.length - 1; i >= 0; i--) target[keys[i]] = source[keys[i]];
    return target;
  }

  return {
    _extend: _extend,
    callbackify: callbackify,
    debug: debuglog,
    debuglog: debuglog,
    deprecate: deprecate,
    format: format,
    formatWithOptions: formatWithOptions,
    inherits: inherits,
    inspect: inspectFn,
    isArray: Array.isArray,
    isDeepStrictEqual: isDeepStrictEqual,
    promisify: promisify,
    stripVTControlCharacters: stripVTControlCharacters,
    toUSVString: toUSVString,
    types: types,
    TextDecoder: TextDecoder,
    TextEncoder: TextEncoder,
  };
`;

let source: string | undefined;

/** getStackString(ctx, err) of Node's inspect.js, minified: `function ir(t,e){let n;try{n=e.stack}catch{}`. */
const STACK_READ = /function (\w+)\((\w+),(\w+)\)\{let (\w+);try\{\4=\3\.stack\}catch\{\}/;

/**
 * The factory's source. Node's inspect is evaluated inside a function whose `URL` is a stand-in
 * (the package reaches for it only to turn a stack frame's file path into a file: URL, and the
 * sandbox's frames have none) and with an `Atomics` object present while its primordials are read
 * (QuickJS has none; the package only copies its functions).
 */
export function nodeUtilSource(): string {
  if (source !== undefined) return source;
  const require = createRequire(import.meta.url);
  const inspectPath = require.resolve("node-inspect-extracted");
  // inspect reads an error's stack in one place (Node's getStackString); it reads it through the
  // glue's nodeStack instead. A version of the package without that line fails here, loudly.
  const original = readFileSync(inspectPath, "utf8");
  const inspectText = original.replace(STACK_READ, "function $1($2,$3){let $4;try{$4=__nodeStack($3)}catch{}");
  if (inspectText === original) throw new Error(`node-inspect-extracted: ${inspectPath} no longer reads an error's stack as node-util-source.ts expects`);
  source = `(function (deps) {
  "use strict";
  function loadInspect(__nodeStack) {
    var hadAtomics = Object.prototype.hasOwnProperty.call(globalThis, "Atomics");
    if (!hadAtomics) Object.defineProperty(globalThis, "Atomics", { value: {}, configurable: true, writable: true });
    try {
      return (function (URL) {
        var module = { exports: {} };
        var exports = module.exports;
        (function () {
${inspectText}
        }).call(undefined);
        return module.exports;
      })(function URL() { throw new TypeError("URL is not available here"); });
    } finally {
      if (!hadAtomics) delete globalThis.Atomics;
    }
  }
${NODE_UTIL_GLUE}
})`;
  return source;
}
