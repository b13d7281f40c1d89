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

/**
 * ui-switch: toggling sends true/false; the node turns it into its on/off values. The shown state
 * follows the last message (its payload equal to the on value, or true); `decouple` (passthru
 * off) leaves the switch as the flow last set it.
 */
export function SwitchWidget({ props, state, interactive, send, setLocal, inputId }: WidgetProps) {
  const payload = state.msg?.payload;
  const on = payload === true || (payload !== undefined && payload !== false && sameValue(payload, onValue(props)));
  const label = substitute(str(props, "label"), state.msg) || "Switch";
  const color = on ? str(props, "oncolor") : str(props, "offcolor");
  const icon = on ? str(props, "onicon") : str(props, "officon");
  return (
    <div className={`db-switch${str(props, "layout") === "row-left" ? " left" : ""}`}>
      <label htmlFor={inputId}>{label}</label>
      <button
        id={inputId}
        type="button"
        role="switch"
        aria-checked={on}
        className={`db-switch-track${on ? " on" : ""}`}
        style={color ? { ["--db-switch-on" as string]: color } : undefined}
        disabled={!interactive}
        onClick={() => {
          const next = !on;
          if (!bool(props, "decouple", false)) setLocal(next ? onValue(props) : (props.offvalueType === "bool" ? props.offvalue === true || props.offvalue === "true" : props.offvalue ?? false));
          send("change", { payload: next });
        }}
      >
        <span className="db-switch-thumb">{icon ? <span aria-hidden="true">{icon}</span> : null}</span>
      </button>
    </div>
  );
}
