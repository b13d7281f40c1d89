/**
 * Dashboard 1 (`node-red-dashboard`, `ui_*` nodes) imported as Dashboard 2.0 (SPEC §21): a pure
 * pass over a flows.json before the import maps it. Each `ui_*` item becomes its 2.0 equivalent
 * (DASHBOARD1_TYPE_MAP) with its properties carried (widths, heights, orders, labels, topics …),
 * `ui_tab` → `ui-page` (a path from its name), `ui_group` → `ui-group` (its tab → page), `ui_base`
 * → `ui-base` (+ a `ui-theme` from its base color); a file with tabs but no `ui_base` gets one.
 * What changed is said per node (the import report) and once per type (a warning line).
 * Also: page paths stay unique in the organization (a clash gets a suffix and a warning).
 */
import { DASHBOARD1_TYPE_MAP } from "../../../shared/dashboard";
import { angularToVue } from "./angular-template";
import type { ImportReportEntry, NrNode, OrganizationConfigNodes, PlannedConfigNode } from "./node-red-mapping";

/** The ui-base made for Dashboard 1 files that do not carry theirs (Dashboard 1 keeps one per Node-RED). */
export const DASHBOARD1_BASE_ID = "dashboard1-base";

const num = (v: unknown, d: number) => {
  const n = typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : NaN;
  return Number.isFinite(n) ? n : d;
};
const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, Math.round(v)));
const str = (v: unknown, d = "") => (typeof v === "string" ? v : v === undefined || v === null ? d : String(v));
const bool = (v: unknown, d: boolean) => (v === true || v === "true" ? true : v === false || v === "false" ? false : d);

/**
 * Dashboard 1's gauge value format as a gauge's own properties: `{{value}}` with text around it
 * (prefix, suffix) and Angular's number filter (`{{value | number:2}}`: decimals); `{{msg.payload}}`
 * is the same value. Null for anything
 * else: other filters, expressions, markup, and another message property (`{{msg.amps}}`), which
 * Dashboard 1 showed as the text while its needle stayed on the payload; a gauge here shows one value.
 */
export function gaugeFormat(format: string): { prefix?: string; suffix?: string; decimals?: number; value?: string } | null {
  const m = /^([^{}<>]{0,100})\{\{\s*([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*|\[\d+\])*)\s*(\|\s*number\s*(?::\s*(\d{1,2})\s*)?)?\}\}([^{}<>]{0,100})$/.exec(format.trim() === "" ? "{{value}}" : format);
  if (!m) return null;
  const [, prefix, expression, filter, digits, suffix] = m;
  // Dashboard 1's needle (ui_gauge.js `convert`): the format without braces and spaces, up to a
  // `|`, read as a message property; the payload when the message has none. So `{{msg.amps}}` and
  // `{{payload.ch4 | number:1}} ppm` move the needle by that property (`{{msg.payload}}` and
  // `{{value}}` by the payload), while text glued to another property (`T {{payload.t}}`,
  // `{{payload.t}} °C`) names a property no message has: not one value, reported.
  const path = expression!.startsWith("msg.") ? expression!.slice(4) : expression!;
  // `{{msg}}` reads msg.msg in Dashboard 1, which no message has: the payload then.
  const isPayload = path === "payload" || expression === "value" || expression === "msg";
  if (!isPayload && (prefix!.trim() !== "" || (!filter && suffix!.trim() !== ""))) return null;
  return {
    ...(prefix ? { prefix } : {}),
    ...(suffix ? { suffix } : {}),
    // Angular's number filter without a size: 3 decimals at most in its default locale; shown here with 3.
    ...(filter ? { decimals: Math.min(10, digits === undefined ? 3 : Number(digits)) } : {}),
    ...(isPayload ? {} : { value: path }),
  };
}

function slugOf(name: string): string {
  const s = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 60);
  return s || "page";
}

const ANGULAR = /\bng-[a-z-]+|\{\{[^}]*\}\}/;

/** Common widget properties: the group, order and size (Dashboard 1 sizes are grid units; "0" is auto). */
function placed(n: NrNode) {
  return {
    group: str(n.group),
    order: clamp(num(n.order, 0), 0, 1_000_000),
    width: clamp(num(n.width, 0), 0, 12),
    height: clamp(num(n.height, 0), 0, 64),
  };
}

