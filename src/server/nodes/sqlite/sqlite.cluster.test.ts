/**
 * The sqlite node on two real instances against one PostgreSQL and one Redis: flows on both
 * instances insert into the same database (one of the organization's files) at once; every insert
 * lands once (the write-back is conditional on the version each read, and a conflict runs again on
 * the newer file), and each instance reads the other's rows.
 */
import { describe, expect, it } from "vitest";
import type { ClusterNode } from "@/test/cluster";
import { placedOn, twoInstances, deployVia } from "@/test/two-instances";

const two = twoInstances({ basePort: 4170 });

const deploy = (via: ClusterNode, name: string, nodes: unknown[], connections: unknown[]) => deployVia(two, via, name, nodes, connections);

/** http-in (POST /<path>, the body's `sql` as msg.topic) → sqlite (Via msg.topic) → http-response: the rows as JSON. */
function sqlOver(prefix: string, path: string, configId: string) {
  return {
    nodes: [
      { id: `${prefix}_in`, type: "http-in", config: { method: "post", path: `/${path}` } },
      { id: `${prefix}_topic`, type: "change", config: { rules: [{ t: "set", p: "topic", to: "payload.sql", to_type: "msg" }] } },
      { id: `${prefix}_sql`, type: "sqlite", config: { mydb: configId, sqlquery: "msg.topic" } },
      { id: `${prefix}_out`, type: "http-response" },
    ],
    connections: [
      { source: `${prefix}_in`, target: `${prefix}_topic` },
      { source: `${prefix}_topic`, target: `${prefix}_sql` },
      { source: `${prefix}_sql`, target: `${prefix}_out` },
    ],
  };
}

describe("sqlite across instances", () => {
  it("flows on two instances insert into one database at once: every row lands once, and each reads the other's", async () => {
    const { cluster, token, slug } = two;
    try {
      const a = cluster.node("a");
      const config = await a.request("POST", "/config-nodes", { token, body: { type: "sqlitedb", name: "shared", config: { db: "data/shared.db", mode: "RWC" } } });
      expect(config.status, config.text).toBe(201);
      const configId = config.body.config_node.id as string;
      const first = sqlOver("sq1", "sql-one", configId);
      const one = await deploy(a, "sql one", first.nodes, first.connections);
      const oneOn = await placedOn(a, one, token);
      const b = cluster.live().find((n) => n.instanceId !== oneOn)!;
      const second = sqlOver("sq2", "sql-two", configId);
      const twoId = await deploy(b, "sql two", second.nodes, second.connections);
      expect(await placedOn(a, twoId, token)).not.toBe(oneOn);
      const onOne = cluster.byInstance(oneOn);
      const onTwo = cluster.live().find((n) => n !== onOne)!;
      const sql = (node: ClusterNode, path: string, text: string) => node.request("POST", `/hooks/${slug}/${path}`, { body: { sql: text } });

      const created = await sql(onOne, "sql-one", "CREATE TABLE hits (instance TEXT, n INTEGER)");
      expect(created.status, created.text).toBe(200);
      const inserts = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? sql(onOne, "sql-one", `INSERT INTO hits VALUES ('one', ${i})`) : sql(onTwo, "sql-two", `INSERT INTO hits VALUES ('two', ${i})`))),
      );
      expect(inserts.map((r) => r.status)).toEqual(Array(20).fill(200));
      for (const [node, path] of [[onOne, "sql-one"], [onTwo, "sql-two"]] as const) {
        const counted = await sql(node, path, "SELECT instance, count(*) AS c, sum(n) AS s FROM hits GROUP BY instance ORDER BY instance");
        expect(counted.body).toEqual([
          { instance: "one", c: 10, s: 90 },
          { instance: "two", c: 10, s: 100 },
        ]);
      }
    } catch (err) {
      console.error(cluster.logs());
      throw err;
    }
  });
});
