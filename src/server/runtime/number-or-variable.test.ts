import { describe, expect, it } from "vitest";
import { z } from "zod";
import { numberOrVariable, resolveVariableNumbers, variableFromNodeRed, variableNumberFields } from "./number-or-variable";
import { mqttBrokerConfig, mqttBrokerNode } from "../nodes/mqtt-broker/definition";
import { createNodeRegistry } from "../nodes/registry";
import { closingTestFlows } from "@/test/runtime-harness";
import { builtinVariables } from "./memory-context";

const flow = closingTestFlows();

describe("number-or-variable fields (Node-RED's validators.number accepts ${ENV_VAR})", () => {
  it("a field takes a number or one whole ${NAME}, nothing else", () => {
    const schema = z.object({ port: numberOrVariable(z.number().int().min(1).max(65_535)).default(1883) });
    expect(schema.parse({})).toEqual({ port: 1883 });
    expect(schema.parse({ port: 8883 })).toEqual({ port: 8883 });
    expect(schema.parse({ port: "${MQTT_PORT}" })).toEqual({ port: "${MQTT_PORT}" });
    for (const bad of [0, 70_000, 1.5, "1883", "${MQTT PORT}", "x${MQTT_PORT}", "${MQTT_PORT}${B}", "$(MQTT_PORT)", ""]) expect(schema.safeParse({ port: bad }).success, String(bad)).toBe(false);
  });

  it("finds a type's fields through default and meta, with their titles", () => {
    const fields = variableNumberFields(mqttBrokerConfig);
    expect([...fields.keys()].sort()).toEqual(["keepalive", "port", "sessionExpiry"]);
    expect(fields.get("port")!.title).toBe("Port");
    expect(variableNumberFields(z.object({ n: z.number(), s: z.string() })).size).toBe(0);
    expect(variableNumberFields(undefined).size).toBe(0);
    // Through a pipe (a schema that transforms after parsing, as inject's).
    expect([...variableNumberFields(z.object({ every: numberOrVariable(z.number()).nullable() }).transform((c) => c)).keys()]).toEqual(["every"]);
  });

  it("reads a reference's value as the field's number, and names the field and variable when it cannot", () => {
    const fields = variableNumberFields(mqttBrokerConfig);
    const raw = { port: "${MQTT_PORT}", keepalive: 60, broker: "${HOST}" };
    expect(resolveVariableNumbers(fields, raw, { port: " 8883 ", keepalive: 60, broker: "h" })).toEqual({ port: 8883, keepalive: 60, broker: "h" });
    const untouched = { port: 1883, keepalive: 60 };
    expect(resolveVariableNumbers(fields, untouched, untouched)).toBe(untouched);
    expect(() => resolveVariableNumbers(fields, raw, { port: "", keepalive: 60 })).toThrow("Port is ${MQTT_PORT}, which is not set");
    expect(() => resolveVariableNumbers(fields, raw, { port: "99999", keepalive: 60 })).toThrow('Port is ${MQTT_PORT}, whose value "99999" is not a whole number from 1 to 65535');
    expect(() => resolveVariableNumbers(fields, raw, { port: "18.83", keepalive: 60 })).toThrow("not a whole number");
    expect(() => resolveVariableNumbers(fields, { keepalive: "${KA}" }, { keepalive: "-1" })).toThrow('Keep alive (s) is ${KA}, whose value "-1" is not a whole number from 0 to 65535');
  });

  it("a Node-RED broker's ${NAME} port, keep-alive and session expiry import as references; numbers stay numbers", () => {
    expect(variableFromNodeRed(" ${MQTT_PORT} ")).toBe("${MQTT_PORT}");
    expect(variableFromNodeRed("1883")).toBeUndefined();
    const imported = mqttBrokerNode.nodeRed!.fromNodeRed!({ broker: "${MQTT_HOST}", port: "${MQTT_PORT}", keepalive: "${KEEPALIVE}", sessionExpiry: "${EXPIRY}" }) as Record<string, unknown>;
    expect(mqttBrokerConfig.parse(imported)).toMatchObject({ broker: "${MQTT_HOST}", port: "${MQTT_PORT}", keepalive: "${KEEPALIVE}", sessionExpiry: "${EXPIRY}" });
    expect(mqttBrokerNode.nodeRed!.fromNodeRed!({ broker: "h", port: "8883", keepalive: "30" })).toMatchObject({ port: 8883, keepalive: 30 });
    expect(mqttBrokerNode.nodeRed!.toNodeRed!(mqttBrokerConfig.parse({ broker: "h", port: "${MQTT_PORT}" }))).toMatchObject({ port: "${MQTT_PORT}" });
  });

  it("every core node's number field that Node-RED's editor checks with validators.number takes ${NAME}, imported as it is", () => {
    const registry = createNodeRegistry();
    const fields = (type: string) => [...variableNumberFields(registry.get(type)!.configSchema).keys()].sort();
    expect(fields("mqtt-broker")).toEqual(["keepalive", "port", "sessionExpiry"]);
    expect(fields("inject")).toEqual(["once_delay_seconds", "repeat_seconds"]);
    expect(fields("trigger")).toEqual(["duration"]);
    expect(fields("link-call")).toEqual(["timeout_seconds"]);
    expect(fields("range")).toEqual(["max_in", "max_out", "min_in", "min_out"]);
    const imported = (type: string, nodeRed: Record<string, unknown>) => registry.get(type)!.configSchema.parse(registry.get(type)!.nodeRed!.fromNodeRed!(nodeRed));
    expect(imported("trigger", { duration: "${WAIT}", units: "s" })).toMatchObject({ duration: "${WAIT}", units: "s" });
    expect(imported("link-call", { links: [], timeout: "${CALL_TIMEOUT}" })).toMatchObject({ timeout_seconds: "${CALL_TIMEOUT}" });
    expect(imported("range", { minin: "0", maxin: "${FULL}", minout: "0", maxout: "100" })).toMatchObject({ min_in: 0, max_in: "${FULL}" });
    expect(imported("inject", { onceDelay: "${SETTLE}", once: true })).toMatchObject({ once_delay_seconds: "${SETTLE}", once: true });
  });

  it("the engine reads them when the node starts, through the node's env (a subflow's, a variable); one it cannot read is the node's error and the field's default", async () => {
    const vars = { variables: () => builtinVariables({ LOW: "100", HIGH: "200", WAIT: "30", ALSO_100: "100" }) };
    const h = await flow(
      [
        { id: "r", type: "range", config: { min_out: "${LOW}", max_out: "${HIGH}" } },
        { id: "t", type: "trigger", config: { duration: "${WAIT}", op1: "first", op2: "second" } },
        { id: "s", type: "sink" },
      ],
      [
        { source: "r", target: "s" },
        { source: "t", target: "s" },
      ],
      {},
      {},
      vars,
    );
    h.send("r", { payload: 5 });
    const started = Date.now();
    h.send("t", { payload: "go" });
    const [scaled, first, second] = await h.waitFor(3);
    expect(scaled!.payload).toBe(150);
    expect([first!.payload, second!.payload]).toEqual(["first", "second"]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
    expect(h.errors).toEqual([]);

    // Ends that are equal once read: the node says so when it starts (the configuration's check saw two different texts).
    const flat = await flow([{ id: "r", type: "range", config: { min_in: "${LOW}", max_in: "${ALSO_100}" } }, { id: "s", type: "sink" }], [{ source: "r", target: "s" }], {}, {}, vars);
    expect(flat.errors).toEqual([{ nodeId: "r", error: "the input range's ends are both 100: every value scales to NaN or Infinity" }]);

    const unset = await flow([{ id: "r", type: "range", config: { min_out: "${LOW}", max_out: "${MISSING}" } }, { id: "s", type: "sink" }], [{ source: "r", target: "s" }], {}, {}, vars);
    expect(unset.errors).toEqual([{ nodeId: "r", error: expect.stringContaining("Target range to is ${MISSING}, which is not set") }]);
    unset.send("r", { payload: 5 });
    const [fallback] = await unset.waitFor(1);
    expect(fallback!.payload).toBe(100); // 100 to the default 100: the node still runs
  });
});
