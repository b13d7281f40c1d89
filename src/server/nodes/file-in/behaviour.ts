import { fileInNode } from "./definition";
import { defineBehaviour } from "../types";
import { cloneMessage } from "../sequence-support";
import { DONE_LATER, type Done, type Message, type Send } from "../../runtime/types";
import { prepareOperand } from "../../runtime/operands";
import { decodeText } from "../file/encodings";
import { errorString, filenameOf, notFoundError, resolveFile } from "../file/paths";

/** fs.createReadStream's highWaterMark: Node-RED's "stream" chunks are this size. */
const CHUNK_BYTES = 64 * 1024;

/** Node-RED's `file in` node (10-file.js FileInNode) on the organization's files (SPEC §23). */
export const fileInBehaviour = defineBehaviour(fileInNode, (ctx, c) => {
  const filename = prepareOperand({ value: c.filename, type: c.filename_type });

  /** A message of a lines/stream sequence: a copy of the input, or only its topic and filename. */
  const partMessage = (msg: Message) => (c.all_props ? cloneMessage(msg) : ({ topic: msg.topic, filename: msg.filename } as Partial<Message>));

  function failed(msg: Message, send: Send, err: Error) {
    ctx.log.error(err, msg);
    if (c.send_error) {
      const copy = cloneMessage(msg);
      delete copy.payload;
      copy.error = { message: err.message, ...Object.fromEntries(Object.entries(err)) };
      send(copy);
    }
  }

  async function handle(msg: Message, send: Send, done: Done): Promise<void> {
    let name: string;
    try {
      name = (await filenameOf(ctx, filename, msg)).replace(/\t|\r|\n/g, "");
    } catch (err) {
      ctx.log.error(err, msg);
      return done();
    }
    if (c.filename === "") ctx.status({ fill: "grey", shape: "dot", text: name });
    if (name === "") {
      ctx.log.warn("No filename specified");
      return done();
    }
    msg.filename = name;
    const target = resolveFile(ctx, name, { existing: true });
    if (!target.ok) {
      failed(msg, send, new Error(target.error));
      return done();
    }
    let content: Buffer | null;
    try {
      content = await target.files.read(ctx.organizationId, target.path);
    } catch (err) {
      failed(msg, send, new Error(errorString(err)));
      return done();
    }
    if (content === null) {
      failed(msg, send, notFoundError("open", target.path));
      return done();
    }
    const id = msg._msgid;
    if (c.format === "lines") {
      let text: string;
      try {
        text = decodeText(content, c.encoding);
      } catch (err) {
        ctx.log.error(err, msg);
        return done();
      }
      const lines = text.split("\n");
      lines.forEach((line, index) => {
        const m = partMessage(msg);
        m.payload = line;
        m.parts = index < lines.length - 1 ? { index, ch: "\n", type: "string", id } : { index, count: lines.length, ch: "\n", type: "string", id };
        send(m as Message);
      });
    } else if (c.format === "stream") {
      let count = 0;
      let open = false;
      for (let offset = 0; offset < content.byteLength; offset += CHUNK_BYTES) {
        const chunk = Buffer.from(content.subarray(offset, offset + CHUNK_BYTES));
        const m = partMessage(msg);
        m.payload = chunk;
        const parts: Record<string, unknown> = { index: count, ch: "", type: "buffer", id };
        count += 1;
        open = true;
        if (chunk.byteLength < CHUNK_BYTES) {
          // The last chunk, smaller than a whole one: the end of the file.
          open = false;
          parts.count = count;
        }
        m.parts = parts;
        send(m as Message);
      }
      // A file of whole chunks: Node-RED sends an extra message, without payload, that closes the sequence.
      if (open) send({ parts: { index: count, count, ch: "", type: "buffer", id } } as unknown as Message);
    } else {
      try {
        msg.payload = c.format === "utf8" ? decodeText(content, c.encoding) : content;
      } catch (err) {
        ctx.log.error(err, msg);
        return done();
      }
      send(msg);
    }
    done();
  }

  return {
    async input(msg, send, done): Promise<typeof DONE_LATER> {
      await handle(msg, send, done);
      return DONE_LATER;
    },
    close() {
      ctx.status(null);
    },
  };
});
