-- AlterTable
ALTER TABLE "executions" ADD COLUMN     "bytes" INTEGER NOT NULL DEFAULT 0;

-- CreateIndex
CREATE INDEX "executions_organization_id_idx" ON "executions"("organization_id");

-- Context tombstones (deleted keys' rows) are swept once a minute (issue 40): found by this index
-- (hand-written: Prisma's schema has no partial indexes).
CREATE INDEX "context_entries_tombstones_idx" ON "context_entries"("updated_at") WHERE "value" IS NULL;
