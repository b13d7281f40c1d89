/**
 * `URL` and `URLSearchParams` for the function node's code, globals of Node-RED's function sandbox
 * (Node's, from its vm context): JavaScript evaluated INSIDE the QuickJS sandbox at their first use
 * (driver.ts, `loadUrl`).
 *
 * - A URL is parsed, and each of its setters applied, by the host's V8 (url-host.ts): the WHATWG
 *   parser is large (hosts, IDNA, IPv6, per-scheme rules) and V8's is Node's own, so the parts are
 *   Node's. The object keeps the parts the host answered; its getters read them.
 * - `URLSearchParams` is here in full (the WHATWG application/x-www-form-urlencoded parser and
 *   serializer are short). A URL's `searchParams` and its `search` stay in step both ways.
 * - `util.inspect` shows both as Node does (their `nodejs.util.inspect.custom`).
 *
 * The source is an expression yielding a factory; the driver calls it with `host(json)` (url-host.ts's
 * urlCall) and the primordials it captured before any code ran (`stringify`, `parse`, `apply`, WeakMap
 * and its methods: the code may replace the globals before its first use of URL, and must not reach
 * a URL's parts that way), and gets `{ URL, URLSearchParams }`.
 *
 * No backticks and no dollar-brace in this text: it is a template literal.
 */
import { NODE_ERRORS_SOURCE } from "./node-errors-source";

