-- A persistent session's queued messages move from a JSON array in its mqtt_sessions row (rewritten
-- whole at every change: quadratic in the queue's size) to a row per message.

-- CreateTable
CREATE TABLE "mqtt_session_messages" (
    "seq" BIGSERIAL NOT NULL,
    "client_id" TEXT NOT NULL,
    "organization_id" TEXT NOT NULL,
    "broker_id" TEXT NOT NULL,
    "broker_counter" BIGINT NOT NULL,
    "topic" TEXT NOT NULL,
    "payload" BYTEA NOT NULL,
    "qos" INTEGER NOT NULL,
    "retain" BOOLEAN NOT NULL,
    "properties" JSONB,

    CONSTRAINT "mqtt_session_messages_pkey" PRIMARY KEY ("seq")
);

-- CreateIndex
CREATE INDEX "mqtt_session_messages_organization_id_idx" ON "mqtt_session_messages"("organization_id");

-- CreateIndex
CREATE UNIQUE INDEX "mqtt_session_messages_client_id_broker_id_broker_counter_key" ON "mqtt_session_messages"("client_id", "broker_id", "broker_counter");

-- AddForeignKey
ALTER TABLE "mqtt_session_messages" ADD CONSTRAINT "mqtt_session_messages_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The queues kept so far, in their order.
INSERT INTO "mqtt_session_messages" ("client_id", "organization_id", "broker_id", "broker_counter", "topic", "payload", "qos", "retain", "properties")
SELECT s."client_id", s."organization_id",
       COALESCE(m.packet->>'brokerId', 'restored'),
       COALESCE((m.packet->>'brokerCounter')::BIGINT, m.position),
       m.packet->>'topic',
       decode(COALESCE(m.packet->>'payload', ''), 'base64'),
       COALESCE((m.packet->>'qos')::INTEGER, 1),
       COALESCE((m.packet->>'retain')::BOOLEAN, false),
       CASE WHEN m.packet ? 'properties' OR m.packet ? 'messageExpiry'
            THEN jsonb_strip_nulls(jsonb_build_object('properties', m.packet->'properties', 'messageExpiry', m.packet->'messageExpiry'))
       END
FROM "mqtt_sessions" s
CROSS JOIN LATERAL jsonb_array_elements(s."outgoing") WITH ORDINALITY AS m(packet, position)
WHERE jsonb_typeof(s."outgoing") = 'array' AND m.packet->>'topic' IS NOT NULL
ORDER BY s."client_id", m.position
ON CONFLICT DO NOTHING;

-- AlterTable
ALTER TABLE "mqtt_sessions" DROP COLUMN "outgoing";
