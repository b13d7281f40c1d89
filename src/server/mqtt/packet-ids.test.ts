import { describe, expect, it } from "vitest";
import { installPacketIds, packetIdReleased, packetIdTaken, packetIdsInUse } from "./packet-ids";

/** What Aedes's QoSPacket does with a client's counter (aedes/lib/qos-packet.js). */
function number(client: { _nextId: number }): number {
  const id = client._nextId;
  if (client._nextId >= 65535) client._nextId = 1;
  else client._nextId++;
  return id;
}

describe("outgoing packet identifiers", () => {
  it("skip those in flight, wrap after 65535, and come back once released", () => {
    const client = { _nextId: 65534 };
    installPacketIds(client);
    packetIdTaken(client, 65535);
    packetIdTaken(client, 1);
    expect([number(client), number(client), number(client)]).toEqual([65534, 2, 3]);
    expect([...packetIdsInUse(client)].sort((a, b) => a - b)).toEqual([1, 2, 3, 65534, 65535]);
    for (const id of [1, 2, 3, 65534, 65535]) packetIdReleased(client, id);
    expect(number(client)).toBe(4);
    // Not a number (a clear without a packet id): nothing.
    packetIdTaken(client, undefined);
    packetIdReleased(client, null);
    expect([...packetIdsInUse(client)]).toEqual([4]);
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
