"use client";

import { useEffect, useRef, useState, type CSSProperties } from "react";
import { vuetifyColor } from "../colors";
import { substitute } from "../format";
import { num, str, type WidgetProps } from "./widget";

/**
 * ui-slider: `outs: "all"` sends while dragging (throttled to one a frame), `"end"` on release;
 * arrow keys move it by `step` and send (keyboard users release at once). `thumbLabel` shows
 * the value ("always" keeps it). Its colours are Dashboard 2.0's (Vuetify's v-slider): `color` the
 * filled part and the thumb, `colorTrack` the rest of the track, `colorThumb` the thumb; Vuetify's
 * colour names or CSS colours.
 */
export function SliderWidget({ props, state, interactive, send, setLocal, inputId }: WidgetProps) {
  const min = num(props, "min", 0);
  const max = num(props, "max", 10);
  const step = num(props, "step", 1);
  const remote = Number(state.msg?.payload);
  const [value, setValue] = useState(Number.isFinite(remote) ? remote : min);
  const [dragging, setDragging] = useState(false);
  const [seen, setSeen] = useState(remote);
  if (remote !== seen && !(Number.isNaN(remote) && Number.isNaN(seen))) {
    setSeen(remote);
    if (!dragging && Number.isFinite(remote)) setValue(remote);
  }
  const pending = useRef<number | null>(null);
  const frame = useRef(0);
  useEffect(() => () => cancelAnimationFrame(frame.current), []);
  const all = str(props, "outs", "all") === "all";
  const emit = (v: number) => {
    setLocal(v);
    send("change", { payload: v });
  };
  const vertical = str(props, "orientation") === "vertical";
  const thumbLabel = str(props, "thumbLabel", "true");
  const fill = vuetifyColor(str(props, "color") || undefined);
  const colours = {
    "--db-slider-fill": fill,
    "--db-slider-track": vuetifyColor(str(props, "colorTrack") || undefined, `color-mix(in srgb, ${fill} 28%, transparent)`),
    "--db-slider-thumb": vuetifyColor(str(props, "colorThumb") || undefined, fill),
    "--db-slider-pct": `${max > min ? (Math.min(max, Math.max(min, value)) - min) / (max - min) * 100 : 0}%`,
  } as CSSProperties;
  return (
    <div className={`db-slider${vertical ? " vertical" : ""}`}>
      <label htmlFor={inputId}>{substitute(str(props, "label"), state.msg) || "Slider"}</label>
      <div className="db-slider-row">
        {str(props, "iconPrepend") ? <span aria-hidden="true">{str(props, "iconPrepend")}</span> : null}
        <input
          id={inputId}
          type="range"
          min={min}
          max={max}
          step={step}
          value={value}
          style={colours}
          disabled={!interactive}
          aria-valuetext={String(value)}
          onPointerDown={() => setDragging(true)}
          onPointerUp={() => {
            setDragging(false);
            if (!all) emit(value);
          }}
          onChange={(e) => {
            const v = Number(e.target.value);
            setValue(v);
            if (all) {
              pending.current = v;
              if (!frame.current) {
                frame.current = requestAnimationFrame(() => {
                  frame.current = 0;
                  if (pending.current !== null) emit(pending.current);
                  pending.current = null;
                });
              }
            } else if (!dragging) {
              // Keyboard or a click on the track: nothing else will say "end".
              emit(v);
            }
          }}
        />
        {str(props, "iconAppend") ? <span aria-hidden="true">{str(props, "iconAppend")}</span> : null}
        {thumbLabel !== "false" ? <output htmlFor={inputId} className={`db-slider-value${thumbLabel === "always" || dragging ? " shown" : ""}`}>{value}</output> : null}
      </div>
    </div>
  );
}