interface Translation {
  props: Record<string, unknown>;
  notes: string[];
}

const CHART_TYPES: Record<string, string> = { line: "line", bar: "bar", horizontalBar: "bar", pie: "pie", "polar-area": "pie", radar: "line" };
const GAUGE_TYPES: Record<string, string> = { gage: "gauge-half", donut: "gauge-34", compass: "gauge-half", wave: "gauge-tank" };

function widget(n: NrNode, d1: string, base: string): Translation {
  const p = placed(n);
  const label = str(n.label);
  const topic = { topic: str(n.topic, ""), topicType: ["msg", "str", "flow", "global", "env"].includes(str(n.topicType)) ? str(n.topicType) : "str" };
  const notes: string[] = [];
  switch (d1) {
    case "ui_button":
      // Dashboard 1's button calls its "If msg arrives on input, emulate a button click" passthru: Dashboard 2.0's emulateClick.
      return { props: { ...p, label, tooltip: str(n.tooltip), color: str(n.color), bgcolor: str(n.bgcolor), icon: str(n.icon), payload: str(n.payload), payloadType: str(n.payloadType, "str"), emulateClick: bool(n.passthru, false), ...topic }, notes };
    case "ui_text":
      return { props: { ...p, label, format: str(n.format, "{{msg.payload}}"), layout: str(n.layout, "row-spread") }, notes };
    case "ui_text_input":
    case "ui_colour_picker":
    case "ui_date_picker": {
      const mode = d1 === "ui_colour_picker" ? "color" : d1 === "ui_date_picker" ? "date" : str(n.mode, "text");
      if (d1 !== "ui_text_input") notes.push(`a ${mode} field of ui-text-input`);
      const delay = num(n.delay, 300);
      return { props: { ...p, label, tooltip: str(n.tooltip), mode, delay: clamp(delay, 0, 60_000), sendOnDelay: delay > 0, passthru: bool(n.passthru, true), ...topic }, notes };
    }
    case "ui_numeric": {
      // Its value format: the text around {{value}} is kept around the field (a unit); anything else is said.
      const format = gaugeFormat(str(n.format, "{{value}}"));
      const around = format && format.decimals === undefined && format.value === undefined ? { ...(format.prefix ? { prefix: format.prefix.trim() } : {}), ...(format.suffix ? { suffix: format.suffix.trim() } : {}) } : null;
      if (!around) notes.push("its value format (format) is not carried");
      return { props: { ...p, label, min: num(n.min, 0), max: num(n.max, 10), step: num(n.step, 1) || 1, passthru: bool(n.passthru, true), ...topic, ...around }, notes };
    }
    case "ui_switch":
      return {
        props: {
          ...p,
          label,
          passthru: bool(n.passthru, true),
          decouple: bool(n.decouple, false),
          onvalue: n.onvalue ?? true,
          onvalueType: str(n.onvalueType, "bool"),
          offvalue: n.offvalue ?? false,
          offvalueType: str(n.offvalueType, "bool"),
          onicon: str(n.onicon),
          officon: str(n.officon),
          oncolor: str(n.oncolor),
          offcolor: str(n.offcolor),
          ...topic,
        },
        notes,
      };
    case "ui_slider":
      return { props: { ...p, label, tooltip: str(n.tooltip), min: num(n.min, 0), max: num(n.max, 10), step: num(n.step, 1) || 1, outs: str(n.outs) === "end" ? "end" : "all", passthru: bool(n.passthru, true), ...topic }, notes };
    case "ui_dropdown": {
      const options = Array.isArray(n.options) ? (n.options as Array<Record<string, unknown>>).map((o) => ({ label: str(o.label), value: o.value ?? "", type: str(o.type, "str") })) : [];
      return { props: { ...p, label, tooltip: str(n.tooltip), options, payload: str(n.payload), multiple: bool(n.multiple, false), passthru: bool(n.passthru, true), ...topic }, notes };
    }
    case "ui_form": {
      const options = Array.isArray(n.options)
        ? (n.options as Array<Record<string, unknown>>).map((o) => ({ key: str(o.value) || slugOf(str(o.label)), label: str(o.label), type: str(o.type, "text"), required: bool(o.required, false), ...(o.rows ? { rows: clamp(num(o.rows, 3), 1, 100) } : {}) }))
        : [];
      return { props: { ...p, label, options, formValue: typeof n.formValue === "object" && n.formValue ? n.formValue : {}, submit: str(n.submit, "submit"), cancel: str(n.cancel, "cancel"), splitLayout: bool(n.splitLayout, false) || "", ...topic }, notes };
    }
    case "ui_audio":
      // Dashboard 1 speaks a string and plays a Buffer, on every page; 2.0's speech mode speaks.
      notes.push("imported as text to speech: a Buffer payload (a sound) is not played (Dashboard 2.0's player takes a URL)");
      return { props: { mode: "tts", group: "", ui: base, voice: str(n.voice), passthru: false }, notes };
    case "ui_toast": {
      const displayTime = num(n.displayTime, 3);
      return {
        props: {
          ui: base,
          position: ["top right", "top left", "bottom right", "bottom left"].includes(str(n.position)) ? str(n.position) : "center center",
          displayTime: String(displayTime),
          colorDefault: !n.highlight,
          color: n.highlight ? str(n.highlight) : null,
          allowConfirm: Boolean(n.ok) && str(n.position) === "dialog",
          confirmText: str(n.ok, "Confirm") || "Confirm",
          dismissText: str(n.cancel, "Close") || "Close",
          raw: bool(n.raw, false),
        },
        notes,
      };
    }
    case "ui_chart": {
      const t = str(n.chartType, "line");
      const chartType = CHART_TYPES[t] ?? "line";
      if (chartType !== t) notes.push(`its ${t} chart is drawn as ${chartType}`);
      notes.push("points as Dashboard 2.0 takes them (a number or {x, y} per message, series by msg.topic); Dashboard 1's whole-chart arrays [{series, data, labels}] replace the chart, as there");
      const removeOlderPoints = num(n.removeOlderPoints, 0);
      return {
        props: {
          ...p,
          label,
          chartType,
          xAxisType: chartType === "pie" ? "category" : "time",
          // Dashboard 1 plots msg.payload (Dashboard 2.0 reads a chart without a y type as a key of each point).
          yAxisProperty: "payload",
          yAxisPropertyType: "msg",
          ymin: n.ymin === "" || n.ymin === undefined ? "" : num(n.ymin, 0),
          ymax: n.ymax === "" || n.ymax === undefined ? "" : num(n.ymax, 0),
          removeOlder: num(n.removeOlder, 1),
          removeOlderUnit: ["1", "60", "3600", "86400", "604800"].includes(str(n.removeOlderUnit)) ? str(n.removeOlderUnit) : "3600",
          removeOlderPoints: removeOlderPoints > 0 ? removeOlderPoints : "",
          showLegend: bool(n.legend, true),
          ...(Array.isArray(n.colors) ? { colors: (n.colors as unknown[]).map((c) => str(c)).filter(Boolean) } : {}),
        },
        notes,
      };
    }
    case "ui_gauge": {
      const gtype = GAUGE_TYPES[str(n.gtype, "gage")] ?? "gauge-half";
      const min = num(n.min, 0);
      const colors = Array.isArray(n.colors) ? (n.colors as unknown[]).map((c) => str(c)) : ["#00b500", "#e6e600", "#ca3838"];
      const segments = [
        { from: min, color: colors[0] || "#00b500" },
        ...(n.seg1 !== "" && n.seg1 !== undefined ? [{ from: num(n.seg1, min), color: colors[1] || "#e6e600" }] : []),
        ...(n.seg2 !== "" && n.seg2 !== undefined ? [{ from: num(n.seg2, min), color: colors[2] || "#ca3838" }] : []),
      ];
      const format = gaugeFormat(str(n.format, "{{value}}"));
      if (!format) notes.push("its value format (format) is not carried");
      return { props: { ...p, width: p.width || 3, height: p.height || 3, gtype, title: str(n.title), units: str(n.label), min, max: num(n.max, 10), segments, ...format }, notes };
    }
    case "ui_table": {
      const columns = Array.isArray(n.columns) && n.columns.length > 0 ? (n.columns as Array<Record<string, unknown>>).map((c) => ({ key: str(c.field), label: str(c.title), type: "text", ...(c.align ? { align: str(c.align) } : {}) })) : null;
      return { props: { ...p, label, columns, autocols: columns === null }, notes };
    }
    case "ui_template": {
      const angular = angularToVue(str(n.format));
      const format = angular.format;
      const scope = str(n.templateScope, "local");
      if (angular.rewritten.length > 0) notes.push(`its Angular directives are rewritten as Vue's (${angular.rewritten.join(", ")}); {{…}} bindings run as Vue expressions`);
      if (angular.kept.length > 0) notes.push(`Angular markup kept in its format is not run: ${angular.kept.map((k) => (k.length > 60 ? `${k.slice(0, 57)}…` : k)).join(", ")}`);
      else if (angular.rewritten.length === 0 && ANGULAR.test(format)) notes.push("its {{…}} bindings run as Vue expressions");
      if (scope === "global") notes.push("a global (head) template becomes a widget on every page of the dashboard");
      return {
        props: { ...(scope === "global" ? { ui: base, group: "" } : p), format, templateScope: scope === "global" ? "widget:ui" : "local", storeOutMessages: bool(n.storeOutMessages, true), passthru: bool(n.fwdInMessages, true), resendOnRefresh: bool(n.resendOnRefresh, true) },
        notes,
      };
    }
    case "ui_ui_control":
      notes.push("its messages follow Dashboard 2.0's ui-control (payload.page, payload.groups {show, hide})");
      return { props: { ui: base, events: ["all", "connect", "change"].includes(str(n.events)) ? str(n.events) : "all" }, notes };
    case "ui_link": {
      // Dashboard 1 opens a link in a new tab, in an iframe inside the dashboard, or in place; 2.0 in place.
      const target = str(n.target, "newtab");
      if (target === "iframe") notes.push("a link shown in a frame inside Dashboard 1 opens in place");
      else if (target === "newtab") notes.push("a link opened in a new tab by Dashboard 1 opens in place (ctrl-click still opens a tab)");
      return { props: { ui: base, path: str(n.link), icon: str(n.icon) || "open_in_browser", order: clamp(num(n.order, 0), -1, 1_000_000) }, notes };
    }
    case "ui_led": {
      // node-red-contrib-ui-led: its colorForValue rows are ui-led's states; it had no border.
      const rows = Array.isArray(n.colorForValue) ? (n.colorForValue as Array<Record<string, unknown>>) : [];
      const states = rows
        .filter((r) => r && typeof r === "object")
        .slice(0, 100)
        .map((r) => ({ color: str(r.color, "gray").slice(0, 64), value: r.value ?? "", valueType: ["str", "num", "bool", "json", "bin"].includes(str(r.valueType)) ? str(r.valueType) : "str" }));
      return {
        props: {
          ...p,
          label,
          labelPlacement: str(n.labelPlacement) === "right" ? "right" : "left",
          labelAlignment: ["center", "right"].includes(str(n.labelAlignment)) ? str(n.labelAlignment) : "left",
          states,
          allowColorForValueInMessage: bool(n.allowColorForValueInMessage, false),
          shape: str(n.shape) === "square" ? "square" : "circle",
          showGlow: bool(n.showGlow, true),
          showBorder: false,
        },
        notes: ["it becomes FlowFuse's Dashboard 2.0 LED (ui-led), without the border Dashboard 2.0's adds"],
      };
    }
    case "ui_multistate_switch": {
      // node-red-contrib-ui-multistate-switch: its options are the button group's (label, typed value, colour).
      const options = (Array.isArray(n.options) ? (n.options as Array<Record<string, unknown>>) : [])
        .filter((o) => o && typeof o === "object")
        .slice(0, 100)
        .map((o) => ({ label: str(o.label).slice(0, 1000), icon: "", value: o.value ?? "", valueType: ["str", "num", "bool", "json"].includes(str(o.valueType)) ? str(o.valueType) : "str", color: str(o.color).slice(0, 64) }));
      const stateField = str(n.stateField, "payload") || "payload";
      if (stateField !== "payload") notes.push(`its state field (msg.${stateField}) becomes msg.payload, in and out`);
      if (str(n.enableField)) notes.push("it is enabled and disabled by msg.enabled (Dashboard 2.0's), not by its enable field");
      if (bool(n.hideSelectedLabel, false)) notes.push("the chosen option's label stays shown");
      notes.push("an input chooses the option whose typed value equals it (the text \"1\" no longer chooses the number 1)");
      return {
        props: { ...p, width: p.width || 6, height: p.height || 1, label, options, rounded: bool(n.rounded, false), useThemeColors: bool(n.useThemeColors, false), passthru: false, topic: "", topicType: "str" },
        notes,
      };
    }
    case "ui_spacer":
      return { props: { group: p.group, order: p.order, width: p.width || 1, height: p.height || 1, className: str(n.className) }, notes };
    default:
      return { props: { ...p }, notes };
  }
}

