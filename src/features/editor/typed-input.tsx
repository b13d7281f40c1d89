"use client";

import { DATE_FORMATS, OPERAND_TYPE_TITLES, type OperandType } from "@/shared/operand-types";

const NO_VALUE: ReadonlySet<string> = new Set(["prev"]);
const CUSTOM = "\u0000custom";

/**
 * Node-RED's "typed input": one control for an operand pair (`<name>` and `<name>_type`), a type
 * selector beside the value. The value control follows the type: JSON a textarea, boolean a
 * true/false select, timestamp a format select (with a moment.js format as "custom"), JSONata a
 * monospace textarea, the rest a text field. Both controls are labelled by the pair's title, and
 * errors of either half (`rules[0].v`, `rules[0].v_type`) show under it.
 */
export function TypedInput({
  id,
  label,
  typeLabel,
  description,
  value,
  type,
  types,
  onChange,
  error,
}: {
  id: string;
  label: string;
  typeLabel: string;
  description?: string;
  value: string;
  type: string;
  types: string[];
  onChange: (next: { value: string; type: string }) => void;
  error?: string;
}) {
  const valueId = `${id}-value`;
  const typeId = `${id}-type`;
  const describedBy = [error ? `${id}-error` : null, description ? `${id}-hint` : null].filter(Boolean).join(" ") || undefined;
  const common = { "aria-invalid": error ? true : undefined, "aria-describedby": describedBy } as const;
  const setValue = (v: string) => onChange({ value: v, type });
  const title = (t: string) => OPERAND_TYPE_TITLES[t as OperandType | "prev"] ?? t;

  let control: React.ReactNode;
  if (NO_VALUE.has(type)) control = null;
  else if (type === "bool") {
    control = (
      <select id={valueId} aria-label={label} value={/^true$/i.test(value) ? "true" : "false"} onChange={(e) => setValue(e.target.value)} {...common}>
        <option value="true">true</option>
        <option value="false">false</option>
      </select>
    );
  } else if (type === "date") {
    const known = DATE_FORMATS.some((f) => f.value === value);
    control = (
      <span className="typed-input-date">
        <select id={valueId} aria-label={`${label} format`} value={known ? value : CUSTOM} onChange={(e) => setValue(e.target.value === CUSTOM ? "YYYY-MM-DD HH:mm:ss" : e.target.value)} {...common}>
          {DATE_FORMATS.map((f) => (
            <option key={f.value} value={f.value}>
              {f.title}
            </option>
          ))}
          <option value={CUSTOM}>custom (moment.js)</option>
        </select>
        {known ? null : <input type="text" aria-label={`${label} custom format`} value={value} onChange={(e) => setValue(e.target.value)} spellCheck={false} {...common} />}
      </span>
    );
  } else if (type === "json" || type === "jsonata") {
    control = (
      <textarea
        id={valueId}
        aria-label={label}
        className={type === "jsonata" ? "typed-input-code" : undefined}
        rows={type === "jsonata" ? 3 : 4}
        spellCheck={false}
        value={value}
        onChange={(e) => setValue(e.target.value)}
        {...common}
      />
    );
  } else {
    control = <input id={valueId} aria-label={label} type="text" value={value} spellCheck={false} placeholder={type === "env" ? "NAME" : undefined} onChange={(e) => setValue(e.target.value)} {...common} />;
  }

  return (
    <div className="field typed-input" role="group" aria-labelledby={`${id}-label`}>
      <label id={`${id}-label`} htmlFor={NO_VALUE.has(type) ? typeId : valueId}>
        {label}
      </label>
      <div className="typed-input-row">
        <select id={typeId} aria-label={typeLabel} value={type} onChange={(e) => onChange({ value: e.target.value === "bool" && !/^(true|false)$/i.test(value) ? "true" : value, type: e.target.value })} {...common}>
          {types.map((t) => (
            <option key={t} value={t}>
              {title(t)}
            </option>
          ))}
        </select>
        {control}
      </div>
      {description ? (
        <p id={`${id}-hint`} className="hint">
          {description}
        </p>
      ) : null}
      {error ? (
        <p id={`${id}-error`} className="error">
          {label} {error}
        </p>
      ) : null}
    </div>
  );
}
