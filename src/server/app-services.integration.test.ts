import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEnv } from "@/env";
import { createAppServices } from "@/server/compose";
import type { AppServices } from "@/server/app-services";
import { createTestApp } from "@/test/app";

describe("one AppServices per process", () => {
  let app: AppServices;
  let dataDir: string;
  beforeAll(async () => {
    app = await createTestApp();
    dataDir = mkdtempSync(path.join(os.tmpdir(), "fp-guard-"));
  });
  afterAll(async () => {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("refuses to build a second one while the first is live, before opening anything", async () => {
    const env = parseEnv({ NODE_ENV: "test", DATA_DIR: dataDir, LOG_LEVEL: "silent" });
    await expect(createAppServices({ env, dataDirForDb: "memory://" })).rejects.toThrow(/second AppServices/);
    // Nothing was opened: no secrets were generated and no database was created.
    expect(() => rmSync(path.join(dataDir, "secrets.json"))).toThrow();
  });

  it("derives the keys and builds the limiters once, on the instance", () => {
    expect(app.config.keys.jwt).toBeDefined();
    expect(app.config.keys.mfa.length).toBe(32);
    expect(app.limits.apiPerCredential).toBeDefined();
  });
});
