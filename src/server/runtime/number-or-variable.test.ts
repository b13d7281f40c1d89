import { describe, expect, it } from "vitest";
import { z } from "zod";
import { numberOrVariable, resolveVariableNumbers, variableFromNodeRed, variableNumberFields } from "./number-or-variable";
import { mqttBrokerConfig, mqttBrokerNode } from "../nodes/mqtt-broker/definition";

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
});
