import { describe, expect, it } from "vitest";
import { closingTestFlows } from "@/test/runtime-harness";
import { builtinVariables, memoryContextStore } from "@/server/runtime/memory-context";
import { injectConfig, injectNode } from "./definition";

const flow = closingTestFlows();

describe("inject: configuration", () => {
  it("defaults to Node-RED's: payload = timestamp, topic = empty string", () => {
    expect(injectConfig.parse({}).props).toEqual([
      { p: "payload", v: "", v_type: "date" },
      { p: "topic", v: "", v_type: "str" },
    ]);
  });

  it("still reads the old form (payload_type, payload, topic) as props", () => {
    const c = injectConfig.parse({ payload_type: "json", payload: '{"a":1}', topic: "t" });
    expect(c).toEqual({
      props: [
        { p: "payload", v: '{"a":1}', v_type: "json" },
        { p: "topic", v: "t", v_type: "str" },
      ],
      repeat_seconds: null,
      cron: null,
      once: false,
      once_delay_seconds: 0.1,
    });
  });

  it.each([
    [{ props: [{ p: "payload", v: "{bad", v_type: "json" }] }, /props\.0\.v.*valid JSON/],
    [{ props: [{ p: "payload", v: "1 +", v_type: "jsonata" }] }, /props\.0\.v.*JSONata/],
    [{ props: [{ p: "__proto__", v: "x" }] }, /props\.0\.p/],
    [{ props: [{ p: "payload", v: "x", v_type: "re" }] }, /props\.0\.v_type/],
    [{ payload_type: "number", payload: "abc" }, /payload.*number/],
    [{ repeat_seconds: 3_000_000 }, /repeat_seconds/],
    [{ repeat_seconds: 5, cron: "* * * * *" }, /cron.*not both/],
  ])("refuses %j with a clear message", (config, message) => {
    const result = injectConfig.safeParse(config);
    expect(result.success).toBe(false);
    expect(result.error!.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("\n")).toMatch(message);
  });

  it("imports Node-RED's editor form and exports it back unchanged; other props keep v and vt", () => {
    const nr = {
      props: [{ p: "payload" }, { p: "topic", vt: "str" }, { p: "count", v: "n", vt: "flow" }, { p: "when", v: "$now()", vt: "jsonata" }, { p: "city", v: "CITY", vt: "env" }],
      repeat: "5",
      crontab: "",
      once: true,
      onceDelay: 2,
      topic: "t",
      payload: "",
      payloadType: "date",
    };
    const config = injectConfig.parse(injectNode.nodeRed!.fromNodeRed(nr));
    expect(injectNode.nodeRed!.toNodeRed(config)).toEqual(nr);
  });

  it("has help and human titles, and hides the old fields from the form", () => {
    expect(injectNode.help).toMatch(/### Inputs[\s\S]*### Outputs[\s\S]*### Details[\s\S]*### Differences from Node-RED/);
    const schema = injectConfig.toJSONSchema({ io: "input" }) as { properties: Record<string, { title?: string; deprecated?: boolean }> };
    expect(schema.properties.props!.title).toBe("Properties");
    expect(schema.properties.repeat_seconds!.title).toBe("Repeat every (seconds)");
    expect(schema.properties.payload_type!.deprecated).toBe(true);
  });
});

describe("inject: behaviour", () => {
  it("sets every prop type on the message, in order, with context and variables", async () => {
    const flowStore = memoryContextStore(new Map<string, unknown>([["n", 3]]));
    const h = await flow(
      [
        {
          id: "i",
          type: "inject",
          config: {
            props: [
              { p: "payload", v: "[1,2]", v_type: "json" },
              { p: "topic", v: "CITY", v_type: "env" },
              { p: "count", v: "n", v_type: "flow" },
              { p: "sum", v: "$sum(payload) + count", v_type: "jsonata" },
              { p: "raw", v: "[104,105]", v_type: "bin" },
              { p: "at", v: "iso", v_type: "date" },
            ],
          },
        },
        { id: "s", type: "sink" },
      ],
      [{ source: "i", target: "s" }],
      {},
      {},
      { contextStores: () => ({ flow: flowStore, global: memoryContextStore() }), variables: () => builtinVariables({ CITY: "Oslo" }) },
    );
    const id = h.engine.inject("flw_test", "i", {});
    const [msg] = await h.waitFor(1);
    expect(msg).toMatchObject({ _msgid: id, payload: [1, 2], topic: "Oslo", count: 3, sum: 6, raw: Buffer.from("hi") });
    expect(msg!.at).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it("the button's payload and topic override the props", async () => {
    const h = await flow([{ id: "i", type: "inject", config: { props: [{ p: "payload", v: "own", v_type: "str" }, { p: "topic", v: "own", v_type: "str" }, { p: "x", v: "1", v_type: "num" }] } }, { id: "s", type: "sink" }], [{ source: "i", target: "s" }]);
    h.engine.inject("flw_test", "i", { payload: { given: true }, topic: "given" });
    const [msg] = await h.waitFor(1);
    expect(msg).toMatchObject({ payload: { given: true }, topic: "given", x: 1 });
  });

  it("repeats only after the once message, as Node-RED", async () => {
    const h = await flow([{ id: "i", type: "inject", config: { props: [{ p: "payload", v: "", v_type: "date" }], once: true, once_delay_seconds: 0.3, repeat_seconds: 0.1 } }, { id: "s", type: "sink" }], [{ source: "i", target: "s" }]);
    const started = Date.now();
    await h.waitFor(3);
    const times = h.received.map((m) => (m.payload as number) - started);
    expect(times[0]).toBeGreaterThanOrEqual(280);
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(80);
  });

  it("a repeat written as ${NAME} is the variable's seconds, read when the flow starts, as Node-RED maps it; unset, the node's error and no repeat", async () => {
    expect(injectConfig.parse({ repeat_seconds: "${EVERY}" }).repeat_seconds).toBe("${EVERY}");
    expect(injectNode.nodeRed!.fromNodeRed!({ repeat: "${EVERY}", crontab: "", once: false })).toMatchObject({ repeat_seconds: "${EVERY}", cron: null });
    expect(injectNode.nodeRed!.toNodeRed!(injectConfig.parse({ repeat_seconds: "${EVERY}" }))).toMatchObject({ repeat: "${EVERY}" });
    const every = { variables: () => builtinVariables({ EVERY: "0.1" }) };
    const h = await flow([{ id: "i", type: "inject", config: { repeat_seconds: "${EVERY}" } }, { id: "s", type: "sink" }], [{ source: "i", target: "s" }], {}, {}, every);
    await h.waitFor(2);
    expect(h.errors).toEqual([]);

    const unset = await flow([{ id: "i", type: "inject", config: { repeat_seconds: "${EVERY}" } }, { id: "s", type: "sink" }], [{ source: "i", target: "s" }]);
    await expect.poll(() => unset.errors).toEqual([{ nodeId: "i", error: expect.stringContaining("Repeat every (seconds) is ${EVERY}, which is not set") }]);
    const slow = await flow([{ id: "i", type: "inject", config: { repeat_seconds: "${EVERY}" } }, { id: "s", type: "sink" }], [{ source: "i", target: "s" }], {}, {}, { variables: () => builtinVariables({ EVERY: "0" }) });
    await expect.poll(() => slow.errors).toEqual([{ nodeId: "i", error: expect.stringContaining('whose value "0" is not a number from 0.1 to 2147483') }]);
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect([...unset.received, ...slow.received]).toEqual([]);
  });

  it("a JSONata prop that fails is a node error and nothing is sent", async () => {
    const h = await flow([{ id: "i", type: "inject", config: { props: [{ p: "payload", v: "$error('nope')", v_type: "jsonata" }] } }, { id: "s", type: "sink" }], [{ source: "i", target: "s" }]);
    h.engine.inject("flw_test", "i", {});
    await expect.poll(() => h.errors).toEqual([{ nodeId: "i", error: expect.stringContaining("nope") }]);
    expect(h.received).toEqual([]);
  });
});
