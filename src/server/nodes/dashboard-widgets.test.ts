import { describe, expect, it } from "vitest";
import { loadTestFlow } from "@/test/runtime-harness";
import type { DashboardClientRef, DashboardInput, DashboardRuntime } from "@/server/runtime/types";
import { limitPoints, pointsOf } from "./ui-chart/behaviour";
import { uiChartConfig } from "./ui-chart/definition";
import { uiTextConfig } from "./ui-text/definition";
import { uiGaugeConfig } from "./ui-gauge/definition";
import { uiIframeConfig } from "./ui-iframe/definition";

/**
 * Dashboard widgets' behaviour (SPEC §21) in a real engine with a recording DashboardRuntime:
 * what each shows and keeps for a message, and what a viewer's input sends into the flow, as
 * Dashboard 2.0's widgets do.
 */
class FakeDashboards implements DashboardRuntime {
  emitted: Array<{ widget: string; msg: Record<string, unknown>; client?: DashboardClientRef; state?: unknown }> = [];
  controls: Array<{ widget: string; msg: Record<string, unknown> }> = [];
  handlers = new Map<string, (input: DashboardInput) => void>();
  states = new Map<string, unknown>();
  emit(_org: string, widget: string, msg: Record<string, unknown>, options: { client?: DashboardClientRef; state?: unknown } = {}) {
    this.emitted.push({ widget, msg, ...options });
  }
  control(_org: string, widget: string, msg: Record<string, unknown>) {
    this.controls.push({ widget, msg });
  }
  onInput(_org: string, widget: string, handler: (input: DashboardInput) => void) {
    this.handlers.set(widget, handler);
    return () => this.handlers.delete(widget);
  }
  async readState(_org: string, widget: string) {
    return this.states.get(widget) ?? null;
  }
  input(widget: string, event: string, msg: Record<string, unknown>, client: DashboardClientRef = { socketId: "s1", user_id: "usr_1" }) {
    const h = this.handlers.get(widget);
    if (!h) throw new Error(`no handler for ${widget}`);
    h({ event, msg, client });
  }
}

async function widgetFlow(type: string, config: Record<string, unknown>, dash = new FakeDashboards()) {
  const flow = await loadTestFlow([{ id: "w", type, config: { group: "g1", ...config } }, { id: "out", type: "sink" }], [{ source: "w", target: "out" }], { dashboards: dash });
  return { flow, dash };
}

const settle = () => new Promise((r) => setTimeout(r, 30));

