import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/trpc/types";

type Outputs = inferRouterOutputs<AppRouter>;

export type FlowListItem = Outputs["flows"]["list"]["flows"][number];
export type FlowDetail = Outputs["flows"]["get"]["flow"];
export type FlowState = FlowListItem["state"];

export const stateLabels: Record<FlowState, string> = {
  running: "Running",
  stopped: "Stopped",
  error: "Error",
  not_deployed: "Not deployed",
};

/** Saves text as a file through a temporary link (the browser's own download). */
export function downloadText(fileName: string, text: string, type = "application/json") {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement("a");
  a.href = url;
  a.download = fileName;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** A file name from a flow name: letters, digits and dashes. */
export function fileNameFor(name: string): string {
  return `${name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "") || "flow"}.json`;
}
