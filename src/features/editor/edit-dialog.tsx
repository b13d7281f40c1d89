"use client";

import { useMemo, useState, type FormEvent } from "react";
import { useMutation, useQuery } from "@tanstack/react-query";
import { Alert } from "@/components/alert";
import { Dialog } from "@/components/dialog";
import { errorInfo, useTRPC } from "@/trpc/react";
import { NODE_DESCRIPTION_MAX_CHARS, NODE_ICON_MAX_CHARS, PORT_LABEL_MAX_CHARS, nodeAppearanceSchema, normalizeAppearance, type Connection, type NodeAppearance } from "@/shared/flow-graph";
import { labelShown, outputsOf, portOf, type Catalog, type EditorEdge, type EditorNode } from "./model";
import { SchemaForm, type JsonSchema } from "./schema-form";
import { HelpDisclosure, useNodeHelp } from "./node-help";
import { SubflowEnvForm } from "./subflow-env-form";
import { JUNCTION_TYPE, SUBFLOW_PORT_TYPES, subflowIdOfType } from "@/shared/subflows";
import { NAME_MAX_CHARS } from "@/shared/policy";

export interface NodeEdit {
  name: string;
  config: Record<string, unknown>;
  disabled: boolean;
  /** What the flow's author wrote about the node (Markdown); "" for none. */
  description: string;
  /** The node's outgoing wires after the edit (the Wires section). */
  wires: Connection[];
  /** Its label shown or hidden, its icon, its port labels (Node-RED's Appearance tab); undefined for none. */
  appearance: NodeAppearance | undefined;
}

/**
 * Node-RED's Appearance tab: the label shown or hidden, another icon, and a label for the input and
 * each output (their tooltips on the canvas). Folded away until opened.
 */
function AppearanceSection({
  value,
  onChange,
  inputs,
  outputs,
  iconError,
  initiallyOpen,
}: {
  initiallyOpen: boolean;
  value: { showLabel: boolean; icon: string; inputLabel: string; outputLabels: string[] };
  onChange: (next: { showLabel: boolean; icon: string; inputLabel: string; outputLabels: string[] }) => void;
  inputs: number;
  outputs: number;
  iconError?: string;
}) {
  const set = (patch: Partial<typeof value>) => onChange({ ...value, ...patch });
  return (
    // Open from the start when the node has an appearance of its own; after that the person opens and closes it.
    <details className="appearance-section" open={initiallyOpen || undefined}>
      <summary>Appearance</summary>
      <div className="checkbox">
        <input id="node-show-label" type="checkbox" checked={value.showLabel} onChange={(e) => set({ showLabel: e.target.checked })} />
        <label htmlFor="node-show-label">Show label</label>
      </div>
      <div className="field">
        <label htmlFor="node-icon">Icon</label>
        <input
          id="node-icon"
          type="text"
          maxLength={NODE_ICON_MAX_CHARS}
          value={value.icon}
          onChange={(e) => set({ icon: e.target.value })}
          placeholder="the type's own"
          aria-describedby={iconError ? "node-icon-hint node-icon-error" : "node-icon-hint"}
          aria-invalid={iconError ? true : undefined}
        />
        <p className="hint" id="node-icon-hint">
          As Node-RED names icons: <code>font-awesome/fa-car</code>, or one of Node-RED&apos;s own such as <code>node-red/timer.svg</code>. Empty: the type&apos;s icon.
        </p>
        {iconError ? (
          <p id="node-icon-error" className="error" role="alert">
            {iconError}
          </p>
        ) : null}
      </div>
      {inputs > 0 ? (
        <div className="field">
          <label htmlFor="node-input-label">Input label</label>
          <input id="node-input-label" type="text" maxLength={PORT_LABEL_MAX_CHARS} value={value.inputLabel} onChange={(e) => set({ inputLabel: e.target.value })} />
        </div>
      ) : null}
      {Array.from({ length: outputs }, (_, i) => (
        <div className="field" key={i}>
          <label htmlFor={`node-output-label-${i}`}>{outputs === 1 ? "Output label" : `Output ${i + 1} label`}</label>
          <input
            id={`node-output-label-${i}`}
            type="text"
            maxLength={PORT_LABEL_MAX_CHARS}
            value={value.outputLabels[i] ?? ""}
            onChange={(e) => {
              const next = Array.from({ length: Math.max(outputs, value.outputLabels.length) }, (_, j) => value.outputLabels[j] ?? "");
              next[i] = e.target.value;
              set({ outputLabels: next });
            }}
          />
        </div>
      ))}
    </details>
  );
}

