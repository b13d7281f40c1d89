"use client";

import { substitute } from "../format";
import { bool, str, type WidgetProps } from "./widget";

/** ui-button: a click sends the node's payload (the node evaluates it, with `msg._client`). */
export function ButtonWidget({ props, state, interactive, send, inputId }: WidgetProps) {
  const label = substitute(str(props, "label", "Button"), state.msg);
  const icon = str(props, "icon");
  const iconRight = str(props, "iconPosition") === "right";
  const style = {
    ...(str(props, "buttonColor") || str(props, "bgcolor") ? { background: str(props, "buttonColor") || str(props, "bgcolor"), borderColor: str(props, "buttonColor") || str(props, "bgcolor") } : {}),
    ...(str(props, "textColor") || str(props, "color") ? { color: str(props, "textColor") || str(props, "color") } : {}),
  };
  const iconEl = icon ? <span className="db-icon" aria-hidden="true">{icon}</span> : null;
  return (
    <button
      id={inputId}
      type="button"
      className="db-button"
      style={style}
      disabled={!interactive || bool(props, "enabled", true) === false}
      onClick={() => send("click", {})}
    >
      {iconRight ? null : iconEl}
      <span>{label}</span>
      {iconRight ? iconEl : null}
    </button>
  );
}
