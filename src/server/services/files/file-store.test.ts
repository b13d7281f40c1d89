import { describe, expect, it } from "vitest";
import type { PrismaClient } from "../../../generated/prisma/client";
import { deleteFile, writeFile } from "./file-store";

/**
 * A database whose transactions only count how many of each organization's are open at once (the
 * organization is read from the transaction's first statement); the organization "failing" fails.
 */
function countingDb() {
  const open = new Map<string, number>();
  const most = new Map<string, number>();
  const all = { open: 0, most: 0 };
  const seen = Symbol("seen");
  const prisma = {
    async $transaction(work: (tx: unknown) => Promise<unknown>) {
      let org = "";
      const tx = {
        $executeRaw(_sql: TemplateStringsArray, ...values: unknown[]) {
          org = String(values[0]);
          throw seen;
        },
      };
      await work(tx).catch((err: unknown) => {
        if (err !== seen) throw err;
      });
      open.set(org, (open.get(org) ?? 0) + 1);
      most.set(org, Math.max(most.get(org) ?? 0, open.get(org)!));
      all.most = Math.max(all.most, ++all.open);
      await new Promise((r) => setTimeout(r, 5));
      open.set(org, open.get(org)! - 1);
      all.open--;
      if (org === "failing") throw new Error("the database refused");
      return { path: "f", size: 1, updatedAt: new Date(), created: true };
    },
  };
  return { prisma: prisma as unknown as PrismaClient, most, all };
}

describe("file writes on one instance", () => {
  it("an organization's writes take one database transaction at a time; another organization's do not wait for them", async () => {
    const db = countingDb();
    const limits = { maxBytes: 1 << 20, maxFileBytes: 1 << 20 };
    await Promise.all([
      ...Array.from({ length: 10 }, () => writeFile(db.prisma, "a", "log.txt", Buffer.from("x"), { append: true, limits })),
      deleteFile(db.prisma, "a", "old.txt"),
      ...Array.from({ length: 10 }, () => writeFile(db.prisma, "b", "log.txt", Buffer.from("x"), { append: true, limits })),
    ]);
    expect(db.most.get("a")).toBe(1);
    expect(db.most.get("b")).toBe(1);
    // The two queues run side by side.
    expect(db.all.most).toBe(2);
  });

  it("a write that fails does not stop the organization's next one: it still gets its turn", async () => {
    const db = countingDb();
    const limits = { maxBytes: 1 << 20, maxFileBytes: 1 << 20 };
    const first = writeFile(db.prisma, "failing", "f", Buffer.from("x"), { append: true, limits });
    const second = writeFile(db.prisma, "failing", "g", Buffer.from("x"), { append: true, limits });
    await expect(first).rejects.toThrow("the database refused");
    // Queued behind it, it still gets its turn (and its own answer).
    await expect(second).rejects.toThrow("the database refused");
    expect(db.most.get("failing")).toBe(1);
  });
});
