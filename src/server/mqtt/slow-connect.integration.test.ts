/**
 * A CONNECT that waits long for its CONNACK is logged with the step it waits on (broker.ts,
 * SLOW_CONNECT_MS): here the organization's connection count, read from the store, is held back.
 * A CONNECT answered in time logs nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppServices } from "@/server/app-services";
import { createLogger } from "@/server/logger";
import { createTestApp, restClient } from "@/test/app";
import { signUp } from "@/test/accounts";
import { connectMqtt, serveMqtt, sleep, type MqttEndpoints } from "@/test/mqtt";
import { SLOW_CONNECT_MS } from "./broker";

const lines: Array<Record<string, unknown>> = [];
let app: AppServices;
let mq: MqttEndpoints;
let key: string;

beforeAll(async () => {
  app = await createTestApp({}, { logger: createLogger({ level: "warn" }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) }) });
  mq = await serveMqtt(app);
  const owner = await signUp(restClient(app));
  const created = await restClient(app)("POST", "/api-keys", { token: owner.accessToken, body: { name: "sensor", kind: "device" } });
  expect(created.status, created.text).toBe(201);
  key = created.body.secret as string;
});

afterAll(async () => {
  await mq.close();
  await app.close();
});

const slowLines = () => lines.filter((l) => String(l.msg).startsWith("mqtt: a CONNECT has waited"));

describe("a slow CONNECT", () => {
  it("is logged with the step it waits on, once, and still answered; one answered in time is not logged", { timeout: 30_000 }, async () => {
    const quick = await connectMqtt(mq.tcp, { password: key, clientId: "quick" });
    await quick.end();

    // The connection count of the organization (admit's onlineMqttClients) answers late.
    const setMembers = app.store.setMembers.bind(app.store);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    app.store.setMembers = async (name: string) => {
      await held;
      return setMembers(name);
    };
    try {
      const connecting = connectMqtt(mq.tcp, { password: key, clientId: "slow-one" });
      await expect.poll(() => slowLines().length, { timeout: SLOW_CONNECT_MS + 3_000, interval: 100 }).toBe(1);
      release();
      const slow = await connecting;
      expect(slow.client.connected).toBe(true);
      await slow.end();
    } finally {
      release();
      app.store.setMembers = setMembers;
    }
    const [line] = slowLines();
    expect(line).toMatchObject({ level: 40, clientId: "slow-one", step: "checking its API key and the organization's connection limit" });
    expect(line!.waitedMs).toBeGreaterThanOrEqual(SLOW_CONNECT_MS - 50);
    // Answered in time: no line, nor a later one for the slow connection.
    const again = await connectMqtt(mq.tcp, { password: key, clientId: "quick" });
    await again.end();
    await sleep(200);
    expect(slowLines()).toHaveLength(1);
  });
});
