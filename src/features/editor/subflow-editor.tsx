"use client";

import Link from "next/link";
import { useMemo, useState, type ReactNode } from "react";
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/trpc/types";
import { errorInfo, useTRPCClient } from "@/trpc/react";
import { useRouter } from "next/navigation";
import { FlowEditor } from "./flow-editor";
import { SubflowPropertiesDialog, type SubflowProperties } from "./subflow-properties";
import { useEditor } from "./editor-api";
import type { CatalogEntry, EditorFlow } from "./model";
import type { GraphStore } from "./save/use-flow-save";
import type { SidebarTab } from "./sidebar/tab";

type SubflowDetail = inferRouterOutputs<AppRouter>["subflows"]["get"]["subflow"];

/** A definition as the editor's graph (it edits a definition as it edits a flow, SPEC §16). */
const asEditorFlow = (s: SubflowDetail): EditorFlow => ({ id: s.id, name: s.name, revision: s.revision, nodes: s.nodes, connections: s.connections, groups: s.groups }) as unknown as EditorFlow;

function SubflowToolbar({ subflow, origin, canDeploy }: { subflow: SubflowDetail; origin: { id: string; name: string } | null; canDeploy: boolean }) {
  const api = useEditor();
  const client = useTRPCClient();
  const [state, setState] = useState<{ busy: boolean; text: string; error?: boolean }>({ busy: false, text: "" });
  const [usedBy, setUsedBy] = useState(subflow.used_by);
  const [editing, setEditing] = useState(false);
  const router = useRouter();
  /** The definition's properties: the graph is saved first, then they are written and the page reloads the definition. */
  async function saveProperties(p: SubflowProperties) {
    if (api.dirty && !(await api.save())) throw new Error("the subflow's graph could not be saved");
    const current = await client.subflows.get.query({ id: subflow.id });
    await client.subflows.update.mutate({ id: subflow.id, revision: current.subflow.revision, name: p.name, category: p.category, color: p.color, env: p.env });
    setEditing(false);
    router.refresh();
  }
  const older = usedBy.filter((u) => u.deployed_revision !== null && !u.current).length;
  async function deploy() {
    setState({ busy: true, text: "Deploying…" });
    try {
      if (api.dirty && !(await api.save())) return setState({ busy: false, text: "Not deployed: the subflow could not be saved.", error: true });
      const { deployments } = await client.subflows.deploy.mutate({ id: subflow.id });
      setUsedBy((await client.subflows.get.query({ id: subflow.id })).subflow.used_by);
      setState({ busy: false, text: deployments.length === 0 ? "Saved; no deployed flow uses this subflow." : `Deployed to ${deployments.length} flow${deployments.length === 1 ? "" : "s"}.` });
    } catch (err) {
      setState({ busy: false, text: `Not deployed: ${errorInfo(err).message}`, error: true });
    }
  }
  return (
    <>
      <nav aria-label="Breadcrumb" className="editor-breadcrumb">
        <ol>
          <li>{origin ? <Link href={`/flows/${origin.id}`}>{origin.name}</Link> : <Link href="/flows">Flows</Link>}</li>
          <li aria-current="page">{api.flowName}</li>
        </ol>
      </nav>
      {canDeploy && !api.readOnly ? (
        <button type="button" onClick={() => void deploy()} disabled={state.busy}>
          Deploy
        </button>
      ) : null}
      <button type="button" className="secondary" onClick={() => setEditing(true)}>
        Subflow properties
      </button>
      {editing ? (
        <SubflowPropertiesDialog
          initial={{ name: subflow.name, category: subflow.category, color: subflow.color, env: subflow.env }}
          readOnly={api.readOnly}
          onSave={saveProperties}
          onClose={() => setEditing(false)}
        />
      ) : null}
      <span className="hint" role="status">
        {state.text ||
          (usedBy.length === 0
            ? "No flow uses this subflow yet."
            : `Used by ${usedBy.length} flow${usedBy.length === 1 ? "" : "s"}${older > 0 ? `; ${older} run${older === 1 ? "s" : ""} an older revision (Deploy updates ${older === 1 ? "it" : "them"})` : ""}.`)}
      </span>
    </>
  );
}

/**
 * A subflow definition in the flow editor (/subflows/{id}, SPEC §16): its graph with the port
 * nodes (subflow-in, subflow-out, subflow-status) in the palette; Save writes the definition
 * (PUT /subflows/{id}, with its revision), Deploy saves and redeploys the flows that use it
 * (POST /subflows/{id}/deploy). The breadcrumb leads back to the flow it was opened from.
 */
export function SubflowEditor({
  subflow,
  origin,
  catalog,
  readOnly,
  canDeploy,
  sidebarTabs,
  notice,
}: {
  subflow: SubflowDetail;
  origin: { id: string; name: string } | null;
  catalog: CatalogEntry[];
  readOnly: boolean;
  canDeploy: boolean;
  /** Tabs after the editor's own (the live Debug tab, features/live/live-subflow-editor.tsx). */
  sidebarTabs?: SidebarTab[];
  /** Shown at the toolbar's end (the live connection's banner). */
  notice?: ReactNode;
}) {
  const client = useTRPCClient();
  const flow = useMemo(() => asEditorFlow(subflow), [subflow]);
  const target = useMemo(() => {
    const store: GraphStore = {
      get: async (id) => ({ flow: asEditorFlow((await client.subflows.get.query({ id })).subflow) }),
      update: async ({ id, revision, nodes, connections, groups }) => ({ flow: asEditorFlow((await client.subflows.update.mutate({ id, revision, nodes, connections, groups: groups ?? [] })).subflow) }),
    };
    return { id: subflow.id, store };
  }, [client, subflow.id]);
  return (
    <FlowEditor
      flow={flow}
      catalog={catalog}
      readOnly={readOnly}
      subflow={target}
      sidebarTabs={sidebarTabs}
      toolbar={
        <>
          <SubflowToolbar subflow={subflow} origin={origin} canDeploy={canDeploy} />
          {notice ? <div className="live-toolbar-notice">{notice}</div> : null}
        </>
      }
    />
  );
}
