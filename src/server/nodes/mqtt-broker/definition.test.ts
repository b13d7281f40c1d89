import { describe, expect, it } from "vitest";
import { mqttBrokerNode, mqttBrokerConfig, splitUserinfo } from "./definition";

describe("mqtt-broker: a user and password in the Server's URL", () => {
  it("splits the user information off a URL, percent-decoded, and leaves others alone", () => {
    expect(splitUserinfo("mqtt://alice:s3cret@broker.example.com:1883")).toEqual({ url: "mqtt://broker.example.com:1883", user: "alice", password: "s3cret" });
    expect(splitUserinfo("wss://bob:p%40ss%3Aw@example.com/mqtt?x=1")).toEqual({ url: "wss://example.com/mqtt?x=1", user: "bob", password: "p@ss:w" });
    expect(splitUserinfo("mqtt://onlyuser@h")).toEqual({ url: "mqtt://h", user: "onlyuser" });
    expect(splitUserinfo("mqtt://:pw@h")).toEqual({ url: "mqtt://h", password: "pw" });
    expect(splitUserinfo("mqtt://broker.example.com:1883")).toBeNull();
    expect(splitUserinfo("broker.example.com")).toBeNull();
    // An @ after the host (a path, a query) is not user information.
    expect(splitUserinfo("ws://example.com/mqtt?to=a@b")).toBeNull();
  });

  it("lifts them into credentials, and nothing when there are none", () => {
    const config = mqttBrokerConfig.parse({ broker: "mqtts://u:p@h.example.com" });
    expect(mqttBrokerNode.liftCredentials!(config)).toEqual({ config: { ...config, broker: "mqtts://h.example.com" }, credentials: { user: "u", password: "p" } });
    expect(mqttBrokerNode.liftCredentials!(mqttBrokerConfig.parse({ broker: "built-in" }))).toBeNull();
  });
});
