"use client";

import { show, substitute } from "../format";
import { str, type WidgetProps } from "./widget";

/** ui-text: a label and the last value, laid out as the node's `layout` says. */
export function TextWidget({ props, state }: WidgetProps) {
  const format = str(props, "format", "{{msg.payload}}");
  const value = format.includes("{{") ? substitute(format, state.msg) : format || show(state.msg?.payload);
  const layout = str(props, "layout", "row-spread");
  const style = props.style === true || props.style === "true"
    ? { fontFamily: str(props, "font") || undefined, fontSize: str(props, "fontSize") ? `${str(props, "fontSize")}px` : undefined, color: str(props, "color") || undefined }
    : undefined;
  const label = str(props, "label");
  return (
    <div className={`db-text db-layout-${layout}`}>
      {label ? <span className="db-text-label">{substitute(label, state.msg)}</span> : null}
      <span className="db-text-value" style={style} aria-live="polite">
        {value}
      </span>
    </div>
  );
}
