-- AlterTable
ALTER TABLE "deployments" ADD COLUMN     "changes" JSONB;
