import { describe, expect, it } from "vitest";
import { pathAfterSwitch } from "./switch-path";

describe("pathAfterSwitch", () => {
  it("stays on sections every organization has", () => {
    expect(pathAfterSwitch("/settings/members")).toBe("/settings/members");
    expect(pathAfterSwitch("/settings/api-keys")).toBe("/settings/api-keys");
    expect(pathAfterSwitch("/account/security")).toBe("/account/security");
    expect(pathAfterSwitch("/flows")).toBe("/flows");
  });

  it("leaves pages about one resource of the organization left behind", () => {
    expect(pathAfterSwitch("/flows/flw_123")).toBe("/flows");
    expect(pathAfterSwitch("/invitations/accept")).toBe("/settings/organization");
    expect(pathAfterSwitch("/")).toBe("/settings/organization");
  });
});
