-- CreateTable
CREATE TABLE "mqtt_retained" (
    "topic" TEXT NOT NULL,
    "organization_id" TEXT NOT NULL,
    "payload" BYTEA NOT NULL,
    "qos" INTEGER NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "mqtt_retained_pkey" PRIMARY KEY ("topic")
);

-- CreateTable
CREATE TABLE "mqtt_sessions" (
    "client_id" TEXT NOT NULL,
    "organization_id" TEXT NOT NULL,
    "subscriptions" JSONB NOT NULL DEFAULT '[]',
    "outgoing" JSONB NOT NULL DEFAULT '[]',
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "mqtt_sessions_pkey" PRIMARY KEY ("client_id")
);

-- CreateIndex
CREATE INDEX "mqtt_retained_organization_id_idx" ON "mqtt_retained"("organization_id");

-- CreateIndex
CREATE INDEX "mqtt_sessions_organization_id_idx" ON "mqtt_sessions"("organization_id");

-- AddForeignKey
ALTER TABLE "mqtt_retained" ADD CONSTRAINT "mqtt_retained_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "mqtt_sessions" ADD CONSTRAINT "mqtt_sessions_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Device keys get the built-in broker's scopes by default (SPEC §20). Keys created with all the
-- scopes their role allows gain them by themselves; device keys created with an explicit list
-- (which could only be device:connect) gain them here. Service keys with an explicit list keep it.
UPDATE "api_keys" SET "scopes" = array_cat("scopes", ARRAY['mqtt:publish', 'mqtt:subscribe'])
WHERE "kind" = 'device' AND "all_scopes" = false AND NOT ('mqtt:publish' = ANY("scopes"));
