-- DropIndex
DROP INDEX "flows_organization_id_created_at_id_idx";

-- CreateIndex
CREATE INDEX "flows_organization_id_created_at_id_idx" ON "flows"("organization_id", "created_at" DESC, "id" DESC);
