"use client";

import { useContext, useState } from "react";
import { UnavailableButton } from "@/components/buttons";
import { afterRemove, listItemAction, listItemFirstField, useListFocus, type FocusNext } from "@/components/use-list-focus";
import { isOperandTypeList } from "@/shared/operand-types";
import { CodeField } from "./code-field";
import type { FormHint, FormHints } from "@/shared/form-hints";
import { configRefType } from "./config-nodes/config-node-model";
import { ConfigRefFieldContext } from "./config-nodes/config-ref-slot";
import { TypedInput } from "./typed-input";

/** The subset of JSON Schema our zod-made node schemas use. */
export interface JsonSchema {
  type?: string;
  title?: string;
  description?: string;
  enum?: unknown[];
  /** Words for an enum's values (Node-RED's option labels: "Fixed Statement" for `fixed`), from `.meta({ enumLabels })`. */
  enumLabels?: Record<string, string>;
  const?: unknown;
  default?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  /** A string's pattern (the `${NAME}` branch of a number-or-variable field). */
  pattern?: string;
  /** `color`: a CSS colour (a picker beside the text). */
  format?: string;
  minItems?: number;
  maxItems?: number;
  deprecated?: boolean;
  /** CONFIG_REF_KEY: the property names a configuration node of this type (SPEC §19). */
  "x-config-node"?: string;
}

type Config = Record<string, unknown>;
type Errors = Record<string, string>;

/** `T | null` as zod writes it: anyOf [T, {type: null}]. */
function unwrapNullable(schema: JsonSchema): { schema: JsonSchema; nullable: boolean } {
  if (schema.anyOf?.length === 2) {
    const other = schema.anyOf.find((s) => s.type !== "null");
    if (other && schema.anyOf.some((s) => s.type === "null")) return { schema: { ...other, default: schema.default, title: schema.title, description: schema.description }, nullable: true };
  }
  return { schema, nullable: false };
}

/**
 * A number that may also be `${NAME}` (the server's `numberOrVariable`, as Node-RED's
 * `validators.number`): anyOf [a number, a string with a pattern]. The number's schema, else null.
 */
function numberOrVariableBranch(schema: JsonSchema): JsonSchema | null {
  if (schema.anyOf?.length !== 2) return null;
  const number = schema.anyOf.find((s) => s.type === "number" || s.type === "integer");
  const reference = schema.anyOf.find((s) => s.type === "string" && typeof s.pattern === "string");
  return number && reference ? number : null;
}

/** What a number-or-variable text box holds as the value: a number when it reads as one, else the text. */
export function numberOrText(text: string): number | string {
  const t = text.trim();
  return /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t) ? Number(t) : text;
}

/** The enum's value an option stands for: a number stays a number (an option's value is text). */
export const choiceOf = (values: readonly unknown[], text: string): unknown => values.find((v) => String(v) === text) ?? text;

const fieldId = (path: string) => `cfg-${path.replace(/[^A-Za-z0-9_-]/g, "_")}`;

/** A rule list (switch, change): every item is one of several shapes told apart by `t`. */
function isVariantList(schema: JsonSchema): boolean {
  return schema.type === "array" && Boolean(schema.items?.oneOf?.every((v) => v.properties?.t?.const !== undefined));
}

function variantDefaults(variant: JsonSchema): Config {
  const out: Config = {};
  for (const [k, p] of Object.entries(variant.properties ?? {})) {
    if (p.const !== undefined) out[k] = p.const;
    else if (p.default !== undefined) out[k] = p.default;
    else if (p.enum) out[k] = p.enum[0];
    else if (p.type === "string") out[k] = "";
  }
  return out;
}

function JsonField({ id, label, value, onChange, error }: { id: string; label: string; value: unknown; onChange: (v: unknown) => void; error?: string }) {
  const [text, setText] = useState(() => JSON.stringify(value ?? null, null, 2));
  const [invalid, setInvalid] = useState(false);
  const shown = error ?? (invalid ? "is not valid JSON" : undefined);
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <textarea
        id={id}
        rows={4}
        spellCheck={false}
        value={text}
        aria-invalid={shown ? true : undefined}
        aria-describedby={shown ? `${id}-error` : `${id}-hint`}
        onChange={(e) => {
          setText(e.target.value);
          try {
            onChange(JSON.parse(e.target.value));
            setInvalid(false);
          } catch {
            setInvalid(true);
          }
        }}
      />
      {shown ? (
        <p id={`${id}-error`} className="error">
          {label} {shown}
        </p>
      ) : (
        <p id={`${id}-hint`} className="hint">
          JSON
        </p>
      )}
    </div>
  );
}

