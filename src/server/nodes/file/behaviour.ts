import { fileNode } from "./definition";
import { defineBehaviour } from "../types";
import { DONE_LATER, type Done, type Message, type Send } from "../../runtime/types";
import { prepareOperand } from "../../runtime/operands";
import { encodeText } from "./encodings";
import { errorString, filenameOf, notFoundError, resolveFile } from "./paths";

const isBytes = (v: unknown): v is Uint8Array => v instanceof Uint8Array;

/**
 * Node-RED's `file` node (10-file.js FileNode) on the organization's files (SPEC §23): messages
 * are handled one at a time, in order, as Node-RED queues them; append, overwrite or delete.
 */
export const fileBehaviour = defineBehaviour(fileNode, (ctx, c) => {
  const filename = prepareOperand({ value: c.filename, type: c.filename_type });
  let queue: Promise<void> = Promise.resolve();

  async function handle(msg: Message, send: Send, done: Done): Promise<void> {
    let name: string;
    try {
      name = await filenameOf(ctx, filename, msg);
    } catch (err) {
      ctx.log.error(err, msg);
      return done();
    }
    msg.filename = name;
    if (c.filename === "" && name !== "") ctx.status({ fill: "grey", shape: "dot", text: name });
    if (name === "") {
      ctx.log.warn("No filename specified");
      return done();
    }
    const target = resolveFile(ctx, name, { existing: c.overwrite_file === "delete" });
    if (!target.ok) {
      ctx.log.error(target.error, msg);
      return done();
    }
    const { files, path } = target;
    const org = ctx.organizationId;
    if (c.overwrite_file === "delete") {
      let removed: boolean;
      try {
        removed = await files.delete(org, path);
      } catch (err) {
        ctx.log.error(`failed to delete file: ${errorString(err)}`, msg);
        return done();
      }
      if (!removed) ctx.log.error(`failed to delete file: ${errorString(notFoundError("unlink", path))}`, msg);
      else send(msg);
      return done();
    }
    if (!Object.prototype.hasOwnProperty.call(msg, "payload") || msg.payload === undefined) return done();
    // Folders are parts of paths, never missing: "create directory" has nothing to do.
    const failure = c.overwrite_file === "true" ? "failed to write to file" : "failed to append to file";
    let data: unknown = msg.payload;
    if (typeof data === "object" && data !== null && !isBytes(data)) data = JSON.stringify(data);
    if (typeof data === "boolean" || typeof data === "number") data = data.toString();
    const parts = msg.parts as { type?: unknown; count?: unknown; index?: unknown } | undefined;
    const lastOfString = Object.prototype.hasOwnProperty.call(msg, "parts") && parts?.type === "string" && parts.count === Number(parts.index) + 1;
    if (c.append_newline && !isBytes(data) && !lastOfString) data = `${String(data)}\n`;
    let bytes: Uint8Array;
    try {
      const encoding = c.encoding === "setbymsg" ? (typeof msg.encoding === "string" && msg.encoding ? msg.encoding : "none") : c.encoding;
      bytes = isBytes(data) ? data : encodeText(String(data), encoding);
    } catch (err) {
      ctx.log.error(err, msg);
      return done();
    }
    try {
      await files.write(org, path, bytes, { append: c.overwrite_file !== "true" });
    } catch (err) {
      ctx.log.error(`${failure}: ${errorString(err)}`, msg);
      return done();
    }
    send(msg);
    done();
  }

  return {
    input(msg, send, done): Promise<typeof DONE_LATER> {
      const run = queue.then(() => handle(msg, send, done));
      queue = run.catch(() => undefined);
      return run.then((): typeof DONE_LATER => DONE_LATER);
    },
    async close() {
      await queue;
      ctx.status(null);
    },
  };
});
