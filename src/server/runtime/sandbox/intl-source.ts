/**
 * `Intl` for the function sandbox, as JavaScript evaluated INSIDE QuickJS the first time the
 * code reads `Intl` (driver.ts; code that never does pays nothing). QuickJS has none; each
 * object here keeps its locales and options and asks the host (intl-host.ts) for every answer,
 * so the answers are V8's and ICU's, as in Node-RED: DateTimeFormat, NumberFormat, Collator,
 * PluralRules, RelativeTimeFormat, ListFormat and DisplayNames with their formatting methods and
 * resolvedOptions(), supportedLocalesOf, Intl.getCanonicalLocales and Intl.supportedValuesOf.
 *
 * The source is an expression yielding a factory; the driver calls it with the host function,
 * its `answer(text)` (the value of an answer, or the error it carries thrown) and its
 * `localeCompare(a, b, argsJson)` (a Collator's compare is String.prototype.localeCompare's).
 *
 * No backticks and no dollar-brace in this text: it is a template literal.
 */
export const INTL_SOURCE = String.raw`(function (hostIntl, answer, localeCompare) {
  "use strict";
  var stringify = JSON.stringify;
  var parse = JSON.parse;
  var slots = new WeakMap();
  var dateGetTime = Date.prototype.getTime;
  var numberTag = "\u0000num";
  var bigintTag = "\u0000bigint";

  var argsOf = function (locales, options) {
    if (locales === undefined && options === undefined) return "";
    return stringify([locales === undefined ? null : locales, options === undefined ? null : options]);
  };
  // JSON with what JSON lacks: BigInts, NaN, the infinities and -0 (intl-host.ts revives them).
  var replacer = function (key, value) {
    if (typeof value === "bigint") {
      var big = {};
      big[bigintTag] = String(value);
      return big;
    }
    if (typeof value === "number" && (value !== value || value === Infinity || value === -Infinity || (value === 0 && 1 / value < 0))) {
      var num = {};
      num[numberTag] = value === 0 ? "-0" : String(value);
      return num;
    }
    return value;
  };
  var slotOf = function (self, name, method) {
    var slot = self !== null && typeof self === "object" ? slots.get(self) : undefined;
    if (slot === undefined || slot.name !== name) {
      throw new TypeError("Method Intl." + name + ".prototype." + method + " called on incompatible receiver " + String(self));
    }
    return slot;
  };
  var call = function (slot, method, args) {
    return parse(answer(hostIntl("call", slot.name, slot.args, stringify([method].concat(args), replacer))));
  };
  var toDateValue = function (value) {
    if (value === undefined) return Date.now();
    if (value instanceof Date) return Reflect.apply(dateGetTime, value, []);
    return Number(value);
  };
  var toNumberValue = function (value) {
    return typeof value === "bigint" || typeof value === "string" ? value : Number(value);
  };
  // What each method's arguments become before they cross (as V8 converts them).
  var convert = {
    DateTimeFormat: function (args) { return args.map(toDateValue); },
    NumberFormat: function (args) { return args.map(toNumberValue); },
    PluralRules: function (args) { return args.map(function (a) { return Number(a); }); },
    RelativeTimeFormat: function (args) { return [Number(args[0]), String(args[1])]; },
    ListFormat: function (args) { return [args[0] === undefined ? [] : Array.from(args[0], function (item) { return item; })]; },
    DisplayNames: function (args) { return [String(args[0])]; },
  };

  // The arguments up to the last one given (JSON would turn a missing options into null, which V8 refuses).
  var given = function (args) {
    var list = Array.prototype.slice.call(args);
    while (list.length > 0 && list[list.length - 1] === undefined) list.pop();
    return list;
  };
  var define = function (target, key, value) {
    Object.defineProperty(target, key, { value: value, writable: true, configurable: true, enumerable: false });
  };

  var Intl = {};
  Object.defineProperty(Intl, Symbol.toStringTag, { value: "Intl", configurable: true });

  var make = function (name, methods, bound, callable) {
    var C = function (locales, options) {
      if (new.target === undefined && !callable) throw new TypeError("Constructor Intl." + name + " requires 'new'");
      var self = new.target === undefined ? Object.create(C.prototype) : this;
      var args = argsOf(locales, options);
      var resolved = answer(hostIntl("new", name, args));
      slots.set(self, { name: name, args: args, resolved: resolved });
      return self;
    };
    Object.defineProperty(C, "name", { value: name });
    define(C, "supportedLocalesOf", function supportedLocalesOf(locales, options) {
      return parse(answer(hostIntl("static", name, stringify(["supportedLocalesOf"].concat(given(arguments))))));
    });
    define(C.prototype, "resolvedOptions", function resolvedOptions() {
      return parse(slotOf(this, name, "resolvedOptions").resolved);
    });
    methods.forEach(function (method) {
      var fn = name === "Collator"
        ? function (a, b) {
          // String.prototype.localeCompare's (ASCII in the sandbox, the rest in one host call
          // without JSON): a sort calls it n log n times.
          return localeCompare(String(a), String(b), slotOf(this, name, method).args);
        }
        : function () {
          var slot = slotOf(this, name, method);
          return call(slot, method, convert[name](Array.prototype.slice.call(arguments)));
        };
      Object.defineProperty(fn, "name", { value: method });
      if (method === bound) {
        // format and compare are getters of a bound function (dates.map(dtf.format) works).
        Object.defineProperty(C.prototype, method, {
          configurable: true,
          enumerable: false,
          get: function () {
            var slot = slotOf(this, name, method);
            if (!slot.bound) {
              var self = this;
              slot.bound = function (a, b) { return Reflect.apply(fn, self, arguments); };
            }
            return slot.bound;
          },
        });
      } else {
        define(C.prototype, method, fn);
      }
    });
    Object.defineProperty(C.prototype, Symbol.toStringTag, { value: "Intl." + name, configurable: true });
    define(Intl, name, C);
  };

  make("DateTimeFormat", ["format", "formatToParts", "formatRange", "formatRangeToParts"], "format", true);
  make("NumberFormat", ["format", "formatToParts", "formatRange", "formatRangeToParts"], "format", true);
  make("Collator", ["compare"], "compare", true);
  make("PluralRules", ["select", "selectRange"], null, false);
  make("RelativeTimeFormat", ["format", "formatToParts"], null, false);
  make("ListFormat", ["format", "formatToParts"], null, false);
  make("DisplayNames", ["of"], null, false);
  define(Intl, "getCanonicalLocales", function getCanonicalLocales(locales) {
    return parse(answer(hostIntl("static", "", stringify(["getCanonicalLocales"].concat(given(arguments))))));
  });
  define(Intl, "supportedValuesOf", function supportedValuesOf(key) {
    return parse(answer(hostIntl("static", "", stringify(["supportedValuesOf", String(key)]))));
  });
  return Intl;
})`;
