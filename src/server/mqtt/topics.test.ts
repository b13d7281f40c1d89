import { describe, expect, it } from "vitest";
import { checkPublishTopic, checkSubscribeFilter, externalTopic, internalClientId, internalTopic, splitClientId } from "./topics";

describe("the built-in broker's topic spaces", () => {
  it("prefixes topics and client ids with the organization, and gives back only its own", () => {
    expect(internalTopic("org_a", "a/b")).toBe("org_a/a/b");
    expect(externalTopic("org_a", "org_a/a/b")).toBe("a/b");
    expect(externalTopic("org_b", "org_a/a/b")).toBeNull();
    // A prefix of another organization's id is not that organization.
    expect(externalTopic("org_a", "org_ab/x")).toBeNull();
    expect(internalClientId("org_a", "c1")).toBe("org_a:c1");
    expect(splitClientId("org_a:c:1")).toEqual({ organizationId: "org_a", clientId: "c:1" });
    expect(splitClientId("no-org")).toBeNull();
  });

  it("refuses $ topics, shared subscriptions and malformed wildcards", () => {
    expect(checkPublishTopic("a/b")).toBeNull();
    expect(checkPublishTopic("$SYS/x")).toBe("system");
    expect(checkPublishTopic("a/+")).toBe("wildcard");
    expect(checkPublishTopic("")).toBe("empty");
    for (const ok of ["#", "+/#", "a/+/c", "a/#", "+"]) expect(checkSubscribeFilter(ok)).toBeNull();
    expect(checkSubscribeFilter("$SYS/#")).toBe("system");
    expect(checkSubscribeFilter("$share/g/#")).toBe("shared");
    expect(checkSubscribeFilter("$share")).toBe("shared");
    expect(checkSubscribeFilter("a/#/b")).toBe("invalid");
    expect(checkSubscribeFilter("a+/b")).toBe("invalid");
    expect(checkSubscribeFilter("")).toBe("empty");
  });
});
