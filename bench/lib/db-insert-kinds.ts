/**
 * Benchmarks 4f and 4g (a database node's inserts beside Node-RED): what differs between MySQL and
 * PostgreSQL, so one child (bench/db-insert-child.ts) and one runner (bench/db-inserts.ts) serve both.
 */
import { MYSQL_INSERT_CODE, mysqlBenchTarget, prepareMysqlBench } from "./mysql-bench";
import { PG_INSERT_CODE, PG_INSERT_QUERY, pgBenchTarget, preparePgBench } from "./pg-bench";

export type DbInsertKind = "mysql" | "postgresql";

export interface DbInsertTarget {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
}

export interface DbInsertKindSpec {
  /** The section's number and title in docs/BENCHMARKS.md. */
  benchmark: string;
  /** Node-RED's scenario (bench/node-red-child.ts). */
  scenario: "mysql-insert" | "pg-insert";
  /** The contrib package Node-RED loads. */
  contrib: string;
  /** The function node before the database node (sets the statement or its parameters). */
  code: string;
  measure: string;
  target(): DbInsertTarget;
  prepare(target: DbInsertTarget): Promise<{ rows(): Promise<number>; drop(): Promise<void> }>;
  /** Ours: the configuration node's type and configuration, and the database node's type and configuration. */
  configNode(t: DbInsertTarget): { type: string; config: Record<string, unknown> };
  node: { type: string; config: Record<string, unknown> };
}

export const DB_INSERT_KINDS: Record<DbInsertKind, DbInsertKindSpec> = {
  mysql: {
    benchmark: "4f MySQL inserts",
    scenario: "mysql-insert",
    contrib: "node-red-node-mysql",
    code: MYSQL_INSERT_CODE,
    measure: "inject → function (generate) → function (INSERT … VALUES (?)) → mysql → change → counter, MariaDB on this machine",
    target: mysqlBenchTarget,
    prepare: prepareMysqlBench,
    configNode: (t) => ({ type: "mysql-database", config: { host: t.host, port: t.port, db: t.database } }),
    node: { type: "mysql", config: { mydb: "db" } },
  },
  postgresql: {
    benchmark: "4g PostgreSQL inserts",
    scenario: "pg-insert",
    contrib: "node-red-contrib-postgresql",
    code: PG_INSERT_CODE,
    measure: "inject → function (generate) → function (msg.params) → postgresql (INSERT … VALUES ($1)) → change → counter, PostgreSQL on this machine",
    target: pgBenchTarget,
    prepare: preparePgBench,
    configNode: (t) => ({ type: "postgresql-config", config: { host: t.host, port: t.port, database: t.database } }),
    node: { type: "postgresql", config: { postgreSQLConfig: "db", query: PG_INSERT_QUERY } },
  },
};
