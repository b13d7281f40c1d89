"use client";

import { useMemo, useState } from "react";
import { Alert } from "@/components/alert";
import { ConfirmButton } from "@/components/dialog";
import { PendingButton } from "@/components/buttons";
import { errorInfo } from "@/trpc/react";
import type { ConfigNodeView } from "@/shared/config-nodes";
import { useEditor } from "../editor-api";
import { configNodeLabel, groupByType, isConfigType, staleUsers, usageText, userCount, type ConfigTypeInfo } from "../config-nodes/config-node-model";
import { ConfigNodeDialog } from "../config-nodes/config-node-dialog";
import { ConfigNodeUsers } from "../config-nodes/config-node-users";
import { useConfigNodeList, useConfigNodeWrites } from "../config-nodes/use-config-nodes";
import { useSidebarShell } from "./sidebar-context";
import type { SidebarTab } from "./tab";
import { nodeLabel as labelOf } from "@/shared/node-labels";

type Outcome = { id: string; text: string; error?: boolean; usedBy?: ConfigNodeView["used_by"] };

function ConfigNodeItem({ node, readOnly, outcome, busy, onOpen, onDelete, onDeployUsers }: { node: ConfigNodeView; readOnly: boolean; outcome: Outcome | null; busy: boolean; onOpen: () => void; onDelete: () => void; onDeployUsers: () => void }) {
  const { flowId, selectNode, nodes } = useEditor();
  const label = configNodeLabel(node);
  const unused = userCount(node.used_by) === 0;
  const stale = staleUsers(node);
  const nodeLabel = (id: string) => {
    const n = nodes.find((x) => x.id === id);
    return n ? labelOf(n.data) : id;
  };
  return (
    <li className={`config-node-item${unused ? " unused" : ""}`} data-config-node-id={node.id} aria-label={`${label} (${node.type})`}>
      <div className="config-node-line">
        <span className="config-node-name">{label}</span>
        <span className={`badge ${unused ? "unused" : "ok"}`}>{usageText(node.used_by)}</span>
      </div>
      {!unused ? (
        <details>
          <summary>Used by</summary>
          <ConfigNodeUsers usedBy={node.used_by} currentFlowId={flowId} onSelectNode={selectNode} nodeLabel={nodeLabel} />
        </details>
      ) : null}
      {stale.length > 0 ? (
        <p className="hint">
          {stale.length} deployed flow{stale.length === 1 ? " runs" : "s run"} an older revision.
        </p>
      ) : null}
      <div className="actions compact">
        <button type="button" className="secondary small" onClick={onOpen} aria-label={`${readOnly ? "View" : "Edit"} ${label}`}>
          {readOnly ? "View" : "Edit"}
        </button>
        {!readOnly && stale.length > 0 ? (
          <PendingButton className="small" pending={busy} pendingLabel="Deploying…" onClick={onDeployUsers} aria-label={`Deploy users of ${label}`}>
            Deploy users
          </PendingButton>
        ) : null}
        {!readOnly ? (
          <ConfirmButton
            className="secondary small"
            aria-label={`Delete ${label}`}
            title={`Delete ${node.type} configuration node`}
            message={<p>Delete “{label}”? A configuration node still in use is not deleted.</p>}
            confirmLabel="Delete"
            onConfirm={onDelete}
            pending={busy}
            pendingLabel="Deleting…"
          >
            Delete
          </ConfirmButton>
        ) : null}
      </div>
      {outcome ? (
        <Alert kind={outcome.error ? "error" : "ok"}>
          {outcome.text}
          {outcome.usedBy ? <ConfigNodeUsers usedBy={outcome.usedBy} currentFlowId={flowId} onSelectNode={selectNode} nodeLabel={nodeLabel} /> : null}
        </Alert>
      ) : null}
    </li>
  );
}

/**
 * The organization's configuration nodes (SPEC §19, Node-RED's "Configuration nodes" sidebar):
 * by type, how many nodes use each (unused ones marked), open one to edit (a viewer: to read),
 * delete (one in use is refused with who uses it), and "Deploy users" when deployed flows run an
 * older revision of it (`POST /config-nodes/{id}/deploy`). Types with no node yet can be added.
 */
