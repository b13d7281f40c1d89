"use client";

import { useDeferredValue, useState } from "react";
import Link from "next/link";
import { useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import { Alert } from "@/components/alert";
import { ACTIONS_COLUMN, DataTable } from "@/components/data-table";
import { ConfirmDialog } from "@/components/dialog";
import { errorInfo, useTRPC, useTRPCClient } from "@/trpc/react";
import { NewFlowDialog } from "./new-flow-dialog";
import { ImportDialog } from "./import-dialog";
import { downloadText, fileNameFor, stateLabels, type FlowListItem } from "./types";
import "./flows.css";

const PAGE = 50;

function FlowRow({ flow, canWrite, onDelete, onError }: { flow: FlowListItem; canWrite: boolean; onDelete: (f: FlowListItem) => void; onError: (m: string) => void }) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const queryClient = useQueryClient();
  const toggle = useMutation(
    trpc.flows.update.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.flows.list.pathKey() }),
      onError: (e) => onError(errorInfo(e).message),
    }),
  );
  async function exportFlow() {
    try {
      const json = await client.flows.export.query({ id: flow.id });
      downloadText(fileNameFor(flow.name), JSON.stringify(json, null, 2));
    } catch (e) {
      onError(errorInfo(e).message);
    }
  }
  return (
    <tr>
      <td>
        <Link href={`/flows/${flow.id}`}>{flow.name}</Link>
        {!flow.enabled ? <span className="badge warn">Disabled</span> : null}
      </td>
      <td className="state">
        <span className={`flow-state ${flow.state}`}>{stateLabels[flow.state]}</span>
      </td>
      <td className="num">
        {flow.nodes} <span className="visually-hidden">nodes</span>
      </td>
      <td className="row-actions">
        <button type="button" className="secondary small" onClick={exportFlow} aria-label={`Export ${flow.name}`}>
          Export
        </button>
        {canWrite ? (
          <>
            <button
              type="button"
              className="secondary small"
              aria-label={`${flow.enabled ? "Disable" : "Enable"} ${flow.name}`}
              disabled={toggle.isPending}
              onClick={() => toggle.mutate({ id: flow.id, enabled: !flow.enabled })}
            >
              {flow.enabled ? "Disable" : "Enable"}
            </button>
            <button type="button" className="secondary small" aria-label={`Delete ${flow.name}`} onClick={() => onDelete(flow)}>
              Delete
            </button>
          </>
        ) : null}
      </td>
    </tr>
  );
}

/** The flows of the organization: search, pages of 50, new, import, export, enable/disable, delete. */
export function FlowsList({ canWrite }: { canWrite: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [search, setSearch] = useState("");
  const name = useDeferredValue(search.trim());
  const [dialog, setDialog] = useState<"new" | "import" | null>(null);
  const [deleting, setDeleting] = useState<FlowListItem | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const list = useInfiniteQuery(
    trpc.flows.list.infiniteQueryOptions({ limit: PAGE, ...(name ? { name } : {}) }, { getNextPageParam: (last) => last.next_cursor ?? undefined }),
  );
  const remove = useMutation(
    trpc.flows.delete.mutationOptions({
      onSuccess: () => {
        setMessage(`Deleted “${deleting?.name}”.`);
        setDeleting(null);
        return queryClient.invalidateQueries({ queryKey: trpc.flows.list.pathKey() });
      },
    }),
  );
  const flows = list.data?.pages.flatMap((p) => p.flows) ?? [];

  return (
    <>
      <div className="toolbar-row">
        <div className="field search-field">
          <label htmlFor="flow-search">Search flows</label>
          <input id="flow-search" type="search" value={search} onChange={(e) => setSearch(e.target.value)} placeholder="Name contains…" />
        </div>
        {canWrite ? (
          <div className="actions">
            <button type="button" onClick={() => setDialog("new")}>
              New flow
            </button>
            <button type="button" className="secondary" onClick={() => setDialog("import")}>
              Import
            </button>
          </div>
        ) : null}
      </div>
      {message ? <Alert kind="ok">{message}</Alert> : null}
      {list.error ? <Alert kind="error">{errorInfo(list.error).message}</Alert> : null}
      <section className="card" aria-label="Flow list">
        {list.isPending ? (
          <p role="status">Loading flows…</p>
        ) : flows.length === 0 ? (
          <p>{name ? `No flow's name contains “${name}”.` : canWrite ? "No flows yet. Create one, or import a Node-RED export." : "No flows yet."}</p>
        ) : (
          <DataTable className="flows-table stack-on-phone" columns={["Name", "State", { label: "Nodes", className: "num" }, ACTIONS_COLUMN]}>
            {flows.map((f) => (
              <FlowRow key={f.id} flow={f} canWrite={canWrite} onDelete={setDeleting} onError={setMessage} />
            ))}
          </DataTable>
        )}
        {list.hasNextPage ? (
          <div className="actions">
            <button type="button" className="secondary" onClick={() => list.fetchNextPage()} disabled={list.isFetchingNextPage}>
              Show more flows
            </button>
          </div>
        ) : null}
      </section>
      <NewFlowDialog open={dialog === "new"} onClose={() => setDialog(null)} />
      <ImportDialog open={dialog === "import"} onClose={() => setDialog(null)} />
      <ConfirmDialog
        title={`Delete “${deleting?.name ?? ""}”?`}
        open={deleting !== null}
        confirmLabel="Delete flow"
        danger
        busy={remove.isPending}
        onConfirm={() => deleting && remove.mutate({ id: deleting.id })}
        onClose={() => {
          remove.reset();
          setDeleting(null);
        }}
      >
        <p>The flow stops and its deployments are deleted with it. This cannot be undone.</p>
        {remove.error ? <Alert kind="error">{errorInfo(remove.error).message}</Alert> : null}
      </ConfirmDialog>
    </>
  );
}
