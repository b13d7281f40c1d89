/**
 * Node's `Buffer` for the function sandbox: the `buffer` package (Node's own Buffer API over
 * Uint8Array, as browsers use it) with its two dependencies, as one expression the driver evaluates
 * inside QuickJS the first time code uses `Buffer` or a message brings one (driver.ts,
 * `loadBuffer`). Read from node_modules once per thread, so the source and the built server use the
 * same files.
 *
 * Buffers cross between the host and the sandbox as `{"\u0000b<random>": "<base64>"}` (bufferMark):
 * an object of that one key is nothing a flow writes, so a plain object shaped like Buffer's JSON,
 * `{type: "Buffer", data: [...]}`, stays a plain object both ways, as in Node-RED.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

/**
 * The key of a Buffer's stand-in in JSON between the host and the sandbox: a NUL and a random part
 * drawn once per process (the sandbox workers are given the host's), so that no message from outside
 * can carry one.
 */
let mark = `\u0000b${randomBytes(9).toString("base64url")}`;
let markJson = JSON.stringify(mark);

export function bufferMark(): string {
  return mark;
}

/** How the stand-in's key appears in JSON text (JSON.stringify escapes the NUL). */
export function bufferMarkJson(): string {
  return markJson;
}

/** A sandbox worker takes its host's mark (sandbox-worker.ts). */
export function setBufferMark(value: string): void {
  mark = value;
  markJson = JSON.stringify(value);
}

let source: string | undefined;

export function bufferSource(): string {
  if (source !== undefined) return source;
  const require = createRequire(import.meta.url);
  // "buffer/" names the package (plain "buffer" resolves to Node's built-in module).
  const bufferPath = require.resolve("buffer/");
  const fromBuffer = createRequire(bufferPath);
  const modules: Array<[string, string]> = [
    ["base64-js", fromBuffer.resolve("base64-js")],
    ["ieee754", fromBuffer.resolve("ieee754")],
    ["buffer", bufferPath],
  ];
  const parts = modules.map(
    ([name, path]) => `load(${JSON.stringify(name)}, function (module, exports, require) {\n${readFileSync(path, "utf8")}\n});`,
  );
  source = `(function () {
  var modules = {};
  function load(name, body) {
    var module = { exports: {} };
    body(module, module.exports, function (dependency) { return modules[dependency]; });
    modules[name] = module.exports;
  }
${parts.join("\n")}
  return modules["buffer"].Buffer;
})()`;
  return source;
}

/** JSON.stringify's replacer that writes Buffers as their stand-in (see the header). */
export function bufferMarkReplacer(this: unknown, key: string, value: unknown): unknown {
  const original = (this as Record<string, unknown>)[key];
  return Buffer.isBuffer(original) ? { [mark]: original.toString("base64") } : value;
}

/**
 * Makes Buffers of the stand-ins in a sandbox's result (on the host: a Buffer made on the worker
 * would cross by structured clone as a Uint8Array, with the whole pool slab it is a view of). In
 * place; returns the value, or its Buffer.
 */
export function restoreBuffers<T>(value: T): T {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = restoreBuffers(value[i]);
    return value;
  }
  const object = value as Record<string, unknown>;
  const bytes = object[mark];
  if (typeof bytes === "string" && Object.keys(object).length === 1) return Buffer.from(bytes, "base64") as T;
  for (const key of Object.keys(object)) object[key] = restoreBuffers(object[key]);
  return value;
}
