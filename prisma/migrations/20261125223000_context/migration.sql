-- CreateTable
CREATE TABLE "context_entries" (
    "organization_id" TEXT NOT NULL,
    "scope" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "value" TEXT,
    "bytes" INTEGER NOT NULL DEFAULT 0,
    "version" BIGSERIAL NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "context_entries_pkey" PRIMARY KEY ("organization_id","scope","key")
);

-- AddForeignKey
ALTER TABLE "context_entries" ADD CONSTRAINT "context_entries_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
