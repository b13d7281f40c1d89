-- AlterTable
ALTER TABLE "mqtt_session_messages" ADD COLUMN     "pubrel_message_id" INTEGER;
