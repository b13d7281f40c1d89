/**
 * The organization's files as people and programs reach them (SPEC §23): GET/PUT/DELETE /files and
 * the Files page. The organization is always the principal's; paths follow shared/file-paths.ts.
 * Uploads and deletions are audited (file.written, file.deleted); flows' own writes are not.
 */
import type { AppServices } from "../../app-services";
import type { Principal } from "../../auth/principal";
import { AppError } from "../../errors";
import { recordAudit } from "../audit/record-audit";
import type { RequestMeta } from "../request-meta";
import { deleteFile, filePathOrThrow, fileUsage, listFiles, readFile, writeFile, type FileLimits } from "./file-store";
import { normalizeFilePath } from "../../../shared/file-paths";

export interface FileView {
  path: string;
  size: number;
  updated_at: string;
}

export function fileLimits(app: AppServices): FileLimits {
  return { maxBytes: app.config.env.FILES_MAX_BYTES, maxFileBytes: app.config.env.FILES_MAX_UPLOAD_BYTES, maxCount: app.config.env.FILES_MAX_COUNT };
}

const notFound = (path: string) => new AppError("NOT_FOUND", `file not found: ${path}`);

const badCursor = () => new AppError("VALIDATION_FAILED", "cursor: is not a cursor from a previous page", { details: [{ path: "cursor", message: "is not a cursor from a previous page" }] });

/** A page's cursor: the last path it listed, base64url (paths are unique and ordered per organization). */
function decodeCursor(cursor: string): string {
  if (!/^[A-Za-z0-9_-]{1,2000}$/.test(cursor)) throw badCursor();
  const path = normalizeFilePath(Buffer.from(cursor, "base64url").toString("utf8"), { existing: true });
  if (!path.ok) throw badCursor();
  return path.path;
}

/** SPEC §1's lists: all files without `limit`; with it, pages of `limit` and `next_cursor` (null at the end). */
export async function listOrgFiles(
  app: AppServices,
  principal: Principal,
  page: { limit?: number; cursor?: string } = {},
): Promise<{ files: FileView[]; next_cursor: string | null; used_bytes: number; max_bytes: number; max_file_bytes: number }> {
  const after = page.cursor !== undefined ? decodeCursor(page.cursor) : undefined;
  const take = page.limit !== undefined ? page.limit + 1 : undefined;
  const [rows, used] = await Promise.all([listFiles(app.db.prisma, principal.organizationId, { after, take }), fileUsage(app.db.prisma, principal.organizationId)]);
  const more = page.limit !== undefined && rows.length > page.limit;
  const files = more ? rows.slice(0, page.limit) : rows;
  const limits = fileLimits(app);
  return {
    files: files.map((f) => ({ path: f.path, size: f.size, updated_at: f.updatedAt.toISOString() })),
    next_cursor: more ? Buffer.from(files[files.length - 1]!.path).toString("base64url") : null,
    used_bytes: used,
    max_bytes: limits.maxBytes,
    max_file_bytes: limits.maxFileBytes,
  };
}

export async function readOrgFile(app: AppServices, principal: Principal, input: { path: string }): Promise<{ path: string; content: Buffer; size: number; updated_at: string }> {
  const path = filePathOrThrow(input.path, "path", { existing: true });
  const file = await readFile(app.db.prisma, principal.organizationId, path);
  if (!file) throw notFound(path);
  return { path, content: file.content, size: file.size, updated_at: file.updatedAt.toISOString() };
}

export async function writeOrgFile(
  app: AppServices,
  principal: Principal,
  input: { path: string; content: Uint8Array },
  meta: RequestMeta,
): Promise<{ file: FileView; created: boolean }> {
  const path = filePathOrThrow(input.path);
  const limits = fileLimits(app);
  if (input.content.byteLength > limits.maxFileBytes) {
    throw new AppError("PAYLOAD_TOO_LARGE", `a file may hold at most ${limits.maxFileBytes} bytes (FILES_MAX_UPLOAD_BYTES)`);
  }
  const stored = await writeFile(app.db.prisma, principal.organizationId, path, input.content, { append: false, limits });
  await recordAudit(app, {
    action: "file.written",
    organizationId: principal.organizationId,
    actorId: principal.userId,
    targetType: "file",
    targetId: path.slice(0, 200),
    ipAddress: meta.ip,
    metadata: { size: stored.size },
  });
  return { file: { path, size: stored.size, updated_at: stored.updatedAt.toISOString() }, created: stored.created };
}

export async function deleteOrgFile(app: AppServices, principal: Principal, input: { path: string }, meta: RequestMeta): Promise<void> {
  const path = filePathOrThrow(input.path, "path", { existing: true });
  if (!(await deleteFile(app.db.prisma, principal.organizationId, path))) throw notFound(path);
  await recordAudit(app, {
    action: "file.deleted",
    organizationId: principal.organizationId,
    actorId: principal.userId,
    targetType: "file",
    targetId: path.slice(0, 200),
    ipAddress: meta.ip,
  });
}
