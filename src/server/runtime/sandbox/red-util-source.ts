/**
 * Node-RED's `RED.util` for the function node's code, as JavaScript evaluated INSIDE the QuickJS
 * sandbox (driver.ts evaluates it the first time the code calls one of these functions, so code
 * that never does pays nothing for it). The functions are Node-RED 5.0's
 * (@node-red/util/lib/util.js, Apache License 2.0, Copyright OpenJS Foundation and other
 * contributors), ported line by line so that what they accept, return and throw is Node-RED's;
 * where the sandbox has no equivalent of something Node-RED reaches for (the host's environment,
 * moment, JSONata, the node's runtime object), the function says so with an error of its own.
 *
 * The source is an expression yielding a factory; the driver calls it with what it shares:
 * `loadBuffer()` (Node's Buffer in the engine), `bufferOrNull()` (the Buffer constructor if it has
 * been loaded; no value can be a Buffer before), `cloneMessage`, `envGet(name)` (the flow's and
 * organization's variables, as `env.get`), and the `flow` and `global` context objects.
 *
 * No backticks and no dollar-brace in this text: it is a template literal.
 */
export const RED_UTIL_SOURCE = String.raw`(function (deps) {
  "use strict";
  var hasOwnProperty = Object.prototype.hasOwnProperty;
  var isBuffer = function (o) {
    var B = deps.bufferOrNull();
    return B !== null && B.isBuffer(o);
  };
  var unavailable = function (what, why) {
    return new Error("RED.util." + what + " is not available in Flowplane's function sandbox: " + why);
  };

  function constructorName(obj) {
    return obj && obj.constructor ? obj.constructor.name : '';
  }

  function generateId() {
    var bytes = [];
    for (var i = 0; i < 8; i++) {
      bytes.push(Math.round(0xff * Math.random()).toString(16).padStart(2, '0'));
    }
    return bytes.join("");
  }

  function ensureString(o) {
    if (isBuffer(o)) {
      return o.toString();
    } else if (typeof o === "object") {
      return JSON.stringify(o);
    } else if (typeof o === "string") {
      return o;
    }
    return "" + o;
  }

  function ensureBuffer(o) {
    var B = deps.loadBuffer();
    if (B.isBuffer(o)) {
      return o;
    } else if (typeof o === "object") {
      o = JSON.stringify(o);
    } else if (typeof o !== "string") {
      o = "" + o;
    }
    return B.from(o);
  }

  function compareObjects(obj1, obj2) {
    var i;
    if (obj1 === obj2) {
      return true;
    }
    if (obj1 == null || obj2 == null) {
      return false;
    }
    var isArray1 = Array.isArray(obj1);
    var isArray2 = Array.isArray(obj2);
    if (isArray1 != isArray2) {
      return false;
    }
    if (isArray1 && isArray2) {
      if (obj1.length !== obj2.length) {
        return false;
      }
      for (i = 0; i < obj1.length; i++) {
        if (!compareObjects(obj1[i], obj2[i])) {
          return false;
        }
      }
      return true;
    }
    var isBuffer1 = isBuffer(obj1);
    var isBuffer2 = isBuffer(obj2);
    if (isBuffer1 != isBuffer2) {
      return false;
    }
    if (isBuffer1 && isBuffer2) {
      return obj1.equals(obj2);
    }
    if (typeof obj1 !== 'object' || typeof obj2 !== 'object') {
      return false;
    }
    var keys1 = Object.keys(obj1);
    var keys2 = Object.keys(obj2);
    if (keys1.length != keys2.length) {
      return false;
    }
    for (var k in obj1) {
      if (hasOwnProperty.call(obj1, k)) {
        if (!compareObjects(obj1[k], obj2[k])) {
          return false;
        }
      }
    }
    return true;
  }

  function createError(code, message) {
    var e = new Error(message);
    e.code = code;
    return e;
  }

  function normalisePropertyExpression(str, msg, toString) {
    var length = str.length;
    if (length === 0) {
      throw createError("INVALID_EXPR", "Invalid property expression: zero-length");
    }
    var parts = [];
    var start = 0;
    var inString = false;
    var inBox = false;
    var quoteChar;
    var v;
    for (var i = 0; i < length; i++) {
      var c = str[i];
      if (!inString) {
        if (c === "'" || c === '"') {
          if (i != start) {
            throw createError("INVALID_EXPR", "Invalid property expression: unexpected " + c + " at position " + i);
          }
          inString = true;
          quoteChar = c;
          start = i + 1;
        } else if (c === '.') {
          if (i === 0) {
            throw createError("INVALID_EXPR", "Invalid property expression: unexpected . at position 0");
          }
          if (start != i) {
            v = str.substring(start, i);
            if (/^\d+$/.test(v)) {
              parts.push(parseInt(v));
            } else {
              parts.push(v);
            }
          }
          if (i === length - 1) {
            throw createError("INVALID_EXPR", "Invalid property expression: unterminated expression");
          }
          // Next char is first char of an identifier: a-z 0-9 $ _
          if (!/[a-z0-9\$\_]/i.test(str[i + 1])) {
            throw createError("INVALID_EXPR", "Invalid property expression: unexpected " + str[i + 1] + " at position " + (i + 1));
          }
          start = i + 1;
        } else if (c === '[') {
          if (i === 0) {
            throw createError("INVALID_EXPR", "Invalid property expression: unexpected " + c + " at position " + i);
          }
          if (start != i) {
            parts.push(str.substring(start, i));
          }
          if (i === length - 1) {
            throw createError("INVALID_EXPR", "Invalid property expression: unterminated expression");
          }
          // A nested msg expression: scan ahead to its closing bracket.
          if (/^msg[.\[]/.test(str.substring(i + 1))) {
            var depth = 1;
            var inLocalString = false;
            var localStringQuote;
            for (var j = i + 1; j < length; j++) {
              if (/["']/.test(str[j])) {
                if (inLocalString) {
                  if (str[j] === localStringQuote) {
                    inLocalString = false;
                  }
                } else {
                  inLocalString = true;
                  localStringQuote = str[j];
                }
              }
              if (str[j] === '[') {
                depth++;
              } else if (str[j] === ']') {
                depth--;
              }
              if (depth === 0) {
                try {
                  if (msg) {
                    var crossRefProp = getMessageProperty(msg, str.substring(i + 1, j));
                    if (crossRefProp === undefined) {
                      throw createError("INVALID_EXPR", "Invalid expression: undefined reference at position " + (i + 1) + " : " + str.substring(i + 1, j));
                    }
                    parts.push(crossRefProp);
                  } else {
                    parts.push(normalisePropertyExpression(str.substring(i + 1, j), msg));
                  }
                  inBox = false;
                  i = j;
                  start = j + 1;
                  break;
                } catch (err) {
                  throw createError("INVALID_EXPR", "Invalid expression started at position " + (i + 1));
                }
              }
            }
            if (depth > 0) {
              throw createError("INVALID_EXPR", "Invalid property expression: unmatched '[' at position " + i);
            }
            continue;
          } else if (!/["'\d]/.test(str[i + 1])) {
            throw createError("INVALID_EXPR", "Invalid property expression: unexpected " + str[i + 1] + " at position " + (i + 1));
          }
          start = i + 1;
          inBox = true;
        } else if (c === ']') {
          if (!inBox) {
            throw createError("INVALID_EXPR", "Invalid property expression: unexpected " + c + " at position " + i);
          }
          if (start != i) {
            v = str.substring(start, i);
            if (/^\d+$/.test(v)) {
              parts.push(parseInt(v));
            } else {
              throw createError("INVALID_EXPR", "Invalid property expression: unexpected array expression at position " + start);
            }
          }
          start = i + 1;
          inBox = false;
        } else if (c === ' ') {
          throw createError("INVALID_EXPR", "Invalid property expression: unexpected ' ' at position " + i);
        }
      } else {
        if (c === quoteChar) {
          if (i - start === 0) {
            throw createError("INVALID_EXPR", "Invalid property expression: zero-length string at position " + start);
          }
          parts.push(str.substring(start, i));
          // If inBox, next char must be a ]. Otherwise it may be [ or .
          if (inBox && !/\]/.test(str[i + 1])) {
            throw createError("INVALID_EXPR", "Invalid property expression: unexpected array expression at position " + start);
          } else if (!inBox && i + 1 !== length && !/[\[\.]/.test(str[i + 1])) {
            throw createError("INVALID_EXPR", "Invalid property expression: unexpected " + str[i + 1] + " expression at position " + (i + 1));
          }
          start = i + 1;
          inString = false;
        }
      }
    }
    if (inBox || inString) {
      throw createError("INVALID_EXPR", "Invalid property expression: unterminated expression");
    }
    if (start < length) {
      parts.push(str.substring(start));
    }
    if (toString) {
      var result = parts.shift();
      while (parts.length > 0) {
        var p = parts.shift();
        if (typeof p === 'string') {
          if (/"/.test(p)) {
            p = "'" + p + "'";
          } else {
            p = '"' + p + '"';
          }
        }
        result = result + "[" + p + "]";
      }
      return result;
    }
    return parts;
  }

  function getMessageProperty(msg, expr) {
    if (expr.indexOf('msg.') === 0) {
      expr = expr.substring(4);
    }
    return getObjectProperty(msg, expr);
  }

  function getObjectProperty(msg, expr) {
    var result = null;
    var msgPropParts = normalisePropertyExpression(expr, msg);
    msgPropParts.reduce(function (obj, key) {
      // V8's words, which QuickJS does not give for a computed key.
      if (obj === undefined || obj === null) throw new TypeError("Cannot read properties of " + obj + " (reading '" + key + "')");
      result = (typeof obj[key] !== "undefined" ? obj[key] : undefined);
      return result;
    }, msg);
    return result;
  }

  function setMessageProperty(msg, prop, value, createMissing) {
    if (prop.indexOf('msg.') === 0) {
      prop = prop.substring(4);
    }
    return setObjectProperty(msg, prop, value, createMissing);
  }

  function setObjectProperty(msg, prop, value, createMissing) {
    if (typeof createMissing === 'undefined') {
      createMissing = (typeof value !== 'undefined');
    }
    var msgPropParts = normalisePropertyExpression(prop, msg);
    var length = msgPropParts.length;
    var obj = msg;
    var key;
    for (var i = 0; i < length - 1; i++) {
      key = msgPropParts[i];
      if (typeof key === 'string' || (typeof key === 'number' && !Array.isArray(obj))) {
        if (hasOwnProperty.call(obj, key)) {
          if (length > 1 && ((typeof obj[key] !== "object" && typeof obj[key] !== "function") || obj[key] === null)) {
            // Nothing can be created beneath this kind of value.
            return false;
          }
          obj = obj[key];
        } else if (createMissing) {
          if (typeof msgPropParts[i + 1] === 'string') {
            obj[key] = {};
          } else {
            obj[key] = [];
          }
          obj = obj[key];
        } else {
          return false;
        }
      } else if (typeof key === 'number') {
        // obj is an array
        if (obj[key] === undefined) {
          if (createMissing) {
            if (typeof msgPropParts[i + 1] === 'string') {
              obj[key] = {};
            } else {
              obj[key] = [];
            }
            obj = obj[key];
          } else {
            return false;
          }
        } else {
          obj = obj[key];
        }
      }
    }
    key = msgPropParts[length - 1];
    if (typeof value === "undefined") {
      if (typeof key === 'number' && Array.isArray(obj)) {
        obj.splice(key, 1);
      } else {
        delete obj[key];
      }
    } else {
      if (typeof obj === "object" && obj !== null) {
        obj[key] = value;
      } else {
        // Cannot set a property of a non-object/array
        return false;
      }
    }
    return true;
  }

  // Node-RED 5.0's function node replaces getSetting so that it reads the function node's own
  // settings; ours reads what env.get reads (the flow's and the organization's variables).
  function getSetting(node, name) {
    return deps.envGet(name);
  }

  function evaluateEnvProperty(value) {
    var result;
    if (/^\$\{[^}]+\}$/.test(value)) {
      result = getSetting(null, value.substring(2, value.length - 1));
    } else if (!/\$\{\S+\}/.test(value)) {
      result = getSetting(null, value);
    } else {
      return value.replace(/\$\{([^}]+)\}/g, function (match, name) {
        var val = getSetting(null, name);
        return (val === undefined) ? "" : val;
      });
    }
    return (result === undefined) ? "" : result;
  }

  function parseContextStore(key) {
    var parts = {};
    var m = /^#:\((\S+?)\)::(.*)$/.exec(key);
    if (m) {
      parts.store = m[1];
      parts.key = m[2];
    } else {
      parts.key = key;
    }
    return parts;
  }

  function evaluateNodeProperty(value, type, node, msg, callback) {
    var result = value;
    if (type === 'str') {
      result = "" + value;
    } else if (type === 'num') {
      result = Number(value);
    } else if (type === 'json') {
      result = JSON.parse(value);
    } else if (type === 're') {
      result = new RegExp(value);
    } else if (type === 'date') {
      if (!value) {
        result = Date.now();
      } else if (value === 'object') {
        result = new Date();
      } else if (value === 'iso') {
        result = (new Date()).toISOString();
      } else {
        throw unavailable("evaluateNodeProperty", "a date in a format of moment.js (\"" + value + "\"); use \"\", \"iso\" or \"object\", or a change node");
      }
    } else if (type === 'bin') {
      var data = JSON.parse(value);
      if (Array.isArray(data) || (typeof (data) === "string")) {
        result = deps.loadBuffer().from(data);
      } else {
        throw createError("INVALID_BUFFER_DATA", "Not string or array");
      }
    } else if (type === 'msg' && msg) {
      try {
        result = getMessageProperty(msg, value);
      } catch (err) {
        if (callback) {
          callback(err);
        } else {
          throw err;
        }
        return;
      }
    } else if ((type === 'flow' || type === 'global') && node) {
      // The function's own flow and global context (one store: a store name is ignored).
      var contextKey = parseContextStore(value);
      if (/\[msg/.test(contextKey.key)) {
        contextKey.key = normalisePropertyExpression(contextKey.key, msg, true);
      }
      result = (type === 'flow' ? deps.flow : deps.global).get(contextKey.key);
    } else if (type === 'bool') {
      result = /^true$/i.test(value);
    } else if (type === 'jsonata') {
      throw unavailable("evaluateNodeProperty", "JSONata expressions; use a change node");
    } else if (type === 'env') {
      result = evaluateEnvProperty(value);
    }
    if (callback) {
      callback(null, result);
    } else {
      return result;
    }
  }

  function normaliseNodeTypeName(name) {
    var result = name.replace(/[^a-zA-Z0-9]/g, " ");
    result = result.trim();
    result = result.replace(/ +/g, " ");
    result = result.replace(/ ./g, function (s) {
      return s.charAt(1).toUpperCase();
    });
    result = result.charAt(0).toLowerCase() + result.slice(1);
    return result;
  }

  return {
    encodeObject: function () {
      throw unavailable("encodeObject", "it encodes for Node-RED's debug sidebar; send the value to a debug node");
    },
    ensureString: ensureString,
    ensureBuffer: ensureBuffer,
    cloneMessage: deps.cloneMessage,
    compareObjects: compareObjects,
    generateId: generateId,
    getMessageProperty: getMessageProperty,
    setMessageProperty: setMessageProperty,
    getObjectProperty: getObjectProperty,
    setObjectProperty: setObjectProperty,
    evaluateNodeProperty: evaluateNodeProperty,
    normalisePropertyExpression: normalisePropertyExpression,
    normaliseNodeTypeName: normaliseNodeTypeName,
    prepareJSONataExpression: function () {
      throw unavailable("prepareJSONataExpression", "JSONata expressions; use a change node");
    },
    evaluateJSONataExpression: function () {
      throw unavailable("evaluateJSONataExpression", "JSONata expressions; use a change node");
    },
    parseContextStore: parseContextStore,
    getSetting: getSetting,
  };
})`;

/** The names of Node-RED 5.0's RED.util, in its order: the driver defines each on the code's RED.util. */
export const RED_UTIL_NAMES = [
  "encodeObject",
  "ensureString",
  "ensureBuffer",
  "cloneMessage",
  "compareObjects",
  "generateId",
  "getMessageProperty",
  "setMessageProperty",
  "getObjectProperty",
  "setObjectProperty",
  "evaluateNodeProperty",
  "normalisePropertyExpression",
  "normaliseNodeTypeName",
  "prepareJSONataExpression",
  "evaluateJSONataExpression",
  "parseContextStore",
  "getSetting",
] as const;
