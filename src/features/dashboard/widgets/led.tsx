"use client";

import type { CSSProperties } from "react";
import { ledColor, ledColorTable } from "@/shared/dashboard-values";
import { show } from "../format";
import { bool, num, str, type WidgetProps } from "./widget";

const OFF = "gray";

/**
 * ui-led: FlowFuse's Dashboard 2.0 LED (UILed.vue): a label beside a round or square light whose
 * colour is the first state equal to the payload; grey without one. A message's colorForValue
 * (kept by the server as a property) replaces the states when the node allows it (Dashboard 1's LED).
 */
export function LedWidget({ props, state }: WidgetProps) {
  const msg = state.msg ?? undefined;
  const hasValue = msg !== undefined && "payload" in msg;
  const table = bool(props, "allowColorForValueInMessage", false) ? ledColorTable(props.colorForValue) : undefined;
  const color = hasValue ? (ledColor(props.states, msg!.payload, table) ?? OFF) : OFF;
  const label = str(props, "label");
  const right = str(props, "labelPlacement") === "right";
  // FlowFuse's ui-led stores its justify-content words; "left" / "right" as this app and its first version wrote them.
  const alignment = str(props, "labelAlignment", "left");
  const align = alignment === "flex-end" ? "right" : alignment === "flex-start" ? "left" : alignment;
  const square = str(props, "shape") === "square";
  const glow = hasValue && bool(props, "showGlow", true);
  const border = bool(props, "showBorder", true);
  // 65 % of the widget's height, as Dashboard 2.0's (its rows; 0 is one row).
  const rows = Math.max(1, Math.round(num(props, "height", 0)));
  const value = hasValue ? show(msg!.payload) : "no value";
  return (
    <div className={`db-led${right ? " right" : ""}${label ? "" : " bare"}`} style={{ "--db-led-color": color, "--db-led-size": `calc(var(--widget-row-height) * ${rows * 0.65})` } as CSSProperties}>
      {label ? (
        <span className="db-led-label" style={{ textAlign: align === "center" || align === "right" ? align : "left" }}>
          {label}
        </span>
      ) : null}
      <span
        className={`db-led-bulb${hasValue ? " on" : ""}${square ? " square" : ""}${glow ? " glow" : ""}${border ? " border" : ""}`}
        role="img"
        aria-label={`${label || "LED"}: ${value}`}
        data-color={color}
      />
    </div>
  );
}
