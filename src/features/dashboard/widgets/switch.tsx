"use client";

import { sameValue, str, bool, type WidgetProps } from "./widget";
import { substitute } from "../format";

/** The switch's on value as a plain value when the node gives one (`onvalue`, typed `onvalueType`). */
function onValue(props: Record<string, unknown>): unknown {
  const v = props.onvalue;
  const t = props.onvalueType;
  if (t === "bool") return v === true || v === "true";
  if (t === "num") return Number(v);
  if (v === undefined) return true;
  return v;
}

/** Dashboard 2.0's layouts: the label and the switch at the start, or spread apart; swapped puts the switch first. */
const LAYOUTS = new Set(["row-left", "row-left-swapped", "row-spread", "row-spread-swapped"]);

/**
 * ui-switch: toggling sends true/false; the node turns it into its on/off values. The shown state
 * follows the last message (its payload equal to the on value, or true); `decouple` (passthru
 * off) leaves the switch as the flow last set it. `clickableArea` as Dashboard 2.0's: the switch
 * (default), the label too, the whole line, or none (it only shows the state).
 */
export function SwitchWidget({ props, state, interactive, send, setLocal, inputId }: WidgetProps) {
  const payload = state.msg?.payload;
  const on = payload === true || (payload !== undefined && payload !== false && sameValue(payload, onValue(props)));
  const label = substitute(str(props, "label"), state.msg) || "Switch";
  const color = on ? str(props, "oncolor") : str(props, "offcolor");
  const icon = on ? str(props, "onicon") : str(props, "officon");
  const layout = LAYOUTS.has(str(props, "layout")) ? str(props, "layout") : "row-spread";
  const area = str(props, "clickableArea") || "switch";
  const clickable = interactive && area !== "none";
  const toggle = () => {
    if (!clickable) return;
    const next = !on;
    if (!bool(props, "decouple", false)) setLocal(next ? onValue(props) : (props.offvalueType === "bool" ? props.offvalue === true || props.offvalue === "true" : props.offvalue ?? false));
    send("change", { payload: next });
  };
  const labelId = `${inputId}-label`;
  return (
    <div className={`db-switch nrdb-ui-switch--${layout}${area === "line" && clickable ? " clickable" : ""}`} onClick={area === "line" ? toggle : undefined}>
      {area === "label" ? (
        <label id={labelId} htmlFor={inputId} onClick={(e) => e.stopPropagation()}>
          {label}
        </label>
      ) : (
        // Names the switch (aria-labelledby) without toggling it when clicked, as Dashboard 2.0's label.
        <span id={labelId} className="db-switch-label">
          {label}
        </span>
      )}
      <button
        id={inputId}
        type="button"
        role="switch"
        aria-checked={on}
        aria-labelledby={labelId}
        aria-disabled={interactive && !clickable ? true : undefined}
        className={`db-switch-track${on ? " on" : ""}`}
        style={color ? { ["--db-switch-on" as string]: color } : undefined}
        disabled={!interactive}
        onClick={(e) => {
          e.stopPropagation();
          toggle();
        }}
      >
        <span className="db-switch-thumb">{icon ? <span aria-hidden="true">{icon}</span> : null}</span>
      </button>
    </div>
  );
}
