import { describe, expect, it } from "vitest";
import { mayGrant, mayManage, roleRank, roles } from "./permissions";

describe("who may grant which role", () => {
  // The rule as the members service wrote it before it moved here, owner-only clause included.
  const before = (actor: (typeof roles)[number], other: (typeof roles)[number]) => !(roleRank(other) > roleRank(actor) || (other === "owner" && actor !== "owner"));

  it("nobody grants a role above their own, and only owners grant owner", () => {
    for (const actor of roles) for (const role of roles) expect(mayGrant(actor, role), `${actor} grants ${role}`).toBe(before(actor, role));
    expect(roles.filter((r) => mayGrant("admin", r))).toEqual(["viewer", "member", "admin"]);
  });

  it("nobody manages someone above them, and only owners manage owners", () => {
    for (const actor of roles) for (const target of roles) expect(mayManage(actor, target), `${actor} manages ${target}`).toBe(before(actor, target));
    expect(mayManage("admin", "owner")).toBe(false);
    expect(mayManage("owner", "owner")).toBe(true);
  });
});