function WiresSection({ node, outputs, nodes, wires, onChange, readOnly }: { node: EditorNode; outputs: number; nodes: EditorNode[]; wires: Connection[]; onChange: (w: Connection[]) => void; readOnly: boolean }) {
  const [filter, setFilter] = useState("");
  const targets = useMemo(() => {
    const f = filter.trim().toLowerCase();
    return nodes.filter((n) => n.id !== node.id && n.data.inputs > 0 && (!f || `${n.data.name} ${n.data.type} ${n.id}`.toLowerCase().includes(f)));
  }, [nodes, node.id, filter]);
  const has = (port: number, target: string) => wires.some((w) => w.source_port === port && w.target === target);
  const toggle = (port: number, target: string, on: boolean) =>
    onChange(on ? [...wires, { source: node.id, source_port: port, target }] : wires.filter((w) => !(w.source_port === port && w.target === target)));
  return (
    <section className="wires" aria-labelledby="wires-heading">
      <h3 id="wires-heading">Wires</h3>
      {outputs === 0 ? (
        <p className="hint">This node has no outputs.</p>
      ) : (
        <>
          <p className="hint">Choose the nodes each output sends to. The same as drawing a wire on the canvas.</p>
          {nodes.length > 12 ? (
            <div className="field">
              <label htmlFor="wire-filter">Filter targets</label>
              <input id="wire-filter" type="search" value={filter} onChange={(e) => setFilter(e.target.value)} />
            </div>
          ) : null}
          {Array.from({ length: outputs }, (_, port) => (
            <fieldset key={port} className="wire-port">
              <legend>{outputs === 1 ? "Output" : `Output ${port + 1}`}</legend>
              {targets.length === 0 ? <p className="hint">No node to wire to.</p> : null}
              <ul>
                {targets.map((t) => {
                  const id = `wire-${port}-${t.id}`;
                  return (
                    <li key={t.id} className="checkbox">
                      <input id={id} type="checkbox" checked={has(port, t.id)} disabled={readOnly} onChange={(e) => toggle(port, t.id, e.target.checked)} />
                      <label htmlFor={id}>
                        {t.data.name || t.data.type}{" "}
                        <span className="muted">
                          {t.data.type} · {t.id}
                        </span>
                      </label>
                    </li>
                  );
                })}
              </ul>
            </fieldset>
          ))}
        </>
      )}
    </section>
  );
}

/**
 * `Edit <type> node`: Name, one field per schema property, Disabled, and the Wires section. `Done`
 * asks the server to validate the config (the one zod schema) and shows refusals on their fields;
 * `Cancel` discards. While the dialog is open, `onPreview` reports the port count the draft config
 * gives, so the canvas node's ports follow a switch node's rules as they are edited.
 */
