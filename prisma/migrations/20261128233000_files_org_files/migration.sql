-- CreateTable
CREATE TABLE "org_files" (
    "organization_id" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "content" BYTEA NOT NULL,
    "size" INTEGER NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "org_files_pkey" PRIMARY KEY ("organization_id","path")
);

-- CreateTable
CREATE TABLE "org_file_usage" (
    "organization_id" TEXT NOT NULL,
    "bytes" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "org_file_usage_pkey" PRIMARY KEY ("organization_id")
);

-- AddForeignKey
ALTER TABLE "org_files" ADD CONSTRAINT "org_files_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "org_file_usage" ADD CONSTRAINT "org_file_usage_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
