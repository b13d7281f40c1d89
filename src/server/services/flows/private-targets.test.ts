import { describe, expect, it } from "vitest";
import { privateHostReason, privateTargetWarnings } from "./private-targets";

describe("addresses on a private network in an imported flow", () => {
  it.each([
    ["localhost", "this machine's own name"],
    ["127.0.0.1", "a private or reserved address"],
    ["192.168.1.10", "a private or reserved address"],
    ["[::1]", "a private or reserved address"],
    ["mosquitto", "a name only a local network resolves"],
    ["core-mosquitto", "a name only a local network resolves"],
    ["raspberrypi.local", "a local network's name (.local)"],
    ["nas.home.arpa", "a local network's name (.home.arpa)"],
  ])("%s is %s", (host, reason) => {
    expect(privateHostReason(host)).toBe(reason);
  });

  it.each(["test.mosquitto.org", "8.8.8.8", "broker.hivemq.com", "${MQTT_HOST}", "{{host}}", ""])("%s may be public (or cannot be told): nothing said", (host) => {
    expect(privateHostReason(host)).toBeNull();
  });

  it("names each client node or broker whose fixed address is private, with what follows and the ways out; a variable, a mustache URL and the built-in broker say nothing", () => {
    const warnings = privateTargetWarnings([
      { id: "b1", type: "mqtt-broker", name: "Home broker", broker: "localhost", port: "1883" },
      { id: "b2", type: "mqtt-broker", broker: "mqtt://192.168.1.5:1883" },
      { id: "b3", type: "mqtt-broker", broker: "built-in" },
      { id: "b4", type: "mqtt-broker", broker: "${MQTT_HOST}" },
      { id: "b5", type: "mqtt-broker", broker: "broker.hivemq.com" },
      { id: "h1", type: "http request", url: "http://homeassistant:8123/api/states" },
      { id: "h2", type: "http request", url: "{{url}}" },
      { id: "h4", type: "http request", url: "http://{{host}}/api" },
      { id: "h5", type: "http request", url: "http://192.168.1.20/api/{{topic}}" },
      { id: "h3", type: "http request", url: "https://api.example.com/x" },
      { id: "w1", type: "websocket-client", path: "ws://10.0.0.2:1880/ws" },
      { id: "t1", type: "tcp request", server: "plc.local", port: "502" },
      { id: "t2", type: "tcp out", beserver: "client", host: "192.168.0.20", port: "9000" },
      { id: "u1", type: "udp out", addr: "192.168.0.255", port: "9" },
      { id: "i1", type: "tcp in", server: "client", host: "serial-bridge", port: "4001" },
      { id: "i2", type: "tcp in", server: "server", host: "", port: "4001" },
      { id: "m1", type: "MySQLdatabase", host: "127.0.0.1", port: "3306", db: "home" },
      { id: "m2", type: "MySQLdatabase", host: "db.example.com", port: "3306", db: "home" },
      { id: "x1", type: "influxdb", hostname: "influxdb", influxdbVersion: "1.x" },
      { id: "x2", type: "influxdb", hostname: "127.0.0.1", influxdbVersion: "2.0", url: "http://localhost:8086" },
      { id: "x3", type: "influxdb", hostname: "127.0.0.1", influxdbVersion: "2.0", url: "https://eu-central-1-1.aws.cloud2.influxdata.com" },
      { id: "p1", type: "postgreSQLConfig", host: "timescaledb", hostFieldType: "str", port: 5432 },
      { id: "p2", type: "postgreSQLConfig", host: "PGHOST", hostFieldType: "env", port: 5432 },
    ]);
    expect(warnings).toHaveLength(13);
    expect(warnings[0]).toBe(
      'mqtt-broker "Home broker" (b1): its broker localhost is this machine\'s own name, which this server does not connect to (outbound rules; OUTBOUND_ALLOW_PRIVATE is off), so its MQTT nodes stay disconnected. Run the flow on a device on that network (Devices, flowplane agent), or use the built-in broker (Server: built-in).',
    );
    expect(warnings.map((w) => w.split(":")[0])).toEqual(["mqtt-broker \"Home broker\" (b1)", "mqtt-broker (b2)", "http request (h1)", "http request (h5)", "websocket-client (w1)", "tcp request (t1)", "tcp out (t2)", "udp out (u1)", "tcp in (i1)", "MySQLdatabase (m1)", "influxdb (x1)", "influxdb (x2)", "postgreSQLConfig (p1)"]);
    expect(warnings[9]).toContain('its host 127.0.0.1 is a private or reserved address, which this server does not connect to (outbound rules; OUTBOUND_ALLOW_PRIVATE is off), so its mysql nodes stay "not yet connected"');
    expect(warnings[11]).toContain("its URL http://localhost:8086 is this machine's own name");
    expect(warnings[8]).toContain("its host serial-bridge is a name only a local network resolves");
    expect(warnings[2]).toContain("its URL http://homeassistant:8123/api/states is a name only a local network resolves");
    expect(warnings[2]).toContain("so its requests fail");
    expect(warnings[2]).not.toContain("built-in broker");
  });
});
