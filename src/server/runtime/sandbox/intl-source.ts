/**
 * `Intl` for the function sandbox, as JavaScript evaluated INSIDE QuickJS the first time the
 * code reads `Intl` (driver.ts; code that never does pays nothing). QuickJS has none; each
 * object here keeps its locales and options and asks the host (intl-host.ts) for every answer,
 * so the answers are V8's and ICU's, as in Node-RED: DateTimeFormat, NumberFormat, Collator,
 * PluralRules, RelativeTimeFormat, ListFormat and DisplayNames with their formatting methods and
 * resolvedOptions(), supportedLocalesOf, Intl.getCanonicalLocales and Intl.supportedValuesOf.
 *
 * The source is an expression yielding a factory; the driver calls it with what it shares: its
 * host call, its `answer(text)` (the value of an answer, or the error it carries thrown), its
 * `localeCompare(a, b, argsJson)` (a Collator's compare is String.prototype.localeCompare's),
 * its locale-argument JSON and replacer, and primordials.
 *
 * No backticks and no dollar-brace in this text: it is a template literal.
 */
export const INTL_SOURCE = String.raw`(function (deps) {
  "use strict";
  // The driver's: its host call (which bounds what crosses), its answer reader, its
  // localeCompare, its locale-argument JSON and replacer, and primordials user code cannot replace.
  var hostIntl = deps.host;
  var answer = deps.answer;
  var localeCompare = deps.localeCompare;
  var argsOf = deps.localeArgs;
  var replacer = deps.replacer;
  var Str = deps.Str;
  var stringify = deps.stringify;
  var parse = deps.parse;
  // A Collator's compare handed out is registered: array.sort(it) orders strings in one host call (driver.ts).
  var sortableCompare = deps.sortableCompare;
  var slots = new WeakMap();
  var dateGetTime = Date.prototype.getTime;
  var arraySlice = Array.prototype.slice;
  var arrayFrom = Array.from;

  var slotOf = function (self, name, method) {
    var slot = self !== null && typeof self === "object" ? slots.get(self) : undefined;
    if (slot === undefined || slot.name !== name) {
      throw new TypeError("Method Intl." + name + ".prototype." + method + " called on incompatible receiver " + Str(self));
    }
    return slot;
  };
  var call = function (slot, method, args) {
    var text = answer(hostIntl("call", slot.name, slot.args, stringify([method].concat(args), replacer)));
    return text === "undefined" ? undefined : parse(text);
  };
  // ToNumber, with V8's words for a BigInt.
  var num = function (value) {
    if (typeof value === "bigint") throw new TypeError("Cannot convert a BigInt value to a number");
    return +value;
  };
  // A date as V8's methods take one: format() without one is now; a range needs both.
  var toDateValue = function (value, method) {
    if (value === undefined) {
      if (method === "format" || method === "formatToParts") return Date.now();
      throw new TypeError("Invalid time value");
    }
    if (value instanceof Date) return Reflect.apply(dateGetTime, value, []);
    return num(value);
  };
  var toNumberValue = function (value) {
    return typeof value === "bigint" || typeof value === "string" ? value : num(value);
  };
  // What each method's arguments become before they cross (as V8 converts them), only as many
  // as the method takes (dates.map(dtf.format) passes three).
  var two = { formatRange: true, formatRangeToParts: true, selectRange: true };
  var convert = {
    DateTimeFormat: function (args, method) {
      return two[method] ? [toDateValue(args[0], method), toDateValue(args[1], method)] : [toDateValue(args[0], method)];
    },
    NumberFormat: function (args, method) {
      return two[method] ? [toNumberValue(args[0]), toNumberValue(args[1])] : [toNumberValue(args[0])];
    },
    PluralRules: function (args, method) { return two[method] ? [num(args[0]), num(args[1])] : [num(args[0])]; },
    RelativeTimeFormat: function (args) { return [num(args[0]), Str(args[1])]; },
    ListFormat: function (args) { return [args[0] === undefined ? [] : arrayFrom(args[0], function (item) { return item; })]; },
    DisplayNames: function (args) { return [Str(args[0])]; },
  };

  // Locales crossing as JSON, bounded as the driver's locale arguments are.
  var bounded = function (json) {
    if (json.length > 16384) throw new RangeError("Intl: the locales and options are too long for the function sandbox (over 16,384 characters as JSON)");
    return json;
  };
  // The arguments up to the last one given.
  var given = function (args) {
    var list = Reflect.apply(arraySlice, args, []);
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
      return parse(answer(hostIntl("static", name, bounded(stringify(["supportedLocalesOf"].concat(given(arguments)), replacer)))));
    });
    define(C.prototype, "resolvedOptions", function resolvedOptions() {
      return parse(slotOf(this, name, "resolvedOptions").resolved);
    });
    methods.forEach(function (method) {
      var fn = name === "Collator"
        ? function (a, b) {
          // String.prototype.localeCompare's (ASCII in the sandbox, the rest in one host call
          // without JSON): a sort calls it n log n times.
          return localeCompare(Str(a), Str(b), slotOf(this, name, method).args);
        }
        : function () {
          var slot = slotOf(this, name, method);
          return call(slot, method, convert[name](Reflect.apply(arraySlice, arguments, []), method));
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
              if (name === "Collator") sortableCompare(slot.bound, slot.args);
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
    return parse(answer(hostIntl("static", "", bounded(stringify(["getCanonicalLocales"].concat(given(arguments)), replacer)))));
  });
  define(Intl, "supportedValuesOf", function supportedValuesOf(key) {
    return parse(answer(hostIntl("static", "", stringify(["supportedValuesOf", Str(key)]))));
  });
  return Intl;
})`;
