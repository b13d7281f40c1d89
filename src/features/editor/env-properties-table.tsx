"use client";

import { afterRemove, listItemFirstField, useListFocus } from "@/components/use-list-focus";
import { SUBFLOW_ENV_TYPES, type SubflowEnvEntry } from "@/shared/subflows";

/**
 * Node-RED's env properties as a table (a subflow's defaults, a group's values): name, type and
 * value per row, a row added or removed with its buttons (the focus goes to the new row's name, or
 * to the Remove of the row that took the removed one's place). Rows with an empty name are the
 * caller's to drop when it saves (`namedEnv`).
 */
export function EnvPropertiesTable<T extends SubflowEnvEntry>({
  env,
  onChange,
  caption,
  valueHeading,
  types = SUBFLOW_ENV_TYPES.filter((t) => t !== "conf-type"),
}: {
  env: T[];
  onChange: (next: T[]) => void;
  caption: string;
  valueHeading: string;
  /** The types offered (an entry of another type keeps its own in the list). */
  types?: readonly string[];
}) {
  const setEntry = (i: number, patch: Partial<SubflowEnvEntry>) => onChange(env.map((e, j) => (j === i ? { ...e, ...patch } : e)));
  const [root, focusNext] = useListFocus<HTMLDivElement>();
  return (
    <div ref={root}>
      <table className="subflow-env-table">
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Type</th>
            <th scope="col">{valueHeading}</th>
            <th scope="col">
              <span className="visually-hidden">Remove</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {env.map((entry, i) => (
            <tr key={i} data-list-item={i}>
              <td>
                <input aria-label={`Property ${i + 1} name`} type="text" maxLength={100} value={entry.name} onChange={(e) => setEntry(i, { name: e.target.value })} />
              </td>
              <td>
                <select aria-label={`Property ${i + 1} type`} value={entry.type} onChange={(e) => setEntry(i, { type: e.target.value })}>
                  {/* A configuration node property imported from Node-RED has its configuration node's type: offered as it is. */}
                  {[...types, ...(types.includes(entry.type) ? [] : [entry.type])].map((t) => (
                    <option key={t} value={t}>
                      {t}
                    </option>
                  ))}
                </select>
              </td>
              <td>
                <input aria-label={`Property ${i + 1} value`} type="text" value={entry.value} onChange={(e) => setEntry(i, { value: e.target.value })} />
              </td>
              <td>
                <button
                  type="button"
                  className="secondary small"
                  data-list-action="remove"
                  onClick={() => {
                    focusNext(afterRemove(i, env.length - 1));
                    onChange(env.filter((_, j) => j !== i));
                  }}
                >
                  Remove<span className="visually-hidden"> property {i + 1}</span>
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <button
        type="button"
        className="secondary small"
        data-list-action="add"
        onClick={() => {
          focusNext(listItemFirstField(env.length));
          onChange([...env, { name: "", type: "str", value: "" } as T]);
        }}
      >
        Add property
      </button>
    </div>
  );
}

/** The rows worth saving: named, the name trimmed. */
export function namedEnv<T extends SubflowEnvEntry>(env: T[]): T[] {
  return env.filter((x) => x.name.trim() !== "").map((x) => ({ ...x, name: x.name.trim() }));
}
