/**
 * The organization's files as rows of `org_files` (SPEC §23; src/server/services/files/README.md, "Files"): one
 * row per file, the bytes in the row, so every instance sees the same files and a backup of the
 * database holds them. Below the use cases (files.ts, which take a principal) and the runtime's
 * OrgFiles (compose.ts), both of which name the organization explicitly.
 *
 * Every write runs in one transaction that first locks the organization's `org_file_usage` row
 * (SELECT … FOR UPDATE): the size check and the write are one step, so two writers (on one
 * instance or several) cannot both pass FILES_MAX_BYTES. On one instance the writes of an
 * organization also queue in the process before they take a pooled connection (`oneAtATime`).
 */
import type { PrismaClient } from "../../../generated/prisma/client";
import { AppError } from "../../errors";
import { formatBytes, normalizeFilePath } from "../../../shared/file-paths";

export interface FileLimits {
  /** FILES_MAX_BYTES: the organization's files together. */
  maxBytes: number;
  /** FILES_MAX_UPLOAD_BYTES: one file. */
  maxFileBytes: number;
  /** FILES_MAX_COUNT: how many files the organization may hold (an empty file is a row too). Unset: no bound. */
  maxCount?: number;
}

export interface StoredFileInfo {
  path: string;
  size: number;
  updatedAt: Date;
}

/** The tail of each organization's queue of writes on this instance. */
const writeQueues = new Map<string, Promise<unknown>>();

/**
 * Runs the organization's file writes one after another on this instance. They would wait for
 * each other on the usage row's lock anyway, but each holding a pooled database connection
 * meanwhile: a burst of appends (a flow's file nodes) took the whole pool, and the writes, reads
 * and sign-ins queued behind it failed after the pool's 3 s wait ("timeout exceeded when trying
 * to connect") on a busy server. Queued here they hold nothing; the row lock still orders the
 * writes of several instances (and of a second copy of this module, were a bundle to hold one:
 * the queue only spares connections, it is not what keeps the quota).
 */
function oneAtATime<T>(organizationId: string, work: () => Promise<T>): Promise<T> {
  const previous = writeQueues.get(organizationId) ?? Promise.resolve();
  const run = previous.then(work, work);
  const tail = run.catch(() => undefined);
  writeQueues.set(organizationId, tail);
  void tail.then(() => {
    if (writeQueues.get(organizationId) === tail) writeQueues.delete(organizationId);
  });
  return run;
}

/** The normalized path, or 400 VALIDATION_FAILED naming the problem. */
export function filePathOrThrow(input: string, field = "path", options: { existing?: boolean } = {}): string {
  const result = normalizeFilePath(input, options);
  if (!result.ok) throw new AppError("VALIDATION_FAILED", `${field}: ${result.problem}`, { details: [{ path: field, message: result.problem }] });
  return result.path;
}

/** The organization's files in path order; with `after`, only those after that path; with `take`, at most that many. */
export async function listFiles(prisma: PrismaClient, organizationId: string, page: { after?: string; take?: number } = {}): Promise<StoredFileInfo[]> {
  return prisma.orgFile.findMany({
    where: { organizationId, ...(page.after !== undefined ? { path: { gt: page.after } } : {}) },
    select: { path: true, size: true, updatedAt: true },
    orderBy: { path: "asc" },
    ...(page.take !== undefined ? { take: page.take } : {}),
  });
}

export async function readFile(prisma: PrismaClient, organizationId: string, path: string): Promise<{ content: Buffer; size: number; updatedAt: Date } | null> {
  // Raw SQL, as the write: Prisma's findUnique carries the bytes about twice as slowly.
  const [row] = await prisma.$queryRaw<Array<{ content: Uint8Array; size: number; updatedAt: Date }>>`SELECT content, size, updated_at AS "updatedAt" FROM org_files WHERE organization_id = ${organizationId} AND path = ${path}`;
  if (!row) return null;
  return { content: Buffer.from(row.content.buffer, row.content.byteOffset, row.content.byteLength), size: row.size, updatedAt: row.updatedAt };
}

/** The file's version: its updated_at in milliseconds, which every write moves forward; null when there is no such file. */
export async function fileVersion(prisma: PrismaClient, organizationId: string, path: string): Promise<number | null> {
  const row = await prisma.orgFile.findUnique({ where: { organizationId_path: { organizationId, path } }, select: { updatedAt: true } });
  return row ? row.updatedAt.getTime() : null;
}

export async function fileUsage(prisma: PrismaClient, organizationId: string): Promise<number> {
  const row = await prisma.orgFileUsage.findUnique({ where: { organizationId }, select: { bytes: true } });
  return row ? Number(row.bytes) : 0;
}

/**
 * Writes `content` as the whole file (`append: false`) or at its end (`append: true`, creating it
 * when missing). Refused, with nothing written: past the file's limit (413 PAYLOAD_TOO_LARGE) or the
 * organization's (507 FILES_QUOTA_EXCEEDED).
 */
