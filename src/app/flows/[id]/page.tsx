import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { SignedInHeader } from "@/features/accounts/signed-in-header";
import { requireProfile } from "@/features/accounts/current-user";
import { asRole, can } from "@/features/organizations/roles";
import { LiveFlowEditor } from "@/features/live/live-flow-editor";
import { serverCaller } from "@/trpc/server";
import { withoutHelp } from "@/features/editor/lean-catalog";
import { SkipToCanvas } from "@/features/editor/skip-link";

export const metadata: Metadata = { title: "Flow editor" };

function isNotFound(err: unknown): boolean {
  const e = err as { name?: unknown; code?: unknown } | null;
  return e?.name === "TRPCError" && (e.code === "NOT_FOUND" || e.code === "BAD_REQUEST");
}

export default async function FlowEditorPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const profile = await requireProfile(`/flows/${id}`);
  const { caller } = await serverCaller();
  let flow;
  try {
    flow = (await caller.flows.get({ id })).flow;
  } catch (err) {
    if (isNotFound(err)) notFound();
    throw err;
  }
  const [{ nodes }, { devices }] = await Promise.all([caller.nodes.list(), caller.devices.list()]);
  // A device flow's palette lists its devices' node types (SPEC §22).
  const target = flow.target;
  const targeted = target === "hosted" ? [] : devices.filter((d) => ("device_id" in target ? d.id === target.device_id : d.tags.includes(target.device_tag)));
  const deviceTypes = [...new Set(targeted.flatMap((d) => d.node_types ?? []))].sort();
  return (
    <div className="editor-page">
      <SkipToCanvas />
      <SignedInHeader email={profile.user.email} />
      <main className="editor-main">
        <LiveFlowEditor
          flow={flow}
          catalog={withoutHelp(nodes)}
          readOnly={!can(asRole(profile.role), "flows:write")}
          canDeploy={can(asRole(profile.role), "flows:deploy")}
          canInject={can(asRole(profile.role), "nodes:inject")}
          canEditContext={can(asRole(profile.role), "context:write")}
          canReplay={can(asRole(profile.role), "executions:replay")}
          deviceTypes={deviceTypes}
          target={{ value: flow.target, devices: devices.filter((d) => d.kind !== "mqtt").map((d) => ({ id: d.id, name: d.name, tags: d.tags })), canWrite: can(asRole(profile.role), "flows:write"), states: flow.devices ?? [] }}
        />
      </main>
    </div>
  );
}
