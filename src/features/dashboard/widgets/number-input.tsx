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
  return (
    <div className="db-field">
      <label htmlFor={inputId}>{substitute(str(props, "label"), state.msg) || "Number"}</label>
      <input
        id={inputId}
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
        onChange={(e) => {
          const v = e.target.value;
          setValue(v);
          if (bool(props, "sendOnDelay", delay > 0) && delay > 0) {
            clearTimeout(timer.current);
            timer.current = setTimeout(() => emit(v), delay);
          }
        }}
      />
    </div>
  );
}
