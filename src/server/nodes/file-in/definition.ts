import { z } from "zod";
import { defineNode } from "../types";
import { checkOperand } from "../../runtime/operands";
import { encodingSchema, filenameFields, filenameFromNodeRed, filenameHelp, filenameImportNotes } from "../file/definition";

export const fileInConfig = z
  .object({
    ...filenameFields,
    format: z
      .enum(["utf8", "lines", "stream", ""])
      .default("utf8")
      .meta({ title: "Output", description: "utf8: one message with the text; lines: a message per line; stream: a message per 64 KiB of bytes; empty: one message with the bytes." }),
    /** Node-RED keeps it in its flows (unused since lines/stream say it): carried for export. */
    chunk: z.boolean().default(false).meta({ title: "Chunk (legacy)" }),
    send_error: z.boolean().default(false).meta({ title: "Send message on error (legacy mode)", description: "Also send the message, without payload and with msg.error, when the file cannot be read." }),
    encoding: encodingSchema,
    all_props: z.boolean().default(false).meta({ title: "Include all existing properties in each msg", description: "lines and stream: each message is a copy of the input (else only topic and filename)." }),
  })
  .superRefine((c, ctx) => checkOperand(ctx, ["filename"], c.filename, c.filename_type));

const help = `Reads the contents of a file as either a string or binary buffer.

### Inputs

- **filename** (string): if not set in the node configuration, this property sets the filename to read.

### Outputs

- **payload** (string | buffer): the contents of the file as either a string or binary buffer.
- **filename** (string): if not configured in the node, this optional property sets the name of the file to be read.

### Details

The filename can be taken from a message property, flow or global context, an environment variable or a JSONata expression.

Optionally, a text file can be split into lines, outputting one message per line, or a binary file split into smaller buffer chunks (64 KiB). The messages carry \`msg.parts\` (as the split node's), so a join node can put them back together.

When split into lines or chunks, each message has only the input's \`topic\` and \`filename\`, unless "include all existing properties" is set.

A file that cannot be read (it does not exist, or its name would leave the organization's files) is the node's error, which a catch node receives with \`msg.error\`. With "send message on error" (legacy mode) the message is also sent on, without \`payload\` and with \`msg.error\`.

${filenameHelp}

### Differences from Node-RED

- Files are the organization's, in the platform's storage, not the host's file system (see above).
- A missing file's error names the path inside the organization's files (\`ENOENT: no such file or directory, open 'data/x.txt'\`).`;

export const fileInNode = defineNode({
  type: "file-in",
  version: 1,
  category: "storage",
  name: "read file",
  description: "Reads a file of the organization's files as text, lines, chunks or bytes.",
  help,
  inputs: 1,
  outputs: 1,
  configSchema: fileInConfig,
  nodeRed: {
    type: "file in",
    toNodeRed: (c) => ({
      filename: c.filename,
      filenameType: c.filename_type,
      format: c.format,
      chunk: c.chunk,
      sendError: c.send_error,
      encoding: c.encoding,
      allProps: c.all_props,
    }),
    fromNodeRed: (p) => ({
      ...filenameFromNodeRed(p),
      format: p.format === undefined ? "utf8" : String(p.format),
      chunk: p.chunk === true || p.chunk === "true",
      // Node-RED: an absent sendError means true (flows from before the option).
      send_error: p.sendError === undefined ? true : p.sendError === true || p.sendError === "true",
      encoding: typeof p.encoding === "string" && p.encoding !== "" ? p.encoding : "none",
      all_props: p.allProps === true || p.allProps === "true",
    }),
    importNotes: filenameImportNotes,
  },
});