/**
 * A CSS colour as the picker takes it (#rrggbb): hex as it is, a name or rgb() as the browser
 * resolves it; anything else (empty, a theme colour's name) black.
 */
function hexOf(value: string): string {
  const v = value.trim();
  if (/^#[0-9a-f]{6}$/i.test(v)) return v.toLowerCase();
  if (/^#[0-9a-f]{3}$/i.test(v)) return `#${[...v.slice(1)].map((c) => c + c).join("")}`.toLowerCase();
  if (v === "" || typeof document === "undefined" || !CSS.supports("color", v)) return "#000000";
  const probe = document.createElement("i");
  probe.style.color = v;
  document.body.appendChild(probe);
  const rgb = /rgba?\((\d+),\s*(\d+),\s*(\d+)/.exec(getComputedStyle(probe).color);
  probe.remove();
  return rgb ? `#${rgb.slice(1, 4).map((n) => Number(n).toString(16).padStart(2, "0")).join("")}` : "#000000";
}

function ScalarField({
  path,
  label,
  schema: raw,
  value,
  onChange,
  errors,
  hint,
}: {
  path: string;
  label: string;
  schema: JsonSchema;
  value: unknown;
  onChange: (v: unknown) => void;
  errors: Errors;
  /** What the node type declares for this property (a code editor, a long text). */
  hint?: FormHint;
}) {
  const { schema, nullable } = unwrapNullable(raw);
  const id = fieldId(path);
  const error = errors[path];
  const describedBy = [error ? `${id}-error` : null, schema.description ? `${id}-hint` : null].filter(Boolean).join(" ") || undefined;
  const notes = (
    <>
      {schema.description ? (
        <p id={`${id}-hint`} className="hint">
          {schema.description}
        </p>
      ) : null}
      {error ? (
        <p id={`${id}-error`} className="error">
          {label} {error}
        </p>
      ) : null}
    </>
  );
  if (hint?.widget === "code") return <CodeField id={id} label={label} language={hint.language} value={String(value ?? "")} onChange={onChange} error={error ? `${label} ${error}` : undefined} />;
  if (schema.type === "boolean") {
    return (
      <div className="checkbox-field">
        <div className="checkbox">
          <input id={id} type="checkbox" checked={value === true} onChange={(e) => onChange(e.target.checked)} aria-invalid={error ? true : undefined} aria-describedby={describedBy} />
          <label htmlFor={id}>{label}</label>
        </div>
        {notes}
      </div>
    );
  }
  if (schema.enum) {
    return (
      <div className="field">
        <label htmlFor={id}>{label}</label>
        <select id={id} value={String(value ?? "")} onChange={(e) => onChange(e.target.value === "" && nullable ? null : choiceOf(schema.enum!, e.target.value))} aria-invalid={error ? true : undefined} aria-describedby={describedBy}>
          {nullable ? <option value="">(none)</option> : null}
          {schema.enum.map((o) => (
            <option key={String(o)} value={String(o)}>
              {schema.enumLabels?.[String(o)] ?? String(o)}
            </option>
          ))}
        </select>
        {notes}
      </div>
    );
  }
  if (numberOrVariableBranch(schema)) {
    // A text box: a number, or `${NAME}` (a number box would refuse the reference).
    return (
      <div className="field">
        <label htmlFor={id}>{label}</label>
        <input
          id={id}
          type="text"
          inputMode="numeric"
          spellCheck={false}
          value={value === null || value === undefined ? "" : String(value)}
          placeholder={nullable ? "none" : undefined}
          onChange={(e) => onChange(e.target.value.trim() === "" && nullable ? null : numberOrText(e.target.value))}
          aria-invalid={error ? true : undefined}
          aria-describedby={describedBy}
        />
        {notes}
      </div>
    );
  }
  if (schema.type === "number" || schema.type === "integer") {
    return (
      <div className="field">
        <label htmlFor={id}>{label}</label>
        <input
          id={id}
          type="number"
          step={schema.type === "integer" ? 1 : "any"}
          value={value === null || value === undefined ? "" : String(value)}
          placeholder={nullable ? "none" : undefined}
          onChange={(e) => {
            const v = e.target.value;
            if (v === "") onChange(nullable ? null : "");
            else onChange(Number.isFinite(Number(v)) ? Number(v) : v);
          }}
          aria-invalid={error ? true : undefined}
          aria-describedby={describedBy}
        />
        {notes}
      </div>
    );
  }
  if (schema.type === "string") {
    const long = (schema.maxLength ?? 0) > 65536 || hint?.widget === "multiline";
    const text = (
      <input
        id={id}
        type="text"
        value={value === null || value === undefined ? "" : String(value)}
        placeholder={nullable ? "none" : undefined}
        onChange={(e) => onChange(e.target.value === "" && nullable ? null : e.target.value)}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy}
      />
    );
    return (
      <div className="field">
        <label htmlFor={id}>{label}</label>
        {long ? (
          <textarea id={id} rows={5} value={String(value ?? "")} onChange={(e) => onChange(e.target.value)} aria-invalid={error ? true : undefined} aria-describedby={describedBy} spellCheck={false} />
        ) : schema.format === "color" ? (
          <div className="color-field">
            {text}
            <input type="color" value={hexOf(String(value ?? ""))} onChange={(e) => onChange(e.target.value)} aria-label={`${label}: pick a colour`} />
          </div>
        ) : (
          text
        )}
        {notes}
      </div>
    );
  }
  return <JsonField id={id} label={label} value={value} onChange={onChange} error={error} />;
}

/** `<name>` and `<name>_type` (an enum of operand types) are one operand: the key of its type half, else null. */
function operandPairType(properties: Record<string, JsonSchema>, key: string): string | null {
  const typeKey = `${key}_type`;
  const typeSchema = properties[typeKey];
  const valueSchema = unwrapNullable(properties[key] ?? {}).schema;
  return typeSchema && valueSchema.type === "string" && isOperandTypeList(typeSchema.enum) ? typeKey : null;
}

/**
 * The fields of one object (the node's config, a rule, an inject property): an operand pair is one
 * typed input, deprecated properties (an old form still accepted from API clients) are not shown.
 */
function PropertyFields({
  properties,
  item,
  path,
  labelSuffix = "",
  errors,
  onChange,
  skip = [],
  fieldFor,
}: {
  properties: Record<string, JsonSchema>;
  item: Config;
  path: string;
  labelSuffix?: string;
  errors: Errors;
  onChange: (patch: Config) => void;
  skip?: string[];
  fieldFor?: (key: string, prop: JsonSchema, label: string, set: (v: unknown) => void) => React.ReactNode;
}) {
  const typeHalves = new Set(Object.keys(properties).map((k) => operandPairType(properties, k)).filter((k): k is string => k !== null));
  const at = (key: string) => (path ? `${path}.${key}` : key);
  return (
    <>
      {Object.entries(properties)
        .filter(([key, prop]) => !skip.includes(key) && !typeHalves.has(key) && !prop.deprecated)
        .map(([key, prop]) => {
          const label = `${prop.title ?? key}${labelSuffix}`;
          const set = (v: unknown) => onChange({ [key]: v });
          const typeKey = operandPairType(properties, key);
          if (typeKey) {
            const typeSchema = properties[typeKey]!;
            const types = (typeSchema.enum ?? []).map(String);
            return (
              <TypedInput
                key={key}
                id={fieldId(at(key))}
                label={label}
                typeLabel={`${typeSchema.title ?? typeKey}${labelSuffix}`}
                description={properties[key]!.description}
                value={String(item[key] ?? "")}
                type={String(item[typeKey] ?? typeSchema.default ?? types[0])}
                types={types}
                error={errors[at(key)] ?? errors[at(typeKey)]}
                onChange={(next) => onChange({ [key]: next.value, [typeKey]: next.type })}
              />
            );
          }
          const custom = fieldFor?.(key, prop, label, set);
          if (custom) return custom;
          if (isObjectList(prop)) return <ObjectList key={key} path={at(key)} label={label} schema={prop} value={item[key]} onChange={set} errors={errors} />;
          return <ScalarField key={key} path={at(key)} label={label} schema={prop} value={item[key]} onChange={set} errors={errors} />;
        })}
    </>
  );
}

/** A list of plain objects (inject's properties): every item has the same fields. */
function isObjectList(schema: JsonSchema): boolean {
  return schema.type === "array" && schema.items?.type === "object" && Boolean(schema.items.properties) && !isVariantList(schema);
}

function itemDefaults(schema: JsonSchema): Config {
  const out: Config = {};
  for (const [k, p] of Object.entries(schema.properties ?? {})) out[k] = p.default ?? (p.enum ? p.enum[0] : p.type === "string" ? "" : undefined);
  return out;
}

/** An item's ↑ and Remove under its fields; both stay focusable when unavailable. */
function ItemActions({ i, noun, items, minItems, set, focusNext }: { i: number; noun: string; items: Config[]; minItems: number; set: (next: Config[]) => void; focusNext: FocusNext }) {
  return (
    <div className="actions compact">
      <UnavailableButton
        className="secondary small"
        data-list-action="up"
        unavailable={i === 0}
        onClick={() => {
          focusNext(listItemAction(i - 1, "up"));
          set(items.map((it, j) => (j === i - 1 ? items[i]! : j === i ? items[i - 1]! : it)));
        }}
        aria-label={`Move ${noun} ${i + 1} up`}
      >
        ↑
      </UnavailableButton>
      <UnavailableButton
        className="secondary small"
        data-list-action="remove"
        unavailable={items.length <= minItems}
        onClick={() => {
          focusNext(afterRemove(i, items.length - 1));
          set(items.filter((_, j) => j !== i));
        }}
        aria-label={`Remove ${noun} ${i + 1}`}
      >
        Remove
      </UnavailableButton>
    </div>
  );
}

/** A list's Add button: the new item's first field takes the focus. */
function AddItem({ noun, items, maxItems, create, set, focusNext }: { noun: string; items: Config[]; maxItems: number; create: () => Config; set: (next: Config[]) => void; focusNext: FocusNext }) {
  return (
    <UnavailableButton
      className="secondary small"
      data-list-action="add"
      unavailable={items.length >= maxItems}
      onClick={() => {
        focusNext(listItemFirstField(items.length));
        set([...items, create()]);
      }}
    >
      Add {noun}
    </UnavailableButton>
  );
}

function ObjectList({ path, label, schema, value, onChange, errors }: { path: string; label: string; schema: JsonSchema; value: unknown; onChange: (v: unknown) => void; errors: Errors }) {
  const items = Array.isArray(value) ? (value as Config[]) : [];
  const singular = label.replace(/ies$/, "y").replace(/s$/, "");
  const noun = singular.toLowerCase();
  const set = (next: Config[]) => onChange(next);
  const [root, focusNext] = useListFocus<HTMLFieldSetElement>();
  return (
    <fieldset className="variant-list" ref={root}>
      <legend>{label}</legend>
      {schema.description ? <p className="hint">{schema.description}</p> : null}
      {errors[path] ? <p className="error">{label} {errors[path]}</p> : null}
      <ol>
        {items.map((item, i) => (
          <li key={i} className="variant-item" data-list-item={i}>
            <PropertyFields
              properties={schema.items!.properties!}
              item={item}
              path={`${path}[${i}]`}
              labelSuffix={` (${noun} ${i + 1})`}
              errors={errors}
              onChange={(patch) => set(items.map((it, j) => (j === i ? { ...it, ...patch } : it)))}
            />
            <ItemActions i={i} noun={noun} items={items} minItems={schema.minItems ?? 0} set={set} focusNext={focusNext} />
          </li>
        ))}
      </ol>
      <AddItem noun={noun} items={items} maxItems={schema.maxItems ?? Infinity} create={() => itemDefaults(schema.items!)} set={set} focusNext={focusNext} />
    </fieldset>
  );
}

function VariantList({ path, label, schema, value, onChange, errors }: { path: string; label: string; schema: JsonSchema; value: unknown; onChange: (v: unknown) => void; errors: Errors }) {
  const items = Array.isArray(value) ? (value as Config[]) : [];
  const variants = schema.items?.oneOf ?? [];
  const kinds = variants.map((v) => String(v.properties!.t!.const));
  const singular = label.replace(/s$/, "");
  const noun = singular.charAt(0).toUpperCase() + singular.slice(1);
  const set = (next: Config[]) => onChange(next);
  const [root, focusNext] = useListFocus<HTMLFieldSetElement>();
  return (
    <fieldset className="variant-list" ref={root}>
      <legend>{label}</legend>
      {errors[path] ? <p className="error">{label} {errors[path]}</p> : null}
      <ol>
        {items.map((item, i) => {
          const variant = variants.find((v) => v.properties?.t?.const === item.t) ?? variants[0]!;
          const itemPath = `${path}[${i}]`;
          const kindId = fieldId(`${itemPath}.t`);
          return (
            <li key={i} className="variant-item" data-list-item={i}>
              <div className="field">
                <label htmlFor={kindId}>
                  {noun} {i + 1}
                </label>
                <select
                  id={kindId}
                  value={String(item.t)}
                  onChange={(e) => {
                    const next = variants.find((v) => v.properties?.t?.const === e.target.value)!;
                    const fresh = variantDefaults(next);
                    for (const k of Object.keys(fresh)) if (k !== "t" && k in item && next.properties?.[k]?.type === variant.properties?.[k]?.type) fresh[k] = item[k];
                    set(items.map((it, j) => (j === i ? fresh : it)));
                  }}
                >
                  {variants.map((v, k) => (
                    <option key={kinds[k]} value={kinds[k]}>
                      {v.properties!.t!.title ?? kinds[k]}
                    </option>
                  ))}
                </select>
              </div>
              <PropertyFields
                properties={variant.properties ?? {}}
                item={item}
                path={itemPath}
                labelSuffix={` (${noun.toLowerCase()} ${i + 1})`}
                errors={errors}
                skip={["t"]}
                onChange={(patch) => set(items.map((it, j) => (j === i ? { ...it, ...patch } : it)))}
              />
              <ItemActions i={i} noun={noun.toLowerCase()} items={items} minItems={schema.minItems ?? 0} set={set} focusNext={focusNext} />
            </li>
          );
        })}
      </ol>
      <AddItem noun={noun.toLowerCase()} items={items} maxItems={schema.maxItems ?? Infinity} create={() => variantDefaults(variants[0]!)} set={set} focusNext={focusNext} />
    </fieldset>
  );
}

/**
 * One labelled field per property of a node type's JSON Schema (label: the title, else the
 * name); an operand pair (`<name>` + `<name>_type`) is one typed input; rule lists and lists of
 * objects get add/remove/reorder; a property the type's form hints name gets its widget (code:
 * CodeMirror; multiline: a text area); a reference to a configuration node gets the picker
 * FlowEditor provides (ConfigRefFieldContext). Errors are keyed by the server's paths (`payload`,
 * `rules[0].v`) and shown next to their fields.
 */
export function SchemaForm({ hints, schema, value, onChange, errors }: { hints: FormHints; schema: JsonSchema; value: Config; onChange: (v: Config) => void; errors: Errors }) {
  const ConfigRefField = useContext(ConfigRefFieldContext);
  return (
    <PropertyFields
      properties={schema.properties ?? {}}
      item={value}
      path=""
      errors={errors}
      onChange={(patch) => onChange({ ...value, ...patch })}
      fieldFor={(key, prop, label, set) => {
        const refType = configRefType(prop as Record<string, unknown>);
        if (refType && ConfigRefField) {
          const error = errors[key];
          return <ConfigRefField key={key} id={fieldId(key)} label={label} description={prop.description} type={refType} value={typeof value[key] === "string" ? (value[key] as string) : ""} required={schema.required?.includes(key) ?? false} error={error ? `${label} ${error}` : undefined} onChange={set} />;
        }
        if (isVariantList(prop)) return <VariantList key={key} path={key} label={label} schema={prop} value={value[key]} onChange={set} errors={errors} />;
        const hint = Object.hasOwn(hints, key) ? hints[key] : undefined;
        if (hint) return <ScalarField key={key} path={key} label={label} schema={prop} value={value[key]} onChange={set} errors={errors} hint={hint} />;
        return null;
      }}
    />
  );
}
