"use client";

import { useQuery } from "@tanstack/react-query";
import { Alert } from "@/components/alert";
import { errorInfo, useTRPC } from "@/trpc/react";
import type { SubflowEnvEntry } from "@/shared/subflows";

/**
 * A subflow instance's env properties (SPEC §16): one field per property its definition declares,
 * with the definition's value as the default shown; a value typed here overrides it for this
 * instance (config `env`), an empty field keeps the default.
 */
export function SubflowEnvForm({ subflowId, value, onChange, errors }: { subflowId: string; value: Record<string, unknown>; onChange: (next: Record<string, unknown>) => void; errors: Record<string, string> }) {
  const trpc = useTRPC();
  const def = useQuery({ ...trpc.subflows.get.queryOptions({ id: subflowId }), staleTime: 10_000 });
  const env = (Array.isArray(value.env) ? value.env : []) as SubflowEnvEntry[];
  if (def.error) return <Alert kind="error">{errorInfo(def.error).message}</Alert>;
  if (!def.data) return <p role="status">Loading the subflow’s properties…</p>;
  const declared = def.data.subflow.env;
  const set = (entry: SubflowEnvEntry, text: string) => {
    const others = env.filter((e) => e.name !== entry.name);
    onChange({ ...value, env: text === "" ? others : [...others, { name: entry.name, type: entry.type, value: text }] });
  };
  // Properties the instance sets that its definition no longer declares stay, listed after.
  const extra = env.filter((e) => !declared.some((d) => d.name === e.name));
  return (
    <fieldset className="plain subflow-env">
      <legend>Properties of subflow “{def.data.subflow.name}”</legend>
      {declared.length === 0 ? <p className="hint">The subflow declares no properties.</p> : null}
      {[...declared, ...extra].map((entry, i) => {
        const own = env.find((e) => e.name === entry.name);
        const id = `subflow-env-${i}`;
        const err = errors[`env[${env.indexOf(own!)}].value`];
        return (
          <div className="field" key={entry.name}>
            <label htmlFor={id}>{entry.name}</label>
            <input id={id} type="text" value={own?.value ?? ""} placeholder={declared.includes(entry) ? entry.value : ""} aria-describedby={`${id}-hint`} onChange={(e) => set(entry, e.target.value)} />
            <span id={`${id}-hint`} className="hint">
              {declared.includes(entry) ? `Default: ${entry.value === "" ? "(empty)" : entry.value} (${entry.type})` : "Not declared by the subflow any more"}
            </span>
            {err ? <span className="error">{err}</span> : null}
          </div>
        );
      })}
    </fieldset>
  );
}