function ConfigTab() {
  const { readOnly } = useEditor();
  const { catalog } = useSidebarShell();
  const { nodes, error } = useConfigNodeList();
  const writes = useConfigNodeWrites();
  const [open, setOpen] = useState<{ type: string; node: ConfigNodeView | null } | null>(null);
  const [addType, setAddType] = useState("");
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const groups = useMemo(() => groupByType(nodes ?? []), [nodes]);
  const configTypes = useMemo(() => [...catalog.values()].filter((e) => isConfigType(e as ConfigTypeInfo)).map((e) => e.type).sort(), [catalog]);
  const chosenType = addType || configTypes[0] || "";

  async function remove(node: ConfigNodeView) {
    setBusy(node.id);
    setOutcome(null);
    try {
      await writes.remove(node.id);
      setOutcome(null);
    } catch (err) {
      const info = errorInfo(err);
      const usedBy = info.code === "CONFIG_NODE_IN_USE" ? await writes.get(node.id).then((n) => n.used_by, () => node.used_by) : undefined;
      setOutcome({ id: node.id, text: `Not deleted: ${info.message}`, error: true, usedBy });
    } finally {
      setBusy(null);
    }
  }

  async function deployUsers(node: ConfigNodeView) {
    setBusy(node.id);
    setOutcome(null);
    try {
      const n = await writes.deployUsers(node.id);
      setOutcome({ id: node.id, text: n === 0 ? "No deployed flow uses it." : `Deployed ${n} flow${n === 1 ? "" : "s"} with revision ${node.revision}.` });
    } catch (err) {
      setOutcome({ id: node.id, text: `Not deployed: ${errorInfo(err).message}`, error: true });
    } finally {
      setBusy(null);
    }
  }

  return (
    <section className="config-tab" aria-label="Configuration nodes">
      {!readOnly && configTypes.length > 0 ? (
        <div className="config-tab-add">
          <label htmlFor="config-tab-add-type">Add a configuration node</label>
          <div className="row">
            <select id="config-tab-add-type" value={chosenType} onChange={(e) => setAddType(e.target.value)}>
              {configTypes.map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
            </select>
            <button type="button" className="secondary small" onClick={() => setOpen({ type: chosenType, node: null })} aria-label={`Add new ${chosenType}`}>
              Add…
            </button>
          </div>
        </div>
      ) : null}
      {error ? <Alert kind="error">{errorInfo(error).message}</Alert> : null}
      {nodes === null && !error ? <p role="status">Loading…</p> : null}
      {nodes !== null && groups.length === 0 ? <p className="hint">No configuration nodes yet. Nodes that need one (a TLS configuration, a proxy, a broker) add it from their form.</p> : null}
      {groups.map((g) => (
        <section key={g.type} className="config-type" aria-labelledby={`config-type-${g.type}`}>
          <h3 id={`config-type-${g.type}`}>
            {g.type} <span className="muted">({g.nodes.length})</span>
          </h3>
          <ul className="config-type-nodes">
            {g.nodes.map((n) => (
              <ConfigNodeItem
                key={n.id}
                node={n}
                readOnly={readOnly}
                busy={busy === n.id}
                outcome={outcome?.id === n.id ? outcome : null}
                onOpen={() => setOpen({ type: n.type, node: n })}
                onDelete={() => void remove(n)}
                onDeployUsers={() => void deployUsers(n)}
              />
            ))}
          </ul>
        </section>
      ))}
      {open ? (
        <ConfigNodeDialog
          key={open.node?.id ?? `new-${open.type}`}
          type={open.type}
          node={open.node}
          readOnly={readOnly}
          onClose={() => setOpen(null)}
          onSaved={() => setOpen(null)}
          onDeleted={() => setOpen(null)}
        />
      ) : null}
    </section>
  );
}

export const configTab: SidebarTab = { id: "configuration", label: "Configuration", component: ConfigTab };