export function EditNodeDialog({
  node,
  nodes,
  edges,
  catalog,
  readOnly,
  onApply,
  onClose,
  onPreview,
  onOpenSubflow,
}: {
  /** A subflow instance's "Edit subflow": open its definition. */
  onOpenSubflow?: (subflowId: string) => void;
  node: EditorNode;
  nodes: EditorNode[];
  edges: EditorEdge[];
  catalog: Catalog;
  readOnly: boolean;
  onApply: (edit: NodeEdit) => void;
  onClose: () => void;
  onPreview: (outputs: number | null) => void;
}) {
  const trpc = useTRPC();
  const unknown = node.data.type === "unknown";
  // A junction and a subflow's port nodes have neither a description nor an appearance (the server keeps none).
  const junction = node.data.type === JUNCTION_TYPE || (SUBFLOW_PORT_TYPES as readonly string[]).includes(node.data.type);
  const subflowId = subflowIdOfType(node.data.type);
  const schemaQuery = useQuery({ ...trpc.nodes.schema.queryOptions({ type: node.data.type }), enabled: !unknown, staleTime: Infinity });
  const [name, setName] = useState(node.data.name);
  const [disabled, setDisabled] = useState(node.data.disabled);
  const [description, setDescription] = useState(node.data.description ?? "");
  const [appearance, setAppearance] = useState(() => ({
    showLabel: labelShown(node.data),
    icon: node.data.appearance?.icon ?? "",
    inputLabel: node.data.appearance?.input_labels?.[0] ?? "",
    outputLabels: node.data.appearance?.output_labels ?? [],
  }));
  const [config, setConfig] = useState(node.data.config);
  const [wires, setWires] = useState<Connection[]>(() => edges.filter((e) => e.source === node.id).map((e) => ({ source: e.source, source_port: portOf(e.sourceHandle), target: e.target })));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const validate = useMutation(trpc.nodes.validate.mutationOptions());
  const outputs = outputsOf(catalog, node.data.type, config);
  const entry = catalog.get(node.data.type);
  const help = useNodeHelp(node.data.type, entry);

  function changeConfig(next: Record<string, unknown>) {
    setErrors((current) => withoutAnswered(current, config, next));
    setConfig(next);
    const n = outputsOf(catalog, node.data.type, next);
    onPreview(n);
  }

  function close() {
    onPreview(null);
    onClose();
  }

  const iconError = appearance.icon.trim() && !nodeAppearanceSchema.shape.icon.safeParse(appearance.icon.trim()).success ? "Not an icon: a module and a file (node-red/timer.svg) or font-awesome/fa-<name>." : undefined;

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    if (readOnly) return close();
    if (iconError) return document.getElementById("node-icon")?.focus();
    setErrors({});
    let finalConfig = config;
    if (!unknown) {
      try {
        finalConfig = (await validate.mutateAsync({ type: node.data.type, config })).config;
      } catch (err) {
        const info = errorInfo(err);
        setErrors(Object.keys(info.fields).length > 0 ? info.fields : { "": info.message });
        return;
      }
    }
    const ports = outputsOf(catalog, node.data.type, finalConfig);
    onPreview(null);
    onApply({
      name: name.trim(),
      config: finalConfig,
      disabled: unknown ? true : disabled,
      description: description.trim() ? description : "",
      wires: wires.filter((w) => w.source_port < ports),
      appearance: junction
        ? undefined
        : normalizeAppearance({
            show_label: appearance.showLabel === !node.data.labelHidden ? undefined : appearance.showLabel,
            icon: appearance.icon.trim() || undefined,
            input_labels: node.data.inputs > 0 ? [appearance.inputLabel] : undefined,
            output_labels: appearance.outputLabels.slice(0, ports),
          }),
    });
  }

  const fieldErrorCount = Object.keys(errors).filter((k) => k !== "").length;
  return (
    <Dialog title={`Edit ${node.data.type} node`} open onClose={close} wide className="edit-node">
      <form method="post" onSubmit={onSubmit} noValidate>
        {entry ? <p className="hint">{entry.description}</p> : null}
        {errors[""] ? <Alert kind="error">{errors[""]}</Alert> : null}
        {fieldErrorCount > 0 ? <Alert kind="error">The server refused {fieldErrorCount === 1 ? "a value" : `${fieldErrorCount} values`}: see the marked fields.</Alert> : null}
        <fieldset disabled={readOnly} className="plain">
          <div className="field">
            <label htmlFor="node-name">Name</label>
            <input id="node-name" type="text" maxLength={NAME_MAX_CHARS} value={name} onChange={(e) => setName(e.target.value)} placeholder={node.data.type} autoFocus />
          </div>
          {unknown ? (
            <div className="field">
              <p>
                This node&apos;s Node-RED type <code>{node.data.unknownType}</code> is not available here. It is kept, disabled, so an export gives it back unchanged.
              </p>
              <pre>{JSON.stringify((node.data.config as { properties?: unknown }).properties ?? {}, null, 2)}</pre>
            </div>
          ) : subflowId ? (
            <>
              <SubflowEnvForm subflowId={subflowId} value={config} onChange={changeConfig} errors={errors} />
              {onOpenSubflow ? (
                <button type="button" className="secondary" onClick={() => onOpenSubflow(subflowId)}>
                  Edit subflow
                </button>
              ) : null}
            </>
          ) : schemaQuery.data ? (
            <SchemaForm hints={schemaQuery.data.form} schema={schemaQuery.data.schema as JsonSchema} value={config} onChange={changeConfig} errors={errors} />
          ) : schemaQuery.error ? (
            <Alert kind="error">{errorInfo(schemaQuery.error).message}</Alert>
          ) : (
            <p role="status">Loading the form…</p>
          )}
          {!unknown ? (
            <div className="checkbox">
              <input id="node-disabled" type="checkbox" checked={disabled} onChange={(e) => setDisabled(e.target.checked)} />
              <label htmlFor="node-disabled">Disabled</label>
            </div>
          ) : null}
          {/* A comment's text is its configuration; every other node has a description (Node-RED's Description tab). */}
          {node.data.type !== "comment" && !junction ? (
            <div className="field">
              <label htmlFor="node-description">Description</label>
              <textarea
                id="node-description"
                rows={4}
                maxLength={NODE_DESCRIPTION_MAX_CHARS}
                value={description}
                onChange={(e) => setDescription(e.target.value)}
                aria-describedby="node-description-hint"
              />
              <p className="hint" id="node-description-hint">
                Notes on this node for whoever reads the flow (Markdown), shown in the Node tab. Nothing that runs reads them.
              </p>
            </div>
          ) : null}
          {!junction ? <AppearanceSection initiallyOpen={Boolean(node.data.appearance)} value={appearance} onChange={setAppearance} inputs={node.data.inputs} outputs={outputs} iconError={iconError} /> : null}
        </fieldset>
        <WiresSection node={node} outputs={outputs} nodes={nodes} wires={wires} onChange={setWires} readOnly={readOnly} />
        <p className="hint">
          Node id <code>{node.id}</code>
        </p>
        {entry ? <HelpDisclosure name={entry.name} help={help} /> : null}
        <div className="actions">
          <button type="button" className="secondary" onClick={close}>
            Cancel
          </button>
          {!readOnly ? (
            <button type="submit" disabled={validate.isPending}>
              Done
            </button>
          ) : null}
        </div>
      </form>
    </Dialog>
  );
}

/** The value at a field's path ("libs[0].var"), as the server's errors name fields. */
function valueAt(value: unknown, path: string): unknown {
  let at = value;
  for (const key of path.split(/[.[\]]+/).filter(Boolean)) {
    if (at === null || typeof at !== "object") return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

/** A field's error is answered once its value changes (the next Done checks it again); the others stay. */
function withoutAnswered(errors: Record<string, string>, before: unknown, after: unknown): Record<string, string> {
  const kept: Record<string, string> = {};
  let dropped = false;
  for (const [path, message] of Object.entries(errors)) {
    if (path !== "" && !Object.is(valueAt(before, path), valueAt(after, path))) dropped = true;
    else kept[path] = message;
  }
  return dropped ? kept : errors;
}
