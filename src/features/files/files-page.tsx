"use client";

import { useRef, useState, type DragEvent, type KeyboardEvent } from "react";
import { useMutation, useQuery } from "@tanstack/react-query";
import { Alert } from "@/components/alert";
import { Card } from "@/components/card";
import { ACTIONS_COLUMN, DataTable } from "@/components/data-table";
import { ConfirmButton } from "@/components/dialog";
import { commonErrorMessage } from "@/features/accounts/messages";
import { formatDateTime, type DisplayPrefs } from "@/features/settings/format";
import { NameCell } from "@/features/organizations/name-cell";
import { can } from "@/features/organizations/roles";
import { errorInfo, useInvalidate, useTRPC } from "@/trpc/react";
import { formatBytes, normalizeFilePath } from "@/shared/file-paths";
import type { Role } from "@/shared/permissions";

export interface FileEntry {
  path: string;
  size: number;
  updated_at: string;
}

export interface FilesListing {
  files: FileEntry[];
  next_cursor: string | null;
  used_bytes: number;
  max_bytes: number;
  max_file_bytes: number;
}

/** The Files page's own upload bound (tRPC, base64): larger files go through PUT /api/v1/files/{path}. */
const PAGE_UPLOAD_BYTES = 12 * 1024 * 1024;

/** The file's bytes as base64, without a data-URL prefix. */
async function base64Of(file: File): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** /files: the organization's files (SPEC §23): the quota, upload (button or drop), download, delete. */
export function FilesPage({ role, prefs, initial }: { role: Role; prefs: DisplayPrefs; initial: FilesListing }) {
  const trpc = useTRPC();
  const writable = can(role, "files:write");
  const query = useQuery({ ...trpc.files.list.queryOptions(), initialData: initial });
  const listing = query.data ?? initial;
  return (
    <>
      <p className="hint">
        Files that <code>write file</code> and <code>read file</code> nodes use, the same on every instance. A node&apos;s filename is a
        path here (<code>data/log.txt</code>); an absolute one (<code>/home/pi/log.txt</code>) is taken relative to these files. Programs
        reach them at <code>/api/v1/files/&#123;path&#125;</code> (GET, PUT with the bytes, DELETE).
      </p>
      <QuotaBar used={listing.used_bytes} max={listing.max_bytes} />
      {writable ? <UploadSection maxFileBytes={Math.min(listing.max_file_bytes, PAGE_UPLOAD_BYTES)} /> : null}
      <Card headingId="files-heading" title="Files">
        {query.error ? <Alert kind="error">{commonErrorMessage(query.error)}</Alert> : null}
        {!writable ? <p className="hint">Members and above upload and delete files; you can see and download them.</p> : null}
        {listing.files.length === 0 ? (
          <p className="muted">No files yet.</p>
        ) : (
          <DataTable className="compact stack-on-phone" columns={["Path", "Size", "Updated", ACTIONS_COLUMN] as const}>
            {listing.files.map((f) => (
              <FileRow key={f.path} file={f} writable={writable} prefs={prefs} />
            ))}
          </DataTable>
        )}
      </Card>
    </>
  );
}

function QuotaBar({ used, max }: { used: number; max: number }) {
  const percent = max > 0 ? Math.min(100, Math.round((used / max) * 1000) / 10) : 0;
  return (
    <div className="quota">
      <label htmlFor="files-quota">
        Space used: {formatBytes(used)} of {formatBytes(max)} ({percent}%)
      </label>
      <progress id="files-quota" max={max} value={used} aria-valuetext={`${formatBytes(used)} of ${formatBytes(max)}`} />
    </div>
  );
}

