import { describe, expect, it } from "vitest";
import { applyWidgetMessage, initialWidgetState } from "./widget-state";

describe("ui-iframe's state in the page", () => {
  const widget = { type: "ui-iframe" as const, props: { src: "https://grafana.example/d/1" }, state: null };

  it("keeps every message that is more than dynamic properties (FlowFuse's store binds each): src shows, a message without one shows the node's URL again", () => {
    let s = initialWidgetState(widget);
    s = applyWidgetMessage(widget, s, { src: "https://cams.example/1" });
    expect(s.msg).toEqual({ src: "https://cams.example/1" });
    // Only dynamic properties: the frame keeps its page.
    s = applyWidgetMessage(widget, s, { enabled: false, ui_update: { label: "Cam" } });
    expect(s.msg).toEqual({ src: "https://cams.example/1" });
    expect(s.props).toMatchObject({ enabled: false, label: "Cam" });
    s = applyWidgetMessage(widget, s, { payload: 1 });
    expect(s.msg).toEqual({ payload: 1 });
    // What the server kept is what a reload shows.
    expect(initialWidgetState({ ...widget, state: { msg: { src: "https://cams.example/2" } } }).msg).toEqual({ src: "https://cams.example/2" });
  });
});
