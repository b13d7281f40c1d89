-- AlterTable
ALTER TABLE "mqtt_retained" ADD COLUMN     "properties" JSONB;
