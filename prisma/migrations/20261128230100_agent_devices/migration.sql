-- AlterTable
ALTER TABLE "flows" ADD COLUMN     "target_device_id" TEXT,
ADD COLUMN     "target_device_tag" TEXT;

-- CreateTable
CREATE TABLE "devices" (
    "id" TEXT NOT NULL,
    "organization_id" TEXT NOT NULL,
    "key_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "tags" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "last_seen_at" TIMESTAMPTZ(3),
    "agent_version" TEXT,
    "node_red_version" TEXT,
    "node_types" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "public_key" TEXT,
    "applied" JSONB NOT NULL DEFAULT '{}',
    "deployment_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "devices_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "devices_key_id_key" ON "devices"("key_id");

-- CreateIndex
CREATE INDEX "devices_organization_id_created_at_idx" ON "devices"("organization_id", "created_at");

-- AddForeignKey
ALTER TABLE "devices" ADD CONSTRAINT "devices_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "devices" ADD CONSTRAINT "devices_key_id_fkey" FOREIGN KEY ("key_id") REFERENCES "api_keys"("id") ON DELETE CASCADE ON UPDATE CASCADE;