export interface Dashboard1Result {
  items: NrNode[];
  /** Node-RED id → what the report says of it (its Dashboard 1 type and the changes). */
  notes: Map<string, { type: string; note: string }>;
  /** One line per Dashboard 1 type found. */
  warnings: string[];
}

/** Translates the Dashboard 1 items of a flows.json; a file without any is returned as it is. */
export function translateDashboard1(items: NrNode[]): Dashboard1Result {
  const notes = new Map<string, { type: string; note: string }>();
  if (!items.some((n) => typeof n.type === "string" && n.type.startsWith("ui_") && DASHBOARD1_TYPE_MAP[n.type])) return { items, notes, warnings: [] };
  const baseItem = items.find((n) => n.type === "ui_base");
  const baseId = baseItem ? str(baseItem.id) : DASHBOARD1_BASE_ID;
  const themeId = `${baseId}-theme`;
  const out: NrNode[] = [];
  const counts = new Map<string, { to: string; n: number; notes: Set<string> }>();
  const count = (from: string, to: string, extra: string[]) => {
    const c = counts.get(from) ?? { to, n: 0, notes: new Set<string>() };
    c.n++;
    for (const e of extra) c.notes.add(e);
    counts.set(from, c);
  };
  const hasTabs = items.some((n) => n.type === "ui_tab");
  const usedPaths = new Set<string>();
  let themeColor = "#0094CE";
  if (baseItem) {
    const theme = baseItem.theme as { lightTheme?: { baseColor?: string }; name?: string } | undefined;
    if (theme?.lightTheme?.baseColor) themeColor = theme.lightTheme.baseColor;
  }
  const baseName = baseItem ? str((baseItem.site as { name?: string } | undefined)?.name, "Node-RED Dashboard") : "Node-RED Dashboard";
  if (baseItem || hasTabs) {
    out.push({ id: baseId, type: "ui-base", name: baseName, path: "/dashboard" });
    out.push({ id: themeId, type: "ui-theme", name: `${baseName} theme`, colors: { surface: themeColor, primary: themeColor, bgPage: "#eeeeee", groupBg: "#ffffff", groupOutline: "#cccccc" } });
    if (baseItem) {
      notes.set(str(baseItem.id), { type: "ui_base", note: "Dashboard 1's ui_base imported as ui-base, its base color as a ui-theme; its site settings (sizes, date format) are not carried" });
      count("ui_base", "ui-base", ["its base color becomes a ui-theme"]);
    }
  }
  for (const n of items) {
    const d1 = typeof n.type === "string" ? n.type : "";
    const to = d1.startsWith("ui_") ? DASHBOARD1_TYPE_MAP[d1] : undefined;
    if (!to) {
      out.push(n);
      continue;
    }
    if (d1 === "ui_base") continue;
    const id = str(n.id);
    const keep = { id: n.id, name: typeof n.name === "string" ? n.name : "", ...(n.z !== undefined ? { z: n.z } : {}), ...(n.x !== undefined ? { x: n.x, y: n.y } : {}), ...(Array.isArray(n.wires) ? { wires: n.wires } : {}), ...(n.d !== undefined ? { d: n.d } : {}), ...(typeof n.info === "string" ? { info: n.info } : {}), ...(typeof n.l === "boolean" ? { l: n.l } : {}), ...(Array.isArray(n.outputLabels) ? { outputLabels: n.outputLabels } : {}), ...(Array.isArray(n.inputLabels) ? { inputLabels: n.inputLabels } : {}) };
    if (d1 === "ui_tab") {
      let path = `/${slugOf(str(n.name, "page"))}`;
      for (let i = 2; usedPaths.has(path); i++) path = `/${slugOf(str(n.name, "page"))}-${i}`;
      usedPaths.add(path);
      out.push({ ...keep, type: "ui-page", ui: baseId, path, icon: str(n.icon, "home"), layout: "grid", theme: themeId, order: clamp(num(n.order, 0), -1, 1_000_000), visible: !bool(n.hidden, false), disabled: bool(n.disabled, false) });
      notes.set(id, { type: d1, note: `Dashboard 1's ui_tab imported as ui-page at ${path}` });
      count(d1, to, ["a path made from its name"]);
      continue;
    }
    if (d1 === "ui_group") {
      // Dashboard 1 offers collapsing only with the title shown (its button is in the title).
      const showTitle = bool(n.disp, true);
      out.push({ ...keep, type: "ui-group", page: str(n.tab), width: clamp(num(n.width, 6), 1, 12), height: 1, order: clamp(num(n.order, 0), -1, 1_000_000), showTitle, collapse: showTitle && bool(n.collapse, false), ...(str(n.className) ? { className: str(n.className).slice(0, 500) } : {}) });
      notes.set(id, { type: d1, note: "Dashboard 1's ui_group imported as ui-group (its tab is its page)" });
      count(d1, to, []);
      continue;
    }
    const t = widget(n, d1, baseId);
    // Dashboard 1's spacers and links are configuration nodes in 2.0 as well (no position, no wires).
    const { x: _x, y: _y, wires: _w, ...unplaced } = keep as Record<string, unknown>;
    out.push({ ...(to === "ui-spacer" || to === "ui-link" ? unplaced : keep), type: to, ...t.props } as NrNode);
    notes.set(id, { type: d1, note: [`Dashboard 1's ${d1} imported as ${to}`, ...t.notes].join("; ") });
    count(d1, to, t.notes);
  }
  const warnings = [...counts].map(([from, c]) => `Dashboard 1: ${c.n} ${from} node${c.n > 1 ? "s" : ""} imported as ${c.to}${c.notes.size > 0 ? ` (${[...c.notes].join("; ")})` : ""}`);
  return { items: out, notes, warnings };
}

