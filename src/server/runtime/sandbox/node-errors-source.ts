/**
 * JavaScript that url-source.ts and node-util-source.ts both evaluate INSIDE the QuickJS sandbox
 * (each inserts this text into its own source): Node's errors with a code, and WebIDL's USVString.
 *
 * No backticks and no dollar-brace in this text: it is a template literal.
 */
export const NODE_ERRORS_SOURCE = String.raw`
  // Node's own errors: a code, and "TypeError [ERR_X]: message" as their text and stack's header
  // (not those Node throws from C++: plain).
  function codeError(Ctor, code, message, plain) {
    var e = new Ctor(message);
    Object.defineProperty(e, "code", { value: code, enumerable: true, writable: true, configurable: true });
    if (plain) return e;
    Object.defineProperty(e, "toString", {
      value: function toString() { return this.name + " [" + this.code + "]: " + this.message; },
      enumerable: false, writable: true, configurable: true,
    });
    if (typeof e.stack === "string") {
      Object.defineProperty(e, "stack", { value: e.toString() + (e.stack === "" ? "" : "\n" + e.stack.replace(/\n$/, "")), enumerable: false, writable: true, configurable: true });
    }
    return e;
  }

  // WebIDL's USVString and Node's util.toUSVString: ToString (toString before valueOf; a Symbol
  // throws), each lone surrogate as U+FFFD.
  function toUSVString(input) {
    if (typeof input === "symbol") throw new TypeError("Cannot convert a Symbol value to a string");
    var str = String(input), out = "", from = 0;
    for (var i = 0; i < str.length; i++) {
      var c = str.charCodeAt(i);
      if (c < 0xd800 || c > 0xdfff) continue;
      if (c <= 0xdbff && i + 1 < str.length) {
        var d = str.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) { i++; continue; }
      }
      out += str.slice(from, i) + "\uFFFD";
      from = i + 1;
    }
    return from === 0 ? str : out + str.slice(from);
  }
`;
