import { describe, expect, it } from "vitest";
import { createNodeRegistry } from "@/server/nodes/registry";
import type { SubflowSnapshot } from "@/shared/subflows";
import { DEVICE_COPY_MARK, DeviceSubflows } from "./device-subflows";

const at = { x: 0, y: 0 };
/** A definition whose change node sits in a group with an env property (Node-RED's Group inside a Subflow). */
const definition = (revision: number): SubflowSnapshot => ({
  id: "sfdev",
  name: "grouped",
  revision,
  env: [],
  nodes: [
    { id: "sfin", type: "subflow-in", name: "", position: at, config: {}, disabled: false },
    { id: "sfset", type: "change", name: "", position: at, config: { rules: [{ t: "set", p: "payload", p_type: "msg", to: "TINT", to_type: "env" }] }, disabled: false },
    { id: "sfout", type: "subflow-out", name: "", position: at, config: { port: 0 }, disabled: false },
  ],
  connections: [
    { source: "sfin", target: "sfset", source_port: 0 },
    { source: "sfset", target: "sfout", source_port: 0 },
  ],
  groups: [{ id: "sfgrp", name: "Tint", style: {}, nodes: ["sfset"], env: [{ name: "TINT", type: "str", value: "teal" }] }],
});
const instance = { id: "inst", type: "subflow:sfdev", name: "", position: at, config: { env: [] }, disabled: false };

describe("subflow definitions as a device gets them", () => {
  it("carry the groups inside them, with their env and members", () => {
    const subflows = new DeviceSubflows(createNodeRegistry());
    subflows.add("flw_a", [instance], { sfdev: definition(1) });
    const group = subflows.items.find((i) => i.type === "group");
    expect(group).toMatchObject({ id: "sfgrp", z: "sfdev", nodes: ["sfset"], env: [{ name: "TINT", type: "str", value: "teal" }] });
    expect(subflows.items.find((i) => i.id === "sfset")).toMatchObject({ z: "sfdev", g: "sfgrp" });
  });

  it("a copy of another revision renames the group and its members with the copy's ids", () => {
    const subflows = new DeviceSubflows(createNodeRegistry());
    subflows.add("flw_a", [instance], { sfdev: definition(1) });
    subflows.add("flw_b", [instance], { sfdev: definition(2) });
    const mark = `${DEVICE_COPY_MARK}flw_b`;
    const copy = subflows.items.find((i) => i.type === "group" && i.id === `sfgrp${mark}`);
    expect(copy).toMatchObject({ z: `sfdev${mark}`, nodes: [`sfset${mark}`] });
    expect(subflows.items.find((i) => i.id === `sfset${mark}`)).toMatchObject({ z: `sfdev${mark}`, g: `sfgrp${mark}` });
  });
});
