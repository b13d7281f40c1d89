import { describe, expect, it } from "vitest";
// @ts-expect-error plain JavaScript without declarations: the agent ships as it is written
import { backoffDelay, BACKOFF, missingTypes, socketUrl } from "../lib/agent.js";

describe("the agent's reconnect backoff and URL", () => {
  it("waits 0.5 s, then doubles up to 30 s, each within ±20 %", () => {
    const mid = (attempt: number) => backoffDelay(attempt, () => 0.5);
    expect([0, 1, 2, 3, 4, 5, 6, 7, 20].map(mid)).toEqual([500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
    expect(backoffDelay(0, () => 0)).toBe(400);
    expect(backoffDelay(0, () => 1)).toBe(600);
    expect(BACKOFF.maxMs).toBe(30_000);
  });

  it("turns the app's URL into its /ws URL", () => {
    expect(socketUrl("https://fp.example.com")).toBe("wss://fp.example.com/ws");
    expect(socketUrl("http://127.0.0.1:3000/")).toBe("ws://127.0.0.1:3000/ws");
    expect(socketUrl("https://fp.example.com/base")).toBe("wss://fp.example.com/base/ws");
    expect(socketUrl("wss://fp.example.com/ws")).toBe("wss://fp.example.com/ws");
  });

  it("finds the node types a flows.json needs that Node-RED lacks (its tabs, subflows, groups and instances are its own)", () => {
    const flows = [
      { id: "t", type: "tab" },
      { id: "s", type: "subflow" },
      { id: "g", type: "group", z: "t" },
      { id: "i", type: "subflow:s", z: "t" },
      { id: "a", type: "inject", z: "t" },
      { id: "b", type: "ui-button", z: "t" },
      { id: "c", type: "counter", z: "s" },
      { id: "d", type: "counter", z: "t" },
      { id: "e", type: "ui-base" },
      null,
    ];
    expect(missingTypes(flows, new Set(["inject", "debug"]))).toEqual(["counter", "ui-base", "ui-button"]);
    expect(missingTypes(flows, new Set(["inject", "ui-button", "counter", "ui-base"]))).toEqual([]);
  });
});
