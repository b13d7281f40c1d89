/**
 * What the editor writes on an unnamed node, as Node-RED's editor does (each core node's `label`
 * function in its .html, ported to our configurations): `[get] /hello` for an http in, `delay 5s`,
 * `set msg.payload`, `sensors/+/temp` for an mqtt in, `timestamp ↻` for a repeating inject. A named
 * node shows its name. Shared by the browser (canvas, Find, Node tab) and the server; pure functions
 * of the stored configuration, so a label follows every edit at once. A type without an entry here
 * shows its type, as before.
 */

type Config = Record<string, unknown>;
type Label = (config: Config) => string;

const str = (v: unknown) => (typeof v === "string" ? v : v === undefined || v === null ? "" : String(v));
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** RED.utils.parseContextKey(key).key: `#:(store)::a.b` → `a.b`. */
const contextKey = (key: string) => key.replace(/^#:\([^)]*\)::/, "");

/** A period in ms as Node-RED's editor wrote it when the user chose the unit: the largest whole unit. */
function period(ms: number, units: Array<[number, string]> = [[86_400_000, "d"], [3_600_000, "h"], [60_000, "m"], [1000, "s"]]): { value: number; unit: string } {
  for (const [size, unit] of units) if (ms >= size && ms % size === 0) return { value: ms / size, unit };
  return { value: ms, unit: "ms" };
}

const INJECT_TYPE_LABELS: Record<string, string> = { date: "timestamp", bin: "buffer", env: "env variable" };

/** Node-RED's inject suffix (named or not): ¹ once at start, ↻ repeating (a tab before it there). */
function injectSuffix(c: Config): string {
  if ((c.repeat_seconds !== null && c.repeat_seconds !== undefined && c.repeat_seconds !== 0) || c.cron) return " ↻";
  return c.once ? " ¹" : "";
}

function injectLabel(c: Config): string {
  const suffix = injectSuffix(c);
  let payload = "";
  let payloadType = "str";
  let topic = "";
  for (const p of arr(c.props) as Array<{ p?: unknown; v?: unknown; v_type?: unknown }>) {
    if (p.p === "payload") {
      payload = str(p.v);
      payloadType = str(p.v_type) || "str";
    } else if (p.p === "topic" && (str(p.v_type) || "str") === "str") topic = str(p.v);
  }
  if (["str", "num", "bool", "json"].includes(payloadType)) {
    if (topic !== "" && topic.length + payload.length <= 32) return `${topic}:${payload}${suffix}`;
    if (payload.length > 0 && payload.length < 24) return payload + suffix;
    return `inject${suffix}`;
  }
  if (Object.hasOwn(INJECT_TYPE_LABELS, payloadType)) {
    const label = INJECT_TYPE_LABELS[payloadType]!;
    return (topic !== "" && topic.length <= 16 ? `${topic}:${label}` : label) + suffix;
  }
  if (payloadType === "flow" || payloadType === "global") return `${payloadType}.${contextKey(payload)}${suffix}`;
  return `inject${suffix}`;
}

/** Node-RED's debug suffix (named or not): ⇲ when it also writes to the console. */
const debugSuffix = (c: Config) => (c.to_console ? " ⇲" : "");

function debugLabel(c: Config): string {
  const suffix = debugSuffix(c);
  if (c.property_type === "jsonata") return `JSONata${suffix}`;
  const property = str(c.property) || "payload";
  return (property === "msg" ? "msg" : `msg.${property}`) + suffix;
}

const CHANGE_VERBS: Record<string, string> = { set: "set", change: "change", move: "move", delete: "delete" };

function changeLabel(c: Config): string {
  const rules = arr(c.rules) as Array<{ t?: unknown; p?: unknown; p_type?: unknown }>;
  if (rules.length === 1) {
    const r = rules[0]!;
    return `${Object.hasOwn(CHANGE_VERBS, str(r.t)) ? CHANGE_VERBS[str(r.t)] : "delete"} ${str(r.p_type) || "msg"}.${contextKey(str(r.p))}`;
  }
  return `change: ${rules.length} rules`;
}

function delayLabel(c: Config): string {
  switch (c.mode) {
    case "variable":
      return "variable";
    case "random":
      return "random";
    case "delay": {
      const { value, unit } = period(Number(c.delay_ms ?? 5000));
      return `delay ${value}${unit}`;
    }
    default: {
      const { value, unit } = period(Number(c.rate_period_ms ?? 1000));
      const rate = `${str(c.rate ?? 1)} msg/${value > 1 ? value : ""}${unit === "ms" ? "ms" : unit}`;
      return c.mode === "rate" ? `limit ${rate}` : `limit topic ${rate}`;
    }
  }
}

function triggerLabel(c: Config): string {
  const duration = Number(c.duration ?? 250);
  const units = str(c.units) || "ms";
  if (duration > 0) return `trigger ${duration}${units}`;
  if (duration < 0) return `resend every ${-duration}${units}`;
  return "trigger & block";
}

function fileName(c: Config): string {
  const type = str(c.filename_type) || "str";
  if (type === "env") return `env.${str(c.filename)}`;
  return type === "str" ? str(c.filename) : "";
}

const scoped = (prefix: string, c: Config, all: string) => {
  if (c.scope === "group") return `${prefix}: group`;
  if (Array.isArray(c.scope)) return `${prefix}: ${c.scope.length}`;
  return all;
};

export const NODE_LABELS: Record<string, Label> = {
  inject: injectLabel,
  debug: debugLabel,
  change: changeLabel,
  delay: delayLabel,
  trigger: triggerLabel,
  range: (c) => (c.min_out !== "" && c.min_out !== undefined && c.max_out !== "" && c.max_out !== undefined ? `${str(c.min_out)} - ${str(c.max_out)}` : "range"),
  "http-in": (c) => (str(c.path) ? `[${str(c.method) || "get"}] ${str(c.path).startsWith("/") ? str(c.path) : `/${str(c.path)}`}` : "http"),
  "http-response": (c) => `http${c.status_code ? ` (${str(c.status_code)})` : ""}`,
  "http-request": () => "http request",
  // A dynamic subscription (an input) has no topic of its own: Node-RED clears it.
  "mqtt-in": (c) => (c.inputs === 1 ? "mqtt" : str(c.topic) || "mqtt"),
  "mqtt-out": (c) => str(c.topic) || "mqtt",
  "link-in": () => "link in",
  "link-out": (c) => (c.mode === "return" ? "link return" : "link out"),
  "link-call": (c) => (c.link_type === "dynamic" ? "Dynamic" : arr(c.links).length > 0 ? "link call" : "none"),
  catch: (c) => scoped("catch", c, c.uncaught ? "catch: uncaught" : "catch: all"),
  status: (c) => scoped("status", c, "status: all"),
  complete: (c) => `complete: ${arr(c.scope).length}`,
  file: (c) => (c.overwrite_file === "delete" ? `delete ${fileName(c)}` : fileName(c) || "write file"),
  "file-in": (c) => fileName(c) || "read file",
  "project-link-in": (c) => str(c.topic) || "link in",
  "project-link-out": (c) => (c.mode === "return" ? "link return" : str(c.topic) || "link out"),
  "project-link-call": (c) => str(c.topic) || "link call",
  hourglass: () => "Hourglass",
  // 31-tcpin.html and 32-udp.html: the address they use.
  "tcp-in": (c) => `tcp:${str(c.host) ? `${str(c.host)}:` : ""}${str(c.port)}`,
  "tcp-out": (c) => `tcp:${str(c.host) ? `${str(c.host)}:` : ""}${str(c.port)}`,
  "tcp-request": (c) => `tcp:${str(c.server) ? `${str(c.server)}:` : ""}${str(c.port)}`,
  "udp-out": (c) => `udp ${str(c.addr)}:${str(c.port)}`,
  // node-red-contrib-influxdb: its server's label and the measurement there (a label sees only the node's own configuration here).
  "influxdb-out": (c) => (str(c.measurement) ? `influxdb ${str(c.measurement)}` : "influxdb"),
  "influxdb-batch": () => "influxdb batch",
  "influxdb-in": () => "influxdb",
  // node-red-node-ping: its target, unless that is a list.
  ping: (c) => (str(c.host) && !str(c.host).includes(",") ? str(c.host) : "ping"),
};

/** Dashboard 2.0's labels (nodes/widgets/*.html): the widget's label, unless it is a {{template}}, else a word for the type. */
const widgetLabel = (fallback: (c: Config) => string, template = true): Label => (c) => {
  const label = str(c.label);
  return (label && !(template && label.includes("{{")) ? label : "") || fallback(c);
};
const TEMPLATE_SCOPE_LABELS: Record<string, string> = { "site:style": "site style", "page:style": "page style" };
Object.assign(NODE_LABELS, {
  "ui-button": widgetLabel(() => "button"),
  "ui-button-group": widgetLabel(() => "button group"),
  "ui-chart": widgetLabel(() => "chart"),
  "ui-dropdown": widgetLabel(() => "dropdown"),
  "ui-number-input": widgetLabel(() => "number input"),
  "ui-radio-group": widgetLabel(() => "radio group"),
  "ui-slider": widgetLabel(() => "slider"),
  "ui-switch": widgetLabel(() => "switch"),
  "ui-text": widgetLabel(() => "text"),
  "ui-text-input": widgetLabel((c) => `${str(c.mode) || "text"} input`),
  "ui-file-input": widgetLabel(() => "file input", false),
  "ui-form": widgetLabel(() => "form", false),
  "ui-progress": widgetLabel(() => "progress", false),
  "ui-table": widgetLabel(() => "table", false),
  "ui-gauge": (c: Config) => str(c.title) || str(c.gtype) || "gauge-half",
  "ui-control": () => "ui control",
  "ui-event": () => "ui-event",
  "ui-markdown": () => "markdown",
  "ui-notification": () => "show notification",
  "ui-template": (c: Config) => (Object.hasOwn(TEMPLATE_SCOPE_LABELS, str(c.templateScope)) ? TEMPLATE_SCOPE_LABELS[str(c.templateScope)]! : "template"),
} satisfies Record<string, Label>);

/** What Node-RED adds to a node's label, its name too: inject's ¹ / ↻ and debug's ⇲. */
const NAMED_SUFFIXES: Record<string, Label> = { inject: injectSuffix, debug: debugSuffix };

/**
 * The label of a node on the canvas: its name, else what its type makes of its configuration, else
 * its type. Differences from Node-RED, where it needs more than the node: a static link call shows
 * "link call", not its target's name; delays and rates are stored in milliseconds, so their unit
 * is the largest whole one (Node-RED shows the unit the user chose: 60 seconds there is 1m here).
 */
export function nodeLabel(node: { type: string; name?: string | null; config?: Config | null }): string {
  const config = node.config ?? {};
  try {
    if (node.name) return node.name + (Object.hasOwn(NAMED_SUFFIXES, node.type) ? NAMED_SUFFIXES[node.type]!(config) : "");
    const label = Object.hasOwn(NODE_LABELS, node.type) ? NODE_LABELS[node.type] : undefined;
    return label?.(config) || node.type;
  } catch {
    return node.name || node.type;
  }
}

/**
 * What an unnamed configuration node is called in pickers and lists, as Node-RED's editor labels
 * it (each type's `label` in its .html): an MQTT broker by its address, a database by its name.
 * A type without an entry, or an entry with nothing to say, is called by its type and id.
 */
export const CONFIG_NODE_LABELS: Record<string, Label> = {
  // 10-mqtt.html: [clientid@]broker[:port] (no port after a URL).
  "mqtt-broker": (c) => {
    const broker = str(c.broker);
    if (broker === "built-in") return "built-in broker";
    const b = broker || "undefined";
    const lab = (str(c.clientid) ? `${str(c.clientid)}@` : "") + b;
    return b.includes("://") ? lab : `${lab}:${str(c.port) || "1883"}`;
  },
  "tls-config": () => "TLS configuration",
  "http-proxy": (c) => str(c.url),
  "websocket-listener": (c) => str(c.path),
  "websocket-client": (c) => str(c.path),
  sqlitedb: (c) => str(c.db),
  "mysql-database": (c) => str(c.db),
  // node-red-contrib-postgresql: [user@]host:port/database (the user is a credential here, not shown).
  "postgresql-config": (c) => `${str(c.host)}:${str(c.port)}/${str(c.database)}`,
  // node-red-contrib-influxdb: the version, then the URL or host:port/database.
  influxdb: (c) => {
    const version = str(c.influxdbVersion) || "1.x";
    return version === "1.8-flux" || version === "2.0" ? `[v${version}] ${str(c.url)}` : `[v${version}] ${str(c.hostname)}:${str(c.port)}/${str(c.database)}`;
  },
};

/** A configuration node's label: its name, else its type's label of its configuration, else its type and id. */
export function configNodeLabelOf(node: { id: string; type: string; name: string; config?: Config | null }): string {
  const name = node.name.trim();
  if (name) return name;
  try {
    const label = Object.hasOwn(CONFIG_NODE_LABELS, node.type) ? CONFIG_NODE_LABELS[node.type]!(node.config ?? {}) : "";
    if (label.trim()) return label;
  } catch {
    // The type's and id's fallback below.
  }
  return `${node.type} ${node.id}`;
}
