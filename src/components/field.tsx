import type { InputHTMLAttributes, ReactNode, SelectHTMLAttributes } from "react";

interface FieldShellProps {
  id: string;
  label: string;
  hint?: ReactNode;
  error?: string;
}

/** ids of the hint and error paragraphs, for the control's aria-describedby. */
function describedBy(id: string, hint: unknown, error: unknown): string | undefined {
  return [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(" ") || undefined;
}

function FieldNotes({ id, hint, error }: Omit<FieldShellProps, "label">) {
  return (
    <>
      {hint ? (
        <p id={`${id}-hint`} className="hint">
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={`${id}-error`} className="error">
          {error}
        </p>
      ) : null}
    </>
  );
}

type FieldProps = FieldShellProps & Omit<InputHTMLAttributes<HTMLInputElement>, "id">;

/** A labelled input with its hint and error, both tied to it through aria-describedby. */
export function Field({ id, label, hint, error, name, type = "text", ...input }: FieldProps) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        name={name ?? id}
        type={type}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(id, hint, error)}
        {...input}
      />
      <FieldNotes id={id} hint={hint} error={error} />
    </div>
  );
}

type SelectFieldProps = FieldShellProps &
  Omit<SelectHTMLAttributes<HTMLSelectElement>, "id"> & {
    options: readonly string[];
    /** What each option shows, when it is not the value itself. */
    optionLabels?: Readonly<Record<string, string>>;
  };

export function SelectField({ id, label, hint, error, name, options, optionLabels, ...select }: SelectFieldProps) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} name={name ?? id} aria-invalid={error ? true : undefined} aria-describedby={describedBy(id, hint, error)} {...select}>
        {options.map((o) => (
          <option key={o} value={o}>
            {optionLabels?.[o] ?? o}
          </option>
        ))}
      </select>
      <FieldNotes id={id} hint={hint} error={error} />
    </div>
  );
}

type CheckboxProps = FieldShellProps & Omit<InputHTMLAttributes<HTMLInputElement>, "id" | "type">;

export function Checkbox({ id, label, hint, error, name, ...input }: CheckboxProps) {
  return (
    <div className="checkbox-field">
      <div className="checkbox">
        <input
          id={id}
          name={name ?? id}
          type="checkbox"
          aria-invalid={error ? true : undefined}
          aria-describedby={describedBy(id, hint, error)}
          {...input}
        />
        <label htmlFor={id}>{label}</label>
      </div>
      <FieldNotes id={id} hint={hint} error={error} />
    </div>
  );
}

type ChoiceProps = Omit<InputHTMLAttributes<HTMLInputElement>, "id" | "type"> & {
  id: string;
  type: "radio" | "checkbox";
  label: ReactNode;
  hint: ReactNode;
  /** "li" inside a list of choices; a div otherwise. */
  as?: "div" | "li";
};

/** A radio button or checkbox with its label and a line that explains it, for a fieldset of choices. */
export function Choice({ id, type, label, hint, as: Wrapper = "div", ...input }: ChoiceProps) {
  return (
    <Wrapper className="choice">
      <input id={id} type={type} aria-describedby={`${id}-hint`} {...input} />
      <div>
        <label htmlFor={id}>{label}</label>
        <p id={`${id}-hint`} className="hint">
          {hint}
        </p>
      </div>
    </Wrapper>
  );
}
