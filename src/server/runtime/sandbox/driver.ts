/**
 * The JavaScript that runs INSIDE the QuickJS sandbox of one function node: it builds the Node-RED
 * style API (`node`, `context`, `flow`, `env`, `RED`, `console`), compiles the user's code with the
 * Function constructor (so the code is the body of `function (msg, node, context, flow, env, RED)`
 * and cannot close the wrapper early), and serializes everything that goes back to the host as JSON.
 *
 * The source is evaluated once per QuickJS context as an expression yielding a factory; the host
 * calls the factory with its three flow-context callbacks and the code strings, and keeps only the
 * returned dispatcher. Nothing of this is reachable from the user's code through globals: the host
 * callbacks live in the factory's closure.
 *
 * Dispatcher ops (first argument):
 *   0 run(msgJson)  1 initialize  2 finalize  → an envelope string, or "" when the code returned a
 *                                               promise; when "" or when jobs are queued, the host
 *                                               drains the job queue, then calls
 *   3 settle()      → the envelope of the settled promise (throws its rejection), or of the plain
 *                     result again once the jobs it queued have run
 *   4 partial()     → the envelope of what happened before an error (sends, status, logs)
 *
 * Envelope: {"r": <returned value>, "s": [<sent value>, ...], "l": [[level, text], ...], "st"?: <status>}
 */
export const DRIVER_SOURCE = String.raw`(function (hostFlowGet, hostFlowSet, hostFlowKeys, infoJson, code, initCode, finCode) {
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
  const PromiseCtor = Promise;
  const MapCtor = Map;
  const mapGet = Map.prototype.get;
  const mapSet = Map.prototype.set;
  const mapDelete = Map.prototype.delete;
  const mapKeys = Map.prototype.keys;
  const arrayFrom = Array.from;
  const ErrorCtor = Error;
  const Str = String;
  const AsyncFunction = (async function () {}).constructor;
  const FunctionCtor = Function;
  const awaitPattern = /\bawait\b/;
  const regexpTest = RegExp.prototype.test;

  const info = parse(infoJson);
  const push = (list, value) => { apply(arrayPush, list, [value]); };
  const join = (list) => apply(arrayJoin, list, [","]);
  const toJson = (value) => {
    const text = stringify(value);
    return text === undefined ? "null" : text;
  };

  let sent = [];
  let logs = [];
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
  context.flow = flow;

  const node = {
    id: info.id,
    name: info.name,
    z: info.flowId,
    outputCount: info.outputs,
    send(value) {
      if (value !== null && value !== undefined) push(sent, toJson(value));
    },
    status(value) {
      statusJson = value === null || value === undefined ? "null" : toJson(typeof value === "string" ? { text: value } : value);
    },
    log(value) { log("log", [value]); },
    warn(value) { log("warn", [value]); },
    error(value) { log("error", [value]); },
    done() {},
    on() {},
  };
  const envValues = { NR_NODE_ID: info.id, NR_NODE_NAME: info.name, NR_FLOW_ID: info.flowId };
  const env = {
    get(name) {
      const key = Str(name);
      return key === "NR_NODE_ID" || key === "NR_NODE_NAME" || key === "NR_FLOW_ID" ? envValues[key] : undefined;
    },
  };
  const RED = {
    util: {
      cloneMessage(value) { return value === undefined ? undefined : parse(toJson(value)); },
    },
  };
  globalThis.console = {
    log(...args) { log("log", args); },
    info(...args) { log("log", args); },
    debug(...args) { log("log", args); },
    warn(...args) { log("warn", args); },
    error(...args) { log("error", args); },
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
  const params = ["msg", "node", "context", "flow", "env", "RED"];
  const fn = compile(code, params);
  const initFn = compile(initCode, params);
  const finFn = compile(finCode, params);

  const envelope = (resultJson) =>
    '{"r":' + resultJson + ',"s":[' + join(sent) + '],"l":[' + join(logs) + ']' +
    (statusJson === undefined ? "" : ',"st":' + statusJson) + "}";

  const finish = (result) => {
    resultJson = undefined;
    if (result !== null && typeof result === "object" && typeof result.then === "function") {
      const state = { done: false, ok: false, value: undefined };
      pending = state;
      const promise = apply(promiseResolve, PromiseCtor, [result]);
      apply(promiseThen, promise, [
        (value) => { state.done = true; state.ok = true; state.value = value; },
        (error) => { state.done = true; state.ok = false; state.value = error; },
      ]);
      return "";
    }
    resultJson = toJson(result);
    return envelope(resultJson);
  };

  return function dispatch(op, msgJson) {
    if (op === 3) {
      const state = pending;
      pending = null;
      // A plain return whose promise jobs were run afterwards: same result, with what the jobs did.
      if (state === null && resultJson !== undefined) return envelope(resultJson);
      if (state === null || !state.done) {
        log("warn", ["the function returned a promise that never settled (the sandbox has no timers or I/O)"]);
        return envelope("null");
      }
      if (!state.ok) throw state.value;
      return envelope(toJson(state.value));
    }
    if (op === 4) return envelope("null");
    sent = [];
    logs = [];
    statusJson = undefined;
    pending = null;
    resultJson = undefined;
    if (op === 0) return finish(fn === null ? undefined : fn(parse(msgJson), node, context, flow, env, RED));
    const hook = op === 1 ? initFn : finFn;
    return finish(hook === null ? undefined : hook(undefined, node, context, flow, env, RED));
  };
})`;