export const URL_SOURCE = String.raw`(function (deps) {
  "use strict";
  var kInspect = Symbol.for("nodejs.util.inspect.custom");
  var PARTS = ["href", "origin", "protocol", "username", "password", "host", "hostname", "port", "pathname", "search", "hash"];

${NODE_ERRORS_SOURCE}
  var apply = deps.apply, stringify = deps.stringify, parse = deps.parse;
  function wmGet(map, key) { return apply(deps.weakMapGet, map, [key]); }
  function wmSet(map, key, value) { apply(deps.weakMapSet, map, [key, value]); }
  function wmHas(map, key) { return apply(deps.weakMapHas, map, [key]); }
  var toUSV = toUSVString;
  var MAX = 1000000;
  function tooLong() { return new RangeError("URL: a string of more than 1,000,000 characters"); }
  function ask(call) {
    for (var i = 1; i < call.length; i++) if (call[i].length > MAX) throw tooLong();
    var answer = parse(deps.host(stringify(call)));
    if (answer === "long") throw tooLong();
    return answer;
  }

  // UTF-8 for percent-encoding and -decoding.
  function utf8Bytes(str) {
    var out = [];
    for (var i = 0; i < str.length; i++) {
      var c = str.codePointAt(i);
      if (c > 0xffff) i++;
      if (c < 0x80) out.push(c);
      else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
      else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
      else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    }
    return out;
  }
  function utf8Decode(bytes) {
    var out = "", i = 0;
    while (i < bytes.length) {
      var b0 = bytes[i];
      if (b0 < 0x80) { out += String.fromCharCode(b0); i++; continue; }
      var need = b0 >= 0xc2 && b0 <= 0xdf ? 1 : b0 >= 0xe0 && b0 <= 0xef ? 2 : b0 >= 0xf0 && b0 <= 0xf4 ? 3 : -1;
      if (need === -1) { out += "\uFFFD"; i++; continue; }
      var lo = 0x80, hi = 0xbf;
      if (b0 === 0xe0) lo = 0xa0; else if (b0 === 0xed) hi = 0x9f; else if (b0 === 0xf0) lo = 0x90; else if (b0 === 0xf4) hi = 0x8f;
      var cp = b0 & (need === 1 ? 0x1f : need === 2 ? 0x0f : 0x07);
      var k = 1;
      for (; k <= need && i + k < bytes.length; k++) {
        var bk = bytes[i + k];
        if (bk < lo || bk > hi) break;
        lo = 0x80; hi = 0xbf;
        cp = (cp << 6) | (bk & 63);
      }
      if (k <= need) { out += "\uFFFD"; i += k; continue; }
      out += String.fromCodePoint(cp);
      i += need + 1;
    }
    return out;
  }
  // encodeURIComponent (native) leaves A-Z a-z 0-9 - _ . ! ~ * ' ( ) as they are; the form
  // serializer also escapes ! ~ ' ( ) and writes a space as "+". Strings are USV here.
  var formExtra = /[!'()~]/g;
  function formEncode(str) {
    if (/^[A-Za-z0-9*\-._]*$/.test(str)) return str;
    return encodeURIComponent(str).replace(formExtra, function (c) { return "%" + c.charCodeAt(0).toString(16).toUpperCase(); }).replace(/%20/g, "+");
  }
  function isHex(c) { return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66); }
  function formDecode(str) {
    var spaced = str.replace(/\+/g, " ");
    if (spaced.indexOf("%") === -1) return spaced;
    // decodeURIComponent (native) throws on a bad escape or bytes that are not UTF-8: then byte by byte.
    try { return decodeURIComponent(spaced); } catch (e) { return formDecodeSlow(spaced); }
  }
  function formDecodeSlow(spaced) {
    var bytes = utf8Bytes(spaced), out = [];
    for (var i = 0; i < bytes.length; i++) {
      if (bytes[i] === 0x25 && i + 2 < bytes.length && isHex(bytes[i + 1]) && isHex(bytes[i + 2])) {
        out.push(parseInt(String.fromCharCode(bytes[i + 1], bytes[i + 2]), 16));
        i += 2;
      } else {
        out.push(bytes[i]);
      }
    }
    return utf8Decode(out);
  }
  function parseQuery(query) {
    var list = [];
    if (query.charAt(0) === "?") query = query.slice(1);
    var pieces = query.split("&");
    for (var i = 0; i < pieces.length; i++) {
      var piece = pieces[i];
      if (piece === "") continue;
      var eq = piece.indexOf("=");
      var name = eq === -1 ? piece : piece.slice(0, eq);
      var value = eq === -1 ? "" : piece.slice(eq + 1);
      list.push(formDecode(name), formDecode(value));
    }
    return list;
  }

  // The private state of both classes, out of the code's reach.
  var urls = new deps.WeakMap();
  var params = new deps.WeakMap();
  function urlState(self) {
    var state = wmGet(urls, self);
    if (state === undefined) throw codeError(TypeError, "ERR_INVALID_THIS", "Value of \"this\" must be of type URL");
    return state;
  }
  function paramsState(self) {
    var state = wmGet(params, self);
    if (state === undefined) throw codeError(TypeError, "ERR_INVALID_THIS", "Value of \"this\" must be of type URLSearchParams");
    return state;
  }

  function URLSearchParams(init) {
    if (!new.target) throw new TypeError("Class constructor URLSearchParams cannot be invoked without 'new'");
    var list = [];
    if (init === undefined || init === null) {
      // nothing
    } else if (typeof init === "object" || typeof init === "function") {
      var method = init[Symbol.iterator];
      if (wmHas(params, init)) {
        list = wmGet(params, init).list.slice();
      } else if (method !== undefined && method !== null) {
        if (typeof method !== "function") throw codeError(TypeError, "ERR_ARG_NOT_ITERABLE", "Query pairs must be iterable");
        var pairs = Array.from(init);
        for (var i = 0; i < pairs.length; i++) {
          var pair = pairs[i];
          if (pair === null || (typeof pair !== "object" && typeof pair !== "function") || typeof pair[Symbol.iterator] !== "function") {
            throw codeError(TypeError, "ERR_INVALID_TUPLE", "Each query pair must be an iterable [name, value] tuple");
          }
          var both = Array.from(pair);
          if (both.length !== 2) throw codeError(TypeError, "ERR_INVALID_TUPLE", "Each query pair must be an iterable [name, value] tuple");
          list.push(toUSV(both[0]), toUSV(both[1]));
        }
      } else {
        var keys = Reflect.ownKeys(init);
        for (var k = 0; k < keys.length; k++) {
          var key = keys[k];
          var desc = Reflect.getOwnPropertyDescriptor(init, key);
          if (desc !== undefined && desc.enumerable) list.push(toUSV(key), toUSV(init[key]));
        }
      }
    } else {
      list = parseQuery(toUSV(init));
    }
    wmSet(params, this, { list: list, url: null });
  }
  // A change of the list: its URL's search first (which may refuse a query too long), then the list.
  function commit(state, list) {
    if (state.url !== null) {
      var owner = wmGet(urls, state.url);
      var next = ask(["set", owner.parts[0], "search", serialize(list)]);
      if (next !== null) owner.parts = next;
    }
    state.list = list;
  }
  function serialize(list) {
    var out = [];
    for (var i = 0; i < list.length; i += 2) out.push(formEncode(list[i]) + "=" + formEncode(list[i + 1]));
    return out.join("&");
  }
  function needArgs(n, got, names) {
    if (got < n) throw codeError(TypeError, "ERR_MISSING_ARGS", names);
  }
  var P = URLSearchParams.prototype;
  P.append = function append(name, value) {
    var state = paramsState(this);
    needArgs(2, arguments.length, "The \"name\" and \"value\" arguments must be specified");
    name = toUSV(name);
    value = toUSV(value);
    // Without a URL nothing can refuse it: appended in place (a loop of appends stays linear).
    if (state.url === null) state.list.push(name, value);
    else commit(state, state.list.concat([name, value]));
  };
  P.delete = function (name, value) {
    var state = paramsState(this);
    needArgs(1, arguments.length, "The \"name\" argument must be specified");
    name = toUSV(name);
    var match = value !== undefined ? toUSV(value) : undefined;
    var list = state.list.slice();
    for (var i = 0; i < list.length;) {
      if (list[i] === name && (match === undefined || list[i + 1] === match)) list.splice(i, 2);
      else i += 2;
    }
    commit(state, list);
  };
  P.get = function get(name) {
    var state = paramsState(this);
    needArgs(1, arguments.length, "The \"name\" argument must be specified");
    name = toUSV(name);
    for (var i = 0; i < state.list.length; i += 2) if (state.list[i] === name) return state.list[i + 1];
    return null;
  };
  P.getAll = function getAll(name) {
    var state = paramsState(this);
    needArgs(1, arguments.length, "The \"name\" argument must be specified");
    name = toUSV(name);
    var out = [];
    for (var i = 0; i < state.list.length; i += 2) if (state.list[i] === name) out.push(state.list[i + 1]);
    return out;
  };
  P.has = function has(name, value) {
    var state = paramsState(this);
    needArgs(1, arguments.length, "The \"name\" argument must be specified");
    name = toUSV(name);
    var match = value !== undefined ? toUSV(value) : undefined;
    for (var i = 0; i < state.list.length; i += 2) if (state.list[i] === name && (match === undefined || state.list[i + 1] === match)) return true;
    return false;
  };
  P.set = function set(name, value) {
    var state = paramsState(this);
    needArgs(2, arguments.length, "The \"name\" and \"value\" arguments must be specified");
    name = toUSV(name);
    value = toUSV(value);
    var list = state.list.slice(), found = false;
    for (var i = 0; i < list.length;) {
      if (list[i] === name) {
        if (!found) { list[i + 1] = value; found = true; i += 2; } else list.splice(i, 2);
      } else i += 2;
    }
    if (!found) list.push(name, value);
    commit(state, list);
  };
  P.sort = function sort() {
    var state = paramsState(this);
    var pairs = [];
    for (var i = 0; i < state.list.length; i += 2) pairs.push([state.list[i], state.list[i + 1], i]);
    // Stable, by UTF-16 code units, as the standard says.
    pairs.sort(function (a, b) { return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[2] - b[2]; });
    var list = [];
    for (var j = 0; j < pairs.length; j++) list.push(pairs[j][0], pairs[j][1]);
    commit(state, list);
  };
  P.forEach = function forEach(callback, thisArg) {
    var state = paramsState(this);
    if (typeof callback !== "function") throw codeError(TypeError, "ERR_INVALID_ARG_TYPE", "The \"callback\" argument must be of type function. Received " + (callback === null ? "null" : typeof callback));
    for (var i = 0; i < state.list.length; i += 2) callback.call(thisArg, state.list[i + 1], state.list[i], this);
  };
  function listIterator(self, kind) {
    var state = paramsState(self);
    var index = 0;
    var it = {
      next: function () {
        if (index >= state.list.length) return { value: undefined, done: true };
        var name = state.list[index], value = state.list[index + 1];
        index += 2;
        return { value: kind === "keys" ? name : kind === "values" ? value : [name, value], done: false };
      },
    };
    it[Symbol.iterator] = function () { return it; };
    Object.defineProperty(it, Symbol.toStringTag, { value: "URLSearchParams Iterator", configurable: true });
    return it;
  }
  P.keys = function keys() { return listIterator(this, "keys"); };
  P.values = function values() { return listIterator(this, "values"); };
  P.entries = function entries() { return listIterator(this, "entries"); };
  P[Symbol.iterator] = P.entries;
  P.toString = function toString() { return serialize(paramsState(this).list); };
  Object.defineProperty(P, "size", { get: function () { return paramsState(this).list.length / 2; }, enumerable: true, configurable: true });
  Object.defineProperty(P, Symbol.toStringTag, { value: "URLSearchParams", configurable: true });
  // Node's (lib/internal/url.js).
  P[kInspect] = function (recurseTimes, ctx, inspect) {
    var state = paramsState(this);
    if (typeof recurseTimes === "number" && recurseTimes < 0) return ctx.stylize("[Object]", "special");
    var innerOpts = Object.assign({}, ctx);
    if (recurseTimes !== null) innerOpts.depth = recurseTimes - 1;
    var output = [];
    for (var i = 0; i < state.list.length; i += 2) output.push(inspect(state.list[i], innerOpts) + " => " + inspect(state.list[i + 1], innerOpts));
    var length = output.reduce(function (prev, cur) { return prev + cur.replace(/\u001b\[\d\d?m/g, "").length + 2; }, -2);
    if (length > ctx.breakLength) return "URLSearchParams {\n  " + output.join(",\n  ") + " }";
    if (output.length) return "URLSearchParams { " + output.join(", ") + " }";
    return "URLSearchParams {}";
  };
  ["append", "delete", "get", "getAll", "has", "set", "sort", "forEach", "keys", "values", "entries", "toString"].forEach(function (name) {
    Object.defineProperty(P, name, { enumerable: true });
  });

  // Node throws the constructor's from C++ ("TypeError: Invalid URL"), the href setter's from
  // JavaScript ("TypeError [ERR_INVALID_URL]: Invalid URL").
  function invalid(input, base, fromSetter) {
    var e = codeError(TypeError, "ERR_INVALID_URL", "Invalid URL", !fromSetter);
    e.input = input;
    if (base !== undefined) e.base = base;
    return e;
  }
  function URL(input, base) {
    if (!new.target) throw new TypeError("Class constructor URL cannot be invoked without 'new'");
    if (arguments.length === 0) throw codeError(TypeError, "ERR_MISSING_ARGS", "The \"url\" argument must be specified");
    var text = toUSV(input);
    var baseText = base !== undefined ? toUSV(base) : undefined;
    var parts = ask(baseText !== undefined ? ["parse", text, baseText] : ["parse", text]);
    if (parts === null) throw invalid(text, baseText);
    wmSet(urls, this, { parts: parts, searchParams: null });
  }
  var U = URL.prototype;
  PARTS.forEach(function (name, index) {
    var descriptor = {
      get: function () { return urlState(this).parts[index]; },
      enumerable: true,
      configurable: true,
    };
    if (name !== "origin") {
      descriptor.set = function (value) {
        var state = urlState(this);
        var text = toUSV(value);
        var next = ask(["set", state.parts[0], name, text]);
        if (next === null) {
          if (name === "href") throw invalid(text, undefined, true);
          return;
        }
        state.parts = next;
        if (state.searchParams !== null && (name === "href" || name === "search")) wmGet(params, state.searchParams).list = parseQuery(next[9]);
      };
    }
    Object.defineProperty(U, name, descriptor);
  });
  Object.defineProperty(U, "searchParams", {
    get: function () {
      var state = urlState(this);
      if (state.searchParams === null) {
        var sp = new URLSearchParams(state.parts[9]);
        wmGet(params, sp).url = this;
        state.searchParams = sp;
      }
      return state.searchParams;
    },
    enumerable: true,
    configurable: true,
  });
  U.toString = function toString() { return urlState(this).parts[0]; };
  U.toJSON = function toJSON() { return urlState(this).parts[0]; };
  Object.defineProperty(U, "toString", { enumerable: true });
  Object.defineProperty(U, "toJSON", { enumerable: true });
  Object.defineProperty(U, Symbol.toStringTag, { value: "URL", configurable: true });
  // Node's (lib/internal/url.js): the parts as an object's properties, named URL.
  U[kInspect] = function (depth, opts, inspect) {
    var state = urlState(this);
    if (typeof depth === "number" && depth < 0) return this;
    var obj = {};
    for (var i = 0; i < 9; i++) obj[PARTS[i]] = state.parts[i];
    obj.search = state.parts[9];
    obj.searchParams = this.searchParams;
    obj.hash = state.parts[10];
    return "URL " + inspect(obj, opts);
  };
  URL.canParse = function canParse(input, base) {
    if (arguments.length === 0) throw codeError(TypeError, "ERR_MISSING_ARGS", "The \"url\" argument must be specified");
    var text = toUSV(input);
    return ask(base !== undefined ? ["parse", text, toUSV(base)] : ["parse", text]) !== null;
  };
  URL.parse = function parse(input, base) {
    if (arguments.length === 0) throw codeError(TypeError, "ERR_MISSING_ARGS", "The \"url\" argument must be specified");
    try {
      return new URL(input, base);
    } catch (e) {
      if (e && e.code === "ERR_INVALID_URL") return null;
      throw e;
    }
  };
  return { URL: URL, URLSearchParams: URLSearchParams };
})`;
