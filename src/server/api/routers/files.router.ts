import { z } from "zod";
import { authedProcedure, router, requestMeta } from "../trpc";
import { deleteOrgFile, listOrgFiles, readOrgFile, writeOrgFile } from "../../services/files/files";
import { FILE_PATH_MAX_BYTES } from "../../../shared/file-paths";

const tags = ["files"];
const pathRules =
  "Paths are relative to the organization's files (`data/log.txt`; `/` between folders, percent-encoded or not); an absolute path (`/home/pi/x.txt`) is taken relative to them (`home/pi/x.txt`). A path with `..` that would leave them, NUL or control characters, an empty segment (`a//b`), a name over 255 bytes or a path over 1024 (UTF-8; an ASCII character is one byte): 400 `VALIDATION_FAILED`.";

// Bounded before the service normalizes it; the service's rules give the precise message.
const pathInput = z.string().min(1, "must not be empty").max(FILE_PATH_MAX_BYTES * 3);
const bytes = z.custom<Buffer>((v) => Buffer.isBuffer(v), "must be bytes");
const fileView = z.object({ path: z.string(), size: z.number().int(), updated_at: z.string() });

/**
 * The Files page uploads through tRPC as base64: at most 12 MiB of bytes this way (and never past
 * FILES_MAX_UPLOAD_BYTES, which the service checks); larger files go through PUT /files/{path}.
 */
export const MAX_PAGE_UPLOAD_BYTES = 12 * 1024 * 1024;
const MAX_BASE64_CHARS = Math.ceil(MAX_PAGE_UPLOAD_BYTES / 3) * 4;

export const filesRouter = router({
  list: authedProcedure
    .meta({
      permission: "files:read",
      rest: { method: "GET", path: "/files" },
      summary: "The organization's files (SPEC §23), with the space they use and the limits",
      description:
        "Files written by `file` nodes and uploaded here, in path order; every instance sees the same files. Without `limit`, all of them; with it, pages and `next_cursor` (null at the end). `used_bytes` of `max_bytes` (FILES_MAX_BYTES) are taken; one file holds at most `max_file_bytes` (FILES_MAX_UPLOAD_BYTES).",
      tags,
    })
    .input(z.object({ limit: z.coerce.number().int().min(1).max(200).optional(), cursor: z.string().max(2000).optional() }).optional())
    .output(z.object({ files: z.array(fileView), next_cursor: z.string().nullable(), used_bytes: z.number().int(), max_bytes: z.number().int(), max_file_bytes: z.number().int() }))
    .query(({ ctx, input }) => listOrgFiles(ctx.services, ctx.principal, input ?? {})),

  download: authedProcedure
    .meta({
      permission: "files:read",
      rest: { method: "GET", path: "/files/{path+}", rawResponse: true },
      summary: "A file's bytes (application/octet-stream)",
      description: `${pathRules} A file that does not exist: 404.`,
      tags,
    })
    .input(z.object({ path: pathInput }))
    .output(z.object({ content: bytes }))
    .query(async ({ ctx, input }) => {
      const file = await readOrgFile(ctx.services, ctx.principal, input);
      ctx.responseHeaders.set("Last-Modified", new Date(file.updated_at).toUTCString());
      ctx.responseHeaders.set("Content-Disposition", `attachment; filename*=UTF-8''${encodeURIComponent(file.path.split("/").pop()!)}`);
      return { content: file.content };
    }),

  put: authedProcedure
    .meta({
      permission: "files:write",
      rest: { method: "PUT", path: "/files/{path+}", rawBody: { limitOf: (app) => app.config.env.FILES_MAX_UPLOAD_BYTES }, statusOf: (o) => ((o as { created: boolean }).created ? 201 : 200) },
      summary: "Creates or replaces a file with the request body's bytes (member+)",
      description: `The body is the file's bytes as they are (send \`Content-Type: application/octet-stream\`; any type is taken, this route is outside the JSON rule). ${pathRules} A body over FILES_MAX_UPLOAD_BYTES (default 10 MiB): 413 \`PAYLOAD_TOO_LARGE\`. A write that would take the organization's files past FILES_MAX_BYTES (default 100 MiB): 507 \`FILES_QUOTA_EXCEEDED\`, nothing written. 201 when the file is new, 200 when it was replaced.`,
      tags,
    })
    .input(z.object({ path: pathInput, content: bytes }))
    .output(z.object({ file: fileView, created: z.boolean() }))
    .mutation(({ ctx, input }) => writeOrgFile(ctx.services, ctx.principal, input, requestMeta(ctx))),

  delete: authedProcedure
    .meta({ permission: "files:write", rest: { method: "DELETE", path: "/files/{path+}", status: 204 }, summary: "Deletes a file (member+)", description: `${pathRules} A file that does not exist: 404.`, tags })
    .input(z.object({ path: pathInput }))
    .output(z.void())
    .mutation(({ ctx, input }) => deleteOrgFile(ctx.services, ctx.principal, input, requestMeta(ctx))),

  /** The Files page's preview: the text when it is UTF-8, else base64 (tRPC only). */
  read: authedProcedure
    .meta({ permission: "files:read" })
    .input(z.object({ path: pathInput, max_bytes: z.number().int().min(1).max(1024 * 1024).default(64 * 1024) }))
    .output(z.object({ path: z.string(), size: z.number().int(), updated_at: z.string(), encoding: z.enum(["utf8", "base64"]), content: z.string(), truncated: z.boolean() }))
    .query(async ({ ctx, input }) => {
      const file = await readOrgFile(ctx.services, ctx.principal, input);
      const head = file.content.subarray(0, input.max_bytes);
      const text = new TextDecoder("utf-8", { fatal: false }).decode(head);
      const isText = !text.includes("\uFFFD") && !text.includes("\u0000");
      return {
        path: file.path,
        size: file.size,
        updated_at: file.updated_at,
        encoding: isText ? "utf8" : "base64",
        content: isText ? text : head.toString("base64"),
        truncated: head.byteLength < file.content.byteLength,
      };
    }),

  /** The Files page's upload (tRPC only: the page sends base64 within tRPC's body limit). */
  upload: authedProcedure
    .meta({ permission: "files:write", trpcBodyLimit: MAX_BASE64_CHARS + 64 * 1024 })
    .input(z.object({ path: pathInput, content_base64: z.string().max(MAX_BASE64_CHARS).regex(/^[A-Za-z0-9+/]*={0,2}$/, "must be base64") }))
    .output(z.object({ file: fileView, created: z.boolean() }))
    .mutation(({ ctx, input }) => writeOrgFile(ctx.services, ctx.principal, { path: input.path, content: Buffer.from(input.content_base64, "base64") }, requestMeta(ctx))),
});
