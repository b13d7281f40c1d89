import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { SignedInHeader } from "@/features/accounts/signed-in-header";
import { requireProfile } from "@/features/accounts/current-user";
import { asRole, can } from "@/features/organizations/roles";
import { LiveSubflowEditor } from "@/features/live/live-subflow-editor";
import { serverCaller } from "@/trpc/server";
import { withoutHelp } from "@/features/editor/lean-catalog";
import { SkipToCanvas } from "@/features/editor/skip-link";

export const metadata: Metadata = { title: "Subflow editor" };

function isNotFound(err: unknown): boolean {
  const e = err as { name?: unknown; code?: unknown } | null;
  return e?.name === "TRPCError" && (e.code === "NOT_FOUND" || e.code === "BAD_REQUEST");
}

/** A subflow definition in the flow editor (SPEC §16); `?from=<flow id>` is the flow it was opened from (the breadcrumb's way back). */
export default async function SubflowEditorPage({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<{ from?: string | string[] }> }) {
  const { id } = await params;
  const { from } = await searchParams;
  const profile = await requireProfile(`/subflows/${id}`);
  const { caller } = await serverCaller();
  let subflow;
  try {
    subflow = (await caller.subflows.get({ id })).subflow;
  } catch (err) {
    if (isNotFound(err)) notFound();
    throw err;
  }
  let origin: { id: string; name: string } | null = null;
  if (typeof from === "string" && from) {
    try {
      const { flow } = await caller.flows.get({ id: from });
      origin = { id: flow.id, name: flow.name };
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
  const { nodes } = await caller.nodes.list();
  return (
    <div className="editor-page">
      <SkipToCanvas />
      <SignedInHeader email={profile.user.email} />
      <main className="editor-main">
        <LiveSubflowEditor key={`${subflow.id}:${subflow.revision}`} subflow={subflow} origin={origin} catalog={withoutHelp(nodes)} readOnly={!can(asRole(profile.role), "subflows:write")} canDeploy={can(asRole(profile.role), "flows:deploy")} />
      </main>
    </div>
  );
}