/** Report entries of translated nodes name their Dashboard 1 type and what changed. */
export function annotateReport(report: ImportReportEntry[], notes: Dashboard1Result["notes"]) {
  for (const entry of report) {
    const note = notes.get(entry.node_id);
    if (!note) continue;
    entry.type = note.type;
    if (entry.support === "supported") entry.support = "partial";
    entry.reason = entry.reason ? `${note.note}; ${entry.reason}` : note.note;
  }
}

/**
 * Page paths are unique in an organization (SPEC §21): an imported ui-page whose path another page
 * has (the organization's, or one earlier in the file) gets a suffix (`/home-2`), and a warning.
 */
export function uniquePagePaths(planned: PlannedConfigNode[], organization: OrganizationConfigNodes | undefined, warnings: string[]) {
  const taken = new Map<string, string>();
  for (const [id, c] of organization?.existing ?? []) if (c.type === "ui-page" && typeof c.config.path === "string") taken.set(c.config.path, id);
  for (const p of planned) {
    if (p.type !== "ui-page" || typeof p.config.path !== "string") continue;
    const path = p.config.path;
    const owner = taken.get(path);
    if (owner === undefined || owner === p.id) {
      taken.set(path, p.id);
      continue;
    }
    let next = path;
    for (let i = 2; taken.has(next) && taken.get(next) !== p.id; i++) next = `${path === "/" ? "" : path}-${i}`;
    warnings.push(`dashboard page ${p.id} (${p.name || path}): the path ${path} is taken in this organization; imported as ${next}`);
    p.config = { ...p.config, path: next };
    taken.set(next, p.id);
  }
}
