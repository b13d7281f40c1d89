/**
 * With Redis, an organization's persistent sessions are named in a set of its own beside
 * aedes-persistence-redis's `clients` (every organization's sessions): a new persistent session's
 * CONNECT counts its organization's sessions with one command, and GET /mqtt/sessions reads its own,
 * where both scanned the whole deployment's set. The index follows sessions as they come and go,
 * is rebuilt at every start for sessions an earlier version (or an instance of it during a rolling
 * deploy) kept without it, and a listing drops an entry whose session is gone. Redis's alone: the
 * embedded broker's sessions are rows of the organization (durable-persistence.ts).
 */
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { restartableApp, restClient } from "@/test/app";
import { signUp } from "@/test/accounts";
import { connectMqtt, refusedWith, serveMqtt, sleep } from "@/test/mqtt";

const redisUrl = process.env.REDIS_URL;
const restartable = restartableApp("mqtt-session-index");
const limits = { MQTT_MAX_SESSIONS_PER_ORGANIZATION: "2" };

afterAll(async () => {
  await restartable.cleanUp();
  if (!redisUrl) return;
  const redis = new Redis(redisUrl);
  const keys = await redis.keys(`${restartable.storeKeyPrefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

describe.skipIf(!redisUrl)("an organization's MQTT sessions on Redis", () => {
  it("are named in an index of its own: kept as sessions come and go, rebuilt at a start, stale entries dropped at a listing; the session limit counts it", { timeout: 60_000 }, async () => {
    const redis = new Redis(redisUrl!);
    let app = await restartable.start(limits);
    let mq = await serveMqtt(app);
    try {
      const owner = await signUp(restClient(app));
      const key = (await restClient(app)("POST", "/api-keys", { token: owner.accessToken, body: { name: "meters", kind: "device" } })).body.secret as string;
      const other = await signUp(restClient(app));
      const otherKey = (await restClient(app)("POST", "/api-keys", { token: other.accessToken, body: { name: "meters", kind: "device" } })).body.secret as string;
      const index = (organizationId: string) => `${restartable.storeKeyPrefix}mqtt:org-clients:${organizationId}`;
      const internal = (clientId: string) => `${owner.organizationId}:${clientId}`;
      const away = async (clientId: string, password = key) => {
        const device = await connectMqtt(mq.tcp, { password, clientId, clean: false });
        await device.subscribe("meters/#", 1);
        await device.end();
      };
      const listed = async () => {
        const res = await restClient(app)("GET", "/mqtt/sessions", { token: owner.accessToken });
        expect(res.status, res.text).toBe(200);
        return (res.body.sessions as Array<{ client_id: string }>).map((s) => s.client_id).sort();
      };

      await away("meter-1");
      await away("meter-1", otherKey);
      expect(await redis.smembers(index(owner.organizationId))).toEqual([internal("meter-1")]);
      expect(await redis.smembers(index(other.organizationId))).toEqual([`${other.organizationId}:meter-1`]);
      // A clean connection of the id ends its session: out of the index.
      const clean = await connectMqtt(mq.tcp, { password: key, clientId: "meter-1", clean: true });
      await clean.end();
      await sleep(100);
      expect(await redis.smembers(index(owner.organizationId))).toEqual([]);

      // As an earlier version left Redis: sessions in `clients` and no index; and an entry of a session that is gone.
      await away("meter-2");
      await away("meter-3");
      await redis.del(index(owner.organizationId));
      await redis.sadd(index(owner.organizationId), internal("gone"));
      await mq.close();
      await app.close();
      app = await restartable.start(limits);
      mq = await serveMqtt(app);
      expect((await redis.smembers(index(owner.organizationId))).sort()).toEqual([internal("gone"), internal("meter-2"), internal("meter-3")]);
      // meter-3's session ends (a clean connection); the index then names two, one of them gone: at
      // the limit (2) a new session's CONNECT counts only those that are kept, and is let in.
      const ending = await connectMqtt(mq.tcp, { password: key, clientId: "meter-3", clean: true });
      await ending.end();
      await sleep(100);
      expect((await redis.smembers(index(owner.organizationId))).sort()).toEqual([internal("gone"), internal("meter-2")]);
      await away("meter-4");
      expect((await redis.smembers(index(owner.organizationId))).sort()).toEqual([internal("meter-2"), internal("meter-4")]);
      expect(await listed()).toEqual(["meter-2", "meter-4"]);
      // Two sessions kept: a third is refused (CONNACK 3), a resumed one is not; the other organization's do not count here.
      expect(await refusedWith(mq.tcp, { password: key, clientId: "meter-5", clean: false })).toBe(3);
      const resumed = await connectMqtt(mq.tcp, { password: key, clientId: "meter-2", clean: false });
      await resumed.end();
      expect(await listed()).toEqual(["meter-2", "meter-4"]);
      // A listing drops an entry whose session is gone, too.
      await redis.sadd(index(owner.organizationId), internal("gone-again"));
      expect(await listed()).toEqual(["meter-2", "meter-4"]);
      expect((await redis.smembers(index(owner.organizationId))).sort()).toEqual([internal("meter-2"), internal("meter-4")]);
    } finally {
      await mq.close();
      await app.close();
      await redis.quit();
    }
  });
});
