import { describe, expect, it } from "vitest";
import { accessLogger, createLogger } from "./logger";

function capture() {
  const lines: Array<Record<string, unknown>> = [];
  return { lines, stream: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) } };
}

describe("logger", () => {
  it("writes ISO times and removes credentials from ordinary lines", () => {
    const { lines, stream } = capture();
    const logger = createLogger({ level: "info" }, stream);
    logger.info({ password: "hunter2", body: { token: "t", name: "n" }, headers: { authorization: "Bearer x" } }, "hello");
    expect(lines[0]).toMatchObject({ msg: "hello", password: "[redacted]", body: { token: "[redacted]", name: "n" }, headers: { authorization: "[redacted]" } });
    expect(String(lines[0]!.time)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Math.abs(Date.parse(String(lines[0]!.time)) - Date.now())).toBeLessThan(5000);
  });

  it("gives request lines a logger of their own, made once, on the same stream", () => {
    const { lines, stream } = capture();
    const logger = createLogger({ level: "info" }, stream);
    const access = accessLogger(logger);
    expect(accessLogger(logger)).toBe(access);
    access.info({ requestId: "req_1", method: "GET", path: "/api/v1/flows", status: 200, ms: 3 }, "request");
    expect(lines[0]).toMatchObject({ msg: "request", requestId: "req_1", status: 200 });
    expect(typeof lines[0]!.time).toBe("string");
  });
});
