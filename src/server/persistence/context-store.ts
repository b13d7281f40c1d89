/**
 * Flow and global context in PostgreSQL (table `context_entries`, SPEC §13): the statements the
 * runtime's journal (one transaction per flush) and the context service (REST) share. Values are
 * JSON text; `version` comes from one sequence, taken when the row is written (under its row lock),
 * so a larger version is always the later write of a key, on whichever instance it was made.
 */
import type { PrismaClient } from "../../generated/prisma/client";
import type { ContextWrite, StoredWrite } from "../runtime/context/context-journal";
import type { ScopeEntry } from "../runtime/context/context-scope";

export const GLOBAL_SCOPE = "global";

interface Row {
  organization_id: string;
  scope: string;
  key: string;
  value: string | null;
  version: bigint | number | string;
}

function stored(rows: Row[]): StoredWrite[] {
  return rows.map((r) => ({ organizationId: r.organization_id, scope: r.scope, key: r.key, json: r.value, version: Number(r.version) }));
}

// A deletion keeps the key's row (a tombstone: deletions are ordered by version too), counted with
// its key's bytes until sweepContextTombstones removes it.
// A write lands only while its organization (and, for a flow's scope, its flow) is not deleted: a
// flush that comes after a deletion never brings the context back.
const LIVE = `EXISTS (SELECT 1 FROM organizations o WHERE o.id = t.o AND o.deleted_at IS NULL)
  AND (t.s = '${GLOBAL_SCOPE}' OR EXISTS (SELECT 1 FROM flows f WHERE f.id = t.s AND f.organization_id = t.o AND f.deleted_at IS NULL))`;

const SET_SQL = `INSERT INTO context_entries AS c (organization_id, scope, key, value, bytes, version, updated_at)
SELECT t.o, t.s, t.k, t.v, CASE WHEN t.v IS NULL THEN octet_length(t.k) ELSE octet_length(t.k) + octet_length(t.v) END, nextval('context_entries_version_seq'), now()
FROM jsonb_to_recordset($1::jsonb) AS t(o text, s text, k text, v text)
WHERE ${LIVE}
ON CONFLICT (organization_id, scope, key) DO UPDATE
  SET value = EXCLUDED.value, bytes = EXCLUDED.bytes, version = nextval('context_entries_version_seq'), updated_at = now()
RETURNING c.organization_id, c.scope, c.key, c.value, c.version`;

// An addition: what the row holds (a number, else 0) plus the amount, in the database, so additions
// made on several instances at once all count. Whether it holds a number is read from the JSON text
// (never by casting it to jsonb, which refuses a string holding an escaped NUL or lone surrogate:
// that failed the whole batch).
const NUMBER = "^-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?$";

const ADD_SQL = `INSERT INTO context_entries AS c (organization_id, scope, key, value, bytes, version, updated_at)
SELECT t.o, t.s, t.k, (t.d)::text, octet_length(t.k) + octet_length((t.d)::text), nextval('context_entries_version_seq'), now()
FROM jsonb_to_recordset($1::jsonb) AS t(o text, s text, k text, d float8)
WHERE ${LIVE}
ON CONFLICT (organization_id, scope, key) DO UPDATE
  SET value = ((CASE WHEN c.value ~ '${NUMBER}' THEN c.value::float8 ELSE 0 END) + EXCLUDED.value::float8)::text,
      bytes = octet_length(c.key) + octet_length(((CASE WHEN c.value ~ '${NUMBER}' THEN c.value::float8 ELSE 0 END) + EXCLUDED.value::float8)::text),
      version = nextval('context_entries_version_seq'), updated_at = now()
RETURNING c.organization_id, c.scope, c.key, c.value, c.version`;

/** Stores one journal batch in one transaction; rows of deleted flows or organizations are skipped. */
export async function commitContextWrites(prisma: PrismaClient, writes: ContextWrite[]): Promise<StoredWrite[]> {
  const sets = writes.filter((w) => w.increment === undefined).map((w) => ({ o: w.organizationId, s: w.scope, k: w.key, v: w.json }));
  const adds = writes.filter((w) => w.increment !== undefined).map((w) => ({ o: w.organizationId, s: w.scope, k: w.key, d: w.increment }));
  const statements = [];
  if (sets.length > 0) statements.push(prisma.$queryRawUnsafe<Row[]>(SET_SQL, JSON.stringify(sets)));
  if (adds.length > 0) statements.push(prisma.$queryRawUnsafe<Row[]>(ADD_SQL, JSON.stringify(adds)));
  const results = statements.length === 1 ? [await statements[0]!] : await prisma.$transaction(statements);
  return results.flatMap((rows) => stored(rows));
}

