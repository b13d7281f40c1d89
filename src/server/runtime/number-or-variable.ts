import { z } from "zod";
import { WHOLE_VARIABLE_REFERENCE, wholeReferenceName } from "../../shared/variable-references";

/**
 * A number property that may also be one `${NAME}` (a port, a keep-alive), as Node-RED's: its
 * editor's `RED.validators.number` accepts `${ENV_VAR}` in a number's place and its runtime puts
 * the variable's value there when the flow starts (`mapEnvVarProperties`). The stored value is the
 * number or the reference; a configuration node's handle reads the reference's value as a number at
 * each read (`resolveVariableNumbers`): a connection made after a variable changed (a deploy, a
 * connect action) uses the new value.
 *
 * The editor recognises the field from its JSON Schema (anyOf: a number, a string of this pattern)
 * and edits it as one text box.
 */

/** The reference branch: one instance, so a field is recognised by it whatever wraps it. */
const VARIABLE_TEXT = z.string().regex(WHOLE_VARIABLE_REFERENCE, "must be a number or ${NAME}");

export function numberOrVariable(number: z.ZodNumber) {
  return z.union([number, VARIABLE_TEXT]);
}

/** A configuration as a node uses it: a number-or-variable field (`number | string`, maybe `| null`) read as its number. */
export type VariablesResolved<C> = { [K in keyof C]: number extends C[K] ? (string extends C[K] ? Exclude<C[K], string> : C[K]) : C[K] };

interface ZodInternals {
  _zod: { def: { type: string; innerType?: unknown; in?: unknown; options?: unknown[]; shape?: Record<string, unknown> } };
}

const internals = (schema: unknown) => (schema as ZodInternals)._zod?.def;

/** The number schema of a number-or-variable field (through default/optional/nullable), else undefined. */
function numberBranch(field: unknown): z.ZodNumber | undefined {
  let def = internals(field);
  for (let depth = 0; def && def.innerType && depth < 8; depth++) def = internals(def.innerType);
  if (def?.type !== "union" || !def.options?.includes(VARIABLE_TEXT)) return undefined;
  return def.options.find((o) => internals(o)?.type === "number") as z.ZodNumber | undefined;
}

/** A number-or-variable field: its number schema, its title, and the value it takes when its variable cannot be read (its default). */
export interface VariableNumberField {
  number: z.ZodNumber;
  title: string;
  fallback: unknown;
}

const fieldsOf = new WeakMap<object, ReadonlyMap<string, VariableNumberField>>();

/** The top-level number-or-variable fields of an object schema, with their number schema and title. */
export function variableNumberFields(schema: unknown): ReadonlyMap<string, VariableNumberField> {
  if (!schema || typeof schema !== "object") return new Map();
  const known = fieldsOf.get(schema);
  if (known) return known;
  const found = new Map<string, VariableNumberField>();
  // The object itself, or the input side of a pipe (a config schema that transforms after parsing).
  let def = internals(schema);
  for (let depth = 0; def && def.type === "pipe" && depth < 8; depth++) def = internals(def.in);
  const shape = def?.shape;
  for (const [key, field] of Object.entries(shape ?? {})) {
    const number = numberBranch(field);
    if (!number) continue;
    const meta = z.globalRegistry.get(field as z.ZodType) as { title?: string } | undefined;
    const fallback = (field as z.ZodType).safeParse(undefined);
    found.set(key, { number, title: meta?.title ?? key, fallback: fallback.success ? fallback.data : undefined });
  }
  fieldsOf.set(schema, found);
  return found;
}

/**
 * `config` (already `${NAME}`-substituted) with each number-or-variable field that held a reference
 * (`raw`) read as its number. Throws, naming the field and the variable (never a value it did not
 * show), when the variable is unset or its value is not a number the field accepts.
 */
export function resolveVariableNumbers<C extends Record<string, unknown>>(
  fields: ReadonlyMap<string, Pick<VariableNumberField, "number" | "title">>,
  raw: Record<string, unknown>,
  config: C,
): VariablesResolved<C> {
  let out: Record<string, unknown> | undefined;
  for (const [key, { number, title }] of fields) {
    const name = wholeReferenceName(raw[key]);
    if (name === undefined) continue;
    const text = String(config[key] ?? "").trim();
    if (text === "") throw new Error(`${title} is \${${name}}, which is not set`);
    const parsed = number.safeParse(Number(text));
    if (!parsed.success) throw new Error(`${title} is \${${name}}, whose value "${text.length > 40 ? `${text.slice(0, 40)}…` : text}" is not ${describeNumber(number)}`);
    (out ??= { ...config })[key] = parsed.data;
  }
  return (out ?? config) as VariablesResolved<C>;
}

/** "a whole number from 1 to 65535", from the schema's JSON Schema form. */
function describeNumber(number: z.ZodNumber): string {
  const s = z.toJSONSchema(number) as { type?: string; minimum?: number; maximum?: number };
  const kind = s.type === "integer" ? "a whole number" : "a number";
  if (s.minimum !== undefined && s.maximum !== undefined) return `${kind} from ${s.minimum} to ${s.maximum}`;
  if (s.minimum !== undefined) return `${kind} of at least ${s.minimum}`;
  if (s.maximum !== undefined) return `${kind} of at most ${s.maximum}`;
  return kind;
}

/** A Node-RED property that is a whole reference, as stored here (`"${NAME}"`); else undefined. */
export function variableFromNodeRed(value: unknown): string | undefined {
  const name = wholeReferenceName(value);
  return name === undefined ? undefined : `\${${name}}`;
}

/**
 * A node's config with each number-or-variable field that holds `${NAME}` read once, as Node-RED
 * maps a node's properties when it starts (`get` is the node's `env.get`: a subflow's typed env
 * comes as a number, a variable as text). A field it cannot read takes the field's default and is
 * listed in `errors`, naming the field and the variable (the engine reports them as the node's
 * errors; Node-RED's node would compute with NaN).
 */
export function resolveNumbersAtStart<C extends Record<string, unknown>>(
  schema: unknown,
  config: C,
  get: (name: string) => unknown,
): { config: VariablesResolved<C>; errors: string[] } {
  const fields = variableNumberFields(schema);
  let values: Record<string, unknown> | undefined;
  const errors: string[] = [];
  for (const [key, field] of fields) {
    const name = wholeReferenceName(config[key]);
    if (name === undefined) continue;
    const value = get(name);
    const text = value === undefined || value === null ? "" : typeof value === "string" ? value : String(value);
    values ??= { ...config };
    try {
      values[key] = resolveVariableNumbers(new Map([[key, field]]), config, { [key]: text })[key];
    } catch (err) {
      errors.push((err as Error).message);
      values[key] = field.fallback;
    }
  }
  return { config: (values ?? config) as VariablesResolved<C>, errors };
}
