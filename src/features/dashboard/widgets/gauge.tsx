"use client";

import { substitute } from "../format";
import { bool, num, str, type WidgetProps } from "./widget";

interface Segment {
  from: number;
  color: string;
  text?: string;
  textType?: string;
}

function segments(raw: unknown): Segment[] {
  const list = Array.isArray(raw)
    ? raw.flatMap((s): Segment[] => {
        if (!s || typeof s !== "object" || !Number.isFinite(Number((s as Segment).from))) return [];
        const { from, color, text, textType } = s as Segment;
        return [{ from: Number(from), color: String(color ?? "#5cd65c"), ...(typeof text === "string" ? { text } : {}), ...(typeof textType === "string" ? { textType } : {}) }];
      })
    : [];
  return list.length > 0 ? list.sort((a, b) => a.from - b.from) : [{ from: 0, color: "#5cd65c" }];
}

/** The segment a value is in (Dashboard 2.0: the last segment whose `from` it reaches; the first below them all). */
export function segmentOf(value: number, segs: Segment[]): Segment {
  let seg = segs[0]!;
  for (const s of segs) if (value >= s.from) seg = s;
  return seg;
}

export const segmentColor = (value: number, segs: Segment[]): string => segmentOf(value, segs).color;

/** What a tile shows in its segment, as Dashboard 2.0's tile: by the segment's text type, the title by default. */
export function tileText(seg: Segment, title: string, value: string): string {
  if (seg.textType === "none") return "";
  if (seg.textType === "value") return value;
  if (seg.textType === "str" || seg.textType === "env") return seg.text ?? "";
  return title;
}

function arc(cx: number, cy: number, r: number, start: number, end: number): string {
  const p = (a: number) => [cx + r * Math.cos(a), cy + r * Math.sin(a)];
  const [x1, y1] = p(start);
  const [x2, y2] = p(end);
  return `M ${x1} ${y1} A ${r} ${r} 0 ${end - start > Math.PI ? 1 : 0} 1 ${x2} ${y2}`;
}

/** ui-gauge: half or three-quarter dial with coloured segments, tile, battery or tank. */
export function GaugeWidget({ props, state }: WidgetProps) {
  const min = num(props, "min", 0);
  const max = num(props, "max", 10);
  const raw = Number(state.msg?.payload);
  const has = state.msg !== null && Number.isFinite(raw);
  const value = has ? raw : min;
  const ratio = max > min ? Math.min(1, Math.max(0, (value - min) / (max - min))) : 0;
  const segs = segments(props.segments);
  const segment = segmentOf(value, segs);
  const color = segment.color;
  const type = str(props, "gtype", "gauge-half");
  const title = substitute(str(props, "title", str(props, "label")), state.msg);
  // Dashboard 1's `{{value | number:2}}` (an imported gauge's decimals): Angular's number filter, en-US.
  const decimals = typeof props.decimals === "number" ? props.decimals : null;
  const shown = decimals === null ? String(value) : value.toLocaleString("en-US", { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
  const text = `${str(props, "prefix")}${has ? shown : "–"}${str(props, "suffix")}`;
  const units = str(props, "units");
  const aria = { role: "meter", "aria-valuemin": min, "aria-valuemax": max, "aria-valuenow": value, "aria-label": title || "Gauge", "aria-valuetext": `${text}${units ? ` ${units}` : ""}` } as const;

  if (type === "gauge-tile") {
    return (
      <div className="db-gauge-tile" style={{ background: color }} {...aria}>
        {/* Dashboard 2.0's tile: its segment's text; with "always show the title", the title also floats in a corner (floatingTitlePosition). */}
        <strong className="db-gauge-tile-text">{tileText(segment, title, has ? text : "")}</strong>
        {bool(props, "alwaysShowTitle", false) ? <span className={`db-gauge-tile-title ${str(props, "floatingTitlePosition", "top-left")}`}>{title}</span> : null}
      </div>
    );
  }
  if (type === "gauge-battery" || type === "gauge-tank") {
    return (
      <div className={`db-gauge-level ${type}`} {...aria}>
        {title ? <span className="db-gauge-title">{title}</span> : null}
        <div className="db-gauge-vessel">
          <div className="db-gauge-fill" style={{ [type === "gauge-tank" ? "height" : "width"]: `${ratio * 100}%`, background: color }} />
          <span className="db-gauge-text">
            {text} {units}
          </span>
        </div>
      </div>
    );
  }
  // Dials: half (180°) and three-quarter (270°), drawn in a 200×(120|170) box.
  const half = type !== "gauge-34";
  const start = half ? Math.PI : 0.75 * Math.PI;
  const sweep = half ? Math.PI : 1.5 * Math.PI;
  const cx = 100;
  const cy = half ? 100 : 95;
  const r = 80;
  const thickness = num(props, "sizeThickness", 16);
  const at = (v: number) => start + sweep * Math.min(1, Math.max(0, (v - min) / (max - min || 1)));
  return (
    <div className="db-gauge" {...aria}>
      {title ? <span className="db-gauge-title">{title}</span> : null}
      <svg viewBox={`0 0 200 ${half ? 120 : 170}`} aria-hidden="true">
        {segs.map((s, i) => {
          const from = Math.max(min, s.from);
          const to = Math.min(max, segs[i + 1]?.from ?? max);
          return to > from ? <path key={i} d={arc(cx, cy, r + thickness / 2 + 4, at(from), at(to))} stroke={s.color} strokeWidth={4} fill="none" opacity={0.6} /> : null;
        })}
        <path d={arc(cx, cy, r, start, start + sweep)} stroke="var(--db-gauge-track, #ddd)" strokeWidth={thickness} fill="none" />
        {ratio > 0 ? <path d={arc(cx, cy, r, start, at(value))} stroke={color} strokeWidth={thickness} fill="none" /> : null}
        <text x={cx} y={half ? cy - 8 : cy + 8} textAnchor="middle" className="db-gauge-value">
          {text}
        </text>
        {units ? (
          <text x={cx} y={half ? cy + 14 : cy + 30} textAnchor="middle" className="db-gauge-units">
            {units}
          </text>
        ) : null}
      </svg>
    </div>
  );
}