function UploadSection({ maxFileBytes }: { maxFileBytes: number }) {
  const trpc = useTRPC();
  const invalidate = useInvalidate();
  const input = useRef<HTMLInputElement>(null);
  const [folder, setFolder] = useState("");
  const [over, setOver] = useState(false);
  const [status, setStatus] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const upload = useMutation(trpc.files.upload.mutationOptions());

  async function send(files: FileList | File[]) {
    setProblem(null);
    setStatus("");
    const done: string[] = [];
    for (const file of Array.from(files)) {
      const raw = folder.trim() ? `${folder.trim().replace(/\/+$/, "")}/${file.name}` : file.name;
      const path = normalizeFilePath(raw);
      if (!path.ok) {
        setProblem(`${raw}: ${path.problem}`);
        break;
      }
      if (file.size > maxFileBytes) {
        setProblem(`${file.name} is ${formatBytes(file.size)}: a file uploaded here may hold at most ${formatBytes(maxFileBytes)}.`);
        break;
      }
      try {
        await upload.mutateAsync({ path: path.path, content_base64: await base64Of(file) });
        done.push(path.path);
      } catch (err) {
        const info = errorInfo(err);
        setProblem(`${path.path}: ${info?.message ?? commonErrorMessage(err) ?? "upload failed"}`);
        break;
      }
    }
    if (done.length > 0) setStatus(`Uploaded ${done.join(", ")}.`);
    await invalidate(trpc.files.list.queryKey());
    if (input.current) input.current.value = "";
  }

  function onDrop(event: DragEvent<HTMLDivElement>) {
    event.preventDefault();
    setOver(false);
    if (event.dataTransfer.files.length > 0) void send(event.dataTransfer.files);
  }
  function onKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      input.current?.click();
    }
  }

  return (
    <Card headingId="upload-heading" title="Upload">
      <div className="field">
        <label htmlFor="upload-folder">Folder (optional)</label>
        <input id="upload-folder" type="text" placeholder="data" value={folder} onChange={(e) => setFolder(e.target.value)} autoComplete="off" />
      </div>
      <div
        className={`drop-zone${over ? " over" : ""}`}
        role="button"
        tabIndex={0}
        aria-describedby="drop-hint"
        onKeyDown={onKeyDown}
        onClick={() => input.current?.click()}
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={onDrop}
      >
        {upload.isPending ? "Uploading…" : "Drop files here, or choose files"}
      </div>
      <p id="drop-hint" className="hint">
        A file of the same path is replaced. At most {formatBytes(maxFileBytes)} per file here.
      </p>
      <input
        ref={input}
        id="upload-input"
        aria-label="Choose files to upload"
        type="file"
        multiple
        hidden
        onChange={(e) => {
          if (e.target.files && e.target.files.length > 0) void send(e.target.files);
        }}
      />
      {problem ? <Alert kind="error">{problem}</Alert> : null}
      <p role="status" className="muted">
        {status}
      </p>
    </Card>
  );
}

function FileRow({ file, writable, prefs }: { file: FileEntry; writable: boolean; prefs: DisplayPrefs }) {
  const trpc = useTRPC();
  const invalidate = useInvalidate();
  const remove = useMutation(trpc.files.delete.mutationOptions({ onSuccess: () => invalidate(trpc.files.list.queryKey()) }));
  const href = `/api/v1/files/${file.path.split("/").map(encodeURIComponent).join("/")}`;
  return (
    <tr>
      <NameCell error={remove.error}>
        <code>{file.path}</code>
      </NameCell>
      <td data-label="Size">{formatBytes(file.size)}</td>
      <td data-label="Updated">{formatDateTime(prefs, file.updated_at)}</td>
      <td className="row-actions">
        <a className="button secondary small" href={href} download={file.path.split("/").pop()} aria-label={`Download ${file.path}`}>
          Download
        </a>
        {writable ? (
          <ConfirmButton
            className="secondary small"
            aria-label={`Delete ${file.path}`}
            pending={remove.isPending}
            pendingLabel="Deleting…"
            title={`Delete the file “${file.path}”?`}
            message={<p>Flows that read it get an error from now on. This cannot be undone.</p>}
            confirmLabel="Delete file"
            onConfirm={() => remove.mutate({ path: file.path })}
          >
            Delete
          </ConfirmButton>
        ) : null}
      </td>
    </tr>
  );
}
