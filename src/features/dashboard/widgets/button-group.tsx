"use client";

import { useRef, type KeyboardEvent } from "react";
import { sameOptionValue, typedOptionValue } from "@/shared/dashboard-values";
import { substitute } from "../format";
import { Icon } from "./icon";
import { bool, str, type WidgetProps } from "./widget";

interface ButtonOption {
  label: string;
  icon: string;
  value: unknown;
  color: string;
}

function buttonOptions(raw: unknown): ButtonOption[] {
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((o): ButtonOption[] => {
    if (!o || typeof o !== "object") return [];
    const r = o as Record<string, unknown>;
    const value = typedOptionValue(r.value, r.valueType);
    return [{ label: typeof r.label === "string" ? r.label : "", icon: typeof r.icon === "string" ? r.icon.replace(/^mdi-/, "") : "", value, color: typeof r.color === "string" ? r.color : "" }];
  });
}

/**
 * ui-button-group: a row of buttons, one chosen (Dashboard 2.0's v-btn-toggle). A radio group to
 * assistive technology: the arrow keys move the choice, Tab reaches the chosen button.
 */
export function ButtonGroupWidget({ props, state, interactive, send, setLocal, inputId }: WidgetProps) {
  const options = buttonOptions(props.options);
  const label = substitute(str(props, "label"), state.msg);
  const chosen = state.msg ? options.findIndex((o) => sameOptionValue(o.value, state.msg!.payload)) : -1;
  const themed = bool(props, "useThemeColors", true);
  const refs = useRef<Array<HTMLButtonElement | null>>([]);
  const choose = (i: number) => {
    const o = options[i];
    if (!o || !interactive) return;
    setLocal(o.value);
    send("change", { payload: o.value });
  };
  const onKey = (e: KeyboardEvent, i: number) => {
    const step = e.key === "ArrowRight" || e.key === "ArrowDown" ? 1 : e.key === "ArrowLeft" || e.key === "ArrowUp" ? -1 : 0;
    if (step === 0 || options.length === 0) return;
    e.preventDefault();
    const next = (i + step + options.length) % options.length;
    refs.current[next]?.focus();
    choose(next);
  };
  return (
    <div className={`db-button-group${bool(props, "rounded", true) ? " rounded" : ""}`} id={inputId}>
      {label ? <span className="db-label" id={`${inputId}-label`}>{label}</span> : null}
      <div role="radiogroup" aria-labelledby={label ? `${inputId}-label` : undefined} aria-label={label ? undefined : "Options"} className="db-button-group-row">
        {options.map((o, i) => {
          const on = i === chosen;
          const color = on && !themed && o.color ? o.color : "";
          return (
            <button
              key={i}
              ref={(el) => {
                refs.current[i] = el;
              }}
              type="button"
              role="radio"
              aria-checked={on}
              aria-label={o.label || o.icon || String(o.value)}
              tabIndex={on || (chosen === -1 && i === 0) ? 0 : -1}
              className={`db-button${on ? " chosen" : " secondary"}`}
              style={color ? { background: color, borderColor: color } : undefined}
              disabled={!interactive}
              onClick={() => choose(i)}
              onKeyDown={(e) => onKey(e, i)}
            >
              {o.icon ? <Icon name={o.icon} /> : null}
              {o.label ? <span>{o.label}</span> : null}
            </button>
          );
        })}
      </div>
    </div>
  );
}
