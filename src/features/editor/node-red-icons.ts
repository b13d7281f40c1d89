import type { CatalogEntry } from "./model";

/** Node-RED's own icon files (`node-red/inject.svg`) → our type drawn with the same meaning. */
const NODE_RED_ICON_TYPES: Record<string, string> = {
  "inject.svg": "inject",
  "debug.svg": "debug",
  "function.svg": "function",
  "switch.svg": "switch",
  "swap.svg": "change",
  "template.svg": "template",
  "timer.svg": "delay",
  "trigger.svg": "trigger",
  "comment.svg": "comment",
  "link-out.svg": "link-out",
  "link-call.svg": "link-call",
  "alert.svg": "catch",
  "status.svg": "status",
  "white-globe.svg": "http-request",
  "bridge.svg": "mqtt-in",
  "bridge-dash.svg": "tcp-request",
  "split.svg": "split",
  "join.svg": "join",
  "sort.svg": "sort",
  "batch.svg": "batch",
  "range.svg": "range",
  "rbe.svg": "filter",
  "rbe.png": "filter",
  "file.svg": "file",
  "file-in.svg": "file-in",
  "file-out.svg": "file",
  "parser-csv.svg": "csv",
  "parser-json.svg": "json",
  "parser-xml.svg": "xml",
  "parser-yaml.svg": "yaml",
  "parser-html.svg": "html",
  "hash.svg": "function",
};

/**
 * The SVG of the type a Node-RED core icon file stands for (`node-red/timer.svg`: the delay node's
 * icon); undefined for any other icon (a Font Awesome one, a contrib module's file).
 */
export function nodeRedIconSvg(catalog: ReadonlyMap<string, CatalogEntry>, icon: string | undefined): string | undefined {
  const file = icon ? /^node-red\/([a-z0-9-]+\.(?:svg|png))$/.exec(icon)?.[1] : undefined;
  const type = file ? NODE_RED_ICON_TYPES[file] : undefined;
  return type ? catalog.get(type)?.icon : undefined;
}
