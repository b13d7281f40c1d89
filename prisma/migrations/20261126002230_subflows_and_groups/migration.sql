-- AlterTable
ALTER TABLE "flows" ADD COLUMN     "groups" JSONB NOT NULL DEFAULT '[]';

-- CreateTable
CREATE TABLE "subflows" (
    "id" TEXT NOT NULL,
    "organization_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "category" TEXT NOT NULL DEFAULT 'subflows',
    "color" TEXT NOT NULL DEFAULT '#DDAA99',
    "icon" TEXT,
    "env" JSONB NOT NULL DEFAULT '[]',
    "nodes" JSONB NOT NULL DEFAULT '[]',
    "connections" JSONB NOT NULL DEFAULT '[]',
    "groups" JSONB NOT NULL DEFAULT '[]',
    "revision" INTEGER NOT NULL DEFAULT 1,
    "created_by_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "subflows_pkey" PRIMARY KEY ("organization_id","id")
);

-- AddForeignKey
ALTER TABLE "subflows" ADD CONSTRAINT "subflows_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
