-- CreateTable
CREATE TABLE "variables" (
    "id" TEXT NOT NULL,
    "organization_id" TEXT NOT NULL,
    "flow_id" TEXT,
    "scope" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "secret" BOOLEAN NOT NULL DEFAULT false,
    "value" TEXT,
    "value_encrypted" TEXT,
    "key_id" TEXT,
    "updated_by_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "variables_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "variables_organization_id_scope_name_key" ON "variables"("organization_id", "scope", "name");

-- AddForeignKey
ALTER TABLE "variables" ADD CONSTRAINT "variables_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
