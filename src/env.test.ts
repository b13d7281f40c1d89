import { describe, expect, it } from "vitest";
import { EnvError, parseEnv } from "./env";

describe("parseEnv", () => {
  it("gives working defaults with nothing set", () => {
    const env = parseEnv({});
    expect(env.PORT).toBe(3000);
    expect(env.DATA_DIR).toBe("./data");
    expect(env.DATABASE_URL).toBeUndefined();
    expect(env.REDIS_URL).toBeUndefined();
    expect(env.BCRYPT_COST).toBe(12);
  });

  it("names the variable that is wrong", () => {
    expect(() => parseEnv({ PORT: "eighty" })).toThrow(EnvError);
    expect(() => parseEnv({ PORT: "eighty" })).toThrow(/PORT/);
    expect(() => parseEnv({ REDIS_URL: "http://x" })).toThrow(/REDIS_URL: must be a redis/);
    expect(() => parseEnv({ LOG_LEVEL: "loud" })).toThrow(/LOG_LEVEL/);
    expect(() => parseEnv({ JWT_SECRET: "short" })).toThrow(/JWT_SECRET: must be at least 32 characters/);
  });

  it("requires explicit secrets once a shared database is configured", () => {
    expect(() => parseEnv({ DATABASE_URL: "postgresql://localhost/db" })).toThrow(/JWT_SECRET: is required when DATABASE_URL is set/);
    expect(() => parseEnv({ DATABASE_URL: "postgresql://localhost/db" })).toThrow(/ENCRYPTION_KEY/);
    const secret = "x".repeat(32);
    expect(parseEnv({ DATABASE_URL: "postgresql://localhost/db", JWT_SECRET: secret, ENCRYPTION_KEY: secret }).DATABASE_URL).toBe(
      "postgresql://localhost/db",
    );
  });

  it("takes the built-in broker's TLS certificate and key together, with a port", () => {
    expect(() => parseEnv({ MQTT_PORT: "8883", MQTT_TLS_CERT: "/etc/cert.pem" })).toThrow(/MQTT_TLS_KEY/);
    expect(() => parseEnv({ MQTT_TLS_CERT: "/etc/cert.pem", MQTT_TLS_KEY: "/etc/key.pem" })).toThrow(/MQTT_PORT/);
    const env = parseEnv({ MQTT_PORT: "8883", MQTT_TLS_CERT: "/etc/cert.pem", MQTT_TLS_KEY: "/etc/key.pem" });
    expect(env.MQTT_PORT).toBe(8883);
    expect(parseEnv({}).MQTT_MAX_MESSAGE_BYTES).toBe(256 * 1024);
  });

  it("treats empty strings as unset", () => {
    expect(parseEnv({ DATABASE_URL: "", REDIS_URL: "" }).DATABASE_URL).toBeUndefined();
  });
});
