/**
 * npm packages a function node's Setup → Modules can load (Node-RED's `libs` naming an npm package,
 * which Node-RED installs and `require`s): pure JavaScript, so the sandbox evaluates the package's
 * own code, from the server's node_modules, in the engine when the node's sandbox is set up, as
 * Node-RED loads a function's modules when the node starts (driver.ts, `requirePackage`). What the
 * engine gets is the file Node's `require` would run, wrapped as Node's CommonJS loader wraps it:
 * `(function (module, exports, require, global, console) { … })`, the console writing to the
 * server's log.
 *
 * Which file each package runs (the same code as its `main`, minified where the package ships it
 * so, which parses faster):
 * - lodash: lodash.min.js.
 * - moment: min/moment.min.js; a locale (`moment.locale("de")`) is its locale/<name>.js, asked for
 *   by moment's own `require("./locale/" + name)`, as under Node.
 * - moment-timezone: builds/moment-timezone-with-data.min.js, the package's code with all of its time
 *   zone data (the data/packed/latest.json its `main` loads); its `require("moment")` is the
 *   sandbox's moment, the same instance a `moment` entry of the node's libs gets.
 *
 * Only these names, and moment's locales by the file names its folder holds, are ever read: the
 * name comes from the engine, so it is matched against fixed lists, never joined into a path as it is.
 */
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

/** The packages (SANDBOX_PACKAGES in nodes/function/definition.ts, which a test keeps equal to these keys). */
export const PACKAGE_FILES = {
  lodash: "lodash/lodash.min.js",
  moment: "moment/min/moment.min.js",
  "moment-timezone": "moment-timezone/builds/moment-timezone-with-data.min.js",
} as const;
export type SandboxPackageName = keyof typeof PACKAGE_FILES;

const LOCALE = /^moment\/locale\/([a-z0-9]+(?:-[a-z0-9]+)*)$/;

const sources = new Map<string, string>();
let locales: { dir: string; names: Set<string> } | undefined;
let requireHere: NodeJS.Require | undefined;

const resolve = (file: string) => (requireHere ??= createRequire(import.meta.url)).resolve(file);

/** moment's locale folder and its files (de, en-gb, …), read once. */
function momentLocales(): { dir: string; names: Set<string> } {
  if (locales) return locales;
  const dir = path.join(path.dirname(resolve("moment/package.json")), "locale");
  locales = { dir, names: new Set(readdirSync(dir).filter((f) => f.endsWith(".js")).map((f) => f.slice(0, -3))) };
  return locales;
}

function fileOf(name: string): string | undefined {
  if (Object.hasOwn(PACKAGE_FILES, name)) return resolve(PACKAGE_FILES[name as SandboxPackageName]);
  const locale = LOCALE.exec(name)?.[1];
  if (locale === undefined) return undefined;
  const { dir, names } = momentLocales();
  return names.has(locale) ? path.join(dir, `${locale}.js`) : undefined;
}

/**
 * The wrapped source of a package ("lodash", "moment", "moment-timezone") or of one of moment's
 * locales ("moment/locale/de"); undefined for any other name. Read once per process.
 */
export function packageSource(name: string): string | undefined {
  const cached = sources.get(name);
  if (cached !== undefined) return cached;
  const file = fileOf(name);
  if (file === undefined) return undefined;
  const source = `(function (module, exports, require, global, console) {\n${readFileSync(file, "utf8")}\n})`;
  sources.set(name, source);
  return source;
}

/** The installed version of a package (for its help and its tests). */
export function packageVersion(name: SandboxPackageName): string {
  return (JSON.parse(readFileSync(resolve(`${name}/package.json`), "utf8")) as { version: string }).version;
}