describe("dashboard widgets", () => {
  it("ui-button: a viewer's click sends the typed payload and topic with _client; a view of the button's label by ui_update is kept", async () => {
    const { flow, dash } = await widgetFlow("ui-button", { payload: "42", payloadType: "num", topic: "press", topicType: "str" });
    dash.input("w", "click", {});
    await flow.waitFor(1);
    expect(flow.received[0]).toMatchObject({ payload: 42, topic: "press", _client: { socketId: "s1", user_id: "usr_1" } });
    dash.input("w", "change", {});
    flow.send("w", { ui_update: { label: "Go" } });
    await settle();
    expect(dash.emitted.at(-1)).toMatchObject({ widget: "w", state: { props: { label: "Go" } } });
    // A message with no payload of its own only changes properties: not kept as the last message.
    expect((dash.emitted.at(-1)!.state as { msg?: unknown }).msg).toBeUndefined();
    // An input message is never sent on (Dashboard 2.0's button handles its input itself), whatever an old passthru says.
    flow.send("w", { payload: "through?" });
    await settle();
    expect(flow.received).toHaveLength(1);
    const old = await widgetFlow("ui-button", { payload: "p", passthru: true });
    old.flow.send("w", { payload: "through?" });
    await settle();
    expect(old.flow.received).toHaveLength(0);
  });

  it("ui-button as a hold button: pressing and letting go send their own payloads with msg._event (numbers only), as Dashboard 2.0's; off, they send nothing", async () => {
    const { flow, dash } = await widgetFlow("ui-button", {
      payload: "clicked",
      topic: "motor",
      topicType: "str",
      enablePointerdown: true,
      pointerdownPayload: '{"run":true}',
      pointerdownPayloadType: "json",
      enablePointerup: true,
      pointerupPayload: "0",
      pointerupPayloadType: "num",
    });
    dash.input("w", "pointerdown", { _event: { type: "pointerdown", clientX: 10, clientY: 20, bbox: { x: 1, y: 2, width: 100, height: 40, evil: "<script>" }, extra: "dropped" } });
    dash.input("w", "pointerup", { _event: { clientX: "11" } });
    dash.input("w", "click", {});
    dash.input("w", "hover", {});
    await flow.waitFor(3);
    await settle();
    expect(flow.received).toHaveLength(3);
    expect(flow.received.map((m) => [m.payload, m.topic, m._event])).toEqual([
      [{ run: true }, "motor", { type: "pointerdown", clientX: 10, clientY: 20, bbox: { x: 1, y: 2, width: 100, height: 40 } }],
      [0, "motor", { type: "pointerup" }],
      ["clicked", "motor", { type: "click" }],
    ]);
    const plain = await widgetFlow("ui-button", { payload: "x" });
    plain.dash.input("w", "pointerdown", {});
    plain.dash.input("w", "pointerup", {});
    plain.dash.input("w", "click", {});
    await plain.flow.waitFor(1);
    await settle();
    expect(plain.flow.received.map((m) => m.payload)).toEqual(["x"]);
  });

  it("ui-button-group: choosing a button sends its value, typed as its option says, and the status names it; a value that is no option is refused", async () => {
    const { flow, dash } = await widgetFlow("ui-button-group", {
      topic: "mode",
      topicType: "str",
      options: [
        { label: "Off", icon: "power", value: "0", valueType: "num", color: "#999999" },
        { label: "Eco", icon: "leaf", value: '{"level":1}', valueType: "json", color: "#009933" },
        { label: "", icon: "fire", value: "true", valueType: "bool", color: "#ff6666" },
      ],
    });
    dash.input("w", "change", { payload: { level: 1 } });
    dash.input("w", "change", { payload: "0" });
    dash.input("w", "change", { payload: 7 });
    dash.input("w", "change", { payload: true });
    await flow.waitFor(2);
    await settle();
    expect(flow.received.map((m) => [m.payload, m.topic])).toEqual([
      [{ level: 1 }, "mode"],
      [true, "mode"],
    ]);
    expect(flow.statuses.at(-1)).toEqual({ nodeId: "w", status: { fill: "blue", shape: "dot", text: "true" } });
    expect(flow.statuses.map((s) => s.status?.text)).toEqual(["Eco", "true"]);
    // Kept: every viewer sees the choice.
    expect(dash.emitted.at(-1)).toMatchObject({ widget: "w", state: { msg: { payload: true, topic: "mode" } } });
  });

  it("ui-progress: each message is kept and shown (the bar clamps in the page); ui_update changes label and colour; nothing is sent on", async () => {
    const { flow, dash } = await widgetFlow("ui-progress", { label: "Upload", color: "success" });
    flow.send("w", { payload: 79 });
    flow.send("w", { payload: 45, ui_update: { label: "Loading Data", color: "warning" } });
    await settle();
    expect(dash.emitted.map((e) => e.msg.payload)).toEqual([79, 45]);
    expect(dash.emitted.at(-1)).toMatchObject({ widget: "w", state: { msg: { payload: 45 }, props: { label: "Loading Data", color: "warning" } } });
    expect(flow.received).toHaveLength(0);
  });

  it("ui-led: each message is kept and shown (the page picks the colour); a message's colorForValue replaces the table and stays, only when allowed; nothing is sent on", async () => {
    const table = [{ value: "warn", color: "orange" }];
    const { flow, dash } = await widgetFlow("ui-led", { allowColorForValueInMessage: true });
    flow.send("w", { payload: true });
    flow.send("w", { payload: "warn", colorForValue: table });
    // A later message without a table keeps the last one (Dashboard 1's override stays).
    flow.send("w", { payload: "ok" });
    // Only a list of { value, color } or an object of value: colour is taken: this one is ignored (a warning), the table stays.
    flow.send("w", { payload: "ok", colorForValue: "red" });
    await settle();
    expect(dash.emitted.map((e) => e.msg.payload)).toEqual([true, "warn", "ok", "ok"]);
    expect(dash.emitted[1]!.msg.ui_update).toEqual({ colorForValue: table });
    expect(dash.emitted.at(-1)).toMatchObject({ widget: "w", state: { msg: { payload: "ok" }, props: { colorForValue: table } } });
    expect(flow.errors.some((e) => e.error.includes("msg.colorForValue ignored"))).toBe(true);
    expect(flow.received).toHaveLength(0);

    const plain = await widgetFlow("ui-led", {});
    plain.flow.send("w", { payload: 1, colorForValue: table });
    await settle();
    expect(plain.dash.emitted.at(-1)!.msg.ui_update).toBeUndefined();
    expect((plain.dash.emitted.at(-1)!.state as { props?: unknown }).props).toBeUndefined();
  });

  it("ui-iframe: msg.src is kept and shown while it is the last message; a message without one shows the node's URL again; other schemes are dropped with a warning (the frame keeps its page)", async () => {
    const { flow, dash } = await widgetFlow("ui-iframe", { src: "https://grafana.example/d/1" });
    flow.send("w", { src: "https://camera.example/live" });
    flow.send("w", { src: "javascript:alert(document.cookie)" });
    flow.send("w", { src: "data:text/html,<script>1</script>", enabled: false });
    await settle();
    expect(dash.emitted.map((e) => e.msg)).toEqual([{ src: "https://camera.example/live" }, { enabled: false }]);
    expect(dash.emitted.at(-1)).toMatchObject({ state: { msg: { src: "https://camera.example/live" }, props: { enabled: false } } });
    expect(flow.errors.filter((e) => e.error.includes("msg.src ignored"))).toHaveLength(2);
    flow.send("w", { payload: "no src" });
    await settle();
    expect((dash.emitted.at(-1)!.state as { msg?: Record<string, unknown> }).msg).toEqual({ payload: "no src" });
    expect(flow.received).toHaveLength(0);
    // The node's own URL is checked where it is saved.
    expect(uiIframeConfig.safeParse({ group: "g1", src: "javascript:alert(1)" }).success).toBe(false);
    expect(uiIframeConfig.safeParse({ group: "g1", src: "/grafana/d/1" }).success).toBe(true);
    expect(uiIframeConfig.parse({ group: "g1" })).toMatchObject({ width: 6, height: 8, src: "" });
  });

  it("ui-file-input: an upload (base64 from the socket) is sent as a Buffer with msg.file, the topic and _client; nothing kept; other events send nothing", async () => {
    const { flow, dash } = await widgetFlow("ui-file-input", { topic: "doc", topicType: "str" });
    dash.input("w", "upload", { payload: Buffer.from("hello").toString("base64"), file: { name: "a.txt", type: "text/plain", size: 99 } });
    dash.input("w", "change", { payload: "x" });
    await flow.waitFor(1);
    await settle();
    expect(flow.received).toHaveLength(1);
    const m = flow.received[0]!;
    expect(Buffer.isBuffer(m.payload)).toBe(true);
    expect((m.payload as Buffer).toString()).toBe("hello");
    expect(m).toMatchObject({ topic: "doc", file: { name: "a.txt", type: "text/plain", size: 5 }, _client: { socketId: "s1" } });
    expect(dash.emitted).toEqual([]);
  });

  it("ui-audio player: a string payload is the source and is kept; playback is shown, not kept; the page's events leave with _event; bad on/off updates are node errors", async () => {
    const { flow, dash } = await widgetFlow("ui-audio", { mode: "src", src: "https://example.com/a.mp3", topic: "bell", topicType: "str" });
    flow.send("w", { payload: "https://example.com/b.mp3" });
    flow.send("w", { playback: "pause" });
    flow.send("w", { ui_update: { autoplay: "yes", loop: "on" } });
    await settle();
    expect(dash.emitted.map((e) => e.msg)).toEqual([{ payload: "https://example.com/b.mp3", topic: "bell" }, { playback: "pause", topic: "bell" }, { ui_update: { loop: "on" }, topic: "bell" }]);
    expect(dash.emitted.at(-1)!.state).toMatchObject({ msg: { payload: "https://example.com/b.mp3" }, props: { loop: "on" } });
    expect((dash.emitted.at(-1)!.state as { props: Record<string, unknown> }).props.autoplay).toBeUndefined();
    expect(flow.errors.map((e) => e.error)).toEqual(['Property msg.ui_update.autoplay should be "on" or "off"']);
    expect(flow.received).toHaveLength(0); // no passthru by default
    dash.input("w", "action", { _event: "ended" });
    dash.input("w", "change", { payload: "x" });
    await flow.waitFor(1);
    await settle();
    expect(flow.received).toHaveLength(1);
    expect(flow.received[0]).toMatchObject({ payload: "https://example.com/b.mp3", topic: "bell", _event: "ended", _client: { socketId: "s1" } });
  });

  it("ui-audio speech: nothing is kept; a speech event carries the page's text and its error", async () => {
    const { flow, dash } = await widgetFlow("ui-audio", { mode: "tts", group: "", ui: "base1", voice: "Google UK English Female" });
    flow.send("w", { payload: { text: "Door open", rate: 1.2 } });
    await settle();
    expect(dash.emitted[0]).toMatchObject({ widget: "w", msg: { payload: { text: "Door open", rate: 1.2 } } });
    expect((dash.emitted[0]!.state as { msg?: unknown }).msg).toBeUndefined();
    dash.input("w", "action", { payload: "Door open", _event: { type: "tts-error", utterance: { text: "Door open" } }, _error: "not-allowed" });
    await flow.waitFor(1);
    expect(flow.received[0]).toMatchObject({ payload: "Door open", _event: { type: "tts-error", utterance: { text: "Door open" } }, _error: "not-allowed" });
  });

  it("ui-switch: a toggle sends the on or off value (typed); the value is kept and shown to every viewer", async () => {
    const { flow, dash } = await widgetFlow("ui-switch", { onvalue: "open", onvalueType: "str", offvalue: "0", offvalueType: "num", topic: "valve", topicType: "str" });
    dash.input("w", "change", { payload: true });
    dash.input("w", "change", { payload: false });
    await flow.waitFor(2);
    expect(flow.received.map((m) => [m.payload, m.topic])).toEqual([
      ["open", "valve"],
      [0, "valve"],
    ]);
    expect(dash.emitted.at(-1)).toMatchObject({ state: { msg: { payload: 0, topic: "valve" } } });
    expect(dash.emitted.at(-1)!.client).toBeUndefined();
  });

  it("ui-slider clamps to its range; ui-number-input refuses what is not a number", async () => {
    const slider = await widgetFlow("ui-slider", { min: 0, max: 10 });
    slider.dash.input("w", "change", { payload: 99 });
    slider.dash.input("w", "change", { payload: "abc" });
    await slider.flow.waitFor(1);
    await settle();
    expect(slider.flow.received.map((m) => m.payload)).toEqual([10]);
    const number = await widgetFlow("ui-number-input", {});
    number.dash.input("w", "change", { payload: "7.5" });
    number.dash.input("w", "change", { payload: "x" });
    await number.flow.waitFor(1);
    await settle();
    expect(number.flow.received.map((m) => m.payload)).toEqual([7.5]);
  });

  it("ui-dropdown sends only one of its options (multiple: an array of them)", async () => {
    const { flow, dash } = await widgetFlow("ui-dropdown", { multiple: true, options: [{ value: "a", label: "A" }, { value: "b", label: "B" }] });
    dash.input("w", "change", { payload: ["a", "b"] });
    dash.input("w", "change", { payload: ["a", "evil"] });
    await flow.waitFor(1);
    await settle();
    expect(flow.received.map((m) => m.payload)).toEqual([["a", "b"]]);
  });

  it("ui-form sends its fields on submit; a missing required field or an unknown one is refused", async () => {
    const { flow, dash } = await widgetFlow("ui-form", { options: [{ key: "name", label: "Name", type: "text", required: true }, { key: "age", label: "Age", type: "number", required: false }], topic: "signup", topicType: "str" });
    dash.input("w", "submit", { payload: { age: 3 } });
    dash.input("w", "submit", { payload: { name: "Ada", admin: true } });
    dash.input("w", "submit", { payload: { name: "Ada", age: 36 } });
    await flow.waitFor(1);
    await settle();
    expect(flow.received.map((m) => [m.payload, m.topic])).toEqual([[{ name: "Ada", age: 36 }, "signup"]]);
  });

  it("ui-text's value from a JSONata expression or a number (Dashboard 2.0's typed Value); a failing expression keeps the payload and warns", async () => {
    const { flow, dash } = await widgetFlow("ui-text", { value: "payload.Uptime & ' s'", valueType: "jsonata" });
    flow.send("w", { payload: { Uptime: 42 } });
    await settle();
    expect(dash.emitted.at(-1)!.msg).toMatchObject({ payload: "42 s" });
    // An expression that does not compile is refused where it is saved, the field named (not when the flow starts).
    const refused = uiTextConfig.safeParse({ group: "g1", value: "payload +", valueType: "jsonata" });
    expect(refused.success).toBe(false);
    expect(refused.error!.issues[0]!.path).toEqual(["value"]);
    expect(uiGaugeConfig.safeParse({ group: "g1", value: "$sum(", valueType: "jsonata" }).success).toBe(false);
    // In order, even when the first message's expression takes longer (it yields to the event loop meanwhile).
    const ordered = await widgetFlow("ui-text", { value: "$count($map([1..payload], function($v) { $v }))", valueType: "jsonata" });
    ordered.flow.send("w", { payload: 100_000 });
    ordered.flow.send("w", { payload: 1 });
    await expect.poll(() => ordered.dash.emitted.length, { timeout: 10_000 }).toBe(2);
    expect(ordered.dash.emitted.map((e) => e.msg.payload)).toEqual([100_000, 1]);
    const failing = await widgetFlow("ui-text", { value: "$error('no uptime')", valueType: "jsonata" });
    failing.flow.send("w", { payload: "as it came" });
    await settle();
    expect(failing.dash.emitted.at(-1)!.msg).toMatchObject({ payload: "as it came" });
    expect(failing.flow.errors).toEqual([{ nodeId: "w", error: expect.stringContaining("Error evaluating value property: no uptime") }]);
    const fixed = await widgetFlow("ui-text", { value: "7", valueType: "num" });
    fixed.flow.send("w", { payload: "ignored" });
    await settle();
    expect(fixed.dash.emitted.at(-1)!.msg).toMatchObject({ payload: 7 });
  });

  it("ui-chart: Dashboard 1's whole-chart data ([{series, data, labels}], a flow restoring history) replaces the kept points, as the page draws it", async () => {
    const { flow, dash } = await widgetFlow("ui-chart", { chartType: "line", xAxisType: "time" });
    flow.send("w", { payload: 5 });
    flow.send("w", { payload: [{ series: ["Temp", "Humidity"], data: [[{ x: 1_000, y: 20 }, { x: 2_000, y: 21 }], [{ x: 1_000, y: 40 }]], labels: [""] }] });
    await settle();
    expect(dash.emitted.at(-1)!.state).toMatchObject({
      points: [
        { category: "Temp", x: 1_000, y: 20 },
        { category: "Temp", x: 2_000, y: 21 },
        { category: "Humidity", x: 1_000, y: 40 },
      ],
    });
    const bars = await widgetFlow("ui-chart", { chartType: "bar", xAxisType: "category" });
    bars.flow.send("w", { payload: [{ series: ["A"], data: [[3, 4]], labels: ["Mon", "Tue"] }] });
    await settle();
    expect(bars.dash.emitted.at(-1)!.state).toMatchObject({ points: [{ category: "A", x: "Mon", y: 3 }, { category: "A", x: "Tue", y: 4 }] });
  });

  it("ui-gauge shows its configured Value (a message property, JSONata), as Dashboard 2.0's; the payload by default", async () => {
    const { flow, dash } = await widgetFlow("ui-gauge", { value: "payload.temperature", valueType: "msg" });
    flow.send("w", { payload: { temperature: 21.5, humidity: 40 } });
    await settle();
    expect(dash.emitted.at(-1)!.msg).toMatchObject({ payload: 21.5 });
    const computed = await widgetFlow("ui-gauge", { value: "payload.watts / 1000", valueType: "jsonata" });
    computed.flow.send("w", { payload: { watts: 2500 } });
    await settle();
    expect(computed.dash.emitted.at(-1)!.msg).toMatchObject({ payload: 2.5 });
    const plain = await widgetFlow("ui-gauge", {});
    plain.flow.send("w", { payload: 7 });
    await settle();
    expect(plain.dash.emitted.at(-1)!.msg).toMatchObject({ payload: 7 });
  });

  it("Dashboard 2.0's earlier property message ({ topic: \"ui-property:class\", payload }, FlowFuse's Andon blueprints) sets the widget's class and keeps its value", async () => {
    const { flow, dash } = await widgetFlow("ui-text", {});
    flow.send("w", { payload: "42" });
    flow.send("w", { topic: "ui-property:class", payload: "hidden" });
    await settle();
    const last = dash.emitted.at(-1)!;
    expect(last.msg).toMatchObject({ class: "hidden" });
    expect(last.msg.payload).toBeUndefined();
    expect(last.state).toMatchObject({ msg: { payload: "42" }, props: { class: "hidden" } });
    // Any other topic is a message as any other.
    flow.send("w", { topic: "constructor", payload: "7" });
    await settle();
    expect(dash.emitted.at(-1)!.state).toMatchObject({ msg: { payload: "7" }, props: { class: "hidden" } });
  });

  it("ui-table: a button column's click sends the row, the column and button_click with _client (the viewer's user too); other columns' and plain tables' send nothing", async () => {
    const columns = [
      { key: "name", title: "Name", type: "text" },
      { key: "restock", title: "", type: "button" },
    ];
    const { flow, dash } = await widgetFlow("ui-table", { autocols: false, columns });
    const user = { userId: "usr_1", username: "ada@example.com", email: "ada@example.com", name: "Ada Lovelace", image: null };
    dash.input("w", "button_click", { payload: { name: "Bolt" }, column: "name" });
    dash.input("w", "button_click", { payload: { name: "Bolt" }, column: "restock" }, { socketId: "s1", user_id: "usr_1", user });
    await flow.waitFor(1);
    await settle();
    expect(flow.received).toHaveLength(1);
    expect(flow.received[0]).toMatchObject({ payload: { name: "Bolt" }, column: "restock", action: "button_click", _client: { socketId: "s1", user } });
    const plain = await widgetFlow("ui-table", {});
    plain.dash.input("w", "button_click", { payload: { name: "Bolt" }, column: "restock" });
    plain.dash.input("w", "click", { payload: { name: "Bolt" } });
    await settle();
    expect(plain.flow.received).toHaveLength(0);
  });

  it("a message carrying msg._client is shown to that viewer only (with its _client) and not kept; passthru follows the type's property", async () => {
    const { flow, dash } = await widgetFlow("ui-text-input", { passthru: false });
    flow.send("w", { payload: "for everyone" });
    flow.send("w", { payload: "for you", _client: { socketId: "s9" } });
    await settle();
    expect(dash.emitted.map((e) => [e.msg.payload, e.client?.socketId ?? null, (e.state as { msg?: { payload?: unknown } }).msg?.payload])).toEqual([
      ["for everyone", null, "for everyone"],
      ["for you", "s9", "for everyone"],
    ]);
    // That viewer sees its own _client (Dashboard 2.0's templates show it); the message for everyone carries none.
    expect(dash.emitted.map((e) => e.msg._client ?? null)).toEqual([null, { socketId: "s9" }]);
    expect(JSON.stringify(dash.emitted.map((e) => e.state))).not.toContain("s9");
    expect(flow.received).toEqual([]);
    const gauge = await widgetFlow("ui-gauge", {});
    gauge.flow.send("w", { payload: 3 });
    await gauge.flow.waitFor(1);
  });

  it("a widget starts from its stored state", async () => {
    const dash = new FakeDashboards();
    dash.states.set("w", { points: [{ category: "t", x: 1, y: 5 }] });
    const { flow } = await widgetFlow("ui-chart", { xAxisType: "linear", xAxisProperty: "x", xAxisPropertyType: "property", yAxisProperty: "y", yAxisPropertyType: "property" }, dash);
    flow.send("w", { payload: { x: 2, y: 6 }, topic: "t" });
    await flow.waitFor(1);
    expect(dash.emitted.at(-1)).toMatchObject({ msg: { _datapoint: [{ category: "t", x: 2, y: 6 }] }, state: { points: [{ x: 1, y: 5 }, { x: 2, y: 6 }] } });
    flow.send("w", { payload: [] });
    await flow.waitFor(2);
    expect(dash.emitted.at(-1)!.state).toMatchObject({ points: [] });
  });

  it("ui-notification keeps nothing and sends confirm/dismiss; ui-event sends page views; ui-control sends its actions as controls", async () => {
    const note = await widgetFlow("ui-notification", { ui: "b1" });
    note.flow.send("w", { payload: "hello" });
    await settle();
    expect(note.dash.emitted[0]!.state).toBeUndefined();
    note.dash.input("w", "confirm", { payload: "hello" });
    await note.flow.waitFor(2);
    // The incoming message passes on (the type has no passthru property), then the viewer's confirm.
    expect(note.flow.received[1]).toMatchObject({ payload: "hello", topic: "confirm", _client: { socketId: "s1" } });
    const event = await widgetFlow("ui-event", { ui: "b1" });
    event.dash.input("w", "$pageview", { payload: { page: { id: "p1", path: "/home" } } });
    await event.flow.waitFor(1);
    expect(event.flow.received[0]).toMatchObject({ topic: "$pageview", payload: { page: { path: "/home" } } });
    const control = await widgetFlow("ui-control", { ui: "b1" });
    control.flow.send("w", { payload: { page: "Home" } });
    await settle();
    expect(control.dash.controls).toEqual([{ widget: "w", msg: { payload: { page: "Home" } } }]);
    control.dash.input("w", "$pageview", { payload: { page: { id: "p1" } } });
    control.dash.input("w", "$pageview", { payload: { page: { id: "p2" } } });
    await control.flow.waitFor(3);
    expect(control.flow.received.map((m) => m.payload)).toEqual(["connect", "change", "change"]);
  });
});

