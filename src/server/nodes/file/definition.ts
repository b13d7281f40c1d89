import { z } from "zod";
import { defineNode } from "../types";
import { checkOperand, operandTypeSchema } from "../../runtime/operands";
import { normalizeFilePath } from "../../../shared/file-paths";
import { FILE_ENCODINGS } from "./encodings";

/** Where a filename may come from: Node-RED's typed input (path, msg, JSONata, env; flow and global as evaluateNodeProperty reads them). */
export const FILENAME_TYPES = ["str", "msg", "flow", "global", "env", "jsonata"] as const;

export const filenameFields = {
  filename: z.string().max(4096).default("").meta({
    title: "Filename",
    description: "The file's path in the organization's files (data/log.txt), or where to read it from (msg, flow, global, env, JSONata). Empty with type msg: msg.filename.",
  }),
  filename_type: operandTypeSchema(FILENAME_TYPES, "Filename type").default("str"),
};

export const encodingSchema = z
  .enum(["none", "setbymsg", ...FILE_ENCODINGS] as unknown as ["none", ...string[]])
  .default("none")
  .meta({ title: "Encoding", description: "How text is turned into bytes: none (UTF-8), set by msg.encoding, or one of Node-RED's encodings." });

export const fileConfig = z
  .object({
    ...filenameFields,
    overwrite_file: z
      .enum(["false", "true", "delete"])
      .default("false")
      .meta({ title: "Action", description: "false: append to the file; true: overwrite it; delete: delete it." }),
    append_newline: z.boolean().default(true).meta({ title: "Add newline (\\n) to each payload", description: "Not after bytes, nor after the last part of a split string." }),
    create_dir: z.boolean().default(false).meta({ title: "Create directory if it doesn't exist", description: "Kept for Node-RED: folders are parts of paths here and never missing, so a file can always be written into any folder." }),
    encoding: encodingSchema,
  })
  .superRefine((c, ctx) => checkOperand(ctx, ["filename"], c.filename, c.filename_type));

/**
 * A Node-RED `filename` (and `filenameType`) as we keep it: the pre-3.0 form upgraded as Node-RED's
 * editor does (empty: msg.filename; `${NAME}`: env). An absolute path is kept as written (so
 * `msg.filename` and an export are Node-RED's): it is taken relative to the organization's files
 * (SPEC §23) when the flow runs, which `importNotes` reports.
 */
export function filenameFromNodeRed(p: Record<string, unknown>): { filename: string; filename_type: string } {
  let filename = typeof p.filename === "string" ? p.filename : "";
  let type = typeof p.filenameType === "string" ? p.filenameType : "";
  if (type === "") {
    if (filename === "") {
      filename = "filename";
      type = "msg";
    } else if (/^\$\{[^}]+\}$/.test(filename)) {
      filename = filename.slice(2, -1);
      type = "env";
    } else type = "str";
  }
  return { filename, filename_type: type };
}

/** The import report's line for an absolute filename taken relative to the organization's files. */
export function filenameImportNotes(p: Record<string, unknown>): string[] {
  const type = typeof p.filenameType === "string" ? p.filenameType : "";
  if ((type !== "" && type !== "str") || typeof p.filename !== "string") return [];
  const normalized = normalizeFilePath(p.filename);
  if (!normalized.ok || !normalized.absolute) return [];
  return [`filename "${p.filename.slice(0, 200)}" is taken relative to the organization's files: "${normalized.path.slice(0, 200)}"`];
}

export const filenameHelp = `**Where files live.** Files are the organization's own, stored by the platform (not on a host's disk), the same files on every instance and on the **Files** page (\`/files\`, and \`GET/PUT/DELETE /api/v1/files/{path}\`):

- A filename is a path inside them: \`data/log.txt\`. An absolute path (\`/home/pi/log.txt\`) is taken relative to them (\`home/pi/log.txt\`); an import of a flow says so in its report.
- A path whose \`..\` would leave them, or that holds NUL or control characters, an empty segment (\`a//b\`), a name over 255 bytes or more than 1024 in all (UTF-8; an ASCII character is one byte), is the node's error: nothing is read or written.
- There are no links, so none can lead out. Folders are parts of paths, never missing: a file can be written into any folder, and "create directory" has nothing to do.
- The organization's files may hold at most \`FILES_MAX_BYTES\` (default 100 MiB), one file at most \`FILES_MAX_UPLOAD_BYTES\` (default 10 MiB): a write past either is the node's error, and nothing is written. They suit configuration, small data and logs, not media.`;

const help = `Writes \`msg.payload\` to a file, either adding to the end or replacing the existing content. Alternatively, it can delete the file.

### Inputs

- **filename** (string): if not configured in the node, this optional property sets the name of the file to be updated.
- **encoding** (string): if the encoding is configured to be set by msg, this optional property sets the encoding of the data.

### Outputs

On completion of the write, the input message is sent to the output port, with \`msg.filename\` set to the file's name.

### Details

Each message payload is added to the end of the file, optionally appending a newline (\\n) character between each one.

If \`msg.filename\` is used the file is written each time as a whole step (no stream is held open).

It can be configured to overwrite the entire file rather than append. For example, when writing binary data to a file, such as an image, this option should be used and the option to append a newline should be disabled.

The filename can be taken from a message property, flow or global context, an environment variable or a JSONata expression.

The node can be configured to delete the file instead.

An object payload is written as JSON; a number or a boolean as its text; bytes as they are.

${filenameHelp}

### Differences from Node-RED

- Files are the organization's, in the platform's storage, not the host's file system (see above); the working directory setting (\`fileWorkingDirectory\`) has no meaning here.
- An absolute filename (\`/tmp/x.txt\`, in the node or in \`msg.filename\`) names the organization's \`tmp/x.txt\`; \`msg.filename\` keeps it as written, as in Node-RED.`;

export const fileNode = defineNode({
  type: "file",
  version: 1,
  category: "storage",
  name: "write file",
  description: "Writes, appends to or deletes a file of the organization's files.",
  help,
  inputs: 1,
  outputs: 1,
  configSchema: fileConfig,
  nodeRed: {
    type: "file",
    toNodeRed: (c) => ({
      filename: c.filename,
      filenameType: c.filename_type,
      appendNewline: c.append_newline,
      createDir: c.create_dir,
      overwriteFile: c.overwrite_file,
      encoding: c.encoding,
    }),
    fromNodeRed: (p) => ({
      ...filenameFromNodeRed(p),
      append_newline: p.appendNewline === undefined ? true : p.appendNewline === true || p.appendNewline === "true",
      create_dir: p.createDir === true || p.createDir === "true",
      overwrite_file: p.overwriteFile === undefined || p.overwriteFile === "" ? "false" : String(p.overwriteFile),
      encoding: typeof p.encoding === "string" && p.encoding !== "" ? p.encoding : "none",
    }),
    importNotes: filenameImportNotes,
  },
});
