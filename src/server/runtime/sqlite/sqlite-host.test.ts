import { afterAll, describe, expect, it } from "vitest";
import { MemoryFiles } from "@/test/memory-files";
import { SqliteHost, type SqliteRef } from "./sqlite-host";
import type { SqliteLimits } from "./sqlite-protocol";

const limits: SqliteLimits = { statementMs: 300, maxDatabaseBytes: 1 << 20, maxValueBytes: 256 * 1024, maxResultBytes: 512 * 1024 };
const files = new MemoryFiles(4 << 20);
const host = new SqliteHost({ files, limits, heapLimitBytes: 64 << 20 });
const other = new SqliteHost({ files, limits, heapLimitBytes: 64 << 20 });
afterAll(async () => {
  await host.close();
  await other.close();
});

const ref = (path: string | null, mode: SqliteRef["mode"] = "RWC", organizationId = "org_a"): SqliteRef => ({ organizationId, path, privateId: "cfg1", mode });

async function failure(promise: Promise<unknown>) {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e as Error & { code?: string; errno?: number },
  );
  if (!err) throw new Error("expected a failure");
  return { message: err.message, code: err.code, errno: err.errno };
}

describe("SQLite on the organization's files", () => {
  it("creates, writes back after a change and reads as node-sqlite3 does", async () => {
    const db = host.acquire(ref("data/plant.db"));
    await db.exec("CREATE TABLE readings (id INTEGER PRIMARY KEY AUTOINCREMENT, sensor TEXT NOT NULL, value REAL, raw BLOB)");
    expect(files.get("org_a", "data/plant.db")?.subarray(0, 15).toString()).toBe("SQLite format 3");
    expect(await db.all("INSERT INTO readings (sensor, value, raw) VALUES ($s, $v, $r)", { $s: "t1", $v: 21.5, $r: new Uint8Array([1, 2, 3]) })).toEqual([]);
    await db.all("INSERT INTO readings (sensor, value) VALUES (?, ?)", ["t2", 7]);
    const rows = await db.all("SELECT id, sensor, value, raw FROM readings ORDER BY id");
    expect(rows).toEqual([
      { id: 1, sensor: "t1", value: 21.5, raw: new Uint8Array([1, 2, 3]) },
      { id: 2, sensor: "t2", value: 7, raw: null },
    ]);
    // Only the first statement of an `all` runs (sqlite3_prepare's rule).
    await db.all("INSERT INTO readings (sensor) VALUES ('t3'); INSERT INTO readings (sensor) VALUES ('t4')");
    expect(await db.all("SELECT count(*) AS n FROM readings")).toEqual([{ n: 3 }]);
    await db.release();
  });

  it("sees another instance's writes, and a conflicting write runs again on them", async () => {
    const a = host.acquire(ref("shared.db"));
    const b = other.acquire(ref("shared.db"));
    await a.exec("CREATE TABLE c (n INTEGER)");
    await b.all("INSERT INTO c VALUES (1)");
    expect(await a.all("SELECT sum(n) AS s FROM c")).toEqual([{ s: 1 }]);
    // Interleaved writers: every insert lands once, whoever loaded first.
    await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).all("INSERT INTO c VALUES (1)")));
    expect(await b.all("SELECT sum(n) AS s FROM c")).toEqual([{ s: 11 }]);
    // A file replaced by someone else (an upload) is what the next query reads.
    files.set("org_a", "shared.db", Buffer.alloc(0));
    expect(await a.all("SELECT count(*) AS n FROM sqlite_schema")).toEqual([{ n: 0 }]);
    await a.release();
    await b.release();
  });

  it("keeps organizations apart, and :memory: private to its configuration node", async () => {
    const mine = host.acquire(ref("same.db", "RWC", "org_a"));
    const theirs = host.acquire(ref("same.db", "RWC", "org_b"));
    await mine.exec("CREATE TABLE secret (x)");
    expect(await failure(theirs.all("SELECT * FROM secret"))).toEqual({ message: "SQLITE_ERROR: no such table: secret", code: "SQLITE_ERROR", errno: 1 });
    const m1 = host.acquire(ref(null));
    const m2 = host.acquire({ ...ref(null), privateId: "cfg2" });
    await m1.exec("CREATE TABLE t (x)");
    expect((await failure(m2.all("SELECT * FROM t"))).code).toBe("SQLITE_ERROR");
    expect(files.get("org_a", ":memory:")).toBeUndefined();
    for (const d of [mine, theirs, m1, m2]) await d.release();
  });

  it("opens RW and RO only on an existing file, and RO refuses changes", async () => {
    expect(await failure(host.acquire(ref("missing.db", "RW")).all("SELECT 1"))).toEqual({ message: "SQLITE_CANTOPEN: unable to open database file", code: "SQLITE_CANTOPEN", errno: 14 });
    const writer = host.acquire(ref("ro.db"));
    await writer.exec("CREATE TABLE t (x); INSERT INTO t VALUES (5)");
    const reader = host.acquire(ref("ro.db", "RO"));
    expect(await reader.all("SELECT x FROM t")).toEqual([{ x: 5 }]);
    expect((await failure(reader.all("INSERT INTO t VALUES (6)"))).code).toBe("SQLITE_READONLY");
    files.set("org_a", "junk.db", "not a database at all, just text");
    expect((await failure(host.acquire(ref("junk.db")).all("SELECT 1"))).code).toBe("SQLITE_NOTADB");
    await writer.release();
    await reader.release();
  });

  it("refuses ATTACH, VACUUM INTO, load_extension and PRAGMAs past the database", async () => {
    const db = host.acquire(ref("fence.db"));
    for (const sql of ["ATTACH 'other.db' AS o", "VACUUM INTO 'copy.db'", "PRAGMA max_page_count = 100000000", "PRAGMA writable_schema = ON", "PRAGMA hard_heap_limit = 0"]) {
      const f = await failure(db.all(sql));
      expect(f.code, sql).toBe("SQLITE_AUTH");
      expect(f.message).toMatch(/^SQLITE_AUTH: (not authorized|authorization denied) \(/);
    }
    expect((await failure(db.all("SELECT load_extension('/lib/x.so')"))).code).toMatch(/SQLITE_(AUTH|ERROR)/);
    await db.exec("CREATE TABLE t (a INTEGER, b TEXT)");
    expect((await db.all("PRAGMA table_info(t)")).map((r) => r.name)).toEqual(["a", "b"]);
    await db.release();
  });

  it("interrupts a statement past its time, and the database goes on", async () => {
    const db = host.acquire(ref("slow.db"));
    const started = Date.now();
    const f = await failure(db.all("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"));
    expect(f.code).toBe("SQLITE_INTERRUPT");
    expect(f.message).toContain("at most 300 ms");
    expect(Date.now() - started).toBeLessThan(5000);
    expect(await db.all("SELECT 1 AS one")).toEqual([{ one: 1 }]);
    await db.release();
  });

  it("binds as node-sqlite3: a name the statement lacks is out of range, as are extra positions", async () => {
    const db = host.acquire(ref(null));
    expect(await failure(db.all("SELECT $a AS a", { a: 1 }))).toEqual({ message: "SQLITE_RANGE: column index out of range", code: "SQLITE_RANGE", errno: 25 });
    expect((await failure(db.all("SELECT ? AS a", [1, 2]))).code).toBe("SQLITE_RANGE");
    expect(await db.all("SELECT $a AS a, ? AS b", { $a: true, 2: "x" })).toEqual([{ a: 1, b: "x" }]);
    expect(await db.all("SELECT typeof(?) AS i, typeof(?) AS big, typeof(?) AS r", [3, 2 ** 40, 1.5])).toEqual([{ i: "integer", big: "real", r: "real" }]);
    await db.release();
  });

  it("past the database's size, the organization's quota or the result's limit, nothing is kept", async () => {
    const db = host.acquire(ref("big.db"));
    await db.exec("CREATE TABLE b (x BLOB)");
    // The database's own limit (one file's): SQLite says it is full before the file is written.
    const full = await failure(db.all("INSERT INTO b SELECT randomblob(200000) FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 8) SELECT x FROM c)"));
    expect(full.code).toBe("SQLITE_FULL");
    expect(await db.all("SELECT count(*) AS n FROM b")).toEqual([{ n: 0 }]);
    const tooBig = await failure(db.all("SELECT randomblob(200000) AS a, randomblob(200000) AS b, randomblob(200000) AS c"));
    expect(tooBig.code).toBe("SQLITE_TOOBIG");
    await db.release();
    // The organization's quota (4 MiB here), full of other files: the write-back is refused and rolled back.
    const quota = new MemoryFiles(64 * 1024);
    const tight = new SqliteHost({ files: quota, limits, heapLimitBytes: 32 << 20 });
    try {
      const q = tight.acquire(ref("q.db"));
      await q.exec("CREATE TABLE t (x)");
      const f = await failure(q.all("INSERT INTO t VALUES (randomblob(100000))"));
      expect(f.code).toBe("SQLITE_FULL");
      expect(f.message).toContain("at most 65536 bytes");
      expect(await q.all("SELECT count(*) AS n FROM t")).toEqual([{ n: 0 }]);
      await q.release();
    } finally {
      await tight.close();
    }
  });

  it("holds the write-back while a transaction is open, and writes at COMMIT", async () => {
    const db = host.acquire(ref("tx.db"));
    await db.exec("CREATE TABLE t (x)");
    const before = files.get("org_a", "tx.db");
    await db.all("BEGIN");
    await db.all("INSERT INTO t VALUES (1)");
    expect(files.get("org_a", "tx.db")).toEqual(before);
    await db.all("COMMIT");
    const reader = other.acquire(ref("tx.db"));
    expect(await reader.all("SELECT x FROM t")).toEqual([{ x: 1 }]);
    await db.release();
    await reader.release();
  });

  it("writes back the changes before a BEGIN that arrives in the same batch, so an acknowledged insert is never held by a transaction", async () => {
    const db = host.acquire(ref("split.db"));
    await db.exec("CREATE TABLE t (x)");
    // Queued together: the insert (autocommit), then a BEGIN and an insert inside it.
    const inserted = db.all("INSERT INTO t VALUES (1)");
    const begun = db.all("BEGIN");
    const inside = db.all("INSERT INTO t VALUES (2)");
    await Promise.all([inserted, begun, inside]);
    const reader = other.acquire(ref("split.db"));
    expect(await reader.all("SELECT x FROM t")).toEqual([{ x: 1 }]);
    // The open transaction is rolled back when someone else changes the file: its next statement says so.
    await reader.all("INSERT INTO t VALUES (3)");
    const lost = await failure(db.all("INSERT INTO t VALUES (4)"));
    expect(lost.code).toBe("SQLITE_ABORT");
    expect(await db.all("SELECT x FROM t ORDER BY x")).toEqual([{ x: 1 }, { x: 3 }]);
    await db.release();
    await reader.release();
  });

  it("reads write nothing back (PRAGMA table_info included); VACUUM works; RWC creates the file at first use", async () => {
    const db = host.acquire(ref("quiet.db"));
    expect(files.get("org_a", "quiet.db")).toBeUndefined();
    expect(await db.all("SELECT 1 AS one")).toEqual([{ one: 1 }]);
    const created = await files.version("org_a", "quiet.db");
    expect(created).not.toBeNull();
    await db.exec("CREATE TABLE t (a INTEGER)");
    const version = await files.version("org_a", "quiet.db");
    await db.all("PRAGMA table_info(t)");
    await db.all("SELECT * FROM t");
    await db.all("PRAGMA integrity_check");
    expect(await files.version("org_a", "quiet.db")).toBe(version);
    expect(await db.all("VACUUM")).toEqual([]);
    expect((await failure(db.all("PRAGMA page_size = 65536"))).code).toBe("SQLITE_AUTH");
    await db.release();
    expect((await failure(db.all("SELECT 1"))).code).toBe("SQLITE_MISUSE");
  });

  it("an organization may hold a bounded number of databases open on an instance; another organization is not affected", async () => {
    const small = new SqliteHost({ files, limits, heapLimitBytes: 32 << 20, maxOpenPerOrganization: 2 });
    try {
      const a = small.acquire(ref("1.db", "RWC", "org_c"));
      const b = small.acquire(ref("2.db", "RWC", "org_c"));
      const c = small.acquire(ref("3.db", "RWC", "org_c"));
      expect((await failure(c.all("SELECT 1"))).message).toContain("may have 2 databases open");
      expect(await small.acquire(ref("1.db", "RWC", "org_d")).all("SELECT 1 AS one")).toEqual([{ one: 1 }]);
      await a.release();
      expect(await small.acquire(ref("3.db", "RWC", "org_c")).all("SELECT 2 AS two")).toEqual([{ two: 2 }]);
      await b.release();
    } finally {
      await small.close();
    }
  });

  it("counts a result's column names in its size (a long name on many rows is too big)", async () => {
    const db = host.acquire(ref(null));
    const name = "n".repeat(1000);
    const f = await failure(db.all(`SELECT 1 AS "${name}" FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 2000) SELECT x FROM c)`));
    expect(f.code).toBe("SQLITE_TOOBIG");
    await db.release();
  });

  it("statements queued together whose rows would exceed one result's bound are answered in turns, all of them", async () => {
    const db = host.acquire(ref(null));
    const big = "SELECT randomblob(200000) AS b";
    const answers = await Promise.all([db.all(big), db.all(big), db.all(big)]);
    expect(answers.map((rows) => (rows[0]!.b as Uint8Array).byteLength)).toEqual([200000, 200000, 200000]);
    await db.release();
  });

  it("a SAVEPOINT outside a transaction opens one too: the changes before it are written back first", async () => {
    const db = host.acquire(ref("savepoint.db"));
    await db.exec("CREATE TABLE t (x)");
    await Promise.all([db.all("INSERT INTO t VALUES ('before')"), db.all("SAVEPOINT s"), db.all("INSERT INTO t VALUES ('inside')")]);
    const reader = other.acquire(ref("savepoint.db"));
    expect(await reader.all("SELECT x FROM t")).toEqual([{ x: "before" }]);
    await db.all("RELEASE s");
    expect(await reader.all("SELECT x FROM t ORDER BY rowid")).toEqual([{ x: "before" }, { x: "inside" }]);
    await db.release();
    await reader.release();
  });
});

