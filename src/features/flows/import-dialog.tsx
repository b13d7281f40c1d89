"use client";

import { useState, type ChangeEvent, type FormEvent } from "react";
import Link from "next/link";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Alert } from "@/components/alert";
import { Dialog } from "@/components/dialog";
import { errorInfo, useTRPC } from "@/trpc/react";
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/trpc/types";
import { groupImportWarnings } from "./import-warnings";

type Outputs = inferRouterOutputs<AppRouter>;

type ImportOutput = Outputs["flows"]["import"];
type ImportResult = Extract<ImportOutput, { flows: unknown }>;
type ImportReport = Extract<ImportOutput, { report: unknown }>;

const supportLabels = { supported: "Supported", partial: "Partly supported", unsupported: "Not supported" } as const;

/**
 * `Import`: Node-RED JSON pasted or read from a file. First a dry run (nothing written) reports
 * each node's support and every warning; `Import` then writes the flows, and the dialog lists them.
 */
export function ImportDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [text, setText] = useState("");
  const [parseError, setParseError] = useState<string | null>(null);
  const [checked, setChecked] = useState<{ flows: Record<string, unknown>[]; report: ImportReport } | null>(null);
  const [result, setResult] = useState<ImportResult | null>(null);
  const check = useMutation(trpc.flows.import.mutationOptions());
  const importFlows = useMutation(
    trpc.flows.import.mutationOptions({
      onSuccess: (data) => {
        if ("flows" in data) setResult(data);
        return queryClient.invalidateQueries({ queryKey: trpc.flows.list.pathKey() });
      },
    }),
  );

  function close() {
    setText("");
    setParseError(null);
    setChecked(null);
    setResult(null);
    check.reset();
    importFlows.reset();
    onClose();
  }

  async function onFile(e: ChangeEvent<HTMLInputElement>) {
    const file = e.target.files?.[0];
    if (file) setText(await file.text());
  }

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    setParseError(null);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      setParseError(`This is not JSON: ${(err as Error).message}`);
      return;
    }
    const flows = (Array.isArray(parsed) ? parsed : [parsed]) as Record<string, unknown>[];
    check.mutate(
      { flows, dry_run: true },
      {
        onSuccess: (data) => {
          if ("report" in data) setChecked({ flows, report: data });
        },
      },
    );
  }

  const info = check.error ? errorInfo(check.error) : importFlows.error ? errorInfo(importFlows.error) : null;
  return (
    <Dialog title="Import" open={open} onClose={close} wide>
      {result ? (
        <div>
          <Alert kind="ok">
            Imported {result.flows.length} flow{result.flows.length === 1 ? "" : "s"}.
          </Alert>
          <ul>
            {result.flows.map((f) => (
              <li key={f.id}>
                <Link href={`/flows/${f.id}`}>{f.name}</Link> · {f.nodes.length} nodes
              </li>
            ))}
          </ul>
          <Warnings warnings={result.warnings} />
          <div className="actions">
            <button type="button" onClick={close}>
              Close
            </button>
          </div>
        </div>
      ) : checked ? (
        <div>
          {info ? <Alert kind="error">{info.message}</Alert> : null}
          <ImportReportView report={checked.report} flows={checked.flows} />
          <div className="actions">
            <button type="button" className="secondary" onClick={() => setChecked(null)}>
              Back
            </button>
            <button type="button" disabled={importFlows.isPending} onClick={() => importFlows.mutate({ flows: checked.flows })}>
              Import
            </button>
          </div>
        </div>
      ) : (
        <form method="post" onSubmit={onSubmit}>
          {parseError ? <Alert kind="error">{parseError}</Alert> : null}
          {info ? <Alert kind="error">{info.message}</Alert> : null}
          <div className="field">
            <label htmlFor="import-json">Node-RED JSON</label>
            <textarea id="import-json" rows={12} value={text} onChange={(e) => setText(e.target.value)} aria-describedby="import-json-hint" spellCheck={false} required />
            <p id="import-json-hint" className="hint">
              Paste an export from Node-RED (a flows.json array), or choose the file below. Each tab becomes a flow. Check shows what
              would be imported; nothing is written until you import.
            </p>
          </div>
          <div className="field">
            <label htmlFor="import-file">Node-RED JSON file</label>
            <input id="import-file" type="file" accept=".json,application/json" onChange={onFile} />
          </div>
          <div className="actions">
            <button type="button" className="secondary" onClick={close}>
              Cancel
            </button>
            <button type="submit" disabled={check.isPending}>
              Check
            </button>
          </div>
        </form>
      )}
    </Dialog>
  );
}

/** The dry run's answer: counts per support level, then every node, the unsupported first. */
function ImportReportView({ report, flows }: { report: ImportReport; flows: Record<string, unknown>[] }) {
  const order = { unsupported: 0, partial: 1, supported: 2 } as const;
  // Each node as the user knows it, from the pasted file: its name and the tab (or subflow) it is on.
  const byId = new Map(flows.filter((n) => typeof n.id === "string").map((n) => [n.id as string, n]));
  const text = (v: unknown) => (typeof v === "string" ? v.trim() : "");
  const placeOf = (id: string) => {
    const z = byId.get(id)?.z;
    const parent = typeof z === "string" ? byId.get(z) : undefined;
    return parent ? text(parent.label) || text(parent.name) || String(z) : "";
  };
  const rows = [...report.report].sort((a, b) => order[a.support] - order[b.support]);
  const count = (support: keyof typeof order) => report.report.filter((r) => r.support === support).length;
  return (
    <section aria-labelledby="import-report-heading">
      <h3 id="import-report-heading">What would be imported</h3>
      <p role="status">
        {report.report.length} node{report.report.length === 1 ? "" : "s"}: {count("supported")} supported, {count("partial")} partly supported,{" "}
        {count("unsupported")} not supported (kept as disabled nodes).
      </p>
      <Warnings warnings={report.warnings} />
      <div className="table-scroll">
        <table className="compact">
          <thead>
            <tr>
              <th scope="col">Node</th>
              <th scope="col">On</th>
              <th scope="col">Type</th>
              <th scope="col">Support</th>
              <th scope="col">Why</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.node_id}>
                <td>
                  {text(byId.get(r.node_id)?.name) ? (
                    <span className="import-node-name">{text(byId.get(r.node_id)?.name)} </span>
                  ) : r.label ? (
                    <span className="import-node-label">{r.label} </span>
                  ) : null}
                  <code>{r.node_id}</code>
                </td>
                <td>{placeOf(r.node_id)}</td>
                <td>{r.type}</td>
                <td>{supportLabels[r.support]}</td>
                <td>{r.reason ?? ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function Warnings({ warnings }: { warnings: string[] }) {
  if (warnings.length === 0) return null;
  return (
    <section aria-labelledby="import-warnings-heading">
      <h3 id="import-warnings-heading">Warnings</h3>
      <ul className="warnings">
        {groupImportWarnings(warnings).map((line, i) => (
          <li key={i}>
            {line.text}
            {line.items.length > 0 ? (
              <details>
                <summary>Show the {line.items.length} new ids</summary>
                <ul>
                  {line.items.map((item) => (
                    <li key={item}>
                      <code>{item}</code>
                    </li>
                  ))}
                </ul>
              </details>
            ) : null}
          </li>
        ))}
      </ul>
    </section>
  );
}
