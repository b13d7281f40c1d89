"use client";

import { useEffect, useRef, useState } from "react";
import { show, substitute } from "../format";
import { bool, num, str, type WidgetProps } from "./widget";

const MODES = new Set(["text", "password", "email", "number", "tel", "color", "time", "week", "month", "date", "datetime-local", "url", "textarea"]);

/**
 * ui-text-input: sends as the viewer types after `delay` ms (0: only on Enter or leaving the field),
 * and on Enter / blur when `sendOnEnter` / `sendOnBlur` (Dashboard 2.0's defaults: on, delay 300).
 * A message from the flow replaces the shown value unless the viewer is typing.
 */
export function TextInputWidget({ props, state, interactive, send, setLocal, inputId }: WidgetProps) {
  const mode = MODES.has(str(props, "mode", "text")) ? str(props, "mode", "text") : "text";
  const remote = show(state.msg?.payload);
  const [value, setValue] = useState(remote);
  const [focused, setFocused] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const lastSent = useRef<string | null>(null);
  const delay = num(props, "delay", 300);
  const sendOnDelay = bool(props, "sendOnDelay", delay > 0);
  const sendOnEnter = bool(props, "sendOnEnter", true);
  const sendOnBlur = bool(props, "sendOnBlur", true);

  // The flow's value wins whenever the viewer is not editing.
  const [seen, setSeen] = useState(remote);
  if (remote !== seen) {
    setSeen(remote);
    if (!focused) setValue(remote);
  }
  useEffect(() => () => clearTimeout(timer.current), []);

  const emit = (v: string) => {
    clearTimeout(timer.current);
    if (lastSent.current === v) return;
    lastSent.current = v;
    setLocal(v);
    send("change", { payload: mode === "number" && v !== "" && Number.isFinite(Number(v)) ? Number(v) : v });
  };
  const onChange = (v: string) => {
    setValue(v);
    lastSent.current = lastSent.current === v ? lastSent.current : null;
    if (sendOnDelay && delay > 0) {
      clearTimeout(timer.current);
      timer.current = setTimeout(() => emit(v), delay);
    }
  };
  const label = substitute(str(props, "label"), state.msg);
  const common = {
    id: inputId,
    value,
    disabled: !interactive,
    placeholder: str(props, "placeholder") || undefined,
    onFocus: () => setFocused(true),
    onBlur: () => {
      setFocused(false);
      if (sendOnBlur) emit(value);
    },
  };
  return (
    <div className="db-field">
      <label htmlFor={inputId}>{label || "Text"}</label>
      {mode === "textarea" ? (
        <textarea {...common} rows={3} onChange={(e) => onChange(e.target.value)} />
      ) : (
        <input
          {...common}
          type={mode}
          onChange={(e) => onChange(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter" && sendOnEnter) emit(value);
          }}
        />
      )}
    </div>
  );
}
