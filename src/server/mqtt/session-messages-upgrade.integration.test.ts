/**
 * The upgrade that moved a persistent session's queue from a JSON array in its `mqtt_sessions` row
 * to a row per message (`mqtt_session_messages`, migration 20261207040444): messages queued before
 * it reach their client after it, in their order, with their MQTT 5 properties, and the one that
 * expired meanwhile does not. The embedded backend (PGlite on disk), whatever DATABASE_URL says:
 * with Redis the broker keeps its queues in Redis, not in these tables.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { restClient, startEmbeddedApp } from "@/test/app";
import { signUp } from "@/test/accounts";
import { connectMqtt, serveMqtt, sleep } from "@/test/mqtt";

const MIGRATION = "20261207040444_mqtt_session_messages";
const dataDir = mkdtempSync(path.join(os.tmpdir(), "fp-mqtt-upgrade-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const startApp = () => startEmbeddedApp(dataDir, { dataDirForDb: path.join(dataDir, "db"), storeKeyPrefix: "fp-test-upgrade:" });

describe("a session's queue kept before the upgrade", () => {
  it("reaches its client after it, in order, with its properties; the expired message does not", async () => {
    const first = await startApp();
    const request = restClient(first);
    const owner = await signUp(request);
    const key = (await request("POST", "/api-keys", { token: owner.accessToken, body: { name: "d", kind: "device" } })).body.secret as string;
    const organizationId = (await request("GET", "/organizations", { token: owner.accessToken })).body.organizations[0].id as string;
    const clientId = `${organizationId}:meter`;
    const packet = (n: number, extra: Record<string, unknown> = {}) => ({
      topic: `${organizationId}/readings/${n}`,
      payload: Buffer.from(`reading ${n}`).toString("base64"),
      qos: 1,
      retain: false,
      brokerId: "old-broker",
      brokerCounter: 40 + n,
      ...extra,
    });
    // The database as the version before the upgrade left it: the migration (and those after it,
    // which change the table it makes) not applied, the queue in the session's row as that version wrote it.
    await first.db.sql(`DROP TABLE "mqtt_session_messages"`, []);
    await first.db.sql(`ALTER TABLE "mqtt_sessions" ADD COLUMN "outgoing" JSONB NOT NULL DEFAULT '[]'`, []);
    await first.db.sql(`DELETE FROM "_prisma_migrations" WHERE "migration_name" >= $1`, [MIGRATION]);
    const outgoing = [
      packet(1),
      packet(2, { properties: { contentType: "text/plain", correlationData: { base64: Buffer.from("c-2").toString("base64") }, userProperties: { site: "north" } } }),
      packet(3, { messageExpiry: Date.now() - 1_000 }),
      packet(4, { messageExpiry: Date.now() + 600_000 }),
    ];
    await first.db.sql(`INSERT INTO "mqtt_sessions" ("client_id", "organization_id", "subscriptions", "outgoing", "updated_at") VALUES ($1, $2, $3, $4, now())`, [
      clientId,
      organizationId,
      JSON.stringify([{ topic: `${organizationId}/readings/#`, qos: 1 }]),
      JSON.stringify(outgoing),
    ]);
    await first.close();

    const app = await startApp();
    const mq = await serveMqtt(app);
    try {
      expect(await app.db.prisma.mqttSessionMessage.count({ where: { clientId } })).toBe(4);
      const meter = await connectMqtt(mq.tcp, { password: key, clientId: "meter", clean: false, protocolVersion: 5, properties: { sessionExpiryInterval: 3600 } });
      expect(meter.connack.sessionPresent).toBe(true);
      await meter.next((m) => m.topic === "readings/4");
      await sleep(200);
      expect(meter.messages.map((m) => `${m.topic}=${m.payload}`)).toEqual(["readings/1=reading 1", "readings/2=reading 2", "readings/4=reading 4"]);
      const second = meter.messages[1]!.properties as { contentType?: string; correlationData?: Buffer; userProperties?: Record<string, string> };
      expect(second.contentType).toBe("text/plain");
      expect(Buffer.from(second.correlationData!).toString()).toBe("c-2");
      expect(second.userProperties).toEqual({ site: "north" });
      // Acknowledged: their rows are gone (written 20 ms after the acknowledgements).
      await sleep(200);
      expect(await app.db.prisma.mqttSessionMessage.count({ where: { clientId } })).toBe(0);
      await meter.end();
    } finally {
      await mq.close();
      await app.close();
    }
  });
});
