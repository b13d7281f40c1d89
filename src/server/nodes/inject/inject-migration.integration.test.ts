import { describe, expect, it } from "vitest";
import { databaseBefore } from "@/test/migration-before";
import { injectConfig } from "./definition";

const MIGRATION = "20261125214500_inject_props";

describe(`migration ${MIGRATION}`, () => {
  it("rewrites stored inject configs (flows and deployment snapshots) into props, and leaves other nodes alone", async () => {
    // Every migration before this one, then old-shape data, then this one.
    const bench = await databaseBefore(MIGRATION);
    const { pg } = bench;

    const nodes = [
      { id: "i1", type: "inject", name: "", position: { x: 0, y: 0 }, disabled: false, config: { payload_type: "number", payload: "7", topic: "t", repeat_seconds: 5, cron: null, once: true, once_delay_seconds: 0.1 } },
      { id: "i2", type: "inject", name: "", position: { x: 0, y: 0 }, disabled: false, config: { payload_type: "timestamp", payload: "", topic: "", repeat_seconds: null, cron: null, once: false, once_delay_seconds: 0.1 } },
      { id: "d1", type: "debug", name: "", position: { x: 0, y: 0 }, disabled: false, config: { payload: "keep" } },
    ];
    await pg.query(`INSERT INTO organizations (id, name, slug, updated_at) VALUES ('org1', 'O', 'o', now())`);
    await pg.query(`INSERT INTO users (id, email, password_hash, updated_at) VALUES ('u1', 'a@b.c', 'x', now())`);
    await pg.query(`INSERT INTO flows (id, organization_id, name, nodes, created_by_id, updated_at) VALUES ('f1', 'org1', 'F', $1, 'u1', now())`, [JSON.stringify(nodes)]);
    await pg.query(`INSERT INTO deployments (id, flow_id, organization_id, revision, snapshot, deployed_by_id) VALUES ('d1', 'f1', 'org1', 1, $1, 'u1')`, [JSON.stringify({ nodes, connections: [] })]);

    const result = await bench.migrate();
    expect(result.applied).toContain(MIGRATION);

    const flow = (await pg.query<{ nodes: typeof nodes }>(`SELECT nodes FROM flows WHERE id = 'f1'`)).rows[0]!;
    const snapshot = (await pg.query<{ snapshot: { nodes: typeof nodes } }>(`SELECT snapshot FROM deployments WHERE id = 'd1'`)).rows[0]!.snapshot;
    for (const stored of [flow.nodes, snapshot.nodes]) {
      expect(stored[0]!.config).toEqual({
        props: [
          { p: "payload", v: "7", v_type: "num" },
          { p: "topic", v: "t", v_type: "str" },
        ],
        repeat_seconds: 5,
        cron: null,
        once: true,
        once_delay_seconds: 0.1,
      });
      expect((stored[1]!.config as Record<string, unknown>).props).toEqual([
        { p: "payload", v: "", v_type: "date" },
        { p: "topic", v: "", v_type: "str" },
      ]);
      expect(stored[2]).toEqual(nodes[2]);
      // What the migration wrote is what the schema reads, unchanged.
      expect(injectConfig.parse(stored[0]!.config)).toEqual(stored[0]!.config);
    }
    await bench.close();
  }, 60_000);
});
