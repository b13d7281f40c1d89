-- AlterTable
ALTER TABLE "executions" ADD COLUMN     "bytes" INTEGER NOT NULL DEFAULT 0;

-- CreateIndex
CREATE INDEX "executions_organization_id_idx" ON "executions"("organization_id");
