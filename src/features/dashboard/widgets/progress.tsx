"use client";

import { vuetifyColor } from "../colors";
import { str, type WidgetProps } from "./widget";

/** ui-progress: Dashboard 2.0's bar; the payload (0–100) is the part done, the label reads "Label: 75%". */
export function ProgressWidget({ props, state }: WidgetProps) {
  const payload = state.msg?.payload;
  const value = typeof payload === "number" && Number.isFinite(payload) ? Math.min(100, Math.max(0, payload)) : 0;
  const label = str(props, "label");
  const color = vuetifyColor(str(props, "color"));
  const enabled = props.enabled !== false;
  return (
    <div className={`db-progress${enabled ? "" : " disabled"}`} style={{ borderColor: color }}>
      <div
        className="db-progress-track"
        role="progressbar"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={Math.ceil(value)}
        aria-label={label || "progress"}
        aria-disabled={!enabled || undefined}
      >
        <div className="db-progress-bar" style={{ width: `${value}%`, background: color }} />
        {label ? (
          <strong className="db-progress-text">
            {label}: {Math.ceil(value)}%
          </strong>
        ) : null}
      </div>
    </div>
  );
}
