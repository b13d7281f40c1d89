"use client";

import { useEffect, useRef, useState } from "react";
import { show, substitute } from "../format";
import { bool, num, str, type WidgetProps } from "./widget";

/** ui-number-input: a number within min/max/step; sends like ui-text-input (delay, Enter, blur). */
export function NumberInputWidget({ props, state, interactive, send, setLocal, inputId }: WidgetProps) {
  const remote = show(state.msg?.payload);
  const [value, setValue] = useState(remote);
  const [focused, setFocused] = useState(false);
  const [seen, setSeen] = useState(remote);
  if (remote !== seen) {
    setSeen(remote);
    if (!focused) setValue(remote);
  }
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const field = useRef<HTMLInputElement>(null);
  const lastSent = useRef<string | null>(null);
  useEffect(() => () => clearTimeout(timer.current), []);
  const min = props.min === "" || props.min === undefined ? undefined : num(props, "min", 0);
  const max = props.max === "" || props.max === undefined ? undefined : num(props, "max", 0);
  const step = num(props, "step", 1);
  const delay = num(props, "delay", 300);
  const emit = (v: string) => {
    clearTimeout(timer.current);
    if (v === "" || !Number.isFinite(Number(v)) || lastSent.current === v) return;
    let n = Number(v);
    if (min !== undefined) n = Math.max(min, n);
    if (max !== undefined) n = Math.min(max, n);
    lastSent.current = String(n);
    setValue(String(n));
    setLocal(n);
    send("change", { payload: n });
  };
  /** What typing does, from the − and + buttons: one step, within min and max, sent after the delay when that is on. */
  const changed = (v: string) => {
    setValue(v);
    if (bool(props, "sendOnDelay", delay > 0) && delay > 0) {
      clearTimeout(timer.current);
      timer.current = setTimeout(() => emit(v), delay);
    }
  };
  const stepBy = (direction: 1 | -1) => {
    const current = value !== "" && Number.isFinite(Number(value)) ? Number(value) : (min ?? 0);
    // Rounded to the step's decimals, so 0.1 + 0.2 shows 0.3.
    const decimals = (String(step).split(".")[1] ?? "").length;
    let n = Number((current + direction * step).toFixed(Math.min(decimals, 10)));
    if (min !== undefined) n = Math.max(min, n);
    if (max !== undefined) n = Math.min(max, n);
    changed(String(n));
    // The field keeps (or takes) the focus, as typing there would: the stepped value is not replaced by
    // the flow's meanwhile, and Enter or leaving the field sends it.
    field.current?.focus();
  };
  /** A press that leaves the focus where it is: clicking − or + must not blur the field (which would send the value before the step). */
  const keepFocus = (e: { preventDefault(): void }) => e.preventDefault();
  const atMin = min !== undefined && value !== "" && Number(value) <= min;
  const atMax = max !== undefined && value !== "" && Number(value) >= max;
  // Dashboard 2.0's spinner: "default" (its editor's "inline": − and + side by side) or "stacked" (up and down).
  const spinner = str(props, "spinner", "default");
  const label = substitute(str(props, "label"), state.msg) || "Number";
  const buttons =
    spinner === "hidden" ? null : (
      <span className={`db-number-spin${spinner === "stacked" ? " stacked" : ""}`}>
        {spinner === "stacked" ? (
          <>
            <button type="button" tabIndex={-1} aria-label={`Increase ${label}`} disabled={!interactive || atMax} onMouseDown={keepFocus} onClick={() => stepBy(1)}>
              ▴
            </button>
            <button type="button" tabIndex={-1} aria-label={`Decrease ${label}`} disabled={!interactive || atMin} onMouseDown={keepFocus} onClick={() => stepBy(-1)}>
              ▾
            </button>
          </>
        ) : (
          <>
            <button type="button" tabIndex={-1} aria-label={`Decrease ${label}`} disabled={!interactive || atMin} onMouseDown={keepFocus} onClick={() => stepBy(-1)}>
              −
            </button>
            <button type="button" tabIndex={-1} aria-label={`Increase ${label}`} disabled={!interactive || atMax} onMouseDown={keepFocus} onClick={() => stepBy(1)}>
              +
            </button>
          </>
        )}
      </span>
    );
  return (
    <div className="db-field db-number">
      <label htmlFor={inputId}>{label}</label>
      <div className="db-number-row">
        {str(props, "prefix") ? <span className="db-number-affix">{str(props, "prefix")}</span> : null}
        <input
          ref={field}
          id={inputId}
          aria-describedby={str(props, "suffix") ? `${inputId}-suffix` : undefined}
          type="number"
          inputMode="decimal"
          value={value}
          min={min}
          max={max}
          step={step}
          disabled={!interactive}
          onFocus={() => setFocused(true)}
          onBlur={() => {
            setFocused(false);
            if (bool(props, "sendOnBlur", true)) emit(value);
          }}
          onKeyDown={(e) => {
            if (e.key === "Enter" && bool(props, "sendOnEnter", true)) emit(value);
          }}
          onChange={(e) => changed(e.target.value)}
        />
        {str(props, "suffix") ? (
          <span className="db-number-affix" id={`${inputId}-suffix`}>
            {str(props, "suffix")}
          </span>
        ) : null}
        {buttons}
      </div>
    </div>
  );
}
