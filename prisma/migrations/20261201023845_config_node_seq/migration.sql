-- AlterTable
ALTER TABLE "config_nodes" ADD COLUMN     "seq" BIGSERIAL NOT NULL;
