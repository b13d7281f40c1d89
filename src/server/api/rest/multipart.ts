import { Readable } from "node:stream";
import busboy from "busboy";
import type { WebhookMultipart } from "../../runtime/webhooks";

/** An uploaded file as multer's memory storage gives it (Node-RED 5.0.7's http in, `msg.req.files`). */
export interface UploadedFile {
  fieldname: string;
  originalname: string;
  encoding: string;
  mimetype: string;
  buffer: Buffer;
  size: number;
}

export type MultipartResult = { ok: true; fields: Record<string, string | string[]>; files: UploadedFile[] } | { ok: false; message: string };

/** Whether a Content-Type is multipart/form-data (what multer parses; anything else it leaves alone). */
export function isMultipartFormData(contentType: string | undefined): boolean {
  return /^\s*multipart\/form-data\s*(;|$)/i.test(contentType ?? "");
}

/**
 * A multipart/form-data body (already read within the webhook body limit) parsed as multer 2's
 * `.any()` with memory storage parses it for Node-RED: every file part becomes an UploadedFile, in
 * the order the body carries them; a file input sent empty (no filename) is skipped; text fields go
 * into `fields`, a name given twice becoming an array of its values. Busboy's own limits stay
 * what multer leaves them for Node-RED (a text field's value of at most 1 MiB, 2000 header pairs);
 * a value past it is an error, as multer's LIMIT_FIELD_VALUE is.
 */
export function parseMultipart(contentType: string, bytes: Buffer): Promise<MultipartResult> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: MultipartResult) => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    let parser: ReturnType<typeof busboy>;
    try {
      parser = busboy({ headers: { "content-type": contentType }, limits: { fieldSize: 1024 * 1024, headerPairs: 2000 } });
    } catch (err) {
      finish({ ok: false, message: `the multipart/form-data body cannot be parsed: ${(err as Error).message}` });
      return;
    }
    const fields: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
    const files: UploadedFile[] = [];
    let pendingFiles = 0;
    let closed = false;
    const done = () => {
      if (closed && pendingFiles === 0) finish({ ok: true, fields, files });
    };
    parser.on("field", (name, value, info) => {
      if (info.valueTruncated) return finish({ ok: false, message: `field "${name}" of the multipart/form-data body is longer than 1048576 bytes` });
      const previous = fields[name];
      fields[name] = previous === undefined ? value : Array.isArray(previous) ? [...previous, value] : [previous, value];
    });
    parser.on("file", (name, stream, info) => {
      const filename = info.filename;
      if (!filename) {
        stream.resume();
        return;
      }
      pendingFiles++;
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("error", (err: Error) => finish({ ok: false, message: `the multipart/form-data body cannot be parsed: ${err.message}` }));
      stream.on("end", () => {
        const buffer = Buffer.concat(chunks);
        files.push({ fieldname: name, originalname: filename, encoding: info.encoding, mimetype: info.mimeType, buffer, size: buffer.length });
        pendingFiles--;
        done();
      });
    });
    parser.on("error", (err: Error) => finish({ ok: false, message: `the multipart/form-data body cannot be parsed: ${err.message}` }));
    parser.on("close", () => {
      closed = true;
      done();
    });
    Readable.from([bytes]).pipe(parser);
  });
}

/** parseMultipart as a webhook request carries it (JSON-safe: each file's bytes in base64). */
export async function webhookMultipart(contentType: string, bytes: Buffer): Promise<WebhookMultipart> {
  const parsed = await parseMultipart(contentType, bytes);
  if (!parsed.ok) return { error: parsed.message };
  return {
    fields: parsed.fields,
    files: parsed.files.map(({ buffer, ...file }) => ({ ...file, base64: buffer.toString("base64") })),
  };
}