describe("ui-chart's points (Dashboard 2.0's ui-chart.js)", () => {
  const c = (over: Record<string, unknown> = {}) => uiChartConfig.parse({ group: "g", ...over });
  it("a number is a point of msg.topic's series at the time it arrived; an array is several points", () => {
    expect(pointsOf(c(), { _msgid: "", payload: 5, topic: "oven" }, 1000)).toEqual([{ category: "oven", x: 1000, y: 5 }]);
    expect(pointsOf(c({ categoryType: "property", category: "s", xAxisPropertyType: "property", xAxisProperty: "t", yAxisPropertyType: "property", yAxisProperty: "v" }), { _msgid: "", payload: [{ s: "a", t: 1, v: 2 }, { s: "b", t: 2, v: 3 }] }, 0)).toEqual([
      { category: "a", x: 1, y: 2 },
      { category: "b", x: 2, y: 3 },
    ]);
  });
  it("series \"none\" (Dashboard 2.0's categoryType none, no legend): every point in one series, whatever msg.topic says", () => {
    expect(pointsOf(c({ categoryType: "none", category: "topic" }), { _msgid: "", payload: 5, topic: "oven" }, 1000)).toEqual([{ category: "", x: 1000, y: 5 }]);
  });
  it("keeps the newest points per series, drops those older than removeOlder on a time axis, one per category on a category axis", () => {
    const pts = [1, 2, 3, 4].flatMap((i) => [{ category: "a", x: i, y: i }, { category: "b", x: i, y: -i }]);
    expect(limitPoints(c({ removeOlderPoints: 2, removeOlder: 0 }), pts, 0).map((p) => p.y)).toEqual([3, -3, 4, -4]);
    const now = 10_000_000;
    expect(limitPoints(c({ removeOlder: 1, removeOlderUnit: "60" }), [{ category: "a", x: now - 61_000, y: 1 }, { category: "a", x: now - 1000, y: 2 }], now).map((p) => p.y)).toEqual([2]);
    expect(limitPoints(c({ xAxisType: "category", chartType: "bar" }), [{ category: "a", x: "mon", y: 1 }, { category: "a", x: "tue", y: 2 }, { category: "a", x: "mon", y: 3 }], 0)).toEqual([
      { category: "a", x: "tue", y: 2 },
      { category: "a", x: "mon", y: 3 },
    ]);
  });
});