export async function writeFile(
  prisma: PrismaClient,
  organizationId: string,
  path: string,
  content: Uint8Array,
  options: { append: boolean; limits: FileLimits },
): Promise<StoredFileInfo & { created: boolean }>;
/** With `ifVersion`: only if the file's version (fileVersion) is still that (null: no such file); `{conflict}` when it is not, with nothing written. */
export async function writeFile(
  prisma: PrismaClient,
  organizationId: string,
  path: string,
  content: Uint8Array,
  options: { append: boolean; limits: FileLimits; ifVersion: number | null },
): Promise<(StoredFileInfo & { created: boolean }) | { conflict: true }>;
export async function writeFile(
  prisma: PrismaClient,
  organizationId: string,
  path: string,
  content: Uint8Array,
  options: { append: boolean; limits: FileLimits; ifVersion?: number | null },
): Promise<(StoredFileInfo & { created: boolean }) | { conflict: true }> {
  const { limits } = options;
  const added = content.byteLength;
  return oneAtATime(organizationId, () => prisma.$transaction(
    async (tx) => {
      await tx.$executeRaw`INSERT INTO org_file_usage (organization_id, bytes) VALUES (${organizationId}, 0) ON CONFLICT (organization_id) DO NOTHING`;
      const [usage] = await tx.$queryRaw<Array<{ bytes: bigint }>>`SELECT bytes FROM org_file_usage WHERE organization_id = ${organizationId} FOR UPDATE`;
      const existing = await tx.orgFile.findUnique({ where: { organizationId_path: { organizationId, path } }, select: { size: true, updatedAt: true } });
      // Under the usage row's lock no other write of the organization's files runs: the check and the write are one.
      if (options.ifVersion !== undefined && (existing ? existing.updatedAt.getTime() : null) !== options.ifVersion) return { conflict: true as const };
      const before = existing?.size ?? 0;
      const after = options.append ? before + added : added;
      if (after > limits.maxFileBytes) {
        throw new AppError(
          "PAYLOAD_TOO_LARGE",
          `a file may hold at most ${formatBytes(limits.maxFileBytes)} (${limits.maxFileBytes} bytes); ${path} would hold ${after} bytes`,
        );
      }
      if (!existing && limits.maxCount !== undefined) {
        const [files] = await tx.$queryRaw<Array<{ count: number }>>`SELECT count(*)::int AS count FROM org_files WHERE organization_id = ${organizationId}`;
        if ((files?.count ?? 0) >= limits.maxCount) {
          throw new AppError("FILES_QUOTA_EXCEEDED", `the organization may hold at most ${limits.maxCount} files; delete one to make ${path}`);
        }
      }
      const used = Number(usage?.bytes ?? 0n);
      const total = used - before + after;
      if (total > limits.maxBytes && after > before) {
        throw new AppError(
          "FILES_QUOTA_EXCEEDED",
          `the organization's files may hold at most ${formatBytes(limits.maxBytes)} (${limits.maxBytes} bytes): ${used} bytes are used and this write needs ${after - before} more`,
        );
      }
      // The time of the write, and always later than the one before: updated_at is the file's version (fileVersion).
      const now = new Date(Math.max(Date.now(), (existing?.updatedAt.getTime() ?? 0) + 1));
      if (existing && options.append) {
        await tx.$executeRaw`UPDATE org_files SET content = content || ${Buffer.from(content.buffer, content.byteOffset, content.byteLength)}, size = size + ${added}, updated_at = ${now} WHERE organization_id = ${organizationId} AND path = ${path}`;
      } else {
        // Raw SQL: Prisma's upsert carries the bytes three times slower (a 4.6 MB SQLite database
        // took 530 ms against 170 ms on PostgreSQL, 6 s against 2 s embedded; docs/BENCHMARKS.md 4e).
        const bytes = Buffer.from(content.buffer, content.byteOffset, content.byteLength);
        await tx.$executeRaw`INSERT INTO org_files (organization_id, path, content, size, updated_at) VALUES (${organizationId}, ${path}, ${bytes}, ${added}, ${now})
          ON CONFLICT (organization_id, path) DO UPDATE SET content = EXCLUDED.content, size = EXCLUDED.size, updated_at = EXCLUDED.updated_at`;
      }
      await tx.orgFileUsage.update({ where: { organizationId }, data: { bytes: BigInt(total) } });
      return { path, size: after, updatedAt: now, created: !existing };
    },
    { maxWait: 10_000, timeout: 30_000 },
  ));
}

/** Deletes the file; false when there was none. */
export async function deleteFile(prisma: PrismaClient, organizationId: string, path: string): Promise<boolean> {
  return oneAtATime(organizationId, () => prisma.$transaction(
    async (tx) => {
      await tx.$executeRaw`INSERT INTO org_file_usage (organization_id, bytes) VALUES (${organizationId}, 0) ON CONFLICT (organization_id) DO NOTHING`;
      await tx.$queryRaw`SELECT bytes FROM org_file_usage WHERE organization_id = ${organizationId} FOR UPDATE`;
      const removed = await tx.orgFile.deleteMany({ where: { organizationId, path } });
      if (removed.count === 0) return false;
      // Recounted from the rows under the lock: the usage row can never drift from them.
      const [sum] = await tx.$queryRaw<Array<{ total: bigint | null }>>`SELECT SUM(size)::bigint AS total FROM org_files WHERE organization_id = ${organizationId}`;
      await tx.orgFileUsage.update({ where: { organizationId }, data: { bytes: sum?.total ?? 0n } });
      return true;
    },
    { maxWait: 10_000, timeout: 30_000 },
  ));
}
