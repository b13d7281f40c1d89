"use client";

import { useState } from "react";
import { Icon } from "./icon";
import { bool, num, str, type WidgetProps } from "./widget";

/** Dashboard 2.0's formatFileSize: powers of 1000, two decimals. */
export function formatFileSize(bytes: number): string {
  if (bytes <= 0) return "0 Bytes";
  const sizes = ["Bytes", "KB", "MB", "GB", "TB"];
  const i = Math.min(sizes.length - 1, Math.floor(Math.log(bytes) / Math.log(1000)));
  return `${parseFloat((bytes / 1000 ** i).toFixed(2))} ${sizes[i]}`;
}

/**
 * ui-file-input: Dashboard 2.0's file field and Upload button. A file over the server's limit is
 * refused here before anything is sent; the upload shows its progress, then "File Uploaded!" with
 * a way to upload another. Each file of a multiple choice goes as its own message.
 */
export function FileInputWidget({ props, interactive, upload, inputId }: WidgetProps) {
  const [files, setFiles] = useState<File[]>([]);
  const [phase, setPhase] = useState<"choose" | "uploading" | "uploaded">("choose");
  const [progress, setProgress] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const label = str(props, "label", "File Upload") || "File Upload";
  const max = num(props, "maxFileSize", 1_000_000);
  const multiple = bool(props, "allowMultiple", false);
  const tooLarge = files.some((f) => f.size > max);
  const errorId = `${inputId}-error`;

  const reset = () => {
    setFiles([]);
    setPhase("choose");
    setProgress(0);
    setError(null);
  };
  const start = async () => {
    setPhase("uploading");
    setError(null);
    setProgress(0);
    const total = files.reduce((n, f) => n + f.size, 0);
    let done = 0;
    try {
      for (const f of files) {
        await upload(f, (fraction) => setProgress(total > 0 ? ((done + fraction * f.size) / total) * 100 : 100));
        done += f.size;
      }
      setPhase("uploaded");
    } catch (err) {
      // The field comes back empty: what was chosen is chosen again (nothing stale is sent).
      setError(err instanceof Error ? err.message : String(err));
      setFiles([]);
      setPhase("choose");
    }
  };

  if (phase === "uploaded") {
    return (
      <div className="db-file-input db-file-uploaded" role="status">
        <span className="db-file-check" aria-hidden="true">
          ✓
        </span>
        <span>{multiple && files.length > 1 ? "Files Uploaded!" : "File Uploaded!"}</span>
        <button type="button" className="db-link-button" onClick={reset}>
          Upload Another File
        </button>
      </div>
    );
  }
  return (
    <div className="db-file-input">
      {phase === "uploading" ? (
        <div className="db-progress db-file-progress">
          <div className="db-progress-track" role="progressbar" aria-label={`Uploading: ${label}`} aria-valuemin={0} aria-valuemax={100} aria-valuenow={Math.ceil(progress)}>
            <div className="db-progress-bar" style={{ width: `${progress}%`, background: "var(--db-primary)" }} />
            <strong className="db-progress-text">{Math.ceil(progress)}%</strong>
          </div>
        </div>
      ) : (
        <div className="db-field db-file-field">
          <label htmlFor={inputId}>{label}</label>
          <div className="db-file-row">
            <Icon name={str(props, "icon", "paperclip") || "paperclip"} />
            <input
              id={inputId}
              type="file"
              accept={str(props, "accept") || undefined}
              multiple={multiple}
              disabled={!interactive}
              aria-invalid={tooLarge || undefined}
              aria-describedby={tooLarge || error ? errorId : undefined}
              onChange={(e) => {
                setError(null);
                setFiles(Array.from(e.target.files ?? []));
              }}
            />
          </div>
          {tooLarge || error ? (
            <span id={errorId} className="db-field-error" role="alert">
              {tooLarge ? `File size should be less than ${formatFileSize(max)}!` : error}
            </span>
          ) : null}
        </div>
      )}
      <button type="button" className="db-button" disabled={!interactive || files.length === 0 || tooLarge || phase !== "choose"} onClick={() => void start()}>
        {phase === "uploading" ? "Uploading..." : "Upload"}
      </button>
    </div>
  );
}
