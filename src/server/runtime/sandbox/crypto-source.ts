/**
 * Node's `crypto` module, as a function node's *Setup → Modules* (`libs`: `{var: "crypto", module:
 * "crypto"}`) loads it in Node-RED: JavaScript evaluated INSIDE the QuickJS sandbox the first time
 * the code reads the variable (driver.ts, `loadCrypto`). The work is the host's (crypto-host.ts):
 * Node's own crypto digests, signs and draws the random values, one host call each.
 *
 * What it has: `createHash` / `Hash` (`update`, `digest`, `copy`), `createHmac` / `Hmac`,
 * `createCipheriv` / `createDecipheriv` (`update`, `final`, `setAutoPadding`, `setAAD`, `getAuthTag`,
 * `setAuthTag`; the cipher itself lives on the host between calls), `getCiphers`, `hash`
 * (Node 21.7+'s one-shot digest), `getHashes`, `randomBytes` (and its callback form), `randomFillSync`,
 * `randomFill`, `randomInt`, `randomUUID`, `getRandomValues` and `timingSafeEqual`. A hash keeps its
 * chunks until `digest`, which sends them to the host in one call (update is free; a digest
 * costs one call whatever the number of updates). What the server's process and its keys stand
 * behind (signatures, key objects, key derivation, `webcrypto`) is not there: reading it
 * is `undefined`, as for any property a module lacks, and an import's dry run names it
 * (SANDBOX_CRYPTO in nodes/function/definition.ts, which a test keeps equal to this module's names).
 *
 * The source is an expression yielding a factory; the driver calls it with `host(json)` (the host
 * call), `replacer` (JSON's replacer that tags what JSON lacks), `base64Of(view)` (a view's bytes as
 * base64, natively), `bufferOf(base64)` (a Buffer, loading Buffer if the code has not),
 * `bytesInto(view, base64)` (writes the bytes into the view), `maxChars` (the host's bound on a
 * call, cryptoMaxChars) and the built-ins it uses, captured before any user code ran (the code may
 * replace `JSON.stringify` or `WeakMap.prototype.get` before it first reads the module). The host
 * bounds every call itself (crypto-host.ts); these keep the module's own behaviour Node's.
 *
 * No backticks and no dollar-brace in this text outside the insertion of NODE_ERRORS_SOURCE: it is a template literal.
 */
import { NODE_ERRORS_SOURCE } from "./node-errors-source";

