import { describe, expect, it } from "vitest";
import { Readable } from "node:stream";
import { installPacketIds, packetIdReleased, packetIdTaken, packetIdsInUse, trackPacketIds } from "./packet-ids";

/** What Aedes's QoSPacket does with a client's counter (aedes/lib/qos-packet.js). */
function number(client: { _nextId: number }): number {
  const id = client._nextId;
  if (client._nextId >= 65535) client._nextId = 1;
  else client._nextId++;
  return id;
}

describe("outgoing packet identifiers", () => {
  it("skip those a replay brought back, wrap after 65535, and come back once released", () => {
    const client = { _nextId: 65534 };
    installPacketIds(client);
    packetIdTaken(client, 65535);
    packetIdTaken(client, 1);
    expect([number(client), number(client), number(client)]).toEqual([65534, 2, 3]);
    // Aedes's own numbers are not kept: only the replayed ones are in the set.
    expect([...packetIdsInUse(client)].sort((a, b) => a - b)).toEqual([1, 65535]);
    packetIdReleased(client, 1);
    packetIdReleased(client, 65535);
    client._nextId = 65535;
    expect([number(client), number(client)]).toEqual([65535, 1]);
    // Not a number (a clear without a packet id): nothing.
    packetIdTaken(client, undefined);
    packetIdReleased(client, null);
    expect([...packetIdsInUse(client)]).toEqual([]);
  });

  it("the persistence's replay takes each stored identifier as it streams, and its clear gives it back", async () => {
    // Installed by the first identifier the replay brings back.
    const client = { _nextId: 7 };
    const cleared: unknown[] = [];
    const persistence = trackPacketIds({
      outgoingStream: (_c: never) => Readable.from([{ messageId: 7 }, { messageId: 8 }, { topic: "never sent" }]),
      outgoingClearMessageId: async (_c: never, p: never) => void cleared.push(p),
    });
    const seen: unknown[] = [];
    for await (const p of (persistence.outgoingStream as unknown as (c: object) => AsyncIterable<unknown>)(client)) seen.push(p);
    expect(seen).toEqual([{ messageId: 7 }, { messageId: 8 }, { topic: "never sent" }]);
    expect(number(client)).toBe(9);
    await (persistence.outgoingClearMessageId as unknown as (c: object, p: object) => Promise<void>)(client, { messageId: 7 });
    expect(cleared).toEqual([{ messageId: 7 }]);
    expect([...packetIdsInUse(client)]).toEqual([8]);
  });

  it("with every identifier in flight, numbering goes on as Aedes's does rather than loop", () => {
    const client = { _nextId: 10 };
    installPacketIds(client);
    for (let id = 1; id <= 65535; id++) packetIdTaken(client, id);
    expect([number(client), number(client)]).toEqual([10, 11]);
  });

  it("a counter out of range starts at 1", () => {
    const client = { _nextId: 0 };
    installPacketIds(client);
    expect(number(client)).toBe(1);
  });
});
