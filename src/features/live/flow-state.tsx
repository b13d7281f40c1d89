"use client";

import { useRef, useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { errorInfo, useTRPC, useTRPCClient } from "@/trpc/react";
import type { FlowDeviceState, FlowStateName } from "@/shared/realtime";
import { useLiveFrames } from "./live-context";
import type { EditorBridge } from "./editor-bridge";
import type { FlowLive } from "./use-flow-live";

/** A target device's state for the flow, as flows.get, flows.deploy and `flow.devices` give it (SPEC §22). */
export type DeviceState = Omit<FlowDeviceState, "online"> & { online?: boolean };

export const stateLabels: Record<FlowStateName, string> = {
  running: "Running",
  stopped: "Stopped",
  error: "Error",
  not_deployed: "Not deployed",
};

/**
 * The toolbar's deployment group: the flow's state in words and colour, whether the editor holds
 * changes that do not run yet, `Deploy` (saving first when needed) and Enable/Disable.
 */
export function DeployControl({
  editor,
  live,
  canDeploy,
  undefinedVariables = [],
  devices: initialDevices = [],
}: {
  editor: EditorBridge;
  live: FlowLive;
  canDeploy: boolean;
  /** Variables the flow uses that are defined nowhere: a deploy goes ahead, and says so. */
  undefinedVariables?: string[];
  /** A device flow's target devices and their states when the page loaded (SPEC §22); each deploy brings them anew. */
  devices?: DeviceState[];
}) {
  const trpc = useTRPC();
  const [busy, setBusy] = useState<null | "saving" | "deploying" | "toggling">(null);
  const [error, setError] = useState<string | null>(null);
  const [warning, setWarning] = useState<string | null>(null);
  const [devices, setDevices] = useState<DeviceState[]>(initialDevices);
  const deploy = useMutation(trpc.flows.deploy.mutationOptions());
  const update = useMutation(trpc.flows.update.mutationOptions());
  // A device that applies, fails to apply or is refused later (it connects, its Node-RED answers)
  // says so here at once. Events may cross each other and a deploy's answer: each one (and a
  // reconnect, after which missed events are lost) reads the states afresh, and only the newest
  // read is shown; a deploy's answer is shown only when no event came during the deploy. Each read
  // is a request of its own, sent after its event: the query cache would join one still in flight,
  // whose answer predates the event (an agent's hello while the page's `ready` read was out).
  const client = useTRPCClient();
  const events = useRef(0);
  const reads = useRef(0);
  useLiveFrames((frame) => {
    const mine = frame.type === "event" && frame.topic === "flow.devices" && frame.flow_id === editor.flowId;
    if (!mine && !(frame.type === "ready" && devices.length > 0)) return;
    events.current++;
    const read = ++reads.current;
    void client.flows.get.query({ id: editor.flowId }).then(
      (r) => {
        if (read === reads.current) setDevices((r.flow.devices as DeviceState[] | undefined) ?? []);
      },
      () => undefined,
    );
  });
  const runtime = live.runtime;
  if (!runtime) return null;

  // Only for a deployed flow ("Not deployed" says it all otherwise): unsaved work, or a saved graph
  // that differs from the running one. A diff, not the revision: enabling, disabling or renaming
  // the flow and moving nodes change no running node.
  const undeployed = runtime.deployedRevision !== null && (editor.dirty || editor.changedSinceDeploy);

  async function onDeploy() {
    setError(null);
    setWarning(null);
    try {
      if (editor.dirty) {
        setBusy("saving");
        const saved = await editor.save();
        if (!saved.ok) return;
      }
      setBusy("deploying");
      const eventsBefore = events.current;
      const result = await live.markOwnAction(() => deploy.mutateAsync({ id: editor.flowId }));
      live.patchRuntime({ state: result.deployment.state, error: result.state_error, deployedRevision: result.deployment.revision });
      editor.refreshDeployed();
      if (result.deployment.state === "error") {
        // Said at once, naming the node (and showing it) when the reason starts with its id.
        const reason = result.state_error ?? "the reason is in the flow's log";
        const byNode = /^([A-Za-z0-9_-]{1,64}): /.exec(reason);
        const name = byNode ? editor.nodeName(byNode[1]!) : null;
        if (byNode && name !== null) editor.highlightNode(byNode[1]!);
        setError(`Deployed, but the flow could not start: ${byNode && name !== null ? `node “${name}”: ${reason.slice(byNode[0].length)}` : reason}`);
        return;
      }
      // A device flow (SPEC §22): devices that cannot run it say why (shown until they run it);
      // those that were offline (or slow) get it when they connect.
      if (result.devices && events.current === eventsBefore) setDevices(result.devices);
      const pending = result.devices?.filter((d) => result.pending?.includes(d.device_id) && d.state !== "refused").map((d) => d.name) ?? [];
      if (pending.length > 0) setWarning(`Deployed; not applied yet on ${pending.join(", ")} (offline or still applying): ${pending.length === 1 ? "it gets" : "they get"} it when ${pending.length === 1 ? "it connects" : "they connect"}.`);
      else if (undefinedVariables.length > 0) {
        setWarning(`Deployed, but ${undefinedVariables.length === 1 ? "this variable is" : "these variables are"} not defined: ${undefinedVariables.join(", ")}. Define ${undefinedVariables.length === 1 ? "it" : "them"} under Settings → Variables.`);
      }
    } catch (err) {
      setError(errorInfo(err).message);
    } finally {
      setBusy(null);
    }
  }

  async function onToggle() {
    setError(null);
    setBusy("toggling");
    try {
      const result = await live.markOwnAction(() => update.mutateAsync({ id: editor.flowId, enabled: !runtime!.enabled }));
      // Enabling changes no node: the editor's unsaved work stays valid against the new revision.
      if (result.flow.revision === editor.revision + 1) editor.adoptRevision(result.flow.revision);
      live.patchRuntime({ enabled: result.flow.enabled, state: result.flow.state, error: result.flow.state_error });
    } catch (err) {
      setError(errorInfo(err).message);
    } finally {
      setBusy(null);
    }
  }

  const label = stateLabels[runtime.state];
  return (
    <div className="deploy-control" role="group" aria-label="Deployment">
      <span className={`flow-state ${runtime.state}`} data-testid="flow-state" title={runtime.error ?? undefined}>
        <span className="dot" aria-hidden="true" />
        {runtime.state === "error" && runtime.error ? `${label}: ${runtime.error}` : label}
        {runtime.state !== "not_deployed" && !runtime.enabled ? " (disabled)" : ""}
      </span>
      {undeployed && <span className="badge warn">Undeployed changes</span>}
      {canDeploy && (
        <>
          <button type="button" onClick={onDeploy} disabled={busy !== null}>
            {busy === "saving" ? "Saving…" : busy === "deploying" ? "Deploying…" : "Deploy"}
          </button>
          {runtime.deployedRevision !== null && (
            <button type="button" className="secondary" onClick={onToggle} disabled={busy !== null}>
              {runtime.enabled ? "Disable" : "Enable"}
            </button>
          )}
        </>
      )}
      {error && (
        <span className="error" role="alert">
          {error}
        </span>
      )}
      {warning && !error && (
        <span className="badge warn" role="status">
          {warning}
        </span>
      )}
      {devices
        .filter((d) => d.state === "refused")
        .map((d) => (
          <span key={d.device_id} className="badge warn" role="status" data-testid="device-refused">
            {`${d.name} cannot run this deployment: ${d.error}. ${d.deployment_id ? "It goes on running the deployment before." : "It runs nothing of this flow."}`}
          </span>
        ))}
    </div>
  );
}