export const CRYPTO_SOURCE = String.raw`(function (env) {
  "use strict";
  var host = env.host, replacer = env.replacer, base64Of = env.base64Of, bufferOf = env.bufferOf, bytesInto = env.bytesInto;
  var stringify = env.stringify, parse = env.parse, isView = env.isView, apply = env.apply;
  var states = new env.WeakMap(), weakMapGet = env.weakMapGet, weakMapSet = env.weakMapSet;
  var keys = env.keys, defineProperty = env.defineProperty;
  var arrayPush = env.arrayPush, arraySlice = env.arraySlice, stringSlice = env.stringSlice, toLowerCase = env.toLowerCase;
  var MAX_CHARS = env.maxChars;
  var MAX_POSSIBLE_LENGTH = 2147483647;
${NODE_ERRORS_SOURCE}
  // util.inspect's words for a value in Node's argument errors (its strings, numbers, classes).
  function shown(value) {
    if (typeof value === "string") {
      var quote = value.indexOf("'") === -1 ? "'" : value.indexOf('"') === -1 ? '"' : "'";
      var text = quote + (quote === "'" ? value.replace(/\\/g, "\\\\").replace(/'/g, "\\'") : value) + quote;
      return text.replace(/\n/g, "\\n");
    }
    if (typeof value === "number") return value === 0 && 1 / value < 0 ? "-0" : String(value);
    if (typeof value === "bigint") return String(value) + "n";
    return String(value);
  }
  // ERR_OUT_OF_RANGE's number: an integer past 2^32 with Node's "_" every three digits.
  function numberText(value) {
    if (typeof value !== "number" || Math.floor(value) !== value || Math.abs(value) <= 4294967296) return shown(value);
    var digits = String(Math.abs(value)), out = "";
    while (digits.length > 3) { out = "_" + digits.slice(-3) + out; digits = digits.slice(0, -3); }
    return (value < 0 ? "-" : "") + digits + out;
  }
  function outOfRange(name, range, value) {
    return codeError(RangeError, "ERR_OUT_OF_RANGE", "The value of \"" + name + "\" is out of range. It must be " + range + ". Received " + numberText(value));
  }
  function received(value) {
    if (value === null || value === undefined) return " Received " + value;
    if (typeof value === "function") return " Received function " + (value.name || "<anonymous>");
    if (typeof value === "object") {
      var ctor = value.constructor;
      return ctor && typeof ctor === "function" && ctor.name ? " Received an instance of " + ctor.name : " Received [Object: null prototype] {}";
    }
    var text = shown(value);
    if (text.length > 28) text = text.slice(0, 25) + "...";
    return " Received type " + typeof value + " (" + text + ")";
  }
  function argType(name, what, value) {
    return codeError(TypeError, "ERR_INVALID_ARG_TYPE", "The \"" + name + "\" argument must be " + what + "." + received(value));
  }
  var DATA = "of type string or an instance of Buffer, TypedArray, or DataView";

  // plain: the arguments are strings, numbers, null and arrays of them (no replacer, which the
  // interpreter would call for every value).
  function call(args, plain) {
    var text = host(plain === true ? stringify(args) : stringify(args, replacer));
    if (text[0] === "=") return parse(apply(stringSlice, text, [1]));
    var e = parse(apply(stringSlice, text, [1]));
    var Ctor = e[0] === "TypeError" ? TypeError : e[0] === "RangeError" ? RangeError : Error;
    var error = e[2] === null ? new Ctor(e[1]) : codeError(Ctor, e[2], e[1], e[3]);
    var extra = e[4];
    if (extra !== null && typeof extra === "object") {
      var names = keys(extra);
      for (var i = 0; i < names.length; i++) defineProperty(error, names[i], { value: extra[names[i]], enumerable: true, writable: true, configurable: true });
    }
    return thrown(error);
  }
  function thrown(error) { throw error; }
  function valueOf(answer) { return typeof answer.s === "string" ? answer.s : bufferOf(answer.b); }

  // What crosses: a string with its encoding, a view's bytes, or anything else as it is (Node's
  // checks on the host word its error).
  function chunk(data, encoding) {
    // Node takes any encoding that is not a string as UTF-8.
    if (typeof data === "string") return ["s", data, typeof encoding === "string" ? encoding : "utf8"];
    if (isView(data)) return ["b", base64Of(data)];
    return ["x", data];
  }
  // A string key's encoding is the options' (Node's createHmac(hmac, key, {encoding})).
  function keyChunk(key, options) {
    if (key instanceof ArrayBuffer) return ["b", base64Of(new Uint8Array(key))];
    var encoding = options !== null && typeof options === "object" && typeof options.encoding === "string" ? options.encoding : "utf8";
    return chunk(key, encoding);
  }

  var KINDS = { Hash: "hash", Hmac: "hmac", Cipher: "cipher", Decipher: "cipher" };
  function stateOf(self, what) {
    var state = apply(weakMapGet, states, [self]);
    if (state === undefined || state.kind !== KINDS[what]) throw new TypeError("Illegal invocation: not a " + what);
    return state;
  }
  function finalized() { return codeError(Error, "ERR_CRYPTO_HASH_FINALIZED", "Digest already called"); }

  // Strings in these encodings are coded character by character: two updates are one of the two texts joined.
  var JOINABLE = { utf8: true, "utf-8": true, latin1: true, binary: true, ascii: true, ucs2: true, "ucs-2": true, utf16le: true, "utf-16le": true };
  function joinable(previous, part) {
    if (previous === undefined || previous[0] !== "s" || part[0] !== "s" || previous[2] !== part[2] || JOINABLE[part[2]] !== true) return false;
    // UTF-8 codes a lone surrogate at either edge as U+FFFD, which joining would pair.
    var last = previous[1].charCodeAt(previous[1].length - 1), first = part[1].charCodeAt(0);
    return !(last >= 0xd800 && last <= 0xdbff) && !(first >= 0xdc00 && first <= 0xdfff);
  }
  function update(self, what, data, encoding) {
    var state = stateOf(self, what);
    if (state.done) throw finalized();
    if (typeof data !== "string" && !isView(data)) throw argType("data", DATA, data);
    if (typeof data === "string" && typeof encoding === "string" && apply(toLowerCase, encoding, []) === "hex" && data.length % 2 !== 0) {
      throw codeError(TypeError, "ERR_INVALID_ARG_VALUE", "The argument 'encoding' is invalid for data of length " + data.length + ". Received " + shown(encoding));
    }
    var part = chunk(data, encoding);
    state.size += part[1].length + 16;
    if (state.size > MAX_CHARS) throw new RangeError("The data is too long for the function sandbox's crypto (over " + MAX_CHARS + " characters to digest at once)");
    var chunks = state.chunks, previous = chunks[chunks.length - 1];
    if (joinable(previous, part)) previous[1] += part[1];
    else apply(arrayPush, chunks, [part]);
    return self;
  }
  function digest(self, what, encoding) {
    var state = stateOf(self, what);
    if (state.done) {
      // Node's Hmac answers an empty digest again; its Hash throws.
      if (state.kind === "hash") throw finalized();
      return typeof encoding === "string" && encoding !== "buffer" ? "" : bufferOf("");
    }
    state.done = true;
    var chunks = state.chunks;
    state.chunks = null;
    var second = state.second === undefined ? null : state.second;
    return valueOf(call(["digest", state.kind, state.algorithm, second, chunks, typeof encoding === "string" ? encoding : null], state.kind === "hmac" || second === null));
  }

  // Algorithms Node has accepted (a name's validity is all the host checks of a hash without
  // options, or of an HMAC's name with a string or bytes for its key): no host call to create another.
  var accepted = Object.create(null), acceptedCount = 0;
  function check(kind, algorithm, second, plain) {
    var key = kind + ":" + algorithm;
    if (plain && accepted[key] === true) return;
    call(["new", kind, algorithm, second], plain);
    if (plain && acceptedCount < 64) { accepted[key] = true; acceptedCount++; }
  }
  function Hash(algorithm, options) {
    if (!(this instanceof Hash)) return new Hash(algorithm, options);
    if (typeof algorithm !== "string") throw argType("algorithm", "of type string", algorithm);
    var opts = options !== null && typeof options === "object" ? { outputLength: options.outputLength } : undefined;
    check("hash", algorithm, opts === undefined ? null : opts, opts === undefined);
    apply(weakMapSet, states, [this, { kind: "hash", algorithm: algorithm, second: opts, chunks: [], size: 0, done: false }]);
  }
  Hash.prototype.update = function update_(data, encoding) { return update(this, "Hash", data, encoding); };
  Hash.prototype.digest = function digest_(encoding) { return digest(this, "Hash", encoding); };
  // Node's copy takes its own options (an extendable-output hash's copy without them has the default length).
  Hash.prototype.copy = function copy(options) {
    var state = stateOf(this, "Hash");
    if (state.done) throw finalized();
    var copied = new Hash(state.algorithm, options);
    var into = apply(weakMapGet, states, [copied]);
    into.chunks = [];
    for (var i = 0; i < state.chunks.length; i++) apply(arrayPush, into.chunks, [apply(arraySlice, state.chunks[i], [])]);
    into.size = state.size;
    return copied;
  };
  Object.defineProperty(Hash.prototype.update, "name", { value: "update" });
  Object.defineProperty(Hash.prototype.digest, "name", { value: "digest" });

  function Hmac(hmac, key, options) {
    if (!(this instanceof Hmac)) return new Hmac(hmac, key, options);
    if (typeof hmac !== "string") throw argType("hmac", "of type string", hmac);
    var second = keyChunk(key, options);
    // A key as bytes, or as text in UTF-8, cannot be refused: only then is the name all there is to check.
    check("hmac", hmac, second, second[0] === "b" || (second[0] === "s" && second[2] === "utf8"));
    apply(weakMapSet, states, [this, { kind: "hmac", algorithm: hmac, second: second, chunks: [], size: 0, done: false }]);
  }
  Hmac.prototype.update = function update_(data, encoding) { return update(this, "Hmac", data, encoding); };
  Hmac.prototype.digest = function digest_(encoding) { return digest(this, "Hmac", encoding); };
  Object.defineProperty(Hmac.prototype.update, "name", { value: "update" });
  Object.defineProperty(Hmac.prototype.digest, "name", { value: "digest" });

  // Ciphers live on the host (crypto-host.ts, CipherTable), each update and final one call there:
  // Node's own cipher keeps the state (padding, a partial block, a multi-byte character of the
  // output) and words every error.
  function cipherOf(self, what) {
    return stateOf(self, what).id;
  }
  function outputEncoding(encoding) {
    return typeof encoding === "string" ? encoding : null;
  }
  function makeCipher(self, decipher, cipher, key, iv, options) {
    if (typeof cipher !== "string") throw argType("cipher", "of type string", cipher);
    var opts = options !== null && typeof options === "object" ? { authTagLength: options.authTagLength } : null;
    // options.encoding is the key's, if it is a string (Node's createCipheriv).
    var id = call(["cipher", decipher, cipher, keyChunk(key, options), iv === null ? ["x", null] : keyChunk(iv), opts]);
    apply(weakMapSet, states, [self, { kind: "cipher", id: id }]);
  }
  function Cipheriv(cipher, key, iv, options) {
    if (!(this instanceof Cipheriv)) return new Cipheriv(cipher, key, iv, options);
    makeCipher(this, false, cipher, key, iv, options);
  }
  function Decipheriv(cipher, key, iv, options) {
    if (!(this instanceof Decipheriv)) return new Decipheriv(cipher, key, iv, options);
    makeCipher(this, true, cipher, key, iv, options);
  }
  var cipherMethods = {
    update: function update(data, inputEncoding, outputEncoding_) {
      var id = cipherOf(this, "Cipher");
      var part = chunk(data, inputEncoding);
      if (part[0] === "s" && part[1].length + 64 > MAX_CHARS) throw new RangeError("The data is too long for the function sandbox's crypto (over " + MAX_CHARS + " characters in one call)");
      return valueOf(call(["cu", id, part, outputEncoding(outputEncoding_)]));
    },
    final: function final(outputEncoding_) {
      return valueOf(call(["cf", cipherOf(this, "Cipher"), outputEncoding(outputEncoding_)]));
    },
    setAutoPadding: function setAutoPadding(autoPadding) {
      // Node's passes !!autoPadding: no argument turns padding off, whatever its documentation says.
      call(["cp", cipherOf(this, "Cipher"), !!autoPadding], true);
      return this;
    },
    setAAD: function setAAD(buffer, options) {
      var opts = options !== null && typeof options === "object" ? { plaintextLength: options.plaintextLength } : null;
      call(["ca", cipherOf(this, "Cipher"), keyChunk(buffer, options), opts]);
      return this;
    },
  };
  Cipheriv.prototype.update = Decipheriv.prototype.update = cipherMethods.update;
  Cipheriv.prototype.final = Decipheriv.prototype.final = cipherMethods.final;
  Cipheriv.prototype.setAutoPadding = Decipheriv.prototype.setAutoPadding = cipherMethods.setAutoPadding;
  Cipheriv.prototype.setAAD = Decipheriv.prototype.setAAD = cipherMethods.setAAD;
  Cipheriv.prototype.getAuthTag = function getAuthTag() {
    return valueOf(call(["cg", cipherOf(this, "Cipher")], true));
  };
  Decipheriv.prototype.setAuthTag = function setAuthTag(tag, encoding) {
    call(["ct", cipherOf(this, "Decipher"), keyChunk(tag, { encoding: encoding })]);
    return this;
  };

  function later(callback, error, value) {
    Promise.resolve().then(function () { callback(error, value); });
  }
  function checkCallback(callback) {
    if (typeof callback !== "function") throw argType("callback", "of type function", callback);
  }

  // Node's lib/internal/crypto/random.js: sizes and offsets are numbers, in elements of the view, checked in bytes.
  function validateNumber(value, name) {
    if (typeof value !== "number") throw argType(name, "of type number", value);
  }
  function assertOffset(offset, elementSize, length) {
    validateNumber(offset, "offset");
    offset *= elementSize;
    var max = length < MAX_POSSIBLE_LENGTH ? length : MAX_POSSIBLE_LENGTH;
    if (offset !== offset || offset > max || offset < 0) throw outOfRange("offset", ">= 0 && <= " + max, offset);
    return offset >>> 0;
  }
  function assertSize(size, elementSize, offset, length) {
    validateNumber(size, "size");
    size *= elementSize;
    if (size !== size || size > MAX_POSSIBLE_LENGTH || size < 0) throw outOfRange("size", ">= 0 && <= " + MAX_POSSIBLE_LENGTH, size);
    if (size + offset > length) throw outOfRange("size + offset", "<= " + length, size + offset);
    return size >>> 0;
  }
  function randomBytes(size, callback) {
    size = assertSize(size, 1, 0, Infinity);
    if (callback !== undefined) checkCallback(callback);
    var bytes = valueOf(call(["random", size], true));
    if (callback === undefined) return bytes;
    later(callback, null, bytes);
  }
  function checkBuf(buf) {
    if (!isView(buf) && !(buf instanceof ArrayBuffer)) throw argType("buf", "an instance of ArrayBuffer or ArrayBufferView", buf);
  }
  function bytesOfView(buf) {
    return isView(buf) ? new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength) : new Uint8Array(buf);
  }
  // offset and size in bytes, checked.
  function fillBytes(buf, offset, size) {
    if (size > 0) bytesInto(bytesOfView(buf).subarray(offset, offset + size), call(["random", size], true).b);
    return buf;
  }
  function randomFillSync(buf, offset, size) {
    checkBuf(buf);
    var elementSize = buf.BYTES_PER_ELEMENT || 1;
    offset = assertOffset(offset === undefined ? 0 : offset, elementSize, buf.byteLength);
    size = size === undefined ? buf.byteLength - offset : assertSize(size, elementSize, offset, buf.byteLength);
    return fillBytes(buf, offset, size);
  }
  function randomFill(buf, offset, size, callback) {
    checkBuf(buf);
    var elementSize = buf.BYTES_PER_ELEMENT || 1;
    if (typeof offset === "function") {
      callback = offset;
      offset = 0;
      size = buf.byteLength;
    } else if (typeof size === "function") {
      callback = size;
      offset = assertOffset(offset, elementSize, buf.byteLength);
      size = buf.byteLength - offset;
    } else {
      checkCallback(callback);
      offset = assertOffset(offset, elementSize, buf.byteLength);
      size = size === undefined ? buf.byteLength - offset : assertSize(size, elementSize, offset, buf.byteLength);
    }
    later(callback, null, fillBytes(buf, offset, size));
  }
  function randomInt(min, max, callback) {
    var args = ["randomInt"];
    for (var i = 0; i < arguments.length; i++) if (typeof arguments[i] !== "function") args.push(arguments[i]);
    var cb = typeof max === "function" ? max : typeof callback === "function" ? callback : undefined;
    var value = call(args);
    if (cb === undefined) return value;
    later(cb, null, value);
  }
  function randomUUID(options) { return call(["uuid", options]); }
  function getRandomValues(data) {
    var integer = typeof BigInt64Array === "function" && (data instanceof BigInt64Array || data instanceof BigUint64Array) ||
      data instanceof Int8Array || data instanceof Uint8Array || data instanceof Uint8ClampedArray || data instanceof Int16Array ||
      data instanceof Uint16Array || data instanceof Int32Array || data instanceof Uint32Array;
    if (!integer) {
      var mismatch = new Error("The data argument must be an integer-type TypedArray");
      mismatch.name = "TypeMismatchError";
      Object.defineProperty(mismatch, "code", { value: 17, enumerable: false, writable: true, configurable: true });
      throw mismatch;
    }
    if (data.byteLength > 65536) {
      var quota = new Error("The requested length exceeds 65,536 bytes");
      quota.name = "QuotaExceededError";
      Object.defineProperty(quota, "code", { value: 22, enumerable: false, writable: true, configurable: true });
      throw quota;
    }
    return fillBytes(data, 0, data.byteLength);
  }
  function hash(algorithm, data, outputEncoding) {
    if (typeof algorithm !== "string") throw argType("algorithm", "of type string", algorithm);
    if (typeof data !== "string" && !isView(data)) throw argType("input", DATA, data);
    return valueOf(call(["hash", algorithm, chunk(data, "utf8"), outputEncoding === undefined ? "hex" : outputEncoding]));
  }
  function getHashes() { return call(["hashes"], true); }
  function getCiphers() { return call(["ciphers"], true); }
  function timingSafeEqual(buf1, buf2) {
    // Node throws these from C++: a code, but not in the text.
    if (!isView(buf1) && !(buf1 instanceof ArrayBuffer)) throw codeError(TypeError, "ERR_INVALID_ARG_TYPE", "The \"buf1\" argument must be an instance of ArrayBuffer, Buffer, TypedArray, or DataView.", true);
    if (!isView(buf2) && !(buf2 instanceof ArrayBuffer)) throw codeError(TypeError, "ERR_INVALID_ARG_TYPE", "The \"buf2\" argument must be an instance of ArrayBuffer, Buffer, TypedArray, or DataView.", true);
    var a = bytesOfView(buf1), b = bytesOfView(buf2);
    if (a.length !== b.length) throw codeError(RangeError, "ERR_CRYPTO_TIMING_SAFE_EQUAL_LENGTH", "Input buffers must have the same byte length", true);
    var diff = 0;
    for (var i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
    return diff === 0;
  }

  return {
    createHash: function createHash(algorithm, options) { return new Hash(algorithm, options); },
    createHmac: function createHmac(hmac, key, options) { return new Hmac(hmac, key, options); },
    createCipheriv: function createCipheriv(cipher, key, iv, options) { return new Cipheriv(cipher, key, iv, options); },
    createDecipheriv: function createDecipheriv(cipher, key, iv, options) { return new Decipheriv(cipher, key, iv, options); },
    getCiphers: getCiphers,
    getHashes: getHashes,
    hash: hash,
    randomBytes: randomBytes,
    randomFill: randomFill,
    randomFillSync: randomFillSync,
    randomInt: randomInt,
    randomUUID: randomUUID,
    timingSafeEqual: timingSafeEqual,
    Hash: Hash,
    Hmac: Hmac,
    Cipheriv: Cipheriv,
    Decipheriv: Decipheriv,
    getRandomValues: getRandomValues,
  };
})`;
