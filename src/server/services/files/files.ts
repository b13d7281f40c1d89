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

export interface FileView {
  path: string;
  size: number;
  updated_at: string;
}

export function fileLimits(app: AppServices): FileLimits {
  return { maxBytes: app.config.env.FILES_MAX_BYTES, maxFileBytes: app.config.env.FILES_MAX_UPLOAD_BYTES };
}

const notFound = (path: string) => new AppError("NOT_FOUND", `file not found: ${path}`);

export async function listOrgFiles(app: AppServices, principal: Principal): Promise<{ files: FileView[]; used_bytes: number; max_bytes: number; max_file_bytes: number }> {
  const [files, used] = await Promise.all([listFiles(app.db.prisma, principal.organizationId), fileUsage(app.db.prisma, principal.organizationId)]);
  const limits = fileLimits(app);
  return {
    files: files.map((f) => ({ path: f.path, size: f.size, updated_at: f.updatedAt.toISOString() })),
    used_bytes: used,
    max_bytes: limits.maxBytes,
    max_file_bytes: limits.maxFileBytes,
  };
}

export async function readOrgFile(app: AppServices, principal: Principal, input: { path: string }): Promise<{ path: string; content: Buffer; size: number; updated_at: string }> {
  const path = filePathOrThrow(input.path);
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
  const path = filePathOrThrow(input.path);
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
