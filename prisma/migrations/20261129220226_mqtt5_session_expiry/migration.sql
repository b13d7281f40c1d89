-- CreateTable
CREATE TABLE "mqtt_session_expiry" (
    "client_id" TEXT NOT NULL,
    "organization_id" TEXT NOT NULL,
    "interval_seconds" INTEGER NOT NULL,
    "connected" BOOLEAN NOT NULL DEFAULT false,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "mqtt_session_expiry_pkey" PRIMARY KEY ("client_id")
);

-- CreateIndex
CREATE INDEX "mqtt_session_expiry_expires_at_idx" ON "mqtt_session_expiry"("expires_at");

-- CreateIndex
CREATE INDEX "mqtt_session_expiry_organization_id_idx" ON "mqtt_session_expiry"("organization_id");

-- AddForeignKey
ALTER TABLE "mqtt_session_expiry" ADD CONSTRAINT "mqtt_session_expiry_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
