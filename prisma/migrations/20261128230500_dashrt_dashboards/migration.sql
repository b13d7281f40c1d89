-- CreateTable
CREATE TABLE "dashboard_widget_states" (
    "organization_id" TEXT NOT NULL,
    "widget_id" TEXT NOT NULL,
    "state" JSONB NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "dashboard_widget_states_pkey" PRIMARY KEY ("organization_id","widget_id")
);

-- CreateTable
CREATE TABLE "dashboard_share_links" (
    "id" TEXT NOT NULL,
    "organization_id" TEXT NOT NULL,
    "page_id" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "interactive" BOOLEAN NOT NULL DEFAULT false,
    "created_by_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "dashboard_share_links_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "dashboard_share_links_token_hash_key" ON "dashboard_share_links"("token_hash");

-- CreateIndex
CREATE INDEX "dashboard_share_links_organization_id_created_at_idx" ON "dashboard_share_links"("organization_id", "created_at" DESC);

-- AddForeignKey
ALTER TABLE "dashboard_widget_states" ADD CONSTRAINT "dashboard_widget_states_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "dashboard_share_links" ADD CONSTRAINT "dashboard_share_links_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
