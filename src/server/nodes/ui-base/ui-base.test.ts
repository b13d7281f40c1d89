import { describe, expect, it } from "vitest";
import { uiBaseNode } from "./definition";

const imported = (props: Record<string, unknown>) => uiBaseNode.configSchema.parse(uiBaseNode.nodeRed!.fromNodeRed(props)) as Record<string, unknown>;

describe("ui-base from Node-RED (Dashboard 2.0)", () => {
  it("takes headerContent and the connection notices as written", () => {
    expect(imported({ name: "x", headerContent: "dashpage", showDisconnectNotification: false, showReconnectNotification: true, notificationDisplayTime: "12", allowInstall: true })).toMatchObject({
      headerContent: "dashpage",
      showDisconnectNotification: false,
      showReconnectNotification: true,
      notificationDisplayTime: 12,
      allowInstall: true,
    });
  });

  it("a dashboard from before headerContent follows showPageTitle, as Dashboard 2.0's editor reads it: on → the page's name, off → nothing", () => {
    expect(imported({ name: "x", showPageTitle: true }).headerContent).toBe("page");
    expect(imported({ name: "x" }).headerContent).toBe("page");
    expect(imported({ name: "x", showPageTitle: false }).headerContent).toBe("none");
    expect(imported({ name: "x", showPageTitle: "false" }).headerContent).toBe("none");
    // Notices on by default, for 5 s (the editor's value for a dashboard that has none).
    expect(imported({ name: "x" })).toMatchObject({ showDisconnectNotification: true, showReconnectNotification: true, notificationDisplayTime: 5 });
  });
});
