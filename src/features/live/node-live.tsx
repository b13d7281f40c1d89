"use client";

import { useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { errorInfo, useTRPC } from "@/trpc/react";
import type { FlowRuntimeView } from "./use-flow-live";
import { useEditor } from "@/features/editor/editor-api";
import type { EditorNode } from "@/features/editor/model";

/** Why the Inject button cannot be used now, or null when it can. */
export function injectBlocker(runtime: FlowRuntimeView | null, canInject: boolean, dirtyNode: boolean): string | null {
  if (!canInject) return "Viewers cannot inject messages.";
  if (!runtime || runtime.state === "not_deployed") return "Deploy the flow to inject.";
  if (!runtime.enabled) return "The flow is disabled: enable it to inject.";
  if (runtime.state !== "running") return `The flow is ${runtime.state === "error" ? "in error" : "stopped"}: deploy it to inject.`;
  if (dirtyNode) return "This node is not deployed yet: deploy to inject.";
  return null;
}

type Feedback = { kind: "ok" | "error"; text: string };

/** A button on a canvas node: described by why it cannot be used, and its presses kept from the canvas (no drag, no node dialog). */
const nodeButtonProps = (blocker: string | null, reasonId: string) => ({
  "aria-describedby": blocker ? reasonId : undefined,
  onPointerDown: (e: { stopPropagation(): void }) => e.stopPropagation(),
  onDoubleClick: (e: { stopPropagation(): void }) => e.stopPropagation(),
});

/** What a node's button says beside it: why it cannot be used (to screen readers), and how its last press went (fading). */
function ActionNotes({ blocker, reasonId, feedback, onShown }: { blocker: string | null; reasonId: string; feedback: Feedback | null; onShown: () => void }) {
  return (
    <>
      {blocker && (
        <span id={reasonId} className="visually-hidden">
          {blocker}
        </span>
      )}
      {feedback && (
        <span className={feedback.kind === "ok" ? "inject-ok" : "error"} role={feedback.kind === "ok" ? "status" : "alert"} onAnimationEnd={onShown}>
          {feedback.text}
        </span>
      )}
    </>
  );
}

/** The `Inject` button on an inject node: fires the deployed node; disabled with the reason otherwise. */
export function InjectButton({ nodeId, runtime, canInject, notDeployed = false }: { nodeId: string; runtime: FlowRuntimeView | null; canInject: boolean; notDeployed?: boolean }) {
  const trpc = useTRPC();
  const inject = useMutation(trpc.nodes.inject.mutationOptions());
  const [feedback, setFeedback] = useState<Feedback | null>(null);
  const blocker = injectBlocker(runtime, canInject, notDeployed);
  const reasonId = `inject-reason-${nodeId}`;
  return (
    <div className="inject-action nodrag nopan">
      <button
        type="button"
        className="small"
        disabled={blocker !== null || inject.isPending}
        title={blocker ?? "Send a message from this node now"}
        {...nodeButtonProps(blocker, reasonId)}
        onClick={(e) => {
          e.stopPropagation();
          setFeedback(null);
          inject.mutate(
            { nodeId },
            {
              onSuccess: () => setFeedback({ kind: "ok", text: "Injected" }),
              onError: (err) => setFeedback({ kind: "error", text: errorInfo(err).message }),
            },
          );
        }}
      >
        Inject
      </button>
      <ActionNotes blocker={blocker} reasonId={reasonId} feedback={feedback} onShown={() => setFeedback(null)} />
    </div>
  );
}

/**
 * The button on a debug node (Node-RED's): pressed while the node shows messages. In a running flow
 * it switches the deployed node at once, without a deploy (POST /nodes/{id}/active), and the
 * node's Active setting with it (an edit, saved with the flow); otherwise the setting alone, in
 * effect from the next deploy. A node not deployed yet (or a device flow none of whose devices is
 * online) gets the setting alone.
 */
export function DebugButton({ node, runtime, canSwitch }: { node: EditorNode; runtime: FlowRuntimeView | null; canSwitch: boolean }) {
  const api = useEditor();
  const trpc = useTRPC();
  const switchNode = useMutation(trpc.nodes.setActive.mutationOptions());
  const [feedback, setFeedback] = useState<Feedback | null>(null);
  const active = node.data.config.active !== false;
  const blocker = api.readOnly || !canSwitch ? "Viewers cannot switch debug nodes." : null;
  const reasonId = `debug-reason-${node.id}`;
  const running = runtime !== null && runtime.state === "running" && runtime.enabled;
  const flip = (next: boolean, text: string) => {
    api.setNodeConfig(node.id, { active: next });
    setFeedback({ kind: "ok", text });
  };
  return (
    <div className="inject-action nodrag nopan">
      <button
        type="button"
        className={`small debug-toggle${active ? "" : " off"}`}
        aria-label="Active"
        aria-pressed={active}
        disabled={blocker !== null || switchNode.isPending}
        title={blocker ?? (active ? "Showing messages: press to stop" : "Not showing messages: press to show them")}
        {...nodeButtonProps(blocker, reasonId)}
        onClick={(e) => {
          e.stopPropagation();
          setFeedback(null);
          const next = !active;
          if (!running) {
            flip(next, next ? "On from the next deploy" : "Off from the next deploy");
            return;
          }
          switchNode.mutate(
            { nodeId: node.id, active: next },
            {
              onSuccess: () => flip(next, next ? "Showing" : "Stopped"),
              onError: (err) => {
                const info = errorInfo(err);
                // Saved but not deployed yet: the setting alone, as when the flow does not run.
                if (info.code === "FLOW_NOT_RUNNING") flip(next, next ? "On from the next deploy" : "Off from the next deploy");
                else setFeedback({ kind: "error", text: info.message });
              },
            },
          );
        }}
      >
        {active ? "On" : "Off"}
      </button>
      <ActionNotes blocker={blocker} reasonId={reasonId} feedback={feedback} onShown={() => setFeedback(null)} />
    </div>
  );
}

/**
 * Every debug node of the flow on or off at once (Node-RED's "activate / deactivate all debug
 * nodes"), as its button does for one: in a running flow the deployed ones switch at once (POST
 * /flows/{id}/debug/active) and their Active settings with them (one edit, saved with the flow);
 * otherwise the settings alone, in effect from the next deploy.
 */
export function DebugNodesSwitch({ runtime, canSwitch }: { runtime: FlowRuntimeView | null; canSwitch: boolean }) {
  const api = useEditor();
  const trpc = useTRPC();
  const switchAll = useMutation(trpc.flows.setDebugActive.mutationOptions());
  const [feedback, setFeedback] = useState<Feedback | null>(null);
  const debugIds = api.nodes.filter((n) => n.data.type === "debug").map((n) => n.id);
  const blocker = api.readOnly || !canSwitch ? "Viewers cannot switch debug nodes." : debugIds.length === 0 ? "This flow has no debug nodes." : null;
  const running = runtime !== null && runtime.state === "running" && runtime.enabled;
  const count = (n: number) => `${n} debug node${n === 1 ? "" : "s"}`;
  const apply = (active: boolean, note: string) => {
    api.setNodeConfig(debugIds, { active });
    setFeedback({ kind: "ok", text: `${count(debugIds.length)} ${active ? "on" : "off"}${note}` });
  };
  const press = (active: boolean) => {
    setFeedback(null);
    if (!running) {
      apply(active, " from the next deploy");
      return;
    }
    switchAll.mutate(
      { id: api.flowId, active },
      {
        onSuccess: () => apply(active, ""),
        onError: (err) => {
          const info = errorInfo(err);
          if (info.code === "FLOW_NOT_RUNNING") apply(active, " from the next deploy");
          else setFeedback({ kind: "error", text: info.message });
        },
      },
    );
  };
  const reasonId = "debug-nodes-switch-reason";
  return (
    <div className="debug-nodes-switch" role="group" aria-label="Debug nodes of this flow">
      <span className="muted" aria-hidden="true">
        Debug nodes
      </span>
      <button type="button" className="small secondary" disabled={blocker !== null || switchAll.isPending} aria-describedby={blocker ? reasonId : undefined} title={blocker ?? "Every debug node of this flow shows its messages"} onClick={() => press(true)}>
        All on
      </button>
      <button type="button" className="small secondary" disabled={blocker !== null || switchAll.isPending} aria-describedby={blocker ? reasonId : undefined} title={blocker ?? "No debug node of this flow shows its messages"} onClick={() => press(false)}>
        All off
      </button>
      <ActionNotes blocker={blocker} reasonId={reasonId} feedback={feedback} onShown={() => setFeedback(null)} />
    </div>
  );
}
