"use client";

import { useState, type ChangeEvent, type FormEvent } from "react";
import Link from "next/link";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Alert } from "@/components/alert";
import { Dialog } from "@/components/dialog";
import { errorInfo, useTRPC } from "@/trpc/react";
import type { FlowDetail } from "./types";

/**
 * `Import`: Node-RED JSON pasted or read from a file. After the import the dialog lists the new
 * flows and every warning (unknown types kept as disabled nodes, config nodes skipped, ...).
 */
export function ImportDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [text, setText] = useState("");
  const [parseError, setParseError] = useState<string | null>(null);
  const [result, setResult] = useState<{ flows: FlowDetail[]; warnings: string[] } | null>(null);
  const importFlows = useMutation(
    trpc.flows.import.mutationOptions({
      onSuccess: (data) => {
        setResult(data);
        return queryClient.invalidateQueries({ queryKey: trpc.flows.list.pathKey() });
      },
    }),
  );

  function close() {
    setText("");
    setParseError(null);
    setResult(null);
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
    const flows = Array.isArray(parsed) ? parsed : [parsed];
    importFlows.mutate({ flows: flows as Record<string, unknown>[] });
  }

  const info = importFlows.error ? errorInfo(importFlows.error) : null;
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
          {result.warnings.length > 0 ? (
            <section aria-labelledby="import-warnings-heading">
              <h3 id="import-warnings-heading">Warnings</h3>
              <ul className="warnings">
                {result.warnings.map((w, i) => (
                  <li key={i}>{w}</li>
                ))}
              </ul>
            </section>
          ) : null}
          <div className="actions">
            <button type="button" onClick={close}>
              Close
            </button>
          </div>
        </div>
      ) : (
        <form onSubmit={onSubmit}>
          {parseError ? <Alert kind="error">{parseError}</Alert> : null}
          {info ? <Alert kind="error">{info.message}</Alert> : null}
          <div className="field">
            <label htmlFor="import-json">Node-RED JSON</label>
            <textarea id="import-json" rows={12} value={text} onChange={(e) => setText(e.target.value)} aria-describedby="import-json-hint" spellCheck={false} required />
            <p id="import-json-hint" className="hint">
              Paste an export from Node-RED (a flows.json array), or choose the file below. Each tab becomes a flow.
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
            <button type="submit" disabled={importFlows.isPending}>
              Import
            </button>
          </div>
        </form>
      )}
    </Dialog>
  );
}
