-- AlterTable
ALTER TABLE "devices" ADD COLUMN     "refused" JSONB NOT NULL DEFAULT '{}';
