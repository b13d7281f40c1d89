"use client";

import { useState } from "react";
import { useRouter } from "next/navigation";
import { useMutation } from "@tanstack/react-query";
import { errorInfo, useTRPC } from "@/trpc/react";
import type { RouterOutputs } from "@/trpc/types";
import { useHydrated } from "@/components/use-hydrated";
import type { EditorBridge } from "./editor-bridge";

export type FlowTarget = RouterOutputs["flows"]["get"]["flow"]["target"];
export interface DeviceChoice {
  id: string;
  name: string;
  tags: string[];
}

const HOSTED = "hosted";
const valueOf = (t: FlowTarget) => (t === "hosted" ? HOSTED : "device_id" in t ? `device:${t.device_id}` : `tag:${t.device_tag}`);
function targetOf(value: string): FlowTarget {
  if (value.startsWith("device:")) return { device_id: value.slice(7) };
  if (value.startsWith("tag:")) return { device_tag: value.slice(4) };
  return "hosted";
}

/**
 * Where the flow runs (SPEC §22): hosted here, on one device, or on every device with a tag. A
 * change is saved at once (the next deploy puts it in effect); the page reloads so the palette
 * lists the target's node types.
 */
export function TargetControl({ editor, target, devices, canWrite }: { editor: EditorBridge; target: FlowTarget; devices: DeviceChoice[]; canWrite: boolean }) {
  const trpc = useTRPC();
  const router = useRouter();
  const [value, setValue] = useState(valueOf(target));
  const [error, setError] = useState<string | null>(null);
  const update = useMutation(trpc.flows.update.mutationOptions());
  const hydrated = useHydrated();
  const tags = [...new Set(devices.flatMap((d) => d.tags))].sort();
  const options: Array<[string, string]> = [
    [HOSTED, "Hosted (this platform)"],
    ...devices.map((d): [string, string] => [`device:${d.id}`, `Device: ${d.name}`]),
    ...tags.map((t): [string, string] => [`tag:${t}`, `Devices tagged ${t}`]),
  ];
  // A target that names a device or tag no longer listed is still shown, as what it is.
  if (!options.some(([v]) => v === value)) options.push([value, value.startsWith("tag:") ? `Devices tagged ${value.slice(4)}` : `Device ${value.slice(7)}`]);

  async function onChange(next: string) {
    if (next === value) return;
    setError(null);
    if (editor.dirty) {
      const saved = await editor.save();
      if (!saved.ok) return;
    }
    try {
      // Like enabling the flow, no revision: the target is not the graph, and after a save above
      // this render's `editor.revision` is the one before it. The editor adopts the new revision
      // only if it is the next one after its own (adoptRevision).
      const result = await update.mutateAsync({ id: editor.flowId, target: targetOf(next) });
      setValue(next);
      editor.adoptRevision(result.flow.revision);
      router.refresh();
    } catch (err) {
      setError(errorInfo(err).message);
    }
  }

  return (
    <div className="target-control">
      <label htmlFor="flow-target">Runs on</label>
      <select id="flow-target" value={value} disabled={!hydrated || !canWrite || update.isPending} onChange={(e) => void onChange(e.target.value)}>
        {options.map(([v, label]) => (
          <option key={v} value={v}>
            {label}
          </option>
        ))}
      </select>
      {error ? (
        <span className="error" role="alert">
          {error}
        </span>
      ) : null}
    </div>
  );
}
