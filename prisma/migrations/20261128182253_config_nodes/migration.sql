-- CreateTable
CREATE TABLE "config_nodes" (
    "id" TEXT NOT NULL,
    "organization_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "name" TEXT NOT NULL DEFAULT '',
    "config" JSONB NOT NULL DEFAULT '{}',
    "credentials_sealed" JSONB NOT NULL DEFAULT '{}',
    "revision" INTEGER NOT NULL DEFAULT 1,
    "created_by_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "config_nodes_pkey" PRIMARY KEY ("organization_id","id")
);

-- CreateIndex
CREATE INDEX "config_nodes_organization_id_type_idx" ON "config_nodes"("organization_id", "type");

-- AddForeignKey
ALTER TABLE "config_nodes" ADD CONSTRAINT "config_nodes_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
