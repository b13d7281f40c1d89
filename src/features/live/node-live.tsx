"use client";

import { useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { errorInfo, useTRPC } from "@/trpc/react";
import type { FlowRuntimeView } from "./use-flow-live";

/** Why the Inject button cannot be used now, or null when it can. */
export function injectBlocker(runtime: FlowRuntimeView | null, canInject: boolean, dirtyNode: boolean): string | null {
  if (!canInject) return "Viewers cannot inject messages.";
  if (!runtime || runtime.state === "not_deployed") return "Deploy the flow to inject.";
  if (!runtime.enabled) return "The flow is disabled: enable it to inject.";
  if (runtime.state !== "running") return `The flow is ${runtime.state === "error" ? "in error" : "stopped"}: deploy it to inject.`;
  if (dirtyNode) return "This node is not deployed yet: deploy to inject.";
  return null;
}

/** The `Inject` button on an inject node: fires the deployed node; disabled with the reason otherwise. */
export function InjectButton({ nodeId, runtime, canInject, notDeployed = false }: { nodeId: string; runtime: FlowRuntimeView | null; canInject: boolean; notDeployed?: boolean }) {
  const trpc = useTRPC();
  const inject = useMutation(trpc.nodes.inject.mutationOptions());
  const [feedback, setFeedback] = useState<{ kind: "ok" | "error"; text: string } | null>(null);
  const blocker = injectBlocker(runtime, canInject, notDeployed);
  const reasonId = `inject-reason-${nodeId}`;
  return (
    <div className="inject-action nodrag nopan">
      <button
        type="button"
        className="small"
        disabled={blocker !== null || inject.isPending}
        title={blocker ?? "Send a message from this node now"}
        aria-describedby={blocker ? reasonId : undefined}
        onPointerDown={(e) => e.stopPropagation()}
        onDoubleClick={(e) => e.stopPropagation()}
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
      {blocker && (
        <span id={reasonId} className="visually-hidden">
          {blocker}
        </span>
      )}
      {feedback && (
        <span className={feedback.kind === "ok" ? "inject-ok" : "error"} role={feedback.kind === "ok" ? "status" : "alert"} onAnimationEnd={() => setFeedback(null)}>
          {feedback.text}
        </span>
      )}
    </div>
  );
}
