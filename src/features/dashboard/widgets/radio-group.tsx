"use client";

import { substitute } from "../format";
import { choices, num, sameValue, str, type WidgetProps } from "./widget";

/** ui-radio-group: one of the options, in `columns` columns; arrow keys move between them (native radios). */
export function RadioGroupWidget({ widget, props, state, interactive, send, setLocal, inputId }: WidgetProps) {
  const options = choices(Array.isArray(state.msg?.options) ? state.msg?.options : props.options);
  // Without a label Dashboard 2.0 shows none: the legend stays, for screen readers only.
  const label = substitute(str(props, "label"), state.msg);
  const columns = Math.max(1, Math.min(12, num(props, "columns", 1)));
  return (
    <fieldset className="db-radio" id={inputId}>
      <legend className={label ? undefined : "visually-hidden"}>{label || "Choose"}</legend>
      <div className="db-radio-options" style={{ gridTemplateColumns: `repeat(${columns}, minmax(0, 1fr))` }}>
        {options.map((o, i) => (
          <label key={i} className="db-check">
            <input
              type="radio"
              name={`radio-${widget.id}`}
              disabled={!interactive}
              checked={state.msg ? sameValue(state.msg.payload, o.value) : false}
              onChange={() => {
                setLocal(o.value);
                send("change", { payload: o.value });
              }}
            />
            {o.label}
          </label>
        ))}
      </div>
    </fieldset>
  );
}
