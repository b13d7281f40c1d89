import { describe, expect, it } from "vitest";
import { databaseBefore } from "@/test/migration-before";
import { httpRequestNode } from "./definition";

const MIGRATION = "20261202090000_http_request_catch_only";

type StoredNode = { id: string; type: string; config: Record<string, unknown> };

describe(`migration ${MIGRATION}`, () => {
  it("keeps stored http-request nodes sending failures to catch nodes only (flows, subflows, snapshots and their subflows), not a device's flows, not a node already set", async () => {
    // Every migration before this one, then old-shape data, then this one.
    const bench = await databaseBefore(MIGRATION);
    const { pg } = bench;

    const base = { name: "", position: { x: 0, y: 0 }, disabled: false };
    const nodes = [
      { id: "r1", type: "http-request", ...base, config: { method: "GET", url: "http://example.com", return: "txt" } },
      { id: "r2", type: "http-request", ...base, config: { method: "GET", url: "http://example.com", errors_to_catch_only: false } },
      { id: "d1", type: "debug", ...base, config: { active: true } },
    ];
    const snapshot = { nodes, connections: [], subflows: { sf1: { id: "sf1", name: "S", nodes, connections: [] } } };
    await pg.query(`INSERT INTO organizations (id, name, slug, updated_at) VALUES ('org1', 'O', 'o', now())`);
    await pg.query(`INSERT INTO users (id, email, password_hash, updated_at) VALUES ('u1', 'a@b.c', 'x', now())`);
    await pg.query(`INSERT INTO flows (id, organization_id, name, nodes, created_by_id, updated_at) VALUES ('f1', 'org1', 'F', $1, 'u1', now())`, [JSON.stringify(nodes)]);
    await pg.query(`INSERT INTO flows (id, organization_id, name, nodes, created_by_id, updated_at, target_device_tag) VALUES ('f2', 'org1', 'Edge', $1, 'u1', now(), 'line-1')`, [JSON.stringify(nodes)]);
    await pg.query(`INSERT INTO subflows (id, organization_id, name, nodes, created_by_id, updated_at) VALUES ('sf1', 'org1', 'S', $1, 'u1', now())`, [JSON.stringify(nodes)]);
    await pg.query(`INSERT INTO deployments (id, flow_id, organization_id, revision, snapshot, deployed_by_id) VALUES ('d1', 'f1', 'org1', 1, $1, 'u1')`, [JSON.stringify(snapshot)]);
    await pg.query(`INSERT INTO deployments (id, flow_id, organization_id, revision, snapshot, deployed_by_id) VALUES ('d2', 'f2', 'org1', 1, $1, 'u1')`, [JSON.stringify(snapshot)]);

    const result = await bench.migrate();
    expect(result.applied).toContain(MIGRATION);

    const flows = (await pg.query<{ id: string; nodes: StoredNode[] }>(`SELECT id, nodes FROM flows ORDER BY id`)).rows;
    const subflow = (await pg.query<{ nodes: StoredNode[] }>(`SELECT nodes FROM subflows WHERE id = 'sf1'`)).rows[0]!;
    const snapshots = (await pg.query<{ id: string; snapshot: typeof snapshot }>(`SELECT id, snapshot FROM deployments ORDER BY id`)).rows;
    const migrated = [flows[0]!.nodes, subflow.nodes, snapshots[0]!.snapshot.nodes, snapshots[0]!.snapshot.subflows.sf1.nodes];
    for (const stored of migrated) {
      expect(stored[0]!.config).toEqual({ ...nodes[0]!.config, errors_to_catch_only: true });
      expect(stored[1]).toEqual(nodes[1]);
      expect(stored[2]).toEqual(nodes[2]);
      // What the migration wrote is what the schema reads.
      expect(httpRequestNode.configSchema.parse(stored[0]!.config)).toMatchObject({ errors_to_catch_only: true });
    }
    // The device's flow (its Node-RED always had senderr false) and its deployment are as they were.
    expect(flows[1]!.nodes).toEqual(nodes);
    expect(snapshots[1]!.snapshot).toEqual(snapshot);
    await bench.close();
  }, 60_000);
});
