"use client";

import { useState, type FormEvent } from "react";
import Link from "next/link";
import { useMutation, useQuery } from "@tanstack/react-query";
import { Alert } from "@/components/alert";
import { FormFooter, PendingButton, SubmitButton } from "@/components/buttons";
import { Card } from "@/components/card";
import { ACTIONS_COLUMN, DataTable } from "@/components/data-table";
import { Field } from "@/components/field";
import { commonErrorMessage, fieldMessage } from "@/features/accounts/messages";
import { formatDateTime, type DisplayPrefs } from "@/features/settings/format";
import { errorInfo, useInvalidate, useTRPC } from "@/trpc/react";
import type { RouterOutputs } from "@/trpc/types";
import "./devices.css";
import "../flows/flows.css";

export type Device = RouterOutputs["devices"]["list"]["devices"][number];

const KIND_LABELS: Record<Device["kind"], string> = { agent: "Agent", channel: "Device channel", mqtt: "MQTT client" };
const COLUMNS = ["Device", "Kind", "Last seen", "Versions", "Node types", "Deployment", ACTIONS_COLUMN] as const;
/** Presence changes as devices come and go: the list is read again this often. */
const REFRESH_MS = 5_000;

/** Every device of the organization (SPEC §22): online dot, last seen, versions, node types, deployment; admins rename and tag. */
export function DevicesList({ initialDevices, canWrite, canMakeKeys, prefs }: { initialDevices: Device[]; canWrite: boolean; canMakeKeys: boolean; prefs: DisplayPrefs }) {
  const trpc = useTRPC();
  const query = useQuery({ ...trpc.devices.list.queryOptions(), initialData: { devices: initialDevices }, refetchInterval: REFRESH_MS });
  const devices = query.data?.devices ?? initialDevices;
  return (
    <>
      <p className="hint">
        A device runs flows in its own Node-RED with the agent: <code>npm install -g flowplane-agent</code> (Node.js 22 or later), then{" "}
        <code>flowplane-agent --url &lt;this app&apos;s URL&gt; --key device_…</code>. Any node
        installed on the device can be used in a flow whose target is that device (or one of its tags).{" "}
        {canMakeKeys ? (
          <>
            Make a device key under <Link href="/settings/api-keys">API keys</Link>.
          </>
        ) : (
          "An admin makes its device key."
        )}
      </p>
      <Card headingId="devices-heading" title="Devices">
        {query.error ? <Alert kind="error">{commonErrorMessage(query.error)}</Alert> : null}
        {devices.length === 0 ? (
          <p className="muted">No devices yet: make a device key and start the agent with it.</p>
        ) : (
          <DataTable className="compact devices-table stack-on-phone" columns={COLUMNS}>
            {devices.map((d) => (
              <DeviceRow key={d.id} device={d} canWrite={canWrite} prefs={prefs} />
            ))}
          </DataTable>
        )}
      </Card>
    </>
  );
}

function DeviceRow({ device, canWrite, prefs }: { device: Device; canWrite: boolean; prefs: DisplayPrefs }) {
  const trpc = useTRPC();
  const invalidate = useInvalidate();
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(device.name);
  const [tags, setTags] = useState(device.tags.join(", "));
  const update = useMutation(
    trpc.devices.update.mutationOptions({
      onSuccess: () => {
        setEditing(false);
        return invalidate(trpc.devices.list.queryKey());
      },
    }),
  );
  function onSave(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    update.mutate({
      id: device.id,
      name,
      tags: tags
        .split(",")
        .map((t) => t.trim())
        .filter(Boolean),
    });
  }
  const info = update.error ? errorInfo(update.error) : null;
  const types = device.node_types ?? [];
  return (
    <tr data-device-id={device.id}>
      <td>
        {editing ? (
          <form method="post" onSubmit={onSave} className="inline-edit" aria-label={`Edit ${device.name}`}>
            <Field id={`device-name-${device.id}`} label="Name" required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} error={fieldMessage("Name", info?.fields.name)} />
            <Field
              id={`device-tags-${device.id}`}
              label="Tags"
              hint="Comma-separated; a flow targeting a tag runs on every device that has it."
              value={tags}
              onChange={(e) => setTags(e.target.value)}
              error={fieldMessage("Tags", Object.entries(info?.fields ?? {}).find(([k]) => k.startsWith("tags"))?.[1])}
            />
            {update.error && !info?.fields.name && !Object.keys(info?.fields ?? {}).some((k) => k.startsWith("tags")) ? <Alert kind="error">{commonErrorMessage(update.error)}</Alert> : null}
            <FormFooter>
              <SubmitButton className="small" pending={update.isPending} pendingLabel="Saving…">
                Save
              </SubmitButton>
              <button type="button" className="secondary small" onClick={() => setEditing(false)}>
                Cancel
              </button>
            </FormFooter>
          </form>
        ) : (
          <>
            <span className={`online-dot ${device.online ? "online" : "offline"}`} role="img" aria-label={device.online ? "Online" : "Offline"} title={device.online ? "Online" : "Offline"} />{" "}
            <strong>{device.name}</strong>
            {device.tags.map((t) => (
              <span key={t} className="badge">
                {t}
              </span>
            ))}
            <div className="muted">
              <code>{device.id}</code>
            </div>
          </>
        )}
      </td>
      <td data-label="Kind">{KIND_LABELS[device.kind]}</td>
      <td data-label="Last seen">{device.online ? "Online now" : device.last_seen_at ? formatDateTime(prefs, device.last_seen_at) : <span className="muted">Never</span>}</td>
      <td data-label="Versions">
        {device.agent_version ? (
          <>
            Agent {device.agent_version}
            <br />
            Node-RED {device.node_red_version}
          </>
        ) : (
          <span className="muted">–</span>
        )}
      </td>
      <td data-label="Node types">
        {types.length > 0 ? (
          <details>
            <summary>{types.length} types</summary>
            <ul className="node-types">
              {types.map((t) => (
                <li key={t}>
                  <code>{t}</code>
                </li>
              ))}
            </ul>
          </details>
        ) : (
          <span className="muted">–</span>
        )}
      </td>
      <td data-label="Deployment">
        {device.deployment_id ? <code>{device.deployment_id}</code> : <span className="muted">None</span>}
        {device.refused?.map((r) => (
          <p key={r.flow_id} className="device-refused" role="status">
            Cannot run <Link href={`/flows/${r.flow_id}`}>{r.flow_name}</Link>: {r.error}
          </p>
        ))}
      </td>
      <td className="row-actions">
        {canWrite && !editing ? (
          <PendingButton
            className="secondary small"
            aria-label={`Edit ${device.name}`}
            pending={false}
            pendingLabel=""
            onClick={() => {
              setName(device.name);
              setTags(device.tags.join(", "));
              update.reset();
              setEditing(true);
            }}
          >
            Edit
          </PendingButton>
        ) : null}
      </td>
    </tr>
  );
}
