/**
 * node-red-node-ping through the doors a user uses: a Node-RED flow with a triggered ping imported
 * over REST (supported), deployed, asked over /hooks. The host is this machine with PING_PORTS set
 * to a port that accepts (and one that refuses), and private targets allowed by the operator; the
 * same flow with private targets refused answers the outbound rules' error through a catch node.
 */
import net from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { signUp } from "@/test/accounts";
import { handleWebhookUrl } from "@/server/api/rest/webhook-handler";

let listener: net.Server;
let port = 0;
/** Read when the app is made (its beforeAll, after this file's first one below). */
const allowPrivate: Record<string, string> = { OUTBOUND_ALLOW_PRIVATE: "true" };
beforeAll(async () => {
  listener = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  port = (listener.address() as AddressInfo).port;
  allowPrivate.PING_PORTS = `1,${port}`;
});
afterAll(() => {
  listener.close();
});

const allowed = setUpTestApp(allowPrivate);

function pingFlow(s: string) {
  const z = `tab${s}`;
  return [
    { id: z, type: "tab", label: `ping ${s}` },
    { id: `in${s}`, type: "http in", z, name: "", url: `/ping${s}`, method: "get", upload: false, swaggerDoc: "", wires: [[`host${s}`]] },
    { id: `host${s}`, type: "change", z, name: "", rules: [{ t: "set", p: "payload", pt: "msg", to: "req.query.host", tot: "msg" }], wires: [[`ping${s}`]] },
    { id: `ping${s}`, type: "ping", z, name: "", protocol: "IPv4", mode: "triggered", host: "", timer: "20", inputs: 1, wires: [[`res${s}`]] },
    { id: `catch${s}`, type: "catch", z, name: "", scope: null, uncaught: false, wires: [[`err${s}`]] },
    { id: `err${s}`, type: "change", z, name: "", rules: [{ t: "set", p: "payload", pt: "msg", to: "error.message", tot: "msg" }], wires: [[`res${s}`]] },
    { id: `res${s}`, type: "http response", z, name: "", statusCode: "", headers: {}, wires: [] },
  ];
}

async function deployed(app: typeof allowed, s: string) {
  const user = await signUp(app.request);
  const token = user.accessToken;
  const slug = (await app.app.db.prisma.organization.findUniqueOrThrow({ where: { id: user.organizationId } })).slug;
  const dry = await app.request("POST", "/flows/import?dry_run=true", { token, body: { flows: pingFlow(s) } });
  expect(dry.status, dry.text).toBe(200);
  expect(dry.body.report.find((r: { type: string }) => r.type === "ping")).toMatchObject({ support: "supported" });
  const imported = await app.request("POST", "/flows/import", { token, body: { flows: pingFlow(s) } });
  expect(imported.status, imported.text).toBe(201);
  expect((await app.request("POST", `/flows/${imported.body.flows[0].id}/deploy`, { token })).status).toBe(200);
  return (host: string) => handleWebhookUrl(app.app, new Request(`http://app.test/hooks/${slug}/ping${s}?host=${encodeURIComponent(host)}`));
}

describe("ping, imported and asked over a webhook", () => {
  it("a host that accepts on one of PING_PORTS answers with its time; one that accepts on none is false", async () => {
    const ask = await deployed(allowed, "a");
    const up = await ask("127.0.0.1");
    expect(up.status).toBe(200);
    const time = (await up.json()) as unknown;
    expect(typeof time).toBe("number");
    expect(time as number).toBeGreaterThanOrEqual(0);
    // 127.0.0.2 is loopback too, but the listener is bound to 127.0.0.1 only: nothing accepts there.
    const down = await ask("127.0.0.2");
    expect(await down.json()).toBe(false);
  });
});

describe("ping under the default outbound rules", () => {
  const refused = setUpTestApp();
  it("a private host is the node's error (through catch), and nothing is probed", async () => {
    const ask = await deployed(refused, "b");
    const answer = await ask("127.0.0.1");
    expect(answer.status).toBe(200);
    expect(await answer.text()).toContain("private or reserved address");
  });
});
