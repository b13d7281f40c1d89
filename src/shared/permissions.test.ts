import { describe, expect, it } from "vitest";
import { apiKeyScopeDescriptions, apiKeyScopes, mayGrant, mayManage, permissions, roleRank, roles, type PermissionRule } from "./permissions";

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

describe("what each API-key scope says it allows", () => {
  it("names only scopes a key can hold, and stays one short line", () => {
    for (const scope of apiKeyScopes) {
      const text = apiKeyScopeDescriptions[scope];
      expect(text, scope).toBeTruthy();
      expect(text.length, scope).toBeLessThanOrEqual(160);
      // A permission name in the text (e.g. config_nodes:write_global) is not something to tick.
      for (const named of text.match(/\b[a-z_]+:[a-z_]+\b/g) ?? []) expect(apiKeyScopes as readonly string[], `${scope}: ${named}`).toContain(named);
    }
  });

  it("says so when part of what a scope grants needs the admin role", () => {
    for (const scope of apiKeyScopes) {
      const rules = (Object.values(permissions) as PermissionRule[]).filter((r) => r.scope === scope);
      const mixed = rules.some((r) => r.minRole === "admin") && rules.some((r) => r.minRole !== "admin");
      if (mixed) expect(apiKeyScopeDescriptions[scope], scope).toMatch(/admins/);
    }
  });
});