/** One write outside the journal (REST); resolves to what was stored, or null when the scope is gone. */
export async function writeContextEntry(
  prisma: PrismaClient,
  write: { organizationId: string; scope: string; key: string; json: string | null },
): Promise<StoredWrite | null> {
  const rows = await prisma.$queryRawUnsafe<Row[]>(SET_SQL, JSON.stringify([{ o: write.organizationId, s: write.scope, k: write.key, v: write.json }]));
  return stored(rows)[0] ?? null;
}

export async function loadContextScope(prisma: PrismaClient, organizationId: string, scope: string): Promise<ScopeEntry[]> {
  const rows = await prisma.$queryRawUnsafe<Row[]>(
    `SELECT organization_id, scope, key, value, version FROM context_entries WHERE organization_id = $1 AND scope = $2 AND value IS NOT NULL ORDER BY key`,
    organizationId,
    scope,
  );
  return rows.map((r) => ({ key: r.key, json: r.value!, version: Number(r.version) }));
}

/** Bytes the organization's context holds, leaving out one key (the one about to be replaced). */
export async function contextUsage(prisma: PrismaClient, organizationId: string, except?: { scope: string; key: string }): Promise<number> {
  const rows = except
    ? await prisma.$queryRawUnsafe<Array<{ total: bigint | number | string }>>(
        `SELECT coalesce(sum(bytes), 0) AS total FROM context_entries WHERE organization_id = $1 AND NOT (scope = $2 AND key = $3)`,
        organizationId,
        except.scope,
        except.key,
      )
    : await prisma.$queryRawUnsafe<Array<{ total: bigint | number | string }>>(
        `SELECT coalesce(sum(bytes), 0) AS total FROM context_entries WHERE organization_id = $1`,
        organizationId,
      );
  return Number(rows[0]?.total ?? 0);
}

/** Rows (keys, deleted ones not yet swept included) the organization's context holds: CONTEXT_MAX_KEYS. */
export async function contextRowCount(prisma: PrismaClient, organizationId: string, except?: { scope: string; key: string }): Promise<number> {
  const rows = except
    ? await prisma.$queryRawUnsafe<Array<{ n: bigint | number }>>(
        `SELECT count(*) AS n FROM context_entries WHERE organization_id = $1 AND NOT (scope = $2 AND key = $3)`,
        organizationId,
        except.scope,
        except.key,
      )
    : await prisma.$queryRawUnsafe<Array<{ n: bigint | number }>>(`SELECT count(*) AS n FROM context_entries WHERE organization_id = $1`, organizationId);
  return Number(rows[0]?.n ?? 0);
}

/**
 * Removes tombstones (deleted keys' rows) older than `olderThanMs`, at most `limit`; resolves to how
 * many, per organization. Old enough that no change message about them is still on its way (a scope
 * applies a stored write only when its version is newer, and every later write takes a newer one anyway).
 */
export async function sweepContextTombstones(prisma: PrismaClient, options: { olderThanMs: number; limit: number }): Promise<Map<string, number>> {
  const rows = await prisma.$queryRawUnsafe<Array<{ organization_id: string }>>(
    `DELETE FROM context_entries c USING (
       SELECT organization_id, scope, key FROM context_entries
       WHERE value IS NULL AND updated_at < now() - make_interval(secs => $1::float8 / 1000) LIMIT $2::int
     ) d
     WHERE c.organization_id = d.organization_id AND c.scope = d.scope AND c.key = d.key AND c.value IS NULL
     RETURNING c.organization_id`,
    options.olderThanMs,
    options.limit,
  );
  const swept = new Map<string, number>();
  for (const { organization_id: id } of rows) swept.set(id, (swept.get(id) ?? 0) + 1);
  return swept;
}

/** One key as stored (its value, null when deleted or absent, and its version, 0 when absent). */
export async function loadContextEntry(prisma: PrismaClient, organizationId: string, scope: string, key: string): Promise<{ json: string | null; version: number }> {
  const rows = await prisma.$queryRawUnsafe<Row[]>(
    `SELECT organization_id, scope, key, value, version FROM context_entries WHERE organization_id = $1 AND scope = $2 AND key = $3`,
    organizationId,
    scope,
    key,
  );
  const row = rows[0];
  return row ? { json: row.value, version: Number(row.version) } : { json: null, version: 0 };
}
