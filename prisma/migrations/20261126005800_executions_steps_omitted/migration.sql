-- AlterTable
ALTER TABLE "executions" ADD COLUMN     "steps_omitted" INTEGER NOT NULL DEFAULT 0;
